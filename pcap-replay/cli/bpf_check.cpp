#include "bpf_check.hpp"

#include <pcap/pcap.h>

namespace replay {

namespace {
// Snapshot length of the dummy handle: libpcap's default maximum (MAXIMUM_SNAPLEN).
constexpr int kDeadSnaplen = 262144;
}  // namespace

std::optional<std::string> bpf_error(const std::string& expr) {
  pcap_t* p = pcap_open_dead(DLT_EN10MB, kDeadSnaplen);
  if (!p) return std::string("libpcap could not create a handle to compile the filter on");
  bpf_program prog{};
  std::optional<std::string> err;
  if (pcap_compile(p, &prog, expr.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0)
    err = pcap_geterr(p);
  else
    pcap_freecode(&prog);
  pcap_close(p);
  return err;
}

}  // namespace replay

// libpcap BPF: pcap_open_dead + pcap_compile per link type, pcap_offline_filter per frame.
#include "input/bpf_filter.hpp"

#include <pcap/pcap.h>

namespace replay {

struct BpfFilter::Program {
  int dlt = 0;
  std::uint32_t snaplen = 0;
  bool compiled = false;
  std::string error;
  bpf_program prog{};
  ~Program() {
    if (compiled) pcap_freecode(&prog);
  }
};

BpfFilter::BpfFilter(std::string expression) : expr_(std::move(expression)) {}
BpfFilter::BpfFilter(BpfFilter&&) noexcept = default;
BpfFilter& BpfFilter::operator=(BpfFilter&&) noexcept = default;
BpfFilter::~BpfFilter() = default;

BpfFilter::Program* BpfFilter::find(int dlt, std::uint32_t snaplen) {
  for (auto& p : programs_)
    if (p->dlt == dlt && p->snaplen == snaplen) return p.get();
  auto p = std::make_unique<Program>();
  p->dlt = dlt;
  p->snaplen = snaplen;
  // pcap_open_dead needs a positive snaplen; 0 in a file means "no limit".
  const int snap = snaplen == 0 || snaplen > 262144 ? 262144 : static_cast<int>(snaplen);
  pcap_t* dead = pcap_open_dead(dlt, snap);
  if (dead == nullptr) {
    p->error = "libpcap cannot make a handle for link type " + std::to_string(dlt);
  } else {
    if (pcap_compile(dead, &p->prog, expr_.c_str(), 1, PCAP_NETMASK_UNKNOWN) == 0)
      p->compiled = true;
    else
      p->error = pcap_geterr(dead);
    pcap_close(dead);
  }
  programs_.push_back(std::move(p));
  return programs_.back().get();
}

std::optional<std::string> BpfFilter::prepare(int dlt, std::uint32_t snaplen) {
  if (!active()) return std::nullopt;
  Program* p = find(dlt, snaplen);
  if (p->compiled) return std::nullopt;
  return p->error;
}

bool BpfFilter::matches(int dlt, std::uint32_t snaplen, std::span<const std::uint8_t> frame, std::uint32_t wire_len) {
  if (!active()) return true;
  Program* p = programs_.size() == 1 && programs_[0]->dlt == dlt && programs_[0]->snaplen == snaplen
                   ? programs_[0].get()
                   : find(dlt, snaplen);
  if (!p->compiled) return false;
  pcap_pkthdr h{};
  h.caplen = static_cast<bpf_u_int32>(frame.size());
  h.len = wire_len;
  return pcap_offline_filter(&p->prog, &h, frame.data()) != 0;
}

}  // namespace replay

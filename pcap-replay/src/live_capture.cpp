// Live capture through libpcap: open, filter, decode each packet.
#include "live_capture.hpp"

#include <pcap/pcap.h>

#include <span>

#include "decode_link.hpp"
#include <replay/thresholds.hpp>

namespace replay {

struct LiveCapture::Handle {
  pcap_t* p = nullptr;
  ~Handle() {
    if (p != nullptr) pcap_close(p);
  }
};

LiveCapture::LiveCapture(LiveCapture&&) noexcept = default;
LiveCapture& LiveCapture::operator=(LiveCapture&&) noexcept = default;
LiveCapture::~LiveCapture() = default;

std::variant<LiveCapture, std::string> LiveCapture::open(const std::string& iface, const std::string& bpf) {
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  LiveCapture c;
  c.iface_ = iface;
  c.h_ = std::make_unique<Handle>();
  c.h_->p = pcap_create(iface.c_str(), errbuf);
  const std::string where = "live:" + iface + ": ";
  if (c.h_->p == nullptr) return where + "cannot capture: " + errbuf;
  pcap_t* p = c.h_->p;
  pcap_set_snaplen(p, 262144);
  pcap_set_immediate_mode(p, 1);
  pcap_set_timeout(p, static_cast<int>(limits::kLiveStatusInterval.count()));
  c.nano_ = pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO) == 0;
  const int rc = pcap_activate(p);
  if (rc < 0) {
    std::string why = pcap_geterr(p);
    if (rc == PCAP_ERROR_NO_SUCH_DEVICE) why = "no such interface (" + why + ")";
    else if (rc == PCAP_ERROR_PERM_DENIED) why = "permission denied (run as root or with CAP_NET_RAW): " + why;
    return where + "cannot capture: " + why;
  }
  c.dlt_ = pcap_datalink(p);
  if (!link_type_supported(c.dlt_)) {
    return where + "link type " + std::to_string(c.dlt_) + " is not supported";
  }
  if (!bpf.empty()) {
    bpf_program prog{};
    if (pcap_compile(p, &prog, bpf.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0) {
      return where + "BPF filter \"" + bpf + "\" does not compile: " + pcap_geterr(p);
    }
    const int set = pcap_setfilter(p, &prog);
    pcap_freecode(&prog);
    if (set != 0) return where + "BPF filter \"" + bpf + "\" cannot be set: " + pcap_geterr(p);
  }
  return c;
}

int LiveCapture::next(Segment& out) {
  for (;;) {
    pcap_pkthdr* hdr = nullptr;
    const u_char* data = nullptr;
    const int rc = pcap_next_ex(h_->p, &hdr, &data);
    if (rc == 0) return 0;  // read timeout
    if (rc < 0) {
      error_ = "live:" + iface_ + ": capture failed: " + pcap_geterr(h_->p);
      return -1;
    }
    ++st_.frames;
    const FrameKind k = decode_frame_into(dlt_, std::span<const std::uint8_t>(data, hdr->caplen), hdr->len, out, issue_);
    if (k == FrameKind::kMalformed) ++st_.malformed;
    if (k != FrameKind::kTcp) continue;
    ++st_.tcp_segments;
    out.file_index = 0;
    out.frame = st_.frames;
    // With nanosecond precision granted, tv_usec holds nanoseconds.
    const std::chrono::nanoseconds frac = nano_ ? std::chrono::nanoseconds(hdr->ts.tv_usec)
                                                : std::chrono::microseconds(hdr->ts.tv_usec);
    out.time = CaptureTime(std::chrono::seconds(hdr->ts.tv_sec) + frac);
    return 1;
  }
}

LiveStats LiveCapture::stats() {
  pcap_stat ps{};
  if (pcap_stats(h_->p, &ps) == 0) {
    st_.kernel_received = ps.ps_recv;
    st_.kernel_dropped = static_cast<std::uint64_t>(ps.ps_drop) + ps.ps_ifdrop;
  }
  return st_;
}

}  // namespace replay

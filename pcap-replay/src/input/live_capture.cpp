// Live capture through libpcap: open, filter, wait with poll(2), decode.
#include "input/live_capture.hpp"

#include <pcap/pcap.h>
#include <poll.h>

#include <cerrno>
#include <span>

#include "input/decode_link.hpp"
#include <replay/input/reader_limits.hpp>

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

namespace {
// pcap_activate's failure, as a reason a person can act on.
std::string activate_error(int rc, pcap_t* p) {
  const std::string pcap_says = pcap_geterr(p);
  switch (rc) {
    case PCAP_ERROR_NO_SUCH_DEVICE:
      return "no such interface (" + pcap_says + ")";
    case PCAP_ERROR_PERM_DENIED:
    case PCAP_ERROR_PROMISC_PERM_DENIED:
      return "permission denied: live capture needs root or the CAP_NET_RAW capability (" + pcap_says + ")";
    case PCAP_ERROR_IFACE_NOT_UP:
      return "the interface is not up (" + pcap_says + ")";
    default:
      return pcap_says.empty() ? std::string(pcap_statustostr(rc)) : pcap_says;
  }
}
}  // namespace

std::variant<LiveCapture, std::string> LiveCapture::open(const std::string& iface, const std::string& bpf) {
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  LiveCapture c;
  c.name_ = "live:" + iface;
  const std::string where = c.name_ + ": cannot capture: ";
  c.h_ = std::make_unique<Handle>();
  c.h_->p = pcap_create(iface.c_str(), errbuf);
  if (c.h_->p == nullptr) return where + errbuf;
  pcap_t* p = c.h_->p;
  pcap_set_snaplen(p, kSnaplen);
  // Not immediate mode: on Linux that means TPACKET_V2, one ring slot per
  // packet sized for the largest frame (64 KiB on an interface with
  // offloads), so 2 MiB hold 32 packets and a burst overflows it. Without
  // it (TPACKET_V3, as tcpdump) packets are packed into blocks handed over
  // when full or after this timeout: the report does not need them sooner.
  pcap_set_timeout(p, static_cast<int>(limits::kLivePollWait.count()));
  pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO);  // refused: microseconds
  const int rc = pcap_activate(p);
  if (rc < 0) return where + activate_error(rc, p);
  c.nano_ = pcap_get_tstamp_precision(p) == PCAP_TSTAMP_PRECISION_NANO;
  c.dlt_ = pcap_datalink(p);
  if (!link_type_supported(c.dlt_)) {
    const char* dlt_name = pcap_datalink_val_to_name(c.dlt_);
    return where + "link type " + std::to_string(c.dlt_) + " (" + (dlt_name ? dlt_name : "no libpcap name") +
           ") is not supported";
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
  if (pcap_setnonblock(p, 1, errbuf) != 0) return where + "cannot make the capture non-blocking: " + errbuf;
  c.fd_ = pcap_get_selectable_fd(p);
  if (c.fd_ < 0) return where + "libpcap gives no descriptor to wait on for this interface";
  return c;
}

void LiveCapture::report(std::string field, std::string message, bool skipped) {
  if (diagnostics_.size() >= limits::kMaxDiagnostics) {
    ++(skipped ? st_.diagnostics_dropped_skipped : st_.diagnostics_dropped_warned);
    return;
  }
  Diagnostic d{name_, st_.frames, std::move(field), std::move(message)};
  d.skipped = skipped;
  diagnostics_.push_back(std::move(d));
}

LiveRead LiveCapture::next(Segment& out, std::chrono::milliseconds wait) {
  pcap_pkthdr* hdr = nullptr;
  const u_char* data = nullptr;
  int rc = pcap_next_ex(h_->p, &hdr, &data);
  if (rc == 0) {
    // Nothing buffered: wait for the descriptor. EINTR (SIGINT) is an idle
    // round, so the caller sees its stop flag at once.
    pollfd pfd{fd_, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, static_cast<int>(wait.count()));
    if (ready <= 0) return LiveRead::kIdle;
    rc = pcap_next_ex(h_->p, &hdr, &data);
    if (rc == 0) return LiveRead::kIdle;
  }
  if (rc < 0) {
    error_ = pcap_geterr(h_->p);
    return LiveRead::kError;
  }
  ++st_.frames;
  // With nanosecond precision granted, tv_usec holds nanoseconds.
  const std::chrono::nanoseconds frac = nano_ ? std::chrono::nanoseconds(hdr->ts.tv_usec)
                                              : std::chrono::nanoseconds(std::chrono::microseconds(hdr->ts.tv_usec));
  const CaptureTime t{std::chrono::seconds(hdr->ts.tv_sec) + frac};
  if (!st_.first_frame_time) st_.first_frame_time = t;
  const FrameKind k =
      decode_frame_into(dlt_, std::span<const std::uint8_t>(data, hdr->caplen), hdr->len, out, issue_);
  switch (k) {
    case FrameKind::kNotIp: ++st_.non_ip; return LiveRead::kOther;
    case FrameKind::kNotTcp: ++st_.non_tcp; return LiveRead::kOther;
    case FrameKind::kNonFirstFragment: ++st_.fragments_skipped; return LiveRead::kOther;
    case FrameKind::kMalformed:
      ++st_.malformed;
      report(issue_.error.field, issue_.error.message, true);
      return LiveRead::kOther;
    case FrameKind::kTcp: break;
  }
  if (issue_.warning) report(issue_.warning->field, issue_.warning->message, false);
  ++st_.tcp_segments;
  out.file_index = 0;
  out.frame = st_.frames;
  out.time = t;
  return LiveRead::kSegment;
}

const LiveStats& LiveCapture::read_kernel_counters() {
  pcap_stat ps{};
  if (pcap_stats(h_->p, &ps) == 0) {
    st_.kernel_received = ps.ps_recv;
    st_.kernel_dropped = ps.ps_drop;
    st_.interface_dropped = ps.ps_ifdrop;
  }
  return st_;
}

}  // namespace replay

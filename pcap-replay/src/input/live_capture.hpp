#pragma once
// Live capture on a network interface through libpcap (check -i IFACE):
// the packets of one interface, decoded as CaptureReader decodes a file's
// frames, numbered from 1 in the order libpcap delivers them.
//
// The handle is non-blocking and waited on with poll(2) on libpcap's
// selectable descriptor (pcap_get_selectable_fd), at most a given time per
// call: a blocking pcap_next_ex in immediate mode does not return on an idle
// interface, so neither --duration nor SIGINT could end the capture.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <replay/input/decode_frame.hpp>
#include <replay/input/diagnostic.hpp>
#include <replay/input/segment.hpp>

namespace replay {

/// Counters of a live capture so far. frames = tcp_segments + non_ip +
/// non_tcp + fragments_skipped + malformed (the BPF filter runs in the
/// kernel: what it rejects is not delivered and not counted).
struct LiveStats {
  std::uint64_t frames = 0;             ///< packets delivered, numbered from 1 like a file's frames
  std::uint64_t tcp_segments = 0;       ///< TCP segments decoded
  std::uint64_t non_ip = 0;             ///< link payload not IPv4/IPv6 (ARP, ...)
  std::uint64_t non_tcp = 0;            ///< IP, not TCP
  std::uint64_t fragments_skipped = 0;  ///< non-first IP fragments
  std::uint64_t malformed = 0;          ///< frames that did not decode (a Diagnostic each)
  std::optional<CaptureTime> first_frame_time;  ///< timestamp of frame 1 (the report's time origin)
  /// pcap_stats(3PCAP) ps_recv: packets the kernel handed to this socket
  /// (on Linux, dropped ones included).
  std::uint64_t kernel_received = 0;
  std::uint64_t kernel_dropped = 0;    ///< ps_drop: lost because the capture buffer was full
  std::uint64_t interface_dropped = 0; ///< ps_ifdrop: dropped by the interface or its driver
  /// Diagnostics beyond limits::kMaxDiagnostics, counted and not kept.
  std::uint64_t diagnostics_dropped_skipped = 0;
  std::uint64_t diagnostics_dropped_warned = 0;
};

/// What one LiveCapture::next call found.
enum class LiveRead {
  kSegment,  ///< a TCP segment, in `out`
  kOther,    ///< a packet that is not (usable) TCP: counted, maybe a Diagnostic
  kIdle,     ///< nothing arrived within the wait (or a signal interrupted it)
  kError,    ///< the capture failed (the interface went away): error()
};

/// A libpcap live capture on one interface: pcap_create, snaplen
/// kSnaplen, libpcap's default buffer (2 MiB), packets handed over in
/// blocks at most limits::kLivePollWait late (not immediate mode, as
/// tcpdump), nanosecond timestamps when the kernel gives them, non-blocking.
class LiveCapture {
 public:
  /// tcpdump's default snapshot length: whole packets.
  static constexpr int kSnaplen = 262'144;

  /// Opens `iface` for capture and sets the BPF filter `bpf` (tcpdump
  /// syntax; empty: everything). The error, as one sentence starting
  /// "live:IFACE: cannot capture: ", names the cause: no such interface,
  /// permission denied (not root, no CAP_NET_RAW), the interface is down, a
  /// link type pcap-replay does not decode, a filter that does not compile.
  static std::variant<LiveCapture, std::string> open(const std::string& iface, const std::string& bpf);
  LiveCapture(LiveCapture&&) noexcept;
  LiveCapture& operator=(LiveCapture&&) noexcept;
  ~LiveCapture();

  /// Reads one packet if one is buffered, else waits up to `wait` for one
  /// (poll(2); a signal ends the wait early, kIdle). A TCP segment fills
  /// `out` (file_index 0, frame, time): kSegment.
  LiveRead next(Segment& out, std::chrono::milliseconds wait);
  /// The counters so far; the kernel's as last read_kernel_counters().
  const LiveStats& stats() const { return st_; }
  /// Reads libpcap's kernel counters now (pcap_stats, a system call) into
  /// stats() and returns it.
  const LiveStats& read_kernel_counters();
  /// Problems of single packets, in capture order (at most
  /// limits::kMaxDiagnostics; the rest counted in stats()).
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  /// After kError: libpcap's reason (pcap_geterr).
  const std::string& error() const { return error_; }
  /// "live:IFACE", the input's name in the report.
  const std::string& name() const { return name_; }

 private:
  LiveCapture() = default;
  void report(std::string field, std::string message, bool skipped);
  struct Handle;
  std::unique_ptr<Handle> h_;
  std::string name_, error_;
  int dlt_ = 0;
  int fd_ = -1;        // pcap_get_selectable_fd
  bool nano_ = false;  // libpcap granted nanosecond timestamps
  LiveStats st_;
  FrameIssue issue_;
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace replay

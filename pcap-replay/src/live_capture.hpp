// Live capture on a network interface through libpcap (check -i IFACE).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <variant>

#include <replay/decode_frame.hpp>
#include <replay/segment.hpp>

namespace replay {

/// Packet counts libpcap reports for a live capture (pcap_stats(3PCAP)).
struct LiveStats {
  std::uint64_t frames = 0;         ///< packets delivered to us, numbered from 1 like a file's frames
  std::uint64_t tcp_segments = 0;   ///< TCP segments decoded (after the BPF filter)
  std::uint64_t malformed = 0;      ///< frames that did not decode
  std::uint64_t kernel_received = 0;  ///< ps_recv: packets the kernel saw for this socket
  std::uint64_t kernel_dropped = 0;   ///< ps_drop + ps_ifdrop: packets lost (buffer full): data lost
};

/// A libpcap live capture on one interface (pcap_create + pcap_activate,
/// snaplen 262144, immediate mode, read timeout limits::kLiveStatusInterval).
class LiveCapture {
 public:
  /// Opens `iface` and compiles `bpf` (empty: everything) with pcap_setfilter.
  /// Errors (no such interface, no permission, a filter that does not
  /// compile) come back as a message naming the interface.
  static std::variant<LiveCapture, std::string> open(const std::string& iface, const std::string& bpf);
  LiveCapture(LiveCapture&&) noexcept;
  LiveCapture& operator=(LiveCapture&&) noexcept;
  ~LiveCapture();

  /// Waits at most the read timeout for the next TCP segment. Returns 1 with
  /// `out` filled (file_index 0, frame, time), 0 on timeout (the caller then
  /// checks its clock and stop flag), -1 on a capture error (error()).
  int next(Segment& out);
  /// libpcap's counters, read now (pcap_stats).
  LiveStats stats();
  /// The capture error after next() returned -1.
  const std::string& error() const { return error_; }

 private:
  LiveCapture() = default;
  struct Handle;
  std::unique_ptr<Handle> h_;
  std::string iface_, error_;
  int dlt_ = 0;
  bool nano_ = false;  // libpcap granted nanosecond timestamps
  LiveStats st_;
  FrameIssue issue_;
};

}  // namespace replay

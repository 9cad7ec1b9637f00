#pragma once
// What the capture saw of one sending host across all its connections. A
// burst of packets right after a silence of the host, in which one packet's
// own TSval proves it was sent well before it was captured (or a pure ACK of
// data that arrived more than RFC 1122's 0.5 s delayed-ACK limit ago), is a queue being
// flushed (a Wi-Fi uplink waking up, a capture app catching up, a stalled
// tap): none of that burst's capture times is a send time, so a timer
// judgement resting on one of them is ambiguous, not a departure.

#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include <replay/analysis/thresholds.hpp>
#include <replay/input/segment.hpp>

namespace replay {

class HostActivity {
 public:
  /// A packet of this host (file `file`, frame `frame`) captured at `t`;
  /// `held`: its TSval shows it was sent at least limits::kFlushHeld before,
  /// or it is a pure ACK first acknowledging data over limits::kDelayedAckMax old.
  void observe(std::size_t file, std::uint64_t frame, CaptureTime t, bool held);
  /// True when the packet was part of a flushed burst (see above).
  bool flushed(std::size_t file, std::uint64_t frame) const;
  /// Whether observe() of a packet captured at `t` reads its `held`: only
  /// inside a burst (the first packet after a silence, or one within
  /// limits::kFlushWindow of it); elsewhere any value gives the same state.
  bool reads_held(CaptureTime t) const {
    if (last_ && t - *last_ >= limits::kFlushSilence) return true;
    return burst_start_ && t - *burst_start_ <= limits::kFlushWindow;
  }

 private:
  std::optional<CaptureTime> last_;
  std::optional<CaptureTime> burst_start_;  // set while a burst after a silence is open
  bool burst_held_ = false;
  std::vector<std::pair<std::size_t, std::uint64_t>> burst_;
  std::set<std::pair<std::size_t, std::uint64_t>> flushed_;
};

}  // namespace replay

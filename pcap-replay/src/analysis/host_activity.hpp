#pragma once
// What the capture saw of one sending host across all its connections. A
// burst of packets right after a silence of the host, in which one packet
// shows it was held before the capture point, is a queue being flushed (a
// Wi-Fi uplink waking up, a capture app catching up, a VPN app reading its
// tunnel in batches, a stalled tap): none of that burst's capture times is a
// send time, so a timer judgement resting on one of them is ambiguous, not a
// departure. A packet shows it was held when its own TSval says it was sent
// well before its capture, when it is a pure ACK of data that arrived more
// than RFC 1122's 0.5 s delayed-ACK limit ago, or when it repeats its
// connection's previous data sooner than any timer resends it with nothing
// from the peer between (HoldSign; HostFeed::feed_activity).

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include <replay/analysis/judgement.hpp>
#include <replay/analysis/thresholds.hpp>
#include <replay/input/segment.hpp>

namespace replay {

class HostActivity {
 public:
  /// The packet that showed a burst held, and how.
  struct Hold {
    std::uint64_t frame = 0;
    HoldSign sign = HoldSign::none;
  };

  /// A packet of this host (file `file`, frame `frame`) captured at `t`;
  /// `held`: how it shows it was held before the capture point (none: it
  /// does not).
  void observe(std::size_t file, std::uint64_t frame, CaptureTime t, HoldSign held);
  /// What showed the burst of this packet held, when it was part of a
  /// flushed burst (see above); nullopt otherwise.
  std::optional<Hold> flushed(std::size_t file, std::uint64_t frame) const;
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
  std::optional<Hold> burst_hold_;          // what showed the open burst held, once something did
  std::vector<std::pair<std::size_t, std::uint64_t>> burst_;
  std::map<std::pair<std::size_t, std::uint64_t>, Hold> flushed_;
};

}  // namespace replay

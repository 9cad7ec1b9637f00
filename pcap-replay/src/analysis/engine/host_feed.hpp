#pragma once
// What one sender's model does to the state its host shares with the
// host's other connections: the host's TSval clock (HostClock, the rate
// pooled across its connections) and its activity (HostActivity, the queue
// flushes the other connections' readings depend on); and what that needs of
// the connection: the sender's own TSval clock, its latest send time, the
// peer's data and the sender's ACKs of it (the late-ACK test).
//
// A judging engine holds one (SenderEngine) and takes its steps in its own
// order; a connection another shard judges (Options::shard) holds one per
// side and nothing else of a model (Live::feeds, on_send / on_peer). Both
// run this code, so a host's shared state is the same, segment by segment,
// in every shard, and so is every other connection's report.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <utility>

#include <rto/seq.hpp>

#include <replay/analysis/ring_deque.hpp>
#include <replay/analysis/rtt_sampling.hpp>
#include <replay/input/segment.hpp>

#include "analysis/clock_steps.hpp"
#include "analysis/engine/sender_state.hpp"
#include "analysis/host_activity.hpp"

namespace replay::engine {

/// What a feed writes to and reads of, given with each call: its host's
/// activity and its input's clock steps (either may be null). A judging
/// engine holds them among its own members; another shard's connection in
/// its HostFeeds.
struct FeedContext {
  HostActivity* activity = nullptr;
  const ClockSteps* clock = nullptr;
};

class alignas(64) HostFeed {  // three cache lines
 public:
  /// `host`: the sending host's pooled TSval rate (may be null; must outlive
  /// the feed). `feed_activity`: this feed writes its host's activity (one
  /// model per packet does: the first profile's).
  HostFeed(HostClock* host, bool feed_activity) : feed_activity_(feed_activity) { ts_clock_.set_host(host); }

  // ---- a sender only fed (judged elsewhere, or past --max-outstanding) ----
  /// A segment this side sent: what it does to its host's shared state
  /// (`rate_then` set: its first, replayed; see replay_first_send).
  void on_send(const Segment& s, const FeedContext& c, const std::optional<double>* rate_then = nullptr);
  /// A segment the peer sent.
  void on_peer(const Segment& s) { feed_peer(s); }
  /// on_send(s) for the sender's first segment, in a feed made after it was
  /// captured: its host's state was fed then, and is not again (`rate_then`:
  /// what a new TsClock of the host read right after observing it then; see
  /// SenderEngine::replay_first_send).
  void replay_first_send(const Segment& s, std::optional<double> rate_then, const FeedContext& c) {
    on_send(s, c, &rate_then);
  }
  /// From now on the TSval clock keeps no send times (no echo is sampled).
  void forget_send_times() { ts_clock_.forget_send_times(); }

  // ---- the steps, for a judging engine ----
  /// The TSval clock fed with `s` (bridged across a step of `clock` since
  /// the latest send; `rate_then`: a replayed first send's, as on_send);
  /// TsClock::held_for() of `s` when `want_held` (else nullopt).
  std::optional<std::chrono::microseconds> feed_clock(const Segment& s, bool want_held, const ClockSteps* clock,
                                                      const std::optional<double>* rate_then);
  /// The host's activity fed with `s` (`held`: held_for() of it, as the
  /// judging engine took it; nullptr: taken here, only where the activity
  /// reads it; not fed for a replayed first send), and the sender's ACKs
  /// of the peer's data. Evidence that `s` was held before the capture
  /// point: that held_for() of limits::kFlushHeld or more; a pure ACK first
  /// acknowledging peer data over limits::kDelayedAckMax old; or the same
  /// segment (sequence number and length) sent again sooner than
  /// limits::kMinTimerWait after it, with nothing from the peer between
  /// (call before sent() of `s`).
  void feed_activity(const Segment& s, const MaybeMicros* held, const FeedContext& c, bool replayed);
  /// The segment feed_activity() read last was a repeat: its connection's
  /// previous data again, sooner than any timer and with nothing from the
  /// peer to clock it (HoldSign::repeat), whichever sign its hold records.
  bool repeated() const { return repeat_; }
  /// The peer's segment `s`: its TSecr echoes the sender's clock; its data
  /// is kept for the late-ACK test (the latest limits::kPeerDataHistory).
  void feed_peer(const Segment& s);
  /// The sender's latest segment `s` (not a RST): its capture time, and
  /// where its data began (the repeat test of feed_activity).
  void sent(const Segment& s) {
    last_send_time_ = s.time;
    last_data_seq_ = s.tcp.seq;
    last_data_len_ = static_cast<std::uint16_t>(std::min<std::uint32_t>(s.payload_len, 0xffff));
    last_was_data_ = s.payload_len > 0;
    peer_since_send_ = false;
  }

  /// The capture time of the earliest peer segment kept that ends at `ack`,
  /// above what the sender acknowledged before: data that reached the
  /// sender before it sent an ACK of `ack` (some copy of it: the earliest
  /// captured is no later than the one it received). nullopt when `ack`
  /// acknowledges nothing new or no kept segment ends there. Call before
  /// feed_activity() of the segment that carries `ack`.
  std::optional<CaptureTime> first_capture_acked(std::uint32_t ack) const;
  /// first_capture_acked(ack) where `ack` newly acknowledges more than
  /// `full_segment` bytes of the peer's data (the peer's largest segment,
  /// at least limits::kDefaultMss: a full-sized one): an ACK no receiver
  /// delays (RFC 1122 4.2.3.2, RFC 5681 4.2: at least every second
  /// full-sized segment; Linux __tcp_ack_snd_check), so the time from that
  /// data's capture to it is a round trip to the sender and back, not a
  /// delayed ACK's timer.
  std::optional<CaptureTime> prompt_capture_acked(std::uint32_t ack, std::uint32_t full_segment) const;
  /// Whether an ACK field of `ack` acknowledges more than any of the
  /// sender's segments so far (call before feed_activity() of its segment).
  bool acks_more(std::uint32_t ack) const { return !has_acked_through_ || rto::seq_gt(ack, acked_through_); }
  const TsClock& ts_clock() const { return ts_clock_; }
  /// Capture time of the sender's latest segment (not a RST).
  const MaybeTime& last_send_time() const { return last_send_time_; }

 private:
  /// A segment of the peer's data: where it ends, its capture time, and its
  /// number among the peer's data segments (the latest kPeerDataHistory count).
  struct PeerData {
    std::uint32_t end;
    std::uint32_t number;
    CaptureTime time;
    bool sacked = false;  // the sender's SACK covered it: answered (the late-ACK test passes it over)
  };
  void drop_acked_peer_data();

  TsClock ts_clock_;
  MaybeTime last_send_time_;
  // The peer's data among its latest limits::kPeerDataHistory segments,
  // but those at the front acked_through_ covers (drop_acked_peer_data):
  // what the late-ACK test reads. Mostly one or two, on one line.
  RingDeque<PeerData> peer_data_;
  std::uint32_t acked_through_ = 0;  // the sender's highest ACK, if has_acked_through_
  std::uint32_t peer_data_count_ = 0;  // the peer's data segments so far (PeerData::number; wraps)
  std::uint32_t last_data_seq_ = 0;    // where the sender's latest segment's data began, if last_was_data_
  std::uint16_t last_data_len_ = 0;    // and its length (at most 65535)
  bool has_acked_through_ : 1 = false;
  bool feed_activity_ : 1 = false;
  bool last_was_data_ : 1 = false;     // the sender's latest segment carried data
  bool peer_since_send_ : 1 = false;   // the peer sent something since the sender's latest segment
  bool repeat_ : 1 = false;            // the segment feed_activity read last was a repeat (HoldSign::repeat)
};
static_assert(sizeof(HostFeed) == 192, "a HostFeed on three cache lines");

}  // namespace replay::engine

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

#include <chrono>
#include <cstdint>
#include <optional>
#include <utility>

#include <replay/analysis/ring_deque.hpp>
#include <replay/analysis/rtt_sampling.hpp>
#include <replay/input/segment.hpp>

#include "analysis/clock_steps.hpp"
#include "analysis/engine/sender_state.hpp"
#include "analysis/host_activity.hpp"

namespace replay::engine {

class HostFeed {
 public:
  /// `host`: the sending host's pooled TSval rate (may be null). `activity`:
  /// the sending host's activity (may be null), fed when `feed_activity`
  /// (one model per packet feeds it: the first profile's). Both must outlive
  /// the feed.
  HostFeed(HostClock* host, HostActivity* activity, bool feed_activity)
      : activity_(activity), feed_activity_(feed_activity) {
    ts_clock_.set_host(host);
  }
  /// The clock steps of the connection's input (may be null: none; must
  /// outlive the feed): a time across one is not compared.
  void set_clock_steps(const ClockSteps* c) { clock_ = c; }

  // ---- a sender only fed (judged elsewhere, or past --max-outstanding) ----
  /// A segment this side sent: what it does to its host's shared state.
  void on_send(const Segment& s);
  /// A segment the peer sent.
  void on_peer(const Segment& s) { feed_peer(s); }
  /// on_send(s) for the sender's first segment, in a feed made after it was
  /// captured: its host's state was fed then, and is not again (`rate_then`:
  /// what a new TsClock of the host read right after observing it then; see
  /// SenderEngine::replay_first_send).
  void replay_first_send(const Segment& s, std::optional<double> rate_then);
  /// From now on the TSval clock keeps no send times (no echo is sampled).
  void forget_send_times() { ts_clock_.forget_send_times(); }

  // ---- the steps, for a judging engine ----
  /// The TSval clock fed with `s` (bridged across a step of the capture
  /// clock since the latest send); TsClock::held_for() of `s` when
  /// `want_held` (else nullopt).
  std::optional<std::chrono::microseconds> feed_clock(const Segment& s, bool want_held);
  /// The host's activity fed with `s` (`held`: held_for() of it, as the
  /// judging engine took it; nullptr: taken here, only where the activity
  /// reads it), and the sender's ACKs of the peer's data.
  void feed_activity(const Segment& s, const std::optional<std::chrono::microseconds>* held);
  /// The peer's segment `s`: its TSecr echoes the sender's clock; its data
  /// is kept for the late-ACK test (the latest limits::kPeerDataHistory).
  void feed_peer(const Segment& s);
  /// The sender's latest segment (not a RST) was captured at `t`.
  void sent(CaptureTime t) { last_send_time_ = t; }
  /// For the duration of a replay_first_send() of a judging engine.
  void replaying(const std::optional<double>* rate_then) { replay_rate_ = rate_then; }

  const TsClock& ts_clock() const { return ts_clock_; }
  /// Capture time of the sender's latest segment (not a RST).
  const MaybeTime& last_send_time() const { return last_send_time_; }
  HostActivity* activity() const { return activity_; }

 private:
  bool across_step(CaptureTime a, CaptureTime b) const { return clock_ && clock_->spans(a, b); }
  void skip_acked_peer_data(std::uint32_t moved);

  TsClock ts_clock_;
  HostActivity* activity_ = nullptr;
  const ClockSteps* clock_ = nullptr;
  const std::optional<double>* replay_rate_ = nullptr;  // set while a first send is replayed
  MaybeTime last_send_time_;
  std::optional<std::uint32_t> acked_through_;  // the sender's highest ACK
  // The peer's data (its end, its capture time), the latest few, and how
  // many at their start acked_through_ covers (skip_acked_peer_data).
  RingDeque<std::pair<std::uint32_t, CaptureTime>> peer_data_;
  std::uint32_t peer_data_acked_ = 0;
  std::uint32_t acked_moved_ = 0;  // acked_through_'s movement since peer_data_acked_ was counted
  bool feed_activity_ = false;
};

}  // namespace replay::engine

#include "analysis/engine/host_feed.hpp"

#include <rto/seq.hpp>

#include <replay/analysis/thresholds.hpp>

namespace replay::engine {

using std::chrono::microseconds;

void HostFeed::on_send(const Segment& s, const FeedContext& c, const std::optional<double>* rate_then) {
  feed_clock(s, false, c.clock, rate_then);
  feed_activity(s, nullptr, c, rate_then != nullptr);
  if (!s.tcp.has(wire::kRst)) last_send_time_ = s.time;
}

std::optional<microseconds> HostFeed::feed_clock(const Segment& s, bool want_held, const ClockSteps* clock,
                                                 const std::optional<double>* rate_then) {
  const auto& tsval = s.tcp.options.tsval;
  // The first transmission after a step of the capture clock: the TSvals
  // sent so far are from before it; the TSval clock bridges it.
  if (last_send_time_ && clock && clock->spans(*last_send_time_, s.time)) ts_clock_.clock_stepped();
  if (!tsval) return std::nullopt;
  if (rate_then)
    ts_clock_.observe_first_again(s.time, *tsval, *rate_then);
  else
    ts_clock_.observe(s.time, *tsval);
  return want_held ? ts_clock_.held_for(s.time, *tsval) : std::nullopt;
}

void HostFeed::feed_activity(const Segment& s, const MaybeMicros* held, const FeedContext& c, bool replayed) {
  const auto& h = s.tcp;
  HostActivity* const activity = c.activity;
  const bool feed = activity && feed_activity_ && !replayed;
  const bool acked_more = !has_acked_through_ || rto::seq_gt(h.ack, acked_through_);
  if (feed && !held && !activity->reads_held(s.time)) {
    activity->observe(s.file_index, s.frame, s.time, false);
  } else if (feed) {
    bool held_long = false;
    if (held) {
      held_long = *held && **held >= limits::kFlushHeld;
    } else {  // (only fed: nobody took it)
      const auto mine = h.options.tsval ? ts_clock_.held_for(s.time, *h.options.tsval) : std::nullopt;
      held_long = mine && *mine >= limits::kFlushHeld;
    }
    bool late_ack = false;
    if (s.payload_len == 0 && h.has(wire::kAck) && !h.has(wire::kSyn) && acked_more) {
      // The first ACK of peer data the capture saw arrive over 0.5 s ago.
      for (std::size_t i = peer_data_acked_; i < peer_data_.size(); ++i) {
        const auto& [end, t] = peer_data_[i];
        if ((!has_acked_through_ || rto::seq_gt(end, acked_through_)) && rto::seq_le(end, h.ack)) {
          late_ack = since(s.time, t) > limits::kDelayedAckMax && !(c.clock && c.clock->spans(t, s.time));
          break;
        }
      }
    }
    activity->observe(s.file_index, s.frame, s.time, held_long || late_ack);
  }
  if (h.has(wire::kAck) && acked_more) {
    const std::uint32_t moved = has_acked_through_ ? h.ack - acked_through_ : 0;
    acked_through_ = h.ack;
    has_acked_through_ = true;
    skip_acked_peer_data(moved);
  }
}

void HostFeed::feed_peer(const Segment& s) {
  if (s.tcp.options.tsecr) ts_clock_.echoed(*s.tcp.options.tsecr);
  if (s.payload_len > 0) {  // for the late-ACK test of feed_activity
    peer_data_.emplace_back(s.tcp.seq + s.payload_len, s.time);
    if (peer_data_.size() > limits::kPeerDataHistory) {
      peer_data_.pop_front();
      if (peer_data_acked_ > 0) --peer_data_acked_;
    }
  }
}

std::optional<CaptureTime> HostFeed::first_capture_acked(std::uint32_t ack) const {
  if (has_acked_through_ && !rto::seq_gt(ack, acked_through_)) return std::nullopt;
  for (std::size_t i = peer_data_acked_; i < peer_data_.size(); ++i)
    if (peer_data_[i].first == ack) return peer_data_[i].second;
  return std::nullopt;
}

void HostFeed::skip_acked_peer_data(std::uint32_t moved) {
  // An entry at or below acked_through_ fails the late-ACK test's first
  // condition for as long as acked_through_ has moved less than 2^31 minus
  // its distance below it; entries at most 2^30 below are counted, and the
  // count is redone once acked_through_ has moved 2^30 since.
  constexpr std::uint32_t kQuarter = std::uint32_t{1} << 30;
  if (moved >= kQuarter - acked_moved_) {
    peer_data_acked_ = 0;
    acked_moved_ = 0;
  } else {
    acked_moved_ += moved;
  }
  while (peer_data_acked_ < peer_data_.size()) {
    const std::int32_t below = rto::seq_diff(peer_data_[peer_data_acked_].first, acked_through_);
    if (below > 0 || below < -static_cast<std::int32_t>(kQuarter)) break;
    ++peer_data_acked_;
  }
}

}  // namespace replay::engine

#include "analysis/engine/host_feed.hpp"

#include <rto/seq.hpp>

#include <replay/analysis/thresholds.hpp>

namespace replay::engine {

using std::chrono::microseconds;

void HostFeed::on_send(const Segment& s, const FeedContext& c, const std::optional<double>* rate_then) {
  feed_clock(s, false, c.clock, rate_then);
  feed_activity(s, nullptr, c, rate_then != nullptr);
  if (!s.tcp.has(wire::kRst)) sent(s);
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
  repeat_ = false;
  if (feed && !held && !activity->reads_held(s.time)) {
    activity->observe(s.file_index, s.frame, s.time, HoldSign::none);
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
      // The first ACK of peer data the capture saw arrive over 0.5 s ago:
      // the first data it acknowledges, at its latest copy (a resend of it
      // may be the copy that reached the sender, and its delayed ACK counts
      // from there).
      std::optional<std::uint32_t> first_end;
      CaptureTime latest{};
      for (std::size_t i = 0; i < peer_data_.size(); ++i) {
        const PeerData& d = peer_data_[i];
        if ((has_acked_through_ && !rto::seq_gt(d.end, acked_through_)) || !rto::seq_le(d.end, h.ack) || d.sacked)
          continue;
        if (!first_end || rto::seq_lt(d.end, *first_end)) {
          first_end = d.end;
          latest = d.time;
        } else if (d.end == *first_end && d.time > latest) {
          latest = d.time;
        }
      }
      if (first_end)
        late_ack = since(s.time, latest) > limits::kDelayedAckMax && !(c.clock && c.clock->spans(latest, s.time));
    }
    // The same data sent twice in a row, sooner apart than any stack's
    // timer resends it, with nothing from the peer to clock the second
    // (an ACK or SACK would be captured between them at a capture near the
    // sender): the two left the sender a timer's wait or more apart and
    // were captured together, released from a queue (a VPN app reading its
    // tunnel in batches, a stalled tap).
    // At least as long: a path-MTU resend (the same sequence number,
    // shorter, at once after an ICMP "too big" the TCP capture does not
    // show) is no repeat; one as long or longer sends all that data again.
    const bool repeat = s.payload_len > 0 && last_was_data_ && h.seq == last_data_seq_ &&
                        std::min<std::uint32_t>(s.payload_len, 0xffff) >= last_data_len_ && !peer_since_send_ &&
                        last_send_time_ && since(s.time, *last_send_time_) < limits::kMinTimerWait &&
                        !(c.clock && c.clock->spans(*last_send_time_, s.time));
    repeat_ = repeat;
    const HoldSign sign = held_long  ? HoldSign::tsval
                          : late_ack ? HoldSign::late_ack
                          : repeat   ? HoldSign::repeat
                                     : HoldSign::none;
    activity->observe(s.file_index, s.frame, s.time, sign);
  }
  // A SACK block answers the peer's data it covers: a later cumulative ACK
  // of it is no late answer to its arrival (the late-ACK test).
  for (std::uint8_t b = 0; b < h.options.sack_count && b < h.options.sack.size(); ++b)
    for (std::size_t i = 0; i < peer_data_.size(); ++i) {
      PeerData& d = peer_data_[i];
      if (rto::seq_gt(d.end, h.options.sack[b].left) && rto::seq_le(d.end, h.options.sack[b].right)) d.sacked = true;
    }
  if (h.has(wire::kAck) && acked_more) {
    acked_through_ = h.ack;
    has_acked_through_ = true;
    drop_acked_peer_data();
  }
}

void HostFeed::feed_peer(const Segment& s) {
  peer_since_send_ = true;
  if (s.tcp.options.tsecr) ts_clock_.echoed(*s.tcp.options.tsecr);
  if (s.payload_len > 0) {  // for the late-ACK test of feed_activity
    // The latest kPeerDataHistory of the peer's data segments (numbers
    // count - kPeerDataHistory + 1 to count), this one among them.
    const std::uint32_t number = ++peer_data_count_;
    while (!peer_data_.empty() && number - peer_data_.front().number >= limits::kPeerDataHistory)
      peer_data_.pop_front();
    peer_data_.push_back(PeerData{s.tcp.seq + s.payload_len, number, s.time, false});
  }
}

std::optional<CaptureTime> HostFeed::first_capture_acked(std::uint32_t ack) const {
  if (has_acked_through_ && !rto::seq_gt(ack, acked_through_)) return std::nullopt;
  for (std::size_t i = 0; i < peer_data_.size(); ++i)
    if (peer_data_[i].end == ack) return peer_data_[i].time;
  return std::nullopt;
}

std::optional<CaptureTime> HostFeed::prompt_capture_acked(std::uint32_t ack, std::uint32_t full_segment) const {
  // More than one full-sized segment (Linux __tcp_ack_snd_check: rcv_nxt -
  // rcv_wup above rcv_mss): the receiver does not delay the ACK.
  if (!has_acked_through_ || !rto::seq_gt(ack, acked_through_) ||
      static_cast<std::uint32_t>(rto::seq_diff(ack, acked_through_)) <= full_segment)
    return std::nullopt;
  // (More than the peer's largest segment: two or more of them.)
  return first_capture_acked(ack);
}

void HostFeed::drop_acked_peer_data() {
  // Data at or below acked_through_ is not what a later ACK first
  // acknowledges (the late-ACK test, first_capture_acked): the front of it
  // goes. One more than 2^30 below stops it, as it stopped the count of
  // them before (an unambiguous sequence comparison needs less than 2^31).
  constexpr std::uint32_t kQuarter = std::uint32_t{1} << 30;
  while (!peer_data_.empty()) {
    const std::int32_t below = rto::seq_diff(peer_data_.front().end, acked_through_);
    if (below > 0 || below < -static_cast<std::int32_t>(kQuarter)) break;
    peer_data_.pop_front();
  }
}

}  // namespace replay::engine

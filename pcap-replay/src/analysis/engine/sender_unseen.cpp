// SenderEngine: the sender's packets the capture did not see, shown by its
// IPv4 ID counter, and the transmission that resends one of them.
#include <algorithm>
#include <array>
#include <optional>

#include <replay/analysis/thresholds.hpp>

#include "analysis/capture_copy.hpp"
#include "analysis/engine/sender_engine.hpp"

namespace replay::engine {

using std::chrono::microseconds;

unsigned SenderEngine::unseen_before(const Segment& captured, std::uint64_t& after_frame,
                                     CaptureTime& after_time) const {
  // The ring's newest is `captured` (pushed before the model sees it); a
  // segment replayed later is not read.
  const RecentSegment* now = recent_ ? recent_->newest(0) : nullptr;
  if (now == nullptr || now->frame != captured.frame || !now->has_ip_id()) return 0;
  const RecentSegment* before = recent_->newest(1);
  if (before == nullptr || !before->has_ip_id()) return 0;
  // The counter: kIpIdCounterRun steps of one up to `before`; the largest
  // packet of those steps was sent as one segment.
  std::uint32_t one_segment = 0;
  for (std::size_t k = 1; k <= limits::kIpIdCounterRun; ++k) {
    const RecentSegment* a = recent_->newest(k + 1);
    const RecentSegment* b = recent_->newest(k);
    if (a == nullptr || !a->has_ip_id() || static_cast<std::uint16_t>(b->ip_id - a->ip_id) != 1) return 0;
    one_segment = std::max(one_segment, a->payload_len);
  }
  // Larger than that and than the peer's MSS, `before` may have been a GSO
  // packet, its step its segment count: no gap read.
  if (before->payload_len > std::max<std::uint32_t>(one_segment, peer_mss_)) return 0;
  const auto step = static_cast<std::uint16_t>(now->ip_id - before->ip_id);
  if (step < 2 || step >= 0x8000) return 0;
  after_frame = before->frame;
  after_time = before->time;
  return step - 1u;
}

Observation SenderEngine::new_data_observation(CaptureTime t) const {
  Observation o;
  o.sack_negotiated = sack_negotiated();
  o.srtt = est_.estimator().srtt();
  o.is_highest = true;
  o.recovery = recovery_;
  o.loss_evidence = dupacks_ > 0 || sack_evidence_;
  o.probe_since_ack = probe_since_ack_;
  o.timeouts_in_chain = timeouts_since_ack_;
  o.single_segment = in_flight() <= 1;
  if (arm_) o.since_arm = since(t, arm_->sent());
  if (last_new_data_time_ && !across_step(*last_new_data_time_, t)) o.since_new_data = since(t, *last_new_data_time_);
  o.since_peer = !heard_peer_ || across_step(*heard_peer_, t) ? microseconds::max()
                                                              : std::chrono::abs(since(t, *heard_peer_));
  o.rto_left = current_rto();
  o.tolerance = opt_.tolerance(current_rto());
  o.absolute_tolerance = opt_.absolute_tolerance;
  o.slack_percent = opt_.slack_percent;
  o.jitter = timer_jitter(opt_);
  o.tick = opt_.config.tick;
  o.sender_rtt = sender_rtt_.value_or(microseconds{0});
  return o;
}

bool SenderEngine::resend_of_unseen(const Segment& s, std::uint32_t seq, std::uint32_t end, CaptureTime prev,
                                    std::uint64_t after_frame, bool old_tsval, bool acks_new) {
  // When the unseen packet can have left: with the previous packet (one
  // write, one train), or answering the newest segment of the peer the
  // sender had heard since (its ACK clock's window).
  struct Span {
    CaptureTime lo, hi;
  };
  std::array<Span, 2> spans{};
  std::size_t n = 0;
  spans[n++] = Span{prev, prev + limits::kResponseTrain};
  if (heard_peer_ && *heard_peer_ > prev)
    spans[n++] = Span{*heard_peer_ + response_floor(), *heard_peer_ + ack_delay_hi() + limits::kAckClockMin};
  // Nothing outstanding but the unseen packet: it started the timer (5.1).
  const bool was_idle = !arm_ || heard_una() == seq_.snd_max || (outstanding_.empty() && !heard_una_);
  Observation o = new_data_observation(s.time);
  o.single_segment = in_flight() + 1 <= 1;  // the unseen packet is out as well
  // The probe timer counts from the unseen packet: it re-armed there (a
  // stack that re-arms at each transmission of new data, as Linux), or it
  // started there (nothing else outstanding). Across a step of the capture
  // clock the time since is unknown: no reading.
  const auto probe_from = [&](CaptureTime left) {
    if (across_step(left, s.time)) return false;
    Observation r = o;
    r.since_new_data = since(s.time, left);
    if (was_idle) r.since_arm = r.since_new_data;
    return fits_probe(r, *opt_.profile);
  };
  // The times the probe's fit allows, all of them (the arm is their span).
  std::optional<Span> left;
  for (std::size_t i = 0; i < n; ++i)
    if (probe_from(spans[i].lo) || probe_from(spans[i].hi))
      left = left ? Span{std::min(left->lo, spans[i].lo), std::max(left->hi, spans[i].hi)} : spans[i];
  if (!left) return false;
  if (acks_new) {
    // It acknowledges peer data no segment before it did: the unseen packet
    // may have been that ACK (a delayed one), and this the application's
    // next data. Both readings named; read as new data.
    Judgement j = note(Topic::unseen_or_ack, s.frame, capture_time_.value_or(s.time), false);
    j.other_frame = after_frame;
    append(std::move(j));
    return false;
  }
  // The unseen packet: the first transmission of [seq, end), sent within
  // the span (no frame of the capture armed the timer).
  if (was_idle) {
    arm_ = TimerArm{ArmCause::send, left->lo, left->hi, std::nullopt, 0, 0};
    rearm_any_ = left->hi;
  }
  push_outstanding(Tx{seq, end, left->hi, false});
  seq_.snd_max = end;
  last_new_data_time_ = left->hi;
  out_.bytes += s.payload_len;
  Judgement j = note(Topic::unseen_original, s.frame, capture_time_.value_or(s.time), false);
  j.other_frame = after_frame;
  append(std::move(j));
  // This segment resends it (after the unseen one, not back to back with it).
  repeat(s, seq, end, false, false, AfterPrevious{}, old_tsval, false, s.tcp.options.tsval);
  return true;
}

}  // namespace replay::engine

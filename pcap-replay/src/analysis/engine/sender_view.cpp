// SenderEngine: the sender's view of its peer — ACKs the capture saw and the
// sender did not receive, and RTT samples held until it must have.
#include "analysis/engine/sender_engine.hpp"

#include <algorithm>
#include <utility>

#include <rto/seq.hpp>

#include <replay/analysis/thresholds.hpp>

namespace replay::engine {

// ---- ACKs the capture saw and the sender did not receive ------------------

TimerState SenderEngine::timer_state() const {
  return TimerState{arm_,      timeouts_since_ack_, dupacks_, recovery_, probe_since_ack_, sack_evidence_,
                    seq_.recovery_point, fast_recovery_point_};
}

void SenderEngine::restore(const TimerState& t) {
  arm_ = t.arm;
  timeouts_since_ack_ = t.timeouts_since_ack;
  dupacks_ = t.dupacks;
  recovery_ = t.recovery;
  probe_since_ack_ = t.probe_since_ack;
  sack_evidence_ = t.sack_evidence;
  seq_.recovery_point = t.recovery_point;
  fast_recovery_point_ = t.fast_recovery_point;
}

BeforeAck::BeforeAck(const TimerState& before, std::uint64_t ack_frame, CaptureTime ack_time, std::uint32_t snd_una,
                     std::uint32_t ack_seq, std::optional<std::uint32_t> ack_tsval, std::uint64_t acked)
    : time(ack_time),
      una(snd_una),
      ack(ack_seq),
      tsval_bits(ack_tsval.value_or(0)),
      present(static_cast<std::uint8_t>((ack_tsval ? kHasTsval : 0) | (before.arm ? kArmed : 0) |
                                        (before.arm && before.arm->tsval ? kArmTsval : 0) |
                                        (before.probe_since_ack ? kProbeSinceAck : 0) |
                                        (before.sack_evidence ? kSackEvidence : 0))),
      arm_cause(before.arm ? before.arm->cause : ArmCause::send),
      recovery(before.recovery),
      frame(ack_frame),
      acked_segments(acked),
      arm_earliest(before.arm ? before.arm->earliest : CaptureTime{}),
      arm_latest(before.arm ? before.arm->latest : CaptureTime{}),
      arm_frame(before.arm ? before.arm->frame : 0),
      arm_tsval(before.arm ? before.arm->tsval.value_or(0) : 0),
      timeouts_since_ack(before.timeouts_since_ack),
      dupacks(before.dupacks),
      recovery_point(before.recovery_point),
      fast_recovery_point(before.fast_recovery_point),
      arm_held_us(before.arm ? before.arm->held_us : 0) {}

TimerState BeforeAck::state() const {
  std::optional<TimerArm> arm;
  if ((present & kArmed) != 0)
    arm = TimerArm{arm_cause, arm_earliest, arm_latest,
                   (present & kArmTsval) != 0 ? std::optional<std::uint32_t>(arm_tsval) : std::nullopt, arm_frame,
                   arm_held_us};
  return TimerState{arm,
                    timeouts_since_ack,
                    dupacks,
                    recovery,
                    (present & kProbeSinceAck) != 0,
                    (present & kSackEvidence) != 0,
                    recovery_point,
                    fast_recovery_point};
}

void SenderEngine::remember_before_ack(std::uint64_t frame, CaptureTime t, std::uint32_t ack,
                                       std::optional<std::uint32_t> tsval) {
  if (!before_older_.empty()) {
    // Without a TSval (nothing but time shows it heard) an older one past
    // kUnheardAckRtos x the RTO was heard; with one, the sender's TSecr
    // says. Any one 2^30 bytes behind this ACK goes (the sequence
    // comparisons that find it stay unambiguous).
    const microseconds horizon = unheard_horizon();
    while (!before_older_.empty()) {
      const BeforeAck& oldest = before_older_.front();
      const bool aged = !oldest.tsval() && (across_step(oldest.time, t) || since(t, oldest.time) > horizon);
      if (!aged && rto::seq_diff(ack, oldest.una) <= kUnheardAckSpan) break;
      before_older_.pop_front();
    }
  }
  // The ring is full: its oldest (at before_next_) moves to the older ones.
  // Past kUnheardAcksAway of them: ACKs with TSvals are kept only while the
  // sender's TSecr shows them unheard, so the oldest, where its SND.UNA
  // stands, stay and this one is overwritten; without, nothing shows them
  // heard but time, and the oldest goes.
  if (before_count_ == kUnheardAcksKept) {
    const BeforeAck& leaving = before_at(before_next_);
    if (before_older_.size() == kUnheardAcksAway && !leaving.tsval()) before_older_.pop_front();
    if (before_older_.size() < kUnheardAcksAway) before_older_.push_back(leaving);
  }
  before_at(before_next_) = BeforeAck{timer_state(), frame, t, heard_una(), ack, tsval, acked_segments_};
  before_next_ = static_cast<std::uint8_t>((before_next_ + 1) % kUnheardAcksKept);
  if (before_count_ < kUnheardAcksKept) ++before_count_;
}

std::optional<std::size_t> SenderEngine::unheard_index_for(std::uint32_t seq) const {
  for (std::size_t i = 0; i < unheard_kept_count(); ++i) {
    const BeforeAck& b = unheard_at(i);
    if (seq_ge(seq, b.una) && seq_lt(seq, b.ack)) return i;
  }
  return std::nullopt;
}

void SenderEngine::heard_through(std::uint32_t tsecr) {
  // The sender echoes the TSval of the latest segment it accepted: one
  // newer than an ACK's was sent after it and acknowledges at least as much.
  // An equal TSval may be an earlier segment of the same tick: no evidence.
  keep_unheard([&](const BeforeAck& b) { return b.tsval() && rto::ts_diff(tsecr, *b.tsval()) > 0; });
}

template <class Received>
void SenderEngine::keep_unheard(const Received& received) {
  // Newest first: the first one received, and every older one, were.
  for (std::size_t i = 0; i < unheard_kept_count(); ++i)
    if (received(unheard_at(i))) {
      keep_newest(i);
      return;
    }
}

void SenderEngine::keep_newest(std::size_t n) {
  if (n <= before_count_) {
    before_older_.clear();
    before_count_ = static_cast<std::uint8_t>(n);
    if (n == 0) before_next_ = 0;  // the next one in slot 0: the same two lines each time
    return;
  }
  while (unheard_kept_count() > n) before_older_.pop_front();
}

void SenderEngine::drop_newest(std::size_t n) {
  const std::size_t from_ring = std::min<std::size_t>(n, before_count_);
  before_next_ = static_cast<std::uint8_t>((before_next_ + kUnheardAcksKept - from_ring) % kUnheardAcksKept);
  before_count_ = static_cast<std::uint8_t>(before_count_ - from_ring);
  for (std::size_t k = from_ring; k < n && !before_older_.empty(); ++k) before_older_.pop_back();
  if (before_count_ == 0) before_next_ = 0;  // the next one in slot 0
}

void SenderEngine::heard_until(CaptureTime t, std::optional<std::uint32_t> resent) {
  keep_unheard([&](const BeforeAck& b) {
    const bool shown_unheard = resent && seq_lt(*resent, b.ack);  // it acknowledged what is resent
    return b.time <= t && !shown_unheard;
  });
}

void SenderEngine::on_valid_sample() {
  // A valid sample ends the backoff (the note after 5.7): the data chain is over.
  settle_data_chain();
  settle_57(current_frame_);
}

void SenderEngine::settle_due_samples(CaptureTime now) {
  while (pending_count_ > 0 && pending_at(pending_first_).until <= now) take_pending(pop_pending(), now);
}

PendingSample SenderEngine::pop_pending() {
  const PendingSample p = pending_at(pending_first_);
  pending_first_ = static_cast<std::uint8_t>((pending_first_ + 1) % kPendingSamplesKept);
  if (--pending_count_ == 0) pending_first_ = 0;  // the next one in slot 0, beside the hot members
  return p;
}

void SenderEngine::add_pending(const PendingSample& p) {
  if (pending_count_ == kPendingSamplesKept) take_pending(pop_pending(), last_peer_time_.value_or(CaptureTime::max()));  // the oldest is taken as it is
  pending_at((pending_first_ + pending_count_) % kPendingSamplesKept) = p;
  ++pending_count_;
}

void SenderEngine::take_pending(const PendingSample& held, CaptureTime now) {
  // Corrected by the capture-to-sender round trip as known now: a later
  // answer to a SYN sent again, or an ACK of the peer's data, may have
  // narrowed it since the ACK came (bound_round_trip).
  PendingSample p = held;
  const microseconds raw = p.r - p.correction();
  p.r = raw + sender_rtt_.value_or(microseconds{0});
  if (!est_.on_sample(p.r, raw, p.snd_una, p.snd_nxt)) {
    ++out_.samples_refused;
    if (p.event() && *p.event() < out_.timeline.size()) {  // the timeline shows no sample either
      out_.timeline[*p.event()].sample.reset();
      out_.timeline[*p.event()].sample_kind.reset();
    }
    return;
  }
  if (p.kind == SampleKind::seq) ++out_.samples_seq; else ++out_.samples_ts;
  (p.kind == SampleKind::seq ? out_.rtt_karn : out_.rtt_ts_echo).add(p.r);
  on_valid_sample();
  if (p.at_sender && p.event()) {
    // Taken at the ACK, as it turned out: the timeline shows it from there.
    const auto& e = est_.estimator();
    const microseconds rto = current_rto();
    const unsigned backoff = data_expiries();
    for (std::size_t i = *p.event(); i < out_.timeline.size(); ++i) {
      out_.timeline[i].srtt = e.srtt();
      out_.timeline[i].rttvar = e.rttvar();
      out_.timeline[i].rto = rto;
      out_.timeline[i].backoff = backoff;
    }
  } else if (p.event() && *p.event() < out_.timeline.size()) {
    // Taken once the sender must have processed the ACK (p.until, or the
    // event that made it take it then): a row of its own, the ACK's frame
    // and the estimator after the sample, so that each row's values are
    // those after it and the last row's are the report's final ones.
    const TimelineEvent& ack = out_.timeline[*p.event()];
    const auto& e = est_.estimator();
    TimelineEvent row{ack.frame, std::min(p.until, now), kHeldSampleEvent, ack.rel_seq, p.r, p.kind,
                      e.srtt(), e.rttvar(), current_rto(), data_expiries()};
    if (!out_.timeline.empty() && out_.timeline.back().time > row.time) row.time = out_.timeline.back().time;
    out_.timeline.push_back(row);
  }
}

bool SenderEngine::take_sample(microseconds r, SampleKind kind, microseconds corr) {
  // The samples in the order the sender took them (the held ones' rows at
  // the peer segment being processed, at the latest).
  while (pending_count_ > 0) take_pending(pop_pending(), last_peer_time_.value_or(CaptureTime::max()));
  if (!est_.on_sample(r, r - corr, seq_.snd_una, seq_.snd_max)) {
    ++out_.samples_refused;
    return false;
  }
  if (kind == SampleKind::seq) ++out_.samples_seq; else ++out_.samples_ts;
  (kind == SampleKind::seq ? out_.rtt_karn : out_.rtt_ts_echo).add(r);
  on_valid_sample();
  return true;
}

}  // namespace replay::engine

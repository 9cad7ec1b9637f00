// SenderEngine: where the capture was taken (the sender's response time) and
// the timer's arm.
#include "analysis/engine/sender_engine.hpp"

#include <algorithm>
#include <utility>

#include <rto/seq.hpp>

#include <replay/analysis/thresholds.hpp>

namespace replay::engine {

// ---- the capture point ----------------------------------------------------

void SenderEngine::learn_handshake_delays(bool syn) {
  // Client: SYN -> (peer) SYN-ACK -> our ACK. Server: (peer) SYN -> our SYN-ACK.
  // The sender's own response time as the capture sees it is the round trip
  // from the capture point to the sender (about 0 when captured there).
  if (sender_rtt_ || handshake_ambiguous_) return;
  const MaybeTime& last = feed_.last_send_time();
  if (last && ((peer_synack_ && across_step(*peer_synack_, *last)) ||
               (own_syn_ && across_step(*own_syn_, *last))))
    return;  // a handshake across a clock step tells no delay
  // Our ACK answers the peer's latest SYN-ACK (the client answers the first
  // that reaches it; one captured earlier did not), at once: not a SYN we
  // send again (the SYN-ACK it follows did not reach us), nor a segment
  // later than the initial RTO (the ACK was not captured).
  if (own_syn_ && peer_synack_ && last && *last >= *peer_synack_ && !syn &&
      since(*last, *peer_synack_) < opt_.config.initial_rto) {
    sender_rtt_ = since(*last, *peer_synack_);
    if (*own_syn_ <= *peer_synack_) hs_rtt_ = since(*last, *own_syn_);
  } else if (peer_syn_ && own_synack_ && *own_synack_ >= *peer_syn_) {
    // Our first SYN-ACK answers the peer's latest SYN before it when that
    // was its only one, when the SYN-ACK echoes that SYN's TSval (the SYN
    // that made the request), or within kCaptureAtSender of it. After the
    // peer sent its SYN again, a SYN-ACK echoing an older one may be the
    // timer's, its earlier copies lost before the capture point: sent
    // before that SYN reached us (the time between less than the round
    // trip), or after that SYN was lost on its way to us (any time up to
    // our timer's). The round trip is then one of two readings: the time
    // from the latest SYN (an answer), or no more than the time from the
    // peer's first SYN less the least our SYN-ACK timer waits (its resend
    // of the answer to that SYN, which reached us at least one way after
    // it was captured). The larger is kept (handshake_ambiguous_): the
    // estimator reads samples from uncorrected to corrected, and a
    // response is looked for as late as the round trip allows, so every
    // point between 0 and it is read. A later SYN-ACK that answers the SYN
    // sent again gives the round trip. (handshake_ambiguous_ without a
    // round trip: none is known yet.)
    // Not as late as the initial RTO after it: an answer comes at once, and
    // a SYN-ACK that late is its timer's (or answers a SYN not captured).
    const microseconds d = since(*own_synack_, *peer_syn_);
    if (d >= opt_.config.initial_rto) {
      handshake_ambiguous_ = true;
      return;
    }
    sender_rtt_ = d;
    const bool echoes_latest = own_synack_tsecr_ && peer_syn_tsval_ && *own_synack_tsecr_ == *peer_syn_tsval_;
    if (peer_syn_repeated_ && !echoes_latest && d > limits::kCaptureAtSender) {
      handshake_ambiguous_ = true;
      const microseconds timer_least = opt_.config.initial_rto - opt_.tolerance(opt_.config.initial_rto);
      // (Never an initial RTO or more: no round trip that long is read from a
      // handshake, as above.)
      if (peer_first_syn_ && !across_step(*peer_first_syn_, *own_synack_))
        sender_rtt_ = std::min(std::max(d, since(*own_synack_, *peer_first_syn_) - timer_least),
                               opt_.config.initial_rto - microseconds{1});
    } else {
      peer_syn_again_.reset();  // answered
    }
  }
  if (sender_rtt_ && *sender_rtt_ <= limits::kCaptureAtSender) sender_rtt_ = microseconds{0};  // at the sender
}

void SenderEngine::bound_round_trip(CaptureTime sent, CaptureTime heard) {
  // The sender had received the data it acknowledges: the round trip from
  // the capture point to it is no longer than the time from the data's
  // capture to the ACK's. While the handshake leaves the round trip in
  // doubt (a first SYN-ACK the capture could not pair), that lowers its
  // upper reading, or gives one where it gave none; it never raises one.
  // (A round trip the handshake measured is not read again: a segment's
  // cost.)
  if (across_step(heard, sent)) return;
  const microseconds b = since(sent, heard);
  if (b.count() < 0) return;
  if (!sender_rtt_ || b < *sender_rtt_) sender_rtt_ = b <= limits::kCaptureAtSender ? microseconds{0} : b;
}

microseconds SenderEngine::ack_delay_hi() const {
  const microseconds d = sender_rtt_.value_or(microseconds{0});
  return d + limits::kAckClockBand.of(d);
}

std::optional<CaptureTime> SenderEngine::heard_peer_time(std::optional<std::uint32_t> tsecr) const {
  if (!tsecr || !echo_tracks_ || peer_times_.empty()) return last_peer_time_;
  // The newest (peer_times_.back()), from the fields beside it: most echoes
  // reach it, and the ring's line need not be read.
  if (!last_peer_had_tsval_ || rto::ts_diff(*last_peer_tsval_, *tsecr) <= 0) return last_peer_time_;
  // Newest first: the first the echo reaches. Past the ring, the oldest kept
  // (the sender heard something at least that old).
  for (std::size_t i = peer_times_.size(); i-- > 0;) {
    const PeerMark& m = peer_times_[i];
    if (!m.has_tsval || rto::ts_diff(m.tsval, *tsecr) <= 0) return m.time;
  }
  return peer_times_.front().time;
}

std::optional<CaptureTime> SenderEngine::newest_peer_before(CaptureTime limit) const {
  if (!heard_peer_) return std::nullopt;
  if (*heard_peer_ < limit) return heard_peer_;
  for (std::size_t i = peer_times_.size(); i-- > 0;)
    if (peer_times_[i].time < limit) return peer_times_[i].time;
  return std::nullopt;
}

std::optional<CaptureTime> SenderEngine::ack_clocked(CaptureTime t, std::optional<CaptureTime> unheard_from) const {
  // The capture may see the peer's segment late too (its own path to the
  // capture point), so a response can show up sooner than the
  // capture-to-sender round trip: from 0 on.
  const microseconds hi = ack_delay_hi() + limits::kAckClockMin;
  // And no sooner than the quickest answer the sender has given (less the
  // band): the capture cannot show a response before the round trip from
  // it to the sender and back. Until the capture shows an answer, from 0
  // (a handshake's round trip may include the peer's own delay: a proxy
  // connecting onwards before its SYN-ACK).
  microseconds lo{0};
  if (least_answer_us_ >= 0) {
    const microseconds quickest = std::min(microseconds{least_answer_us_}, sender_rtt_.value_or(microseconds::max()));
    lo = quickest - limits::kAckClockBand.of(quickest);
  }
  // Newest first; older ones are read only when the newest heard was
  // captured after t.
  const std::optional<CaptureTime> newest = unheard_from ? newest_peer_before(*unheard_from) : std::optional<CaptureTime>(heard_peer_);
  if (!newest) return std::nullopt;
  CaptureTime p = *newest;
  for (std::size_t i = peer_times_.size();;) {
    if (across_step(p, t)) return std::nullopt;  // how long after it is unknown: no evidence
    const microseconds after = since(t, p);
    if (after > hi) return std::nullopt;
    if (after >= lo) return p;
    while (i > 0 && peer_times_[i - 1].time >= p) --i;
    if (i == 0) return std::nullopt;
    p = peer_times_[--i].time;
  }
}

CaptureTime SenderEngine::send_time(CaptureTime t) const {
  // A segment whose TSval shows it left more than a tick before its capture
  // (held in a queue between the sender and the capture point) was sent by
  // the end of its tick: its RTT sample counts from there.
  if (!held_) return t;
  const auto rate = feed_.ts_clock().rate_hz();  // known: held_for() gave a value
  const microseconds tick{static_cast<std::int64_t>(1e6 / *rate)};
  return *held_ > tick ? t - (*held_ - tick) : t;
}

CaptureTime SenderEngine::held_send_time(const Segment& s) const {
  // Held by more than the TSval clock's quantisation (and a drift of the
  // sender's clock against the capture's, which the least offset does not
  // follow, stays within it): sent by the end of its tick.
  const auto rate = feed_.ts_clock().rate_hz();  // known: held_for() gave a value
  const microseconds tick{static_cast<std::int64_t>(1e6 / *rate)};
  if (*held_ <= limits::kClockDisagreeTicks * tick) return s.time;
  // A TSval older than one the sender already sent is no send time (a copy,
  // or the clock's jitter): the sender's clock does not go back.
  if (newest_tsval_ && rto::ts_diff(*s.tcp.options.tsval, *newest_tsval_) < 0) return s.time;
  CaptureTime sent = s.time - (*held_ - tick);
  // Never before the peer's segment its TSecr shows it had received: it
  // passed the capture point before it reached the sender.
  if (s.tcp.options.tsecr && echo_tracks_)
    if (const std::optional<CaptureTime> heard = heard_peer_time(s.tcp.options.tsecr)) sent = std::max(sent, *heard);
  return std::min(sent, s.time);
}

// ---- the timer's arm ------------------------------------------------------

void SenderEngine::arm(CaptureTime t, ArmCause cause, std::optional<std::uint32_t> tsval, CaptureTime earliest) {
  // `t` on the sender's clock: the capture's is the later by held_us_.
  const CaptureTime at = t + microseconds{held_us_};
  rearm_any_ = at;
  arm_ = TimerArm{cause, std::min(earliest, at), at, tsval, 0, held_us_};
}

void SenderEngine::head_retransmitted(const Segment& s, std::optional<std::uint32_t> tsval) {
  // RFC 6298 5.1: a retransmission that is not a timer's does not move the
  // timer (it runs); Linux re-arms the RTO at a retransmission of the head
  // (tcp_xmit_retransmit_queue).
  if (opt_.profile->rearm_from_head) {
    arm(s.time, ArmCause::head_retransmit, tsval);
    arm_->frame = s.frame;
  } else {
    note_rearm(s.time);
  }
}

void SenderEngine::note_rearm(CaptureTime t) {
  // An event some stacks re-arm at and the profile does not: the arm may be
  // as late as this.
  if (!arm_) return;
  const CaptureTime at = t + microseconds{held_us_};  // (t on the sender's clock)
  rearm_any_ = at;
  if (at > arm_->latest) {
    arm_->latest = at;
    arm_->held_us = held_us_;
  }
}

}  // namespace replay::engine

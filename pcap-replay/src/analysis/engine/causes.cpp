#include "analysis/engine/causes.hpp"

#include <algorithm>

#include <replay/analysis/thresholds.hpp>

namespace replay::engine {

using std::chrono::microseconds;

std::string_view to_string(Cause c) {
  switch (c) {
    case Cause::network_copy: return "network-copy";
    case Cause::reordered_first: return "reordered-first";
    case Cause::already_acked: return "already-acked";
    case Cause::syn_timer: return "syn-timer";
    case Cause::syn_reply: return "syn-reply";
    case Cause::no_peer: return "no-peer";
    case Cause::ack_clock: return "ack-clock";
    case Cause::rto_burst: return "rto-burst";
    case Cause::rack_timer: return "rack-timer";
    case Cause::recovery: return "recovery";
    case Cause::no_quiet_period: return "no-quiet-period";
    case Cause::probe_timer: return "probe-timer";
    case Cause::rto_timer: return "rto-timer";
  }
  return "rto-timer";
}

microseconds probe_timeout(const ProbeRule& rule, microseconds srtt, bool single_segment, microseconds tick) {
  microseconds pto = 2 * srtt + (single_segment ? rule.single_segment_allowance : rule.allowance);
  if (tick.count() > 0) pto = (pto + tick - microseconds{1}) / tick * tick;  // usecs_to_jiffies rounds up
  return pto;
}

bool fits_probe(const Observation& o, const StackProfile& p) {
  if (!p.probe.enabled || !o.sack_negotiated || !o.srtt || o.timeouts_in_chain > 0 || o.probe_since_ack ||
      o.loss_evidence || o.recovery != Recovery::open || !o.is_highest)
    return false;
  return fits_probe_timer(o, p);
}

bool fits_probe_timer(const Observation& o, const StackProfile& p) {
  if (!o.srtt) return false;
  const microseconds pto = probe_timeout(p.probe, *o.srtt, o.single_segment, o.tick);
  const microseconds fire = o.rto_left.count() > 0 ? std::min(pto, o.rto_left) : pto;
  // RFC 8985 7.2 leaves the allowance for a delayed ACK (WCDelAckT) to the
  // stack: anything from the bare 2 SRTT on is a probe's time, unless the
  // profile knows its stack's own allowance.
  const microseconds least =
      p.probe.exact ? fire : std::min(fire, probe_timeout(ProbeRule{true, {}, {}, false}, *o.srtt, false, o.tick));
  // The tolerance of the probe's own timing: the granularity and the slack
  // of the PTO (not of the RTO, which may be many times longer); for a timer
  // known exactly, the granularity only (the capture's timestamps).
  const microseconds tol = o.absolute_tolerance + (p.probe.exact ? microseconds{0} : std::max(fire, pto) * o.slack_percent / 100);
  const microseconds lo = least > tol ? least - tol : microseconds{0};
  // The probe timer counts from the ACK that armed it; a stack that re-arms
  // it at every transmission of new data, from the later of the two. On the
  // capture's times, or on the sender's where its TSvals show them longer.
  const microseconds hi = fire_window(o.jitter, std::max(fire, pto)).hi + tol + o.sender_rtt;
  const auto due = [&](microseconds since_arm, microseconds since_new_data) {
    const microseconds since = p.probe.exact ? std::min(since_arm, since_new_data) : since_arm;
    return since >= lo && since <= hi;
  };
  return due(o.since_arm, o.since_new_data) || due(o.sender_since_arm, o.sender_since_new_data);
}

Explanation explain(const Observation& o, const StackProfile& p) {
  // The network, not the sender.
  if (o.old_tsval && !o.syn) return {SendKind::out_of_order, Cause::network_copy};
  if (o.fills_hole) return {SendKind::out_of_order, Cause::reordered_first};
  if (o.syn) {
    // A SYN is resent by its timer only: a client in SYN-SENT has no ACK
    // clock (a SYN-ACK it did not accept is no evidence of loss). A server's
    // SYN-ACK answers the peer's SYN sent again, or its timer fired. Sending
    // a SYN-ACK shows the sender in SYN-RCVD, whatever the capture saw
    // since (the ACK that ends it may not have reached the sender yet).
    if (o.syn_ack && o.answers_dup_syn) return {SendKind::syn_reply, Cause::syn_reply};
    // No SYN timer fires within kMinTimerWait of the previous SYN: a copy.
    if (o.back_to_back) return {SendKind::out_of_order, Cause::network_copy};
    return {SendKind::syn_timeout, Cause::syn_timer};
  }
  if (o.already_acked) return {SendKind::spurious, Cause::already_acked};
  // Without the peer, a repeat is visible but not its cause.
  if (!o.peer_seen) return {SendKind::unclassified, Cause::no_peer};
  // A response to the peer: the ACK clock (fast retransmit, SACK recovery,
  // slow start after an RTO). A few ms after a peer segment is never a timer.
  // The ACK clock resends data only where the peer showed a loss (duplicate
  // ACKs, SACK) or the sender is recovering (a partial ACK, the slow start
  // after an expiry): an ACK that only advanced SND.UNA asks for nothing
  // again. A FIN may answer the peer when it acknowledges the peer's FIN
  // (the application closes when it reads it) or more than the sender
  // acknowledged before (a FIN riding on that ACK), whatever sequence
  // number it carries.
  const bool responds = o.ack_clocked || (o.sender_rtt.count() == 0 && o.since_peer < limits::kMinTimerWait);
  const bool recovering = o.recovery == Recovery::fast || o.recovery == Recovery::rto;
  if (responds && (o.loss_evidence || recovering || o.answers_fin))
    return o.recovery == Recovery::rto && !o.retransmission_lost
               ? Explanation{SendKind::slow_start_after_rto, Cause::recovery}
               : Explanation{SendKind::fast, Cause::ack_clock};
  // 5.4: an expiry resends one segment; what follows it before any ACK, far
  // sooner than a further expiry could come, is the go-back-N burst. A burst
  // sends each segment once: one it already resent is sent again by a timer.
  if (o.in_rto_burst && !o.resent_in_burst) return {SendKind::slow_start_after_rto, Cause::rto_burst};
  // On a timer. RACK's reordering timer fires a fraction of an RTT after an
  // ACK that showed a hole; an RTO cannot come that soon. Not only with
  // SACK: RACK needs it (RFC 8985), but RFC 5827's early retransmit, which
  // Linux from 3.5 until RACK replaced it delayed by a quarter of RTT on
  // the RTO timer (ICSK_TIME_EARLY_RETRANS; Android's kernels of those
  // years), counts duplicate ACKs without SACK: an Android
  // client without SACK resends a quarter RTT after one or two duplicate
  // ACKs with two or three segments out (ndpi alexa-app, client 45688's
  // frame 819: 15.7 ms after the duplicate ACK, on a 52 ms path).
  if ((o.loss_evidence || o.recovery == Recovery::fast) && o.srtt && o.timeouts_in_chain == 0 &&
      o.since_peer < std::max(*o.srtt, limits::kRackWindowFloor) + o.sender_rtt)
    return {SendKind::fast, Cause::rack_timer};
  if (o.recovery == Recovery::rto && o.timeouts_in_chain == 0 && !o.is_head)
    return {SendKind::slow_start_after_rto, Cause::recovery};
  // Sooner after what armed the timer than the RTO fires: not the RTO. No
  // quiet period before it (and no expiry of its chain yet): not the RTO
  // either. The probe timer, which its own timing says, may fire then: a
  // known one (Linux: a PTO of one jiffy) at any time, one known only as
  // RFC 8985 describes it not that soon.
  if (o.since_arm < limits::kMinTimerWait)
    return p.probe.exact && fits_probe(o, p) ? Explanation{SendKind::tlp, Cause::probe_timer, false}
                                             : Explanation{SendKind::unclassified, Cause::no_quiet_period};
  if (o.back_to_back && o.timeouts_in_chain == 0)
    return fits_probe(o, p) ? Explanation{SendKind::tlp, Cause::probe_timer, false}
                            : Explanation{SendKind::unclassified, Cause::no_quiet_period};
  // The loss probe resends the highest segment; an RTO resends the head.
  // The highest but not the head, on a timer, before any expiry: only a
  // probe resends it.
  if (p.probe.enabled && o.is_highest && !o.is_head && o.timeouts_in_chain == 0 && !o.probe_since_ack)
    return {SendKind::tlp, Cause::probe_timer};
  // Head and highest at once (one segment out): a probe when it fits the
  // PTO, and the RTO's expiry too, where the sender's RTO was no longer than
  // its PTO (the probe is clamped to it): both readings are kept, and the
  // chain's waits tell them apart (chain_judge.hpp).
  if (fits_probe(o, p)) return {SendKind::tlp, Cause::probe_timer, o.is_head};
  return {SendKind::timeout, Cause::rto_timer};
}

}  // namespace replay::engine

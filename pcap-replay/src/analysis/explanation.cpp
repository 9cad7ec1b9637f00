#include "analysis/explanation.hpp"

#include <algorithm>

#include <replay/thresholds.hpp>

namespace replay {

using std::chrono::microseconds;

microseconds probe_timeout(const ProbeRule& rule, microseconds srtt, bool single_segment, microseconds tick) {
  microseconds two = 2 * srtt;
  if (tick.count() > 0) two = (two + tick - microseconds{1}) / tick * tick;  // usecs_to_jiffies rounds up
  return two + (single_segment ? rule.single_segment_allowance : rule.allowance);
}

namespace {
// A timer-driven repeat that fits the profile's loss probe: eligible (SACK,
// the Open state, no probe or timeout since the last ACK) and sent when the
// PTO, clamped to the RTO remaining, would fire.
bool fits_probe(const Observation& o, const StackProfile& p) {
  if (!p.probe.enabled || !o.sack_negotiated || !o.srtt || o.timeouts_in_chain > 0 || o.probe_since_ack ||
      o.loss_evidence || o.in_fast_recovery || o.in_rto_recovery || !o.is_highest)
    return false;
  const microseconds pto = probe_timeout(p.probe, *o.srtt, o.single_segment, o.tick);
  const microseconds fire = o.rto_left.count() > 0 ? std::min(pto, o.rto_left) : pto;
  // RFC 8985 7.2 leaves the allowance for a delayed ACK (WCDelAckT) to the
  // stack: anything from the bare 2 SRTT on is a probe's time.
  const microseconds bare = std::min(fire, probe_timeout(ProbeRule{true, {}, {}}, *o.srtt, false, o.tick));
  const microseconds lo = bare > o.tolerance ? bare - o.tolerance : microseconds{0};
  return o.since_arm >= lo && o.since_arm <= std::max(fire, pto) + o.lateness + o.tolerance + o.sender_rtt;
}
}  // namespace

Explanation explain(const Observation& o, const StackProfile& p) {
  // The network, not the sender.
  if (o.old_tsval && !o.syn) return {SendKind::out_of_order, Cause::network_copy};
  if (o.fills_hole) return {SendKind::out_of_order, Cause::reordered_first};
  if (o.already_acked && !o.syn) return {SendKind::spurious, Cause::already_acked};
  if (o.syn) {
    if (o.ack_clocked) return {SendKind::fast, Cause::ack_clock};
    // No SYN timer fires within kMinTimerWait of the previous SYN: a copy.
    if (o.back_to_back) return {SendKind::out_of_order, Cause::network_copy};
    return {SendKind::syn_timeout, Cause::syn_timer};
  }
  // Without the peer, a repeat is visible but not its cause.
  if (!o.peer_seen) return {SendKind::unclassified, Cause::no_peer};
  // A response to the peer: the ACK clock (fast retransmit, SACK recovery,
  // slow start after an RTO). A few ms after a peer segment is never a timer.
  if (o.ack_clocked || (o.sender_rtt.count() == 0 && o.since_peer < limits::kMinTimerWait))
    return o.in_rto_recovery ? Explanation{SendKind::slow_start_after_rto, Cause::recovery}
                             : Explanation{SendKind::fast, Cause::ack_clock};
  // 5.4: an expiry resends one segment; what follows it before any ACK, far
  // sooner than a further expiry could come, is the go-back-N burst (the head
  // included: resent twice in one burst is not two expiries).
  if (o.in_rto_burst) return {SendKind::slow_start_after_rto, Cause::rto_burst};
  // On a timer. RACK's reordering timer fires a fraction of an RTT after an
  // ACK that showed a hole; an RTO cannot come that soon.
  if ((o.loss_evidence || o.in_fast_recovery) && o.srtt && o.timeouts_in_chain == 0 &&
      o.since_peer < std::max(*o.srtt, limits::kRackWindowFloor) + o.sender_rtt)
    return {SendKind::fast, Cause::rack_timer};
  if (o.in_rto_recovery && o.timeouts_in_chain == 0 && !o.is_head) return {SendKind::slow_start_after_rto, Cause::recovery};
  // No quiet period before it (and no expiry of its chain yet): not a timer.
  if (o.back_to_back && o.timeouts_in_chain == 0) return {SendKind::unclassified, Cause::no_quiet_period};
  // The loss probe resends the highest segment; an RTO resends the head. When
  // the two coincide (one segment outstanding) the timing decides: the probe
  // fires at min(PTO, RTO left), so with a small SRTT at the RTO's own time.
  // The highest segment but not the head, on a timer, before any expiry:
  // only a probe resends it (an RTO resends the head). Head and highest at
  // once: the timing and the probe's conditions decide.
  if (p.probe.enabled && o.is_highest && !o.is_head && o.timeouts_in_chain == 0 && !o.probe_since_ack)
    return {SendKind::tlp, Cause::probe_timer};
  // When the PTO was clamped to the RTO's own time the two readings
  // coincide: a probe first (as Linux does; RFC 8985 7.2 clamps too), and
  // the next expiry tells (TimerModel counts it as the first RTO if the next
  // wait doubles it).
  if (fits_probe(o, p)) return {SendKind::tlp, Cause::probe_timer};
  return {SendKind::timeout, Cause::rto_timer};
}

}  // namespace replay

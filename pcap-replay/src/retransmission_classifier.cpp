#include "retransmission_classifier.hpp"

#include <algorithm>

namespace replay {

SendKind classify_retransmission(const RetransmissionContext& c) {
  using std::chrono::microseconds;
  if (c.already_acked && !c.syn) return SendKind::spurious;
  if (c.syn) return c.ack_triggered ? SendKind::fast : SendKind::syn_timeout;
  // Without the peer, a repeat is visible but not its cause.
  if (!c.peer_seen) return SendKind::unclassified;
  if (c.ack_triggered) return c.in_rto_recovery ? SendKind::slow_start_after_rto : SendKind::fast;
  // 5.4: an expiry resends one segment (the earliest unacknowledged); what
  // follows it back-to-back before any ACK is the post-RTO recovery burst.
  if (c.in_rto_burst && !c.is_head) return SendKind::slow_start_after_rto;
  // Sent on a timer. RACK's reordering timer fires a fraction of an RTT
  // after an ACK that showed a hole; an RTO cannot come that soon.
  if (c.loss_evidence && c.srtt && c.since_peer < std::max(*c.srtt, microseconds{10'000}) &&
      c.timeouts_in_chain == 0)
    return SendKind::fast;
  if (c.in_rto_recovery && c.timeouts_in_chain == 0 && !c.is_head) return SendKind::slow_start_after_rto;
  // No quiet period before it (and no expiry of its chain yet): not a timer.
  if (c.back_to_back && c.timeouts_in_chain == 0) return SendKind::unclassified;
  if (c.is_highest && c.timeouts_in_chain == 0 && !c.probe_since_ack) {
    if (!c.is_head) return SendKind::tlp;
    if (c.single_segment_probe && c.srtt) {
      const auto pto = 2 * *c.srtt;
      const auto d_pto = c.since_arm > pto ? c.since_arm - pto : pto - c.since_arm;
      const auto d_rto = c.since_arm > c.rto ? c.since_arm - c.rto : c.rto - c.since_arm;
      if (d_pto < d_rto) return SendKind::tlp;
    }
  }
  return SendKind::timeout;
}

}  // namespace replay

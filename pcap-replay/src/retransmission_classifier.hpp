#pragma once
// Sorts a retransmission into its kind (timeout, SYN timeout, fast
// retransmit, tail-loss probe, slow-start retransmission after an RTO,
// spurious) from what the sender had seen when it sent it.

#include <chrono>
#include <optional>

#include "flow_report.hpp"

namespace replay {

/// What the sender had seen when it retransmitted (all from the capture).
struct RetransmissionContext {
  bool syn = false;              ///< the segment carries SYN (SYN or SYN-ACK)
  bool already_acked = false;    ///< its whole range is below SND.UNA (spurious)
  bool ack_triggered = false;    ///< sent right after a segment from the peer (ACK clock)
  bool in_rto_recovery = false;  ///< after a timeout, SND.UNA still below the recovery point
  bool loss_evidence = false;    ///< dup ACKs or SACK blocks since the last ACK of new data
  bool is_head = false;          ///< starts at SND.UNA (the earliest unacknowledged byte)
  bool is_highest = false;       ///< ends at the highest sequence sent (SND.MAX)
  unsigned timeouts_in_chain = 0;  ///< timeouts since the last ACK of new data
  bool probe_since_ack = false;    ///< a TLP was already sent since the last ACK of new data
  std::chrono::microseconds since_arm{0};   ///< time since the timer was last (re)armed
  std::chrono::microseconds since_peer{0};  ///< time since the last segment from the peer
  std::optional<std::chrono::microseconds> srtt;  ///< sender's SRTT per the replayed estimator
  std::chrono::microseconds rto{0};               ///< the replayed estimator's current RTO
  bool single_segment_probe = false;  ///< profile knows TLP of a lone segment (Linux)
  /// Any segment from the peer seen so far. Without, SND.UNA and the ACK
  /// clock are unknown: a retransmission's cause cannot be told.
  bool peer_seen = true;
  /// Part of the burst that follows a timeout retransmission: no segment from
  /// the peer since that expiry, and sent within half the expiry's wait of
  /// the previous retransmission of the burst (a genuine next expiry cannot
  /// come before the backed-off RTO). RFC 5681 3.1 / go-back-N after an RTO.
  bool in_rto_burst = false;
  /// Sent within kBackToBack of the sender's previous data-bearing segment
  /// with nothing from the peer between: not after a quiet period, so not a
  /// timer expiry.
  bool back_to_back = false;
};

/// A retransmission sent closer than this to the sender's previous data-bearing segment
/// (nothing from the peer between) did not follow a quiet period: it is not a
/// candidate timer expiry (section 5 timers fire after RTO of silence).
inline constexpr std::chrono::microseconds kBackToBack{1'000};

/// The kind of a retransmission (never SendKind::first). Rules:
///  - already acked -> spurious (tshark's tcp.analysis.spurious_retransmission);
///  - SYN on its timer -> syn_timeout (an ACK-triggered SYN-ACK answers a
///    retransmitted SYN: fast);
///  - nothing from the peer seen yet -> unclassified (cause unknown);
///  - ACK-triggered: after an RTO, slow_start_after_rto (Linux resends the
///    rest of the window in slow start); else fast (dup ACKs / SACK / RACK);
///  - in the burst right after a timeout retransmission (no ACK since) and
///    not the head (SND.UNA) -> slow_start_after_rto (RFC 5681 3.1,
///    go-back-N): one expiry resends one segment, the rest is recovery;
///    the head again is a further (too early) expiry;
///  - on a timer: with loss evidence and within one SRTT of the last ACK, a
///    RACK reordering timer (fast); the highest segment, no timeout or probe
///    yet since the last ACK, and not also the head unless (Linux profile)
///    its wait is nearer 2*SRTT than the RTO -> tlp (RFC 8985 7.3);
///  - back-to-back with the previous segment and no timeout in the chain ->
///    unclassified (no quiet period: not a candidate expiry); otherwise timeout.
SendKind classify_retransmission(const RetransmissionContext& c);

}  // namespace replay

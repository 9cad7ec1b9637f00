#pragma once
// Why a sender sent a sequence range again. The candidates are weighed
// against the sender's state (its handshake, its recovery) and the timing
// (the profile's timers, the ACK clock, the sender's TSvals, the holes in the
// sequence space): a cause the state rules out is never chosen (a client in
// SYN-SENT has no fast retransmit; a go-back-N burst never repeats a segment
// it already resent), and where the timing leaves two timer causes open (a
// tail-loss probe of the lone segment at the RTO's own time) both are kept,
// for the chain judge to settle. A repeat that is not the sender's doing
// (reordering before the capture point, an old copy in the network) is not a
// retransmission at all.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

#include <replay/analysis/flow_report.hpp>
#include <replay/analysis/stack_profile.hpp>

#include "analysis/engine/lateness.hpp"
#include "analysis/engine/sender_state.hpp"

namespace replay::engine {

/// The cause an explanation names.
enum class Cause : std::uint8_t {
  network_copy,     ///< an old copy delayed in the network (TSval older than the sender's newest)
  reordered_first,  ///< a first transmission that arrived out of order (reordering before the capture point)
  already_acked,    ///< the capture shows it acknowledged: spurious (the ACK may not have reached the sender)
  syn_timer,        ///< the SYN's (or SYN-ACK's) retransmission timer
  syn_reply,        ///< a SYN-ACK again in reply to the peer's duplicate SYN
  no_peer,          ///< nothing from the peer seen: the cause cannot be told
  ack_clock,        ///< sent in response to a segment from the peer (dup ACKs, SACK)
  rto_burst,        ///< the go-back-N burst after an RTO expiry
  rack_timer,       ///< RACK's reordering timer (RFC 8985 6.2)
  recovery,         ///< the rest of an RTO recovery, clocked by ACKs
  no_quiet_period,  ///< back-to-back with the previous transmission: not on a timer
  probe_timer,      ///< a tail-loss probe (RFC 8985 7)
  rto_timer,        ///< the retransmission timer (RFC 6298 5.4)
};
/// "network-copy", "reordered-first", "already-acked", "syn-timer", "syn-reply", "no-peer", "ack-clock",
/// "rto-burst", "rack-timer", "recovery", "no-quiet-period", "probe-timer", "rto-timer".
std::string_view to_string(Cause c);

/// What the capture shows about one repeated range and the sender then.
struct Observation {
  Handshake handshake = Handshake::established;
  Recovery recovery = Recovery::open;
  bool syn = false;             ///< carries SYN
  bool syn_ack = false;         ///< carries SYN and ACK: a server's, in SYN-RCVD as it sends it
  /// carries FIN and acknowledges the peer's FIN, or more of the peer's than
  /// any earlier segment: a close answering the peer's, or a FIN riding on
  /// an ACK of new data (BSD sets FIN on every segment at its sequence)
  bool answers_fin = false;
  bool already_acked = false;   ///< its whole range is below SND.UNA
  bool old_tsval = false;       ///< TSval >= limits::kOldTsvalTicks older than the newest already sent
  bool fills_hole = false;      ///< inside a hole no earlier segment covered, within the reorder window
  bool ack_clocked = false;     ///< within the ACK-clock window of a segment from the peer
  bool answers_dup_syn = false; ///< a SYN-ACK within the response window of the peer's SYN sent again
  bool peer_seen = true;        ///< anything from the peer seen so far
  bool in_rto_burst = false;    ///< no peer segment since the expiry, within the burst fraction of its wait
  bool resent_in_burst = false; ///< this range was already resent in the current burst (a burst never repeats)
  /// in RTO recovery, this range was resent and the peer has since SACKed a
  /// segment sent after that: the retransmission was lost (RACK), and a
  /// sender that sees it leaves RTO recovery for fast recovery (Linux
  /// tcp_fastretrans_alert, FLAG_LOST_RETRANS: tcp_enter_recovery)
  bool retransmission_lost = false;
  bool loss_evidence = false;   ///< dup ACKs or SACK holes since the last ACK of new data
  bool is_head = false;         ///< starts at SND.UNA
  bool is_highest = false;      ///< ends at SND.MAX
  bool back_to_back = false;    ///< < limits::kMinTimerWait after the sender's previous segment, no peer segment between
  bool sack_negotiated = false; ///< SACK-permitted both ways, or SACK blocks seen
  bool single_segment = false;  ///< one segment in flight (the PTO's single-segment allowance)
  unsigned timeouts_in_chain = 0;  ///< expiries since the last ACK of new data
  bool probe_since_ack = false;
  std::chrono::microseconds since_arm = std::chrono::microseconds::max();  ///< since the latest arm (max: none)
  std::chrono::microseconds rto_left{0};       ///< RTO remaining at the arm, by the earliest reading
  std::chrono::microseconds since_peer{0};     ///< since the last segment from the peer
  /// since the sender's last transmission of new data (max: none)
  std::chrono::microseconds since_new_data = std::chrono::microseconds::max();
  /// since_arm and since_new_data on the sender's own clock, where its
  /// TSvals show them longer than the capture does (an earlier segment held
  /// on its way to the capture point; TsClock::least_between), else equal.
  /// Read by the probe timer's fit only, as a second reading: a probe they
  /// show due is a probe, one they do not still fits on the capture's times.
  std::chrono::microseconds sender_since_arm = std::chrono::microseconds::max();
  std::chrono::microseconds sender_since_new_data = std::chrono::microseconds::max();
  std::optional<std::chrono::microseconds> srtt;
  std::chrono::microseconds tolerance{0};      ///< the timing tolerance around the RTO's prediction
  std::chrono::microseconds absolute_tolerance{0};  ///< Options::absolute_tolerance (--granularity)
  unsigned slack_percent = 0;                  ///< the relative tolerance (--slack): around the PTO, of the PTO
  TimerLateness jitter;                        ///< how late the profile's timers fire (timer_jitter)
  std::chrono::microseconds tick{0};           ///< the profile's timer tick (PTO rounding)
  std::chrono::microseconds sender_rtt{0};     ///< round trip from the capture point to the sender
};

/// The chosen explanation, and the competing one when the timing leaves it open.
struct Explanation {
  SendKind kind = SendKind::unclassified;
  Cause cause = Cause::no_peer;
  /// A tail-loss probe that resent the lone outstanding segment at the
  /// RTO's own time: it may have been the RTO's expiry (Reading::as_expiry).
  bool maybe_rto = false;
};

/// The PTO of RFC 8985 7.2 as the profile computes it: 2 SRTT plus the
/// single-segment or general allowance, rounded up to the tick.
std::chrono::microseconds probe_timeout(const ProbeRule& rule, std::chrono::microseconds srtt,
                                        bool single_segment, std::chrono::microseconds tick);

/// Whether a transmission at `o`'s time fits the profile's loss-probe timer:
/// eligible (SACK, the Open state, no probe or expiry since the last ACK of
/// new data), at the highest sequence, when the PTO (clamped to the RTO
/// left) would fire. For new data too: a probe sends new data when it can.
bool fits_probe(const Observation& o, const StackProfile& profile);
/// The timing part of fits_probe alone: the probe timer's (a PTO from the
/// later of its arm and, for a stack known exactly, the last new data;
/// clamped to `o.rto_left` when that is positive) fired at `o`'s time,
/// whatever the segment and state.
bool fits_probe_timer(const Observation& o, const StackProfile& profile);

/// The explanation of one repeat under `profile`.
Explanation explain(const Observation& o, const StackProfile& profile);

}  // namespace replay::engine

#pragma once
// Why a sender sent a sequence range again. Every candidate cause is weighed
// against what the capture shows (the timing against the profile's timers,
// the ACK clock, the sender's TSvals, the holes in the sequence space) and
// the best explanation wins; the send kind and the timer events follow from
// it. A repeat that is not the sender's doing (reordering, an old copy in
// the network) is not a retransmission at all.

#include <chrono>
#include <optional>
#include <string_view>

#include <replay/flow_report.hpp>
#include <replay/stack_profile.hpp>

namespace replay {

/// The cause an explanation names.
enum class Cause : std::uint8_t {
  network_copy,     ///< an old copy delayed in the network (TSval older than the sender's newest)
  reordered_first,  ///< a first transmission that arrived out of order
  already_acked,    ///< the capture shows it acknowledged: spurious (the ACK may not have reached the sender)
  syn_timer,        ///< the SYN's retransmission timer
  no_peer,          ///< nothing from the peer seen: the cause cannot be told
  ack_clock,        ///< sent in response to a segment from the peer (dup ACKs, SACK, post-RTO slow start)
  rto_burst,        ///< the go-back-N burst after an RTO expiry
  rack_timer,       ///< RACK's reordering timer (RFC 8985 6.2)
  recovery,         ///< the rest of an RTO recovery, clocked by ACKs
  no_quiet_period,  ///< back-to-back with the previous transmission: not on a timer
  probe_timer,      ///< a tail-loss probe (RFC 8985 7)
  rto_timer,        ///< the retransmission timer (RFC 6298 5.4)
};

/// What the capture shows about one repeated range and the sender then.
struct Observation {
  bool syn = false;             ///< carries SYN
  bool already_acked = false;   ///< its whole range is below SND.UNA
  bool old_tsval = false;       ///< TSval >= limits::kOldTsvalTicks older than the newest already sent
  bool fills_hole = false;      ///< inside a hole no earlier segment covered, within the reorder window
  bool ack_clocked = false;     ///< within the ACK-clock window of a segment from the peer
  bool peer_seen = true;        ///< anything from the peer seen so far
  bool in_rto_recovery = false; ///< after a timeout, SND.UNA below the recovery point
  bool in_rto_burst = false;    ///< no peer segment since the expiry, within the burst fraction of its wait
  bool loss_evidence = false;   ///< dup ACKs or SACK holes since the last ACK of new data (not Open)
  bool in_fast_recovery = false;
  bool is_head = false;         ///< starts at SND.UNA
  bool is_highest = false;      ///< ends at SND.MAX
  bool back_to_back = false;    ///< < limits::kMinTimerWait after the sender's previous segment, no peer segment between
  bool sack_negotiated = false; ///< SACK-permitted both ways, or SACK blocks seen
  bool single_segment = false;  ///< one segment in flight (the PTO's single-segment allowance)
  unsigned timeouts_in_chain = 0;
  bool probe_since_ack = false;
  std::chrono::microseconds since_arm{0};      ///< since the latest reading of the RTO arm
  std::chrono::microseconds rto_left{0};       ///< RTO remaining at the arm, by the earliest reading
  std::chrono::microseconds since_peer{0};     ///< since the last segment from the peer
  std::optional<std::chrono::microseconds> srtt;
  std::chrono::microseconds tolerance{0};      ///< the timing tolerance around a timer's prediction
  std::chrono::microseconds lateness{0};       ///< the profile's timer lateness
  std::chrono::microseconds tick{0};           ///< the profile's timer tick (PTO rounding)
  std::chrono::microseconds sender_rtt{0};     ///< round trip from the capture point to the sender
};

/// The chosen explanation.
struct Explanation {
  SendKind kind = SendKind::unclassified;
  Cause cause = Cause::no_peer;
};

/// The PTO of RFC 8985 7.2 as the profile computes it: 2 SRTT rounded up to
/// the tick, plus the single-segment or general allowance.
std::chrono::microseconds probe_timeout(const ProbeRule& rule, std::chrono::microseconds srtt,
                                        bool single_segment, std::chrono::microseconds tick);

/// The best explanation of one repeat under `profile`.
Explanation explain(const Observation& o, const StackProfile& profile);

}  // namespace replay

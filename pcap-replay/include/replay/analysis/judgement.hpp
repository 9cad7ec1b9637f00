#pragma once
// A judgement is a value: which rule, at which frame, the wait observed and
// the window predicted before it was compared (intervals: the capture cannot
// pin either to a point), the readings of the capture that were considered
// and how the rule came out under each, the frames read as evidence and the
// setting of the stack it relied on. The analysis appends judgements to a
// sender's log and never edits one; report/ words them (judgement_text.hpp).
//
// A rule is broken (its level: MUST, SHOULD) only when no reading the capture
// allows keeps it; when some readings keep it and others break it, the
// judgement is INFO "cannot tell" and names them.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <replay/analysis/interval.hpp>
#include <replay/analysis/rules.hpp>
#include <replay/input/segment.hpp>

namespace replay {

/// What (re)started the retransmission timer a wait is counted from.
enum class ArmCause : std::uint8_t {
  send,             ///< data sent with nothing outstanding (5.1)
  ack,              ///< an ACK of new data (5.3)
  sack,             ///< a SACK that gave an RTT sample (Linux tcp_rearm_rto)
  timeout,          ///< the previous expiry (5.6)
  probe,            ///< a tail-loss probe (Linux tcp_send_loss_probe re-arms a full RTO)
  head_retransmit,  ///< a retransmission of the head segment (Linux tcp_xmit_retransmit_queue)
  head_send,        ///< the head segment's last transmission (Linux tcp_rearm_rto with a probe pending)
  syn_send,         ///< the previous transmission of the SYN (or SYN-ACK)
  syn_reply,        ///< a SYN-ACK sent again in reply to a duplicate SYN (Linux tcp_check_req re-arms)
};
/// "send", "ack", "sack", "timeout", "tlp", "retransmit", "oldest-send", "syn-send", "syn-reply".
std::string_view to_string(ArmCause c);

/// One interpretation of what the capture shows, where it cannot tell.
enum class Reading : std::uint8_t {
  as_expiry,              ///< a repeat of the lone outstanding segment was an RTO expiry
  as_probe,               ///< ... it was a tail-loss probe (RFC 8985 7.3): no backoff, a full RTO re-armed
  proportional_lateness,  ///< the timer fires at most a fraction of its RTO late (a timer wheel's buckets)
  additive_lateness,      ///< the timer fires a constant late: a slop added to every arm (FreeBSD, Darwin)
  ack_unheard,            ///< an ACK the capture saw had not reached the sender: the repeat was its timer's expiry
  ack_heard,              ///< ... it had: the repeat was no expiry of the timer that ACK restarted or stopped
  earlier_on_time,        ///< the chain's earlier expiry fired its RTO after the arm: its wait shows that RTO
  earlier_delayed,        ///< ... it fired later, a probe timeout after the newest data (a probe timer each
                          ///< transmission re-schedules, as Linux's, once the RTO had run out): its wait
                          ///< shows no RTO
  repeat_timer,           ///< a repeat captured with the copy before it in a held burst (HoldSign::repeat)
                          ///< left the sender a timer's wait after it: an expiry of the chain
  repeat_other,           ///< ... something the capture does not show sent it: no expiry of the chain
  /// (beside as_expiry and as_probe, where the profile's stack may not
  /// re-arm its timer at a probe) a tail-loss probe that left the RTO's
  /// deadline as it was: the next expiry waited from the probe's own arm
  probe_deadline_kept,
};
/// "as-expiry", "as-probe", "proportional-lateness", "additive-lateness", "ack-unheard", "ack-heard",
/// "earlier-on-time", "earlier-delayed", "repeat-timer", "repeat-other", "probe-deadline-kept".
std::string_view to_string(Reading r);

/// How a rule came out under one reading.
struct ReadingResult {
  Reading reading = Reading::as_expiry;
  bool keeps = true;  ///< the rule holds under this reading
  friend bool operator==(const ReadingResult&, const ReadingResult&) = default;
};

/// A judgement's verdict.
enum class Outcome : std::uint8_t {
  broken,       ///< no reading keeps the rule: reported at the rule's level
  cannot_tell,  ///< readings disagree, or the wait interval holds the compliant and the departing value: INFO
  note,         ///< not a verdict on a rule: a setting explains it, the wait is unknown, ... (INFO)
};
/// "broken", "cannot-tell", "note".
std::string_view to_string(Outcome o);

/// What a prediction rests on: the reference an expiry's wait was compared with.
enum class Basis : std::uint8_t {
  none,
  profile_rto,      ///< the replayed estimator's RTO under the profile, with the backoff so far
  floorless_rto,    ///< the same RFC 6298 arithmetic without the 2.4 floor
  initial_rto,      ///< 2.1: the initial RTO, no RTT sample yet
  karn_backoff,     ///< 3: the sender's own backed-off RTO (its earlier expiries), no valid sample since
  fallback_57,      ///< 5.7: 3 s after a SYN timeout, until the next sample
  doubling,         ///< 5.5: the chain's RTO as its earlier waits show it, doubled
  cap,              ///< 2.5: the chain held at a maximum RTO
};
/// "profile-rto", "floorless-rto", "initial-rto", "karn-backoff", "fallback-5.7", "doubling", "cap".
std::string_view to_string(Basis b);

/// What a note (or a "cannot tell") is about.
enum class Topic : std::uint8_t {
  none,               ///< a verdict on the rule itself
  late_expiry,        ///< fired far later than predicted (never a departure)
  setting,            ///< a documented setting of the stack explains the departure from its defaults
  clock_step,         ///< the capture clock stepped between the arm and this expiry: the wait is unknown
  backoff_unknown,    ///< the previous wait spans a clock step: the doubling is unknown
  flushed_burst,      ///< captured in a burst the host released after a silence: capture times are not send times
  syn_acked_unseen,   ///< a SYN resent after the capture saw it acknowledged: the ACK did not reach the sender
  ack_unheard,        ///< data resent after the capture saw it acknowledged: read as the ACK not at the sender yet
  unverifiable_57,    ///< 5.7 cannot be seen on the wire (the next sample came before any data timeout)
  readings_differ,    ///< the readings of the capture disagree on the rule (cannot tell)
  wait_straddles,     ///< the wait interval holds both the compliant and the departing value (cannot tell)
  open_at_end,        ///< the capture ends in the timer's backoff: its next expiry is not in the capture
  sample_kept_57,     ///< the SYN timed out and the handshake gave a sample: the profile's stack keeps its RTO,
                      ///< not 5.7's 3 s (Linux tcp_init_metrics), a departure from RFC 6298 the profile documents
  unseen_original,    ///< data new to the capture after a packet of the sender it did not see (its IPv4 ID skipped one):
                      ///< read as the loss probe resending that packet, lost before the capture point
  unseen_or_ack,      ///< the same on the probe's time, but it acknowledges the peer's data first: the unseen packet may
                      ///< have been that ACK; the capture cannot tell (read as new data)
};
/// "none", "late", "setting", "clock-step", "backoff-unknown", "flushed-burst", "syn-acked-unseen", "ack-unheard",
/// "5.7-unverifiable", "readings-differ", "wait-straddles", "open-at-end", "5.7-sample-kept", "unseen-original",
/// "unseen-or-ack".
std::string_view to_string(Topic t);

/// What showed a burst held before the capture point (Topic::flushed_burst;
/// HostFeed::feed_activity, host_activity.hpp).
enum class HoldSign : std::uint8_t {
  none,
  tsval,     ///< the packet's TSval shows it sent limits::kFlushHeld or more before its capture
  late_ack,  ///< a pure ACK first acknowledging peer data captured over limits::kDelayedAckMax before it
  repeat,    ///< the data of its connection's previous segment again, sooner than limits::kMinTimerWait,
             ///< with nothing from the peer between: no timer sends it so soon, nothing clocked it
};
/// "none", "tsval", "late-ack", "repeat".
std::string_view to_string(HoldSign h);

/// A setting of the sender's stack a judgement relied on: a documented
/// setting (named) or a property inferred from the chain's own waits.
struct SettingUse {
  enum class Kind : std::uint8_t {
    none,
    max_rto,            ///< the backoff is capped at `value`
    thin_linear,        ///< `count` linear expiries of a thin stream before doubling
    syn_linear,         ///< `count` linear SYN expiries before doubling
    initial_rto,        ///< the initial RTO is `value`
    min_rto,            ///< the RTO was `value`, below the profile's minimum (a lower minimum set)
    additive_lateness,  ///< every arm fires `value` late (a slop), inferred from the waits
  };
  Kind kind = Kind::none;
  Interval value{};       ///< the value the evidence allows
  unsigned count = 0;     ///< for the linear kinds
  std::string_view name;  ///< the documented setting ("net.ipv4.tcp_rto_max_ms"), empty for an inference
  friend bool operator==(const SettingUse&, const SettingUse&) = default;
};
/// "none", "max-rto", "thin-linear", "syn-linear", "initial-rto", "min-rto", "additive-lateness".
std::string_view to_string(SettingUse::Kind k);

/// One entry of a sender's judgement log.
struct Judgement {
  RuleId rule = RuleId::late;
  Level level = Level::info;  ///< the rule's level when broken, INFO otherwise
  Outcome outcome = Outcome::note;
  Topic topic = Topic::none;
  Basis basis = Basis::none;
  std::uint64_t frame = 0;   ///< Wireshark frame number of the segment judged
  CaptureTime time{};        ///< its capture time
  bool syn = false;          ///< about a SYN (or SYN-ACK) chain
  unsigned expiry = 0;       ///< position in its chain (1 = first expiry); 0 when not an expiry
  ArmCause armed_by = ArmCause::send;
  std::optional<Interval> waited;       ///< the observed wait, since the arm (or the previous expiry)
  std::optional<Interval> prev_waited;  ///< 5.5: the previous expiry's wait
  std::optional<Interval> predicted;    ///< what the rule predicts, from what came before this frame
  std::optional<Interval> accepted;     ///< predicted with the timer's lateness and the tolerance
  std::optional<Interval> alternative;  ///< where the departure the rule exists to catch would fall
  std::vector<ReadingResult> readings;  ///< the readings considered and whether each keeps the rule
  std::vector<std::uint64_t> evidence;  ///< frames read for it
  SettingUse setting;                   ///< the setting relied on, if any
  std::uint32_t rel_seq = 0, rel_una = 0;  ///< 5.4: the SEQ resent and the earliest unacknowledged
  std::uint64_t other_frame = 0;           ///< a frame it refers to (the clock step's, the ACK's, the flushed one)
  std::uint64_t other_prev_frame = 0;      ///< the frame a clock step is dated before
  std::chrono::nanoseconds step{0};        ///< how far the capture clock stepped back
  HoldSign hold = HoldSign::none;          ///< flushed-burst: what showed the hold (its frame: `evidence`)
  /// 5.5 broken by waits together: `joint_expiries` of them, this one's and
  /// those before it from `other_frame`'s on, which (and the expiries up to
  /// this one) were captured in a held burst, so how the waits split is
  /// unknown, but not their sum since the expiry before `other_frame`
  /// (`joint_waited`), which is shorter than the least the doubling allows
  /// for them all (`joint_accepted`).
  std::optional<Interval> joint_waited;
  std::optional<Interval> joint_accepted;
  unsigned joint_expiries = 0;
};

/// A judgement of `rule` at the rule's own level (broken) or INFO (cannot tell, note).
Level level_of(RuleId rule, Outcome o);

}  // namespace replay

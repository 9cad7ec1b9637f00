#pragma once
// Judging a chain of timer expiries once it is over. A chain is a backoff
// epoch: the expiries of one timer (the SYN's, or the data's) from one valid
// RTT sample to the next (RFC 6298 5.5's doubling lasts until one, section
// 3). It is judged when it ends, so that every reading it holds open (was
// that repeat of the lone segment a tail-loss probe or the first expiry?
// is the chain capped? which lateness does the timer have?) is settled by
// all its waits before anything is written.
//
// The first expiry is compared with the profile's RTO at that moment (5.3/
// 5.6, and what 2.1, 2.4, 5.7 make of it); every later one with the RTO the
// chain's own earlier waits show, doubled (5.5; 2.5 at a cap; 3 when the
// backoff collapses after an ACK that gave no valid sample). A rule is broken
// only when it is broken under every reading the capture allows; when the
// readings disagree, or the wait interval holds both the compliant and the
// departing value, the judgement is INFO "cannot tell".

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <replay/analysis/flow_report.hpp>
#include <replay/analysis/judgement.hpp>
#include <replay/analysis/options.hpp>

namespace replay::engine {

/// What a chain's first expiry is compared with: the profile's RTO when it
/// fired, as the replayed estimators read it.
struct FirstExpectation {
  Basis basis = Basis::profile_rto;  ///< profile_rto, initial_rto (no sample yet), fallback_57 or none
  /// The RTO before the timer's lateness (the profile's slop is part of
  /// that): the lowest and highest of the estimator's readings (samples as
  /// the capture measured them, or corrected for the capture point). Basis
  /// none: the capture does not show it (a sender captured mid-stream, no
  /// sample yet): the first expiry is not compared with it.
  Interval rto;
  /// The same RFC 6298 arithmetic without the 2.4 floor, for a profile that
  /// floors the sum: an expiry early only against the floor departs from 2.4.
  std::optional<Interval> floorless;
  /// 5.7: the RTO the samples give, which the 3 s fallback replaced.
  std::optional<Interval> before_57;
};

/// One timer event of a chain, as observed.
struct ObservedExpiry {
  std::uint64_t frame = 0;
  CaptureTime time{};
  bool syn = false;
  std::uint32_t rel_seq = 0;  ///< relative SEQ resent
  ArmCause armed_by = ArmCause::send;
  std::uint64_t arm_frame = 0;  ///< the sender's frame that armed the timer (0: the peer's ACK, or none)
  /// The wait since the arm (capture clock), hulled with the sender's TSval
  /// clock's reading where the two disagree (`on_tsval`).
  Interval wait{};
  bool on_tsval = false;
  /// The wait on the sender's TSval clock alone (nullopt: no TSvals, or no
  /// rate fitted), for where the capture's times are not send times.
  std::optional<Interval> ts_wait;
  /// The wait spans a step of the capture clock, or was read off a frame
  /// its host flushed from a queue: it is not judged.
  bool wait_unknown = false;
  /// Across a step of the capture clock, the wait on the sender's own TSval
  /// clock: the later expiries' doubling is read from it (nullopt: unknown).
  std::optional<Interval> bridged;
  /// The waits from expiry `span_from`'s (a frame captured in a burst its
  /// host held, as are the expiries after it up to this one) to this one's
  /// together, on the capture clock: when each held frame left the sender
  /// splits them in a way the capture does not show, but not their sum,
  /// from the arm before `span_from` to this expiry (nullopt: no held frame
  /// before it). The expiries it spans are those of the chain under the
  /// reading judged (a repeat may or may not be one).
  std::optional<Interval> span_sum;
  std::uint64_t span_from = 0;
  bool check = true;  ///< anything from the peer seen: judged at all
  bool thin = false;  ///< fewer than 4 segments in flight (Linux tcp_stream_is_thin)
  /// A tail-loss probe that resent the lone outstanding segment at the RTO's
  /// own time: it was the first expiry under one reading (Reading::as_expiry),
  /// a probe under the other (as_probe: no backoff, a full RTO re-armed).
  bool maybe_probe = false;
  /// A repeat of the previous copy captured with it in a held burst
  /// (HoldSign::repeat): the hold sign reads it as the timer's (a timer's
  /// wait after that copy: Reading::repeat_timer, the profile's default),
  /// but something the capture does not show may have sent it
  /// (Reading::repeat_other: no expiry of the chain). Both are weighed.
  bool maybe_repeat = false;
  /// An ACK of new data that gave no valid RTT sample (section 3) came since
  /// the chain's previous expiry: the backoff must survive it.
  bool after_ambiguous_ack = false;
  /// A SACK of never-retransmitted data came since the previous expiry: a
  /// stack that samples SACKed data (Linux) took a valid sample from it.
  bool after_sack_sample = false;
  /// Timed from before an ACK the capture saw and the sender, resending what
  /// it acknowledged, showed it had not received (Reading::ack_unheard). Had
  /// it, this was no expiry of the timer (Reading::ack_heard): an early wait
  /// is then "cannot tell", never a broken rule.
  bool ack_unheard = false;
  /// The chain's first expiry, a probe timeout after the newest data
  /// (`delayed_by`, its frame; `delayed_after_head` after the head's last
  /// transmission before it): a stack that re-schedules its probe timer at each new
  /// transmission (Linux: tcp_schedule_loss_probe; with a probe outstanding,
  /// the RTO fires when that timer does) may have fired it later than its
  /// RTO, if that RTO had run out before the newest data was sent. Its wait
  /// then shows no RTO (Reading::earlier_delayed): the next expiry, early
  /// against its doubling but not against the doubling of an RTO that short,
  /// is "cannot tell", never a broken rule.
  bool maybe_delayed = false;
  std::uint64_t delayed_by = 0;
  std::chrono::microseconds delayed_after_head{0};
  FirstExpectation expect;  ///< for the case it is the chain's first expiry
};

/// What a settled chain adds to the sender's report.
struct SettledChain {
  std::vector<TimeoutRecord> records;  ///< the expiries under the chosen reading, in order
  std::vector<Judgement> judgements;   ///< rules broken or undecided, and notes
  /// Each maybe_probe event's kind under the chosen reading (timeout or tlp).
  std::vector<std::pair<std::uint64_t, SendKind>> kinds;
  /// What the chain showed of the stack (for InferredSettings).
  std::optional<Interval> cap;       ///< an established cap
  std::optional<Interval> additive;  ///< an inferred constant lateness
  std::optional<unsigned> linear;    ///< the linear expiries the chain needed
};

/// The judge of one sender's chains under one profile.
class ChainJudge {
 public:
  explicit ChainJudge(const Options& options);
  /// Settles the chain `events` (in capture order). `syn`: the SYN timer's chain.
  SettledChain settle(std::span<const ObservedExpiry> events, bool syn) const;

 private:
  const Options& opt_;
};

}  // namespace replay::engine

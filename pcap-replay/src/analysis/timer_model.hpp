#pragma once
// The retransmission timer of one sender as its stack profile models it,
// replayed along the capture: an estimator fed with the replayed RTT
// samples (ReplayedRto, on rto::AnyEstimator and rto::RetransmissionTimer's
// backoff) and the timer's running state driven by the section 5 events
// (5.1 start, 5.2 stop, 5.3 restart, 5.5/5.6 back off and restart), plus the
// profile's own re-arm events (Linux: loss probe, head retransmission, SACK
// sample, deadline from the head's send time). Where the capture cannot tell
// when the sender armed its timer (the head's send time or the ACK; an ACK
// that may not have reached the sender) the model keeps the interval of
// possible arm times, so every judgement has both bounds.
//
// At each observed expiry it predicts the window the profile allows and
// judges the wait; from the second expiry of a chain on, it judges the
// backoff (5.5) against the observed previous wait, on the capture clock
// and, when the two disagree, on the sender's own TSval clock. A departure
// that a documented setting of the stack explains is an INFO naming the
// setting; one that no reading consistent with the profile explains is the
// rule's finding.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "analysis/replayed_rto.hpp"

#include <replay/flow_report.hpp>
#include "analysis/host_activity.hpp"
#include <replay/options.hpp>
#include <replay/rtt_sampling.hpp>
#include "analysis/clock_steps.hpp"

namespace replay {

/// One observed timer expiry (a retransmission the explanation chose as one).
struct Expiry {
  std::uint64_t frame = 0;
  CaptureTime time{};
  bool syn = false;               ///< SYN or SYN-ACK on its timer
  std::uint32_t rel_seq = 0;      ///< relative SEQ retransmitted
  std::uint32_t rel_una = 0;      ///< relative SND.UNA at the time
  std::optional<std::uint32_t> tsval;  ///< the retransmission's TSval, if any
  /// false when nothing from the peer was seen: recorded ("unchecked") and
  /// backed off, no rule judged.
  bool check = true;
  /// Linux tcp_stream_is_thin: fewer than 4 segments in flight.
  bool thin = false;
  std::size_t file = 0;           ///< input file index (with `frame`, the packet's identity)
  /// The capture clock stepped between the timer's arm and this expiry
  /// (SenderModel): the wait is unknown, not judged (check is false), and
  /// the next expiry's backoff is judged from its wait on the sender's TSval
  /// clock when it has one, else not by doubling.
  bool across_step = false;
};

/// The timer model of one sender. Events must come in capture order.
class TimerModel {
 public:
  /// Throws rto::ConfigError if options.config is invalid.
  TimerModel(const Options& options, SenderReport& out, const TsClock& clock);

  /// Data was sent at `t`; `was_idle`: nothing was outstanding (5.1 starts
  /// the timer). `tsval`: its TSval.
  void on_data_sent(CaptureTime t, bool was_idle, std::optional<std::uint32_t> tsval);
  /// A SYN (or SYN-ACK) was transmitted at `t`: its timer counts from here
  /// whatever the capture saw acknowledged (a SYN retransmitted after a
  /// SYN-ACK in the capture means that SYN-ACK did not reach the sender).
  void on_syn_sent(CaptureTime t, std::optional<std::uint32_t> tsval);
  /// An ACK of new data at `t`. `all_acked`: nothing outstanding (5.2 stops
  /// the timer), else 5.3 restarts it. `head_send`: last transmission time of
  /// the earliest still-unacknowledged segment (Linux counts the deadline from
  /// it). `ambiguous`: the ACK covered retransmitted data and gave no sample
  /// (Karn, section 3).
  void on_ack_new_data(CaptureTime t, bool all_acked, std::optional<CaptureTime> head_send, bool ambiguous);
  /// A SACK without new cumulative ACK gave an RTT sample at `t` (Linux
  /// re-arms the RTO then, from the head's send time).
  void on_sack_sample(CaptureTime t, std::optional<CaptureTime> head_send);
  /// An ACK turned out to cover retransmitted data (Karn, section 3): a
  /// backed-off RTO must be kept until a valid sample.
  void on_ambiguous_ack() {
    if (est_.backoff() > 0) karn_pending_ = true;
  }
  /// A valid RTT sample R (sections 2 and 3), with SND.UNA/SND.NXT for the Linux window.
  /// `raw`: the same sample as the capture measured it, before the
  /// capture-to-sender correction; an expiry is early only if it is early
  /// under both readings. Returns false when the estimator refused it (over
  /// 1 hour: rto::Estimator::on_rtt_sample), which changes nothing.
  bool on_sample(std::chrono::microseconds r, std::uint32_t snd_una, std::uint32_t snd_nxt,
                 std::optional<std::chrono::microseconds> raw = std::nullopt);
  /// The handshake completed (our SYN was acknowledged) at `frame`; 5.7.
  void on_handshake_complete(std::uint64_t frame, CaptureTime t, bool sample_in_handshake,
                             std::optional<std::chrono::microseconds> handshake_sample);
  /// A tail-loss probe was sent at `t` (RFC 8985 7.3): the profile's RTO
  /// re-arm (Linux: a full RTO from the probe).
  void on_probe(CaptureTime t, std::optional<std::uint32_t> tsval);
  /// The same for a probe that resent the head (one segment outstanding):
  /// it may have been an RTO expiry instead. If the next expiry comes about
  /// twice its wait after it (a doubling, where a probe's re-armed RTO would
  /// give about 1x), it is counted as that expiry after all (kind, counts
  /// and chain).
  void on_probe(const Expiry& as_expiry);
  /// New data was sent on a timer while data was outstanding (a probe that
  /// sends new data, or an application write): it may have restarted the
  /// timer, so the first expiry after it is accepted against either.
  void on_new_data_probe(CaptureTime t);
  /// The head segment (SND.UNA) was retransmitted by fast recovery at `t`:
  /// Linux restarts the RTO (tcp_xmit_retransmit_queue).
  void on_head_retransmit(CaptureTime t, std::optional<std::uint32_t> tsval);
  /// A timer expiry. Records a TimeoutRecord and any findings in the report.
  void on_timeout(const Expiry& e);
  /// End of the capture: settles what is still open (the 5.7 note).
  void finish();
  /// The round trip from the capture point to the sender and back, as the
  /// handshake showed it (0 when captured at the sender): every timing
  /// tolerance is widened by it.
  void set_sender_rtt(std::chrono::microseconds d) { sender_rtt_ = d; }
  /// The sending host's activity (queue flushes); may be null.
  void set_activity(const HostActivity* a) { activity_ = a; }
  /// The clock steps of the input (may be null).
  void set_clock_steps(const ClockSteps* c) { steps_ = c; }

  /// Timeouts in the current data chain (since the last ACK of new data).
  unsigned chain_length() const { return static_cast<unsigned>(chain_.size()); }
  /// Observed wait of the last expiry of the current data chain; 0 when empty.
  std::chrono::microseconds last_expiry_wait() const {
    return chain_.empty() ? std::chrono::microseconds{0} : chain_.back().w_lo;
  }
  /// True when a probe was sent since the last ACK of new data.
  bool probe_since_ack() const { return probe_since_ack_; }
  /// Time the RTO timer was last (re)armed (the latest reading); nullopt when stopped.
  std::optional<CaptureTime> last_arm() const;
  /// The earliest reading of the arm time (the head's send time under
  /// Linux, or the arm before an ACK the sender may not have received).
  std::optional<CaptureTime> earliest_arm() const;
  /// The replayed estimator.
  const ReplayedRto& estimator() const { return est_; }
  /// The RTO the profile arms next (current RTO plus the additive slop).
  std::chrono::microseconds armed_rto() const;

 private:
  /// est_raw_ and floorless_raw_ as they stand (est_ and floorless_ while raw_same_).
  const ReplayedRto& est_raw() const { return raw_same_ ? est_ : est_raw_; }
  const ReplayedRto& floorless_raw() const { return raw_same_ ? floorless_ : floorless_raw_; }
  struct Arm {
    CaptureTime at{};
    ArmCause cause = ArmCause::send;
    std::optional<std::uint32_t> tsval;  // the sender's TSval at the arm, if a transmission armed it
  };
  struct ChainEntry {
    CaptureTime time{};
    std::chrono::microseconds w_lo{0}, w_hi{0};  // the wait, as an interval (uncertain arm time)
    std::chrono::microseconds predicted{0};
    std::optional<std::uint32_t> tsval, arm_tsval;
    bool from_timeout = false;  // counted from the previous expiry (or a transmission of the sender)
    bool syn = false;
    bool late = false;  // after its accepted window (its lateness hides the RTO it doubled)
    bool unknown = false;  // its wait spans a clock step and the TSval clock cannot tell it
    std::uint64_t frame = 0;
    std::size_t file = 0;
  };
  void add(RuleId rule, std::uint64_t frame, CaptureTime t, std::string message);
  void note_57_unverifiable(std::string_view why);
  void arm(CaptureTime t, ArmCause cause, std::optional<std::uint32_t> tsval = std::nullopt);
  void judge_first(const Expiry& e, TimeoutRecord& rec, std::vector<ChainEntry>& chain, const Arm& a,
                   std::optional<CaptureTime> early_arm);
  bool judge_backoff(const Expiry& e, TimeoutRecord& rec, std::vector<ChainEntry>& chain);
  /// An entry whose wait spans a clock step: its wait on the sender's TSval
  /// clock, if known (then true and the entry updated).
  bool resolve_unknown(ChainEntry& c) const;
  std::chrono::microseconds floorless_rto() const;
  bool pinned(const Tunable& t) const;

  struct Open57 {
    std::uint64_t frame;
    CaptureTime time;
    std::chrono::microseconds sample;
    std::size_t findings_index;
  };
  struct HeldProbe {
    Expiry e;
    Arm before;
    std::optional<Arm> before_early;
    std::chrono::microseconds wait{0};
  };
  struct CapGuess {  // an expiry that grew to a cap a setting allows, not yet confirmed
    std::uint64_t frame;
    CaptureTime time;
    std::chrono::microseconds gap;
    unsigned k;
  };

  // The members are in the order of how often they are used: first what
  // most segments read or write (a send arms, an ACK re-arms, a sample feeds
  // the estimators), then what only SYNs and expiries use, so a segment
  // touches few cache lines (the replay of a capture is bound by them).
  const StackProfile& prof_;
  ReplayedRto est_;
  // floorless_on_: the profile floors the RTO (2.4) and floorless_ and
  // floorless_raw_ replay it without (tell 2.4 from 5.3/5.6); else unused.
  ReplayedRto floorless_;  // same samples, no 2.4 floor
  bool timer_running_ = false;  // the RTO timer runs (5.1 starts it, 5.2 stops it)
  /// The latest re-arm of any kind a stack may use (a probe, a head
  /// retransmission, a SACK sample, whatever the profile): the backoff
  /// check counts the previous wait from anywhere between this and the arm.
  std::optional<CaptureTime> rearm_any_;
  std::optional<Arm> arm_;        // latest reading of the RTO arm (nullopt: timer stopped)
  std::optional<Arm> arm_early_;  // an earlier reading (Linux head send time)
  bool chain_departed_ = false, chain_doubled_ = false, chain_setting_noted_ = false;
  bool probe_since_ack_ = false;
  bool karn_pending_ = false;
  bool handshake_done_ = false;
  bool data_sample_since_handshake_ = false;
  bool floorless_on_ = false;
  // Every sample so far was its own uncorrected one: est_raw_ and
  // floorless_raw_ would hold est_'s and floorless_'s state (the same
  // operations, the same values), so they are not fed until the first
  // corrected sample copies them (est_raw(), floorless_raw() read them).
  bool raw_same_ = true;
  std::optional<std::chrono::microseconds> karn_floor_;  // the sender's own backed-off RTO until a valid sample
  std::unique_ptr<Open57> open_57_;  // (rare: out of line)
  std::unique_ptr<HeldProbe> held_probe_;  // (rare: held out of line, cleared by every ACK)
  std::optional<CaptureTime> new_data_probe_;
  std::vector<ChainEntry> chain_;
  std::unique_ptr<CapGuess> cap_guess_;  // (rare: out of line)

  // Used by SYNs, expiries and their judgement.
  ReplayedRto est_raw_;        // est_ fed the uncorrected samples (once !raw_same_)
  ReplayedRto floorless_raw_;  // floorless_ fed the uncorrected samples (once !raw_same_)
  const Options& opt_;
  SenderReport& out_;
  const TsClock& clock_;
  /// The SYN's own RTO: no sample can be taken before the SYN is
  /// acknowledged, so a SYN timed out again after the capture saw it
  /// acknowledged is judged on the initial RTO and its SYN backoff.
  ReplayedRto syn_est_;
  std::optional<Arm> syn_arm_;    // last SYN transmission
  std::vector<ChainEntry> syn_chain_;
  bool syn_departed_ = false, syn_doubled_ = false, syn_setting_noted_ = false;
  bool floor_departed_ = false;  // a 2.4 finding was raised: the sender has no 1 s floor
  bool syn_timed_out_ = false;
  std::chrono::microseconds sender_rtt_{0};
  const HostActivity* activity_ = nullptr;
  const ClockSteps* steps_ = nullptr;
};

}  // namespace replay

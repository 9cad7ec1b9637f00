#include "analysis/timer_model.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include <replay/thresholds.hpp>

namespace replay {

using std::chrono::microseconds;

namespace {
std::string ms(microseconds d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", static_cast<double>(d.count()) / 1000.0);
  return buf;
}
microseconds since(CaptureTime later, CaptureTime earlier) {
  return std::chrono::duration_cast<microseconds>(later - earlier);
}
// What (re)started the timer, as the messages say it: "fired 212.7 ms after ...".
std::string armed_by_text(ArmCause c) {
  switch (c) {
    case ArmCause::send: return "data was sent with nothing outstanding (5.1 start)";
    case ArmCause::ack: return "the last ACK of new data restarted it (5.3)";
    case ArmCause::sack: return "a SACK with an RTT sample re-armed it";
    case ArmCause::timeout: return "the previous expiry restarted it (5.6)";
    case ArmCause::probe: return "a tail-loss probe restarted it";
    case ArmCause::head_retransmit: return "a retransmission of the first unacknowledged segment restarted it";
    case ArmCause::head_send: return "the oldest outstanding segment was sent";
    case ArmCause::syn_send: return "the previous transmission of the SYN";
  }
  return "";
}
// A configured duration: "1 s", "3 s", "200.0 ms".
std::string conf(microseconds d) {
  if (d.count() > 0 && d.count() % 1'000'000 == 0) return std::to_string(d.count() / 1'000'000) + " s";
  return ms(d);
}
microseconds scale(microseconds d, double f) { return microseconds{static_cast<std::int64_t>(static_cast<double>(d.count()) * f)}; }
}  // namespace

TimerModel::TimerModel(const Options& options, SenderReport& out, const TsClock& clock)
    : prof_(*options.profile), est_(options.config), est_raw_(est_), opt_(options), out_(out), clock_(clock),
      syn_est_(est_) {
  if (prof_.floor == FloorMode::on_sum && options.config.variant == rto::Config::Variant::rfc6298) {
    // Same arithmetic without the 2.4 floor: tells "early only because the
    // floor was not applied" (2.4, SHOULD) from "early" (5.3/5.6, MUST).
    rto::Config c = options.config;
    c.min_rto = microseconds{0};
    try {
      floorless_ = ReplayedRto(c);
      floorless_raw_ = floorless_;
      floorless_on_ = true;
    } catch (const rto::ConfigError&) {
      floorless_on_ = false;
    }
  }
}

void TimerModel::add(RuleId id, std::uint64_t frame, CaptureTime t, std::string message) {
  const Rule& r = rule(id);
  out_.findings.push_back(Finding{id, r.level, frame, t, std::move(message)});
}

microseconds TimerModel::floorless_rto() const {
  return floorless_on_ ? std::min(floorless_.rto(), floorless_raw().rto()) : std::min(est_.rto(), est_raw().rto());
}

bool TimerModel::pinned(const Tunable& t) const {
  // A setting the user gave on the command line is known, not a reading.
  return (t.kind == Tunable::Kind::max_rto && opt_.user_max_rto) ||
         (t.kind == Tunable::Kind::syn_linear && opt_.user_syn_linear);
}

microseconds TimerModel::armed_rto() const { return est_.rto() + prof_.additive; }

std::optional<CaptureTime> TimerModel::last_arm() const {
  if (!arm_) return std::nullopt;
  return arm_->at;
}

std::optional<CaptureTime> TimerModel::earliest_arm() const {
  if (!arm_) return std::nullopt;
  return arm_early_ ? std::min(arm_early_->at, arm_->at) : arm_->at;
}

void TimerModel::arm(CaptureTime t, ArmCause cause, std::optional<std::uint32_t> tsval) {
  rearm_any_ = t;
  arm_ = Arm{t, cause, tsval};
  arm_early_.reset();
  timer_running_ = true;
}

void TimerModel::on_data_sent(CaptureTime t, bool was_idle, std::optional<std::uint32_t> tsval) {
  // 5.1: start the timer when data is sent and it is not running.
  if (!arm_ || (was_idle && !timer_running_)) {
    rearm_any_ = t;
    arm_ = Arm{t, ArmCause::send, tsval};
    arm_early_.reset();
    timer_running_ = true;
  }
}

void TimerModel::on_syn_sent(CaptureTime t, std::optional<std::uint32_t> tsval) {
  syn_arm_ = Arm{t, ArmCause::syn_send, tsval};
  on_data_sent(t, true, tsval);
}

void TimerModel::on_ack_new_data(CaptureTime t, bool all_acked, std::optional<CaptureTime> head_send,
                                 bool ambiguous) {
  held_probe_.reset();
  cap_guess_.reset();
  if (!chain_.empty()) {
    // The sender's RTO as its own waits show it: the chain's first wait,
    // doubled per later expiry (a floor for Karn's rule until a valid sample).
    microseconds f = chain_.front().w_lo;
    for (std::size_t i = 0; i < chain_.size() && f < opt_.config.max_rto; ++i) f = std::min(2 * f, opt_.config.max_rto);
    karn_floor_ = f;
  }
  chain_.clear();
  chain_departed_ = chain_doubled_ = chain_setting_noted_ = false;
  probe_since_ack_ = false;
  new_data_probe_.reset();
  if (all_acked) {
    // 5.2: all outstanding data acknowledged: turn the timer off.
    arm_.reset();
    arm_early_.reset();
    timer_running_ = false;
  } else {
    // 5.3: ACK of new data: restart the timer with the current RTO.
    arm_ = Arm{t, ArmCause::ack, std::nullopt};
    rearm_any_ = t;
    arm_early_.reset();
    timer_running_ = true;
    // Linux tcp_rearm_rto: with a probe or RACK timer pending the deadline is
    // the head's last transmission + RTO; which timer was pending is not on
    // the wire, so the arm time is anywhere between the two.
    if (prof_.rearm_from_head && head_send && *head_send < t) arm_early_ = Arm{*head_send, ArmCause::head_send, std::nullopt};
  }
  // 3 (Karn): an ACK of retransmitted data gives no sample; a sender that
  // follows Karn keeps the backed-off RTO until a valid sample.
  if (ambiguous && est_.backoff() > 0) karn_pending_ = true;
}

void TimerModel::on_sack_sample(CaptureTime t, std::optional<CaptureTime> head_send) {
  if (arm_) rearm_any_ = t;
  if (!prof_.rearm_from_head || !arm_) return;
  // Linux: an ACK with an RTT sample re-arms (tcp_set_xmit_timer); with a
  // probe pending, from the head's send time. Without the re-arm the old
  // arm holds: the reading spans both.
  const CaptureTime lo = std::min(arm_->at, head_send.value_or(arm_->at));
  arm_ = Arm{t, ArmCause::sack, std::nullopt};
  arm_early_ = Arm{lo, ArmCause::head_send, std::nullopt};
  timer_running_ = true;
}

bool TimerModel::on_sample(microseconds r, std::uint32_t snd_una, std::uint32_t snd_nxt,
                           std::optional<microseconds> raw) {
  if (raw_same_ && raw && *raw != r) {
    // The first corrected sample: the uncorrected estimators part from here.
    est_raw_ = est_;
    floorless_raw_ = floorless_;
    raw_same_ = false;
  }
  if (!est_.on_rtt_sample(r, snd_una, snd_nxt)) return false;
  karn_floor_.reset();
  if (floorless_on_) floorless_.on_rtt_sample(r, snd_una, snd_nxt);
  if (!raw_same_) {
    est_raw_.on_rtt_sample(raw.value_or(r), snd_una, snd_nxt);
    if (floorless_on_) floorless_raw_.on_rtt_sample(raw.value_or(r), snd_una, snd_nxt);
  }
  karn_pending_ = false;
  if (handshake_done_) {
    data_sample_since_handshake_ = true;
    // The message is built only when a 5.7 note is open (not per sample).
    if (open_57_) note_57_unverifiable("the next sample (" + ms(r) + ") came before any data timeout");
  }
  return true;
}

void TimerModel::on_handshake_complete(std::uint64_t frame, CaptureTime t, bool sample_in_handshake,
                                       std::optional<microseconds> handshake_sample) {
  if (handshake_done_) return;
  handshake_done_ = true;
  // 5.7 (the Estimator applies the 3 s fallback per its variant: Linux only
  // when the handshake gave no sample).
  est_.on_handshake_complete(syn_timed_out_);
  if (floorless_on_) floorless_.on_handshake_complete(syn_timed_out_);
  if (!raw_same_) {
    est_raw_.on_handshake_complete(syn_timed_out_);
    if (floorless_on_) floorless_raw_.on_handshake_complete(syn_timed_out_);
  }
  if (prof_.fallback_57 == Fallback57::rfc && syn_timed_out_ && sample_in_handshake && handshake_sample) {
    // RFC 6298 re-initialises the RTO to 3 s when data begins, until the
    // next sample; Linux keeps the RTO from the sample. Only a data timeout
    // before the next sample shows which (judged in judge_first()).
    open_57_ = std::make_unique<Open57>(Open57{frame, t, *handshake_sample, out_.findings.size()});
  }
}

void TimerModel::note_57_unverifiable(std::string_view why) {
  if (!open_57_) return;
  const Open57 o = *open_57_;
  open_57_.reset();
  out_.findings.insert(out_.findings.begin() + static_cast<std::ptrdiff_t>(o.findings_index),
                       Finding{RuleId::rfc6298_5_7, Level::info, o.frame, o.time,
                               "not verifiable from the wire: the SYN timed out and the handshake gave a "
                               "timestamp RTT sample (" + ms(o.sample) +
                                   "); Linux skips 5.7 in this case; RFC 6298 requires an RTO of 3 s until "
                                   "the next sample, and " + std::string(why)});
}

void TimerModel::finish() {
  note_57_unverifiable("the capture ends before any data timeout");
}

void TimerModel::on_probe(CaptureTime t, std::optional<std::uint32_t> tsval) {
  probe_since_ack_ = true;
  if (!arm_) return;
  // RFC 8985 7.3 / Linux tcp_send_loss_probe: after the probe the RTO is
  // re-armed with a full RTO. A stack that does not re-arm keeps the old
  // deadline: under profiles other than Linux both readings stay open.
  const Arm before = *arm_;
  arm(t, ArmCause::probe, tsval);
  if (!prof_.rearm_from_head) arm_early_ = before;
}

void TimerModel::on_probe(const Expiry& as_expiry) {
  if (arm_)
    held_probe_ = std::make_unique<HeldProbe>(HeldProbe{as_expiry, *arm_, arm_early_, since(as_expiry.time, arm_->at)});
  on_probe(as_expiry.time, as_expiry.tsval);
}

void TimerModel::on_new_data_probe(CaptureTime t) { new_data_probe_ = t; }

void TimerModel::on_head_retransmit(CaptureTime t, std::optional<std::uint32_t> tsval) {
  if (arm_) rearm_any_ = t;
  if (!arm_ || !prof_.rearm_from_head) return;  // RFC 6298 5.1: fast retransmit does not move the timer (B12)
  arm(t, ArmCause::head_retransmit, tsval);  // Linux tcp_xmit_retransmit_queue re-arms the RTO
}

namespace {
// The window the next expiry of a chain must fall in, from the previous
// expiry's wait [w_lo, w_hi]: 5.5 doubles it (up to the cap), the profile's
// additive slop rides on top, and the lower bound never drops below
// kDoublingFloor x the previous wait where doubling is expected.
struct BackoffWindow {
  microseconds expected{0}, lo{0}, hi{0};
  bool doubles = false;
};
}  // namespace

bool TimerModel::resolve_unknown(ChainEntry& c) const {
  // The wait across a step of the capture clock as the sender's own TSval
  // clock measured it (RFC 7323: it ticks on whatever the capture's clock did).
  const auto w = c.tsval && c.arm_tsval ? clock_.interval(*c.arm_tsval, *c.tsval) : std::nullopt;
  if (!w || w->count() <= 0) return false;
  c.w_lo = c.w_hi = *w;
  c.unknown = false;
  return true;
}

bool TimerModel::judge_backoff(const Expiry& e, TimeoutRecord& rec, std::vector<ChainEntry>& chain) {
  const unsigned k = static_cast<unsigned>(chain.size()) + 1;
  const ChainEntry& prev = chain.back();
  const microseconds gap = since(e.time, prev.time);
  const microseconds cap = opt_.config.max_rto;
  // The slop rides on the data RTO; the SYN schedule is the bare table
  // (Darwin's SYNs go out at 1 s intervals exactly).
  const microseconds slop = e.syn ? microseconds{0} : prof_.additive;
  const microseconds g = opt_.granularity;
  const bool linear_syn = e.syn && prev.syn && (k - 1) <= opt_.config.syn_linear_timeouts;
  bool& departed = e.syn ? syn_departed_ : chain_departed_;
  bool& doubled = e.syn ? syn_doubled_ : chain_doubled_;
  bool& noted = e.syn ? syn_setting_noted_ : chain_setting_noted_;
  const double slack = opt_.slack_percent / 100.0;
  const double wheel = prof_.lateness == Lateness::linux_wheel
                           ? static_cast<double>(limits::kWheelLateNum) / limits::kWheelLateDen
                           : 1.0;

  auto window = [&](microseconds w_lo, microseconds w_hi, bool from_timeout, microseconds extra) {
    BackoffWindow w;
    const microseconds b_lo = std::max(w_lo - slop, microseconds{0});
    const microseconds b_hi = std::max(w_hi - slop, b_lo);
    w.doubles = !linear_syn && b_lo < cap;
    const microseconds e_lo = w.doubles ? std::min(2 * b_lo, cap) : b_lo;
    const microseconds e_hi = w.doubles ? std::min(2 * b_hi, cap) : b_hi;
    microseconds lo = scale(e_lo, (1.0 - slack) / wheel) - g - extra;
    if (prev.late) lo = microseconds{0};  // its lateness hides the RTO it doubled: any clear growth will do
    if (w.doubles && e_lo * limits::kDoublingExpectedDen >= b_lo * limits::kDoublingExpectedNum)
      lo = std::max(lo, b_lo * limits::kDoublingFloorNum / limits::kDoublingFloorDen);
    // Later is allowed (a sender may cap higher, or wait longer): up to 2 x
    // the previous wait; twice that when the previous wait was counted from
    // an ACK (the timer may have been restarted unseen).
    const microseconds hi_base = std::max(e_hi, (linear_syn ? 1 : 2) * b_hi) * (from_timeout ? 1 : 2);
    w.hi = scale(hi_base, 1.0 + slack) + opt_.lateness(e_hi) + g + sender_rtt_ + extra + slop;
    w.lo = std::max(lo, microseconds{0}) + slop;
    w.expected = e_lo + slop;
    return w;
  };
  BackoffWindow w = window(prev.w_lo, prev.w_hi, prev.from_timeout, microseconds{0});
  bool ok = gap >= w.lo;
  microseconds judged_gap = gap;
  if (!ok && e.tsval && prev.tsval && prev.arm_tsval) {
    // The sender's own clock: its TSvals show the intervals it waited even
    // when the capture's timestamps are late or batched.
    const auto gap_ts = clock_.interval(*prev.tsval, *e.tsval);
    const auto prev_ts = clock_.interval(*prev.arm_tsval, *prev.tsval);
    const auto rate = clock_.rate_hz();
    if (gap_ts && prev_ts && rate && gap_ts->count() > 0 && prev_ts->count() > 0) {
      const microseconds tick{static_cast<std::int64_t>(limits::kClockDisagreeTicks * 1e6 / *rate)};  // two ticks of quantisation
      const auto disagree = [&](microseconds a, microseconds b) { return (a > b ? a - b : b - a) > tick; };
      if (disagree(*gap_ts, gap) || disagree(*prev_ts, prev.w_lo)) {
        const BackoffWindow wt = window(*prev_ts, *prev_ts, true, tick);
        if (*gap_ts >= wt.lo && *gap_ts <= wt.hi) {
          ok = true;
          w = wt;
          judged_gap = *gap_ts;
          rec.clock = ClockUsed::tsval;
        }
      }
    }
  }
  // Did the wait stop growing (about the previous wait)?
  const microseconds tol_prev = opt_.tolerance(prev.w_hi) + opt_.lateness(prev.w_hi) + sender_rtt_;
  const bool flat = gap + tol_prev >= prev.w_lo && gap <= prev.w_hi + tol_prev;
  // A cap read from an earlier expiry that grew to it, now exceeded: that
  // expiry was a missing doubling after all.
  if (cap_guess_ && !e.syn && gap > cap_guess_->gap + opt_.tolerance(cap_guess_->gap) + opt_.lateness(cap_guess_->gap)) {
    const CapGuess c = *cap_guess_;
    cap_guess_.reset();
    auto pos = std::find_if(out_.findings.begin(), out_.findings.end(), [&](const Finding& x) { return x.time > c.time; });
    out_.findings.insert(pos, Finding{RuleId::rfc6298_5_5, Level::must, c.frame, c.time,
                                      "expiry " + std::to_string(c.k) + " came " + ms(c.gap) +
                                          " after the previous one: not doubled, and not a cap either (a later "
                                          "expiry waited " + ms(gap) + ")"});
    for (auto& t : out_.timeouts)
      if (t.frame == c.frame) t.rules.push_back(RuleId::rfc6298_5_5);
  }
  const bool grew_to = gap + tol_prev >= prev.w_lo;  // about the previous wait or more
  if (!ok && grew_to) {
    // A documented setting of the stack that explains it: INFO naming it.
    for (const Tunable& t : prof_.tunables) {
      if (pinned(t)) continue;
      bool match = false;
      std::string what;
      switch (t.kind) {
        case Tunable::Kind::max_rto:
          // The first capped expiry grows to the cap (min(2 x prev, cap));
          // the later ones stay there.
          match = !e.syn && doubled && gap + tol_prev >= t.lo && gap <= t.hi + tol_prev;
          what = "the backoff stopped growing at " + ms(gap) + " (a maximum RTO of about " + conf(gap) + ")";
          if (match && !flat) cap_guess_ = std::make_unique<CapGuess>(CapGuess{e.frame, e.time, gap, k});
          break;
        case Tunable::Kind::thin_linear:
          match = flat && !e.syn && e.thin && (k - 1) <= t.count;
          what = "expiry " + std::to_string(k) + " of a thin stream (fewer than 4 segments in flight) kept the RTO "
                 "(linear timeouts, up to " + std::to_string(t.count) + ")";
          break;
        case Tunable::Kind::syn_linear:
          match = flat && e.syn && (k - 1) <= t.count;
          what = "SYN expiry " + std::to_string(k) + " kept the RTO (" + std::to_string(k - 1) +
                 " or more linear SYN timeouts, the profile's default is " +
                 std::to_string(opt_.config.syn_linear_timeouts) + ")";
          break;
        case Tunable::Kind::initial_rto:
          break;
      }
      if (match) {
        ok = true;
        departed = true;  // judged by its own backoff from here on
        // The window shown is the setting's reading: this wait is its value.
        w.expected = gap;
        w.lo = std::min(w.lo, gap);
        w.hi = std::max(w.hi, gap);
        if (!noted) {
          noted = true;
          add(RuleId::stack_setting, e.frame, e.time,
              what + ": not what " + std::string(prof_.title) + " do by default, but what the setting " +
                  std::string(t.name) + " gives");
        }
        break;
      }
    }
  }
  if (ok && linear_syn && gap > w.hi && !noted) {
    // Doubled where the profile keeps the SYN RTO: fewer linear SYN timeouts.
    for (const Tunable& t : prof_.tunables)
      if (t.kind == Tunable::Kind::syn_linear && !pinned(t)) {
        noted = true;
        departed = true;
        add(RuleId::stack_setting, e.frame, e.time,
            "SYN expiry " + std::to_string(k) + " doubled the wait after " + std::to_string(k - 2) +
                " linear SYN timeouts (the profile's default is " + std::to_string(opt_.config.syn_linear_timeouts) +
                "): not what " + std::string(prof_.title) + " do by default, but what the setting " +
                std::string(t.name) + " gives");
        w.expected = 2 * prev.w_lo;  // what the doubling gives
        w.hi = std::max(w.hi, gap);
        break;
      }
  }
  if (!ok && activity_ && (activity_->flushed(prev.file, prev.frame) || activity_->flushed(e.file, e.frame))) {
    // One of the two was captured in a burst the host flushed after a
    // silence: its capture time is not its send time.
    ok = true;
    departed = true;
    const std::uint64_t f = activity_->flushed(prev.file, prev.frame) ? prev.frame : e.frame;
    add(RuleId::ambiguous, e.frame, e.time,
        std::string(e.syn ? "SYN " : "") + "expiry " + std::to_string(k) + " came " + ms(gap) + " after expiry " +
            std::to_string(k - 1) + ", which waited " + ms(prev.w_lo) + ", but frame " + std::to_string(f) +
            " was captured in a burst the sending host released after a silence (a packet of that burst carries a "
            "TSval sent long before its capture): capture times are not send times here, so the doubling (5.5) "
            "cannot be judged");
  }
  if (!ok) {
    if (flat && doubled && gap < limits::kRfcMinMaxRto) {
      // It stopped growing below 60 s after it had doubled: a cap (2.5).
      add(RuleId::rfc6298_2_5, e.frame, e.time,
          std::string("expiry ") + std::to_string(k) + " came " + ms(gap) + " after expiry " + std::to_string(k - 1) +
              ", which itself waited " + ms(prev.w_lo) + ": the backoff stopped growing at about " + ms(gap) +
              ", below the " + conf(limits::kRfcMinMaxRto) + " that 2.5 allows as a maximum");
    } else {
      const std::string which = std::string(e.syn ? "SYN " : "") + "expiry " + std::to_string(k) +
                                " of this chain came " + ms(gap) + " after expiry " + std::to_string(k - 1) +
                                ", which itself waited " + ms(prev.w_lo);
      add(RuleId::rfc6298_5_5, e.frame, e.time,
          which + ": the RTO was not doubled (5.5 expects about " + ms(w.expected) + ", at least " + ms(w.lo) + ")");
    }
    departed = true;
  } else if (w.doubles && !flat) {
    doubled = true;
  }
  if (!departed) return false;
  // Once a chain departed, later expiries are judged by their backoff alone.
  rec.relative = true;
  rec.predicted = w.expected;
  rec.waited = judged_gap;
  rec.armed_by = ArmCause::timeout;
  rec.earliest = w.lo;
  rec.latest = w.hi;
  rec.verdict = !ok ? Verdict::early : (judged_gap > w.hi ? Verdict::late : Verdict::ok);
  return true;
}

void TimerModel::judge_first(const Expiry& e, TimeoutRecord& rec, std::vector<ChainEntry>& chain, const Arm& a,
                             std::optional<CaptureTime> early_arm) {
  const unsigned k = static_cast<unsigned>(chain.size()) + 1;
  bool& departed = e.syn ? syn_departed_ : chain_departed_;
  const microseconds pred = e.syn ? syn_est_.rto() : armed_rto();
  // The reading most favourable to the sender: the samples as the capture
  // measured them, or corrected for the capture point.
  const microseconds pred_lo = e.syn ? pred : std::min(pred, est_raw().rto() + prof_.additive);
  // The capture point away from the sender: a wait armed by an ACK shows up
  // longer by the capture-to-sender round trip, never shorter.
  const microseconds tol = opt_.tolerance(pred);
  const microseconds tol_lo = opt_.tolerance(pred_lo);
  // The backoff check already chose the sender's clock: the wait is its too.
  std::optional<microseconds> on_ts;
  if (rec.clock == ClockUsed::tsval && e.tsval && a.tsval) on_ts = clock_.interval(*a.tsval, *e.tsval);
  const microseconds waited = on_ts ? *on_ts : since(e.time, a.at);
  const microseconds back = early_arm && *early_arm < a.at ? since(a.at, *early_arm) : microseconds{0};
  microseconds earliest = pred_lo > tol_lo + back ? pred_lo - tol_lo - back : microseconds{0};
  microseconds latest = pred + opt_.lateness(pred) + tol + sender_rtt_;
  if (k == 1 && new_data_probe_ && *new_data_probe_ > a.at) latest += since(*new_data_probe_, a.at);
  rec.predicted = pred;
  rec.waited = waited;
  rec.earliest = earliest;
  rec.latest = latest;
  rec.armed_by = a.cause;
  rec.verdict = waited < earliest ? Verdict::early : (waited > latest ? Verdict::late : Verdict::ok);
  if (rec.verdict != Verdict::ok && e.tsval && a.tsval) {
    // The sender's own clock: a capture point that saw the arm late (a
    // queue, a capture app reading late) shows a short wait the sender's
    // TSvals do not.
    const auto w_ts = clock_.interval(*a.tsval, *e.tsval);
    const auto rate = clock_.rate_hz();
    if (w_ts && rate) {
      const microseconds tick{static_cast<std::int64_t>(limits::kClockDisagreeTicks * 1e6 / *rate)};
      const microseconds d = *w_ts > waited ? *w_ts - waited : waited - *w_ts;
      if (d > tick && *w_ts + tick >= earliest &&
          *w_ts <= latest + tick) {
        rec.verdict = Verdict::ok;
        rec.clock = ClockUsed::tsval;
        rec.waited = *w_ts;
      }
    }
  }

  // A first expiry before any sample that waited an initial RTO a setting
  // of the stack allows (Windows InitialRto 3 s): that setting, not "late".
  if (rec.verdict == Verdict::late && k == 1 && (e.syn || !est_.srtt()) && !departed) {
    for (const Tunable& t : prof_.tunables) {
      if (t.kind != Tunable::Kind::initial_rto || waited + tol < t.lo || waited > t.hi + opt_.tolerance(t.hi)) continue;
      departed = true;  // the rest of the chain is judged by its own backoff
      rec.verdict = Verdict::ok;
      add(RuleId::stack_setting, e.frame, e.time,
          std::string(e.syn ? "the SYN timer" : "the timer") + " first fired " + ms(waited) +
              " after the first transmission: an initial RTO of about " + conf(waited) + ", not what " +
              std::string(prof_.title) + " do by default, but what the setting " + std::string(t.name) + " gives");
      break;
    }
  }

  // Karn on the sender's own waits: whatever the estimator's readings allow,
  // a wait below the backed-off value its previous chain showed, with no
  // valid sample since, dropped the backoff.
  if (karn_pending_ && !e.syn && k == 1 && karn_floor_ && waited + opt_.tolerance(*karn_floor_) < *karn_floor_)
    rec.verdict = Verdict::early;

  if (rec.verdict == Verdict::early && !departed) {
    departed = true;
    const std::string what = std::string(e.syn ? "the SYN timer" : "the timer") + " fired " + ms(waited) +
                             " after " + armed_by_text(rec.armed_by);
    const std::string backoff = k == 1 ? std::string() : " (expiry " + std::to_string(k) + " of its chain)";
    if (syn_timed_out_ && handshake_done_ && !e.syn && !data_sample_since_handshake_ &&
        est_.base_rto() >= opt_.config.syn_fallback_rto && waited + tol < opt_.config.syn_fallback_rto) {
      add(RuleId::rfc6298_5_7, e.frame, e.time,
          what + ": below the " + conf(opt_.config.syn_fallback_rto) +
              " RTO that 5.7 requires after a SYN timeout until the next RTT sample (none since the handshake)");
    } else if (!est_.srtt() && k == 1) {
      add(RuleId::rfc6298_2_1, e.frame, e.time,
          what + ": below the initial RTO of " + conf(opt_.config.initial_rto) +
              " that 2.1 requires until the first RTT sample (none yet)");
    } else if (karn_pending_ && !e.syn && k == 1 && karn_floor_ &&
               waited + opt_.tolerance(*karn_floor_) < *karn_floor_) {
      // The sender's own waits: its last chain began with an expiry after
      // `first` and backed off; with no valid sample since, the next wait is
      // at least that backed-off value (the estimator's numbers aside).
      add(RuleId::rfc6298_3_karn, e.frame, e.time,
          what + ": below " + ms(*karn_floor_) + ", the sender's own RTO as its previous timeouts backed it off" +
              ": the backoff was dropped after an ACK of retransmitted data, which gives no valid sample (Karn)");
    } else if (floorless_on_ && (floor_departed_ || !karn_pending_) &&
               waited + opt_.tolerance(floorless_rto()) >= floorless_rto()) {
      // Early only against the 2.4 floor: a SHOULD. After an ACK of
      // retransmitted data this reading holds only for a sender already seen
      // without the floor (its own backed-off RTO was then kept).
      floor_departed_ = true;
      add(RuleId::rfc6298_2_4, e.frame, e.time,
          what + ": below the " + conf(opt_.config.min_rto) + " minimum RTO of 2.4" + backoff +
              " (RFC 6298 without the minimum would give " + ms(floorless_rto()) + ")");
    } else if (karn_pending_) {
      add(RuleId::rfc6298_3_karn, e.frame, e.time,
          what + ": below the backed-off RTO of " + ms(floorless_on_ ? floorless_rto() : pred) + backoff +
              ": the backoff was dropped after an ACK of retransmitted data, which gives no valid sample (Karn)");
    } else {
      add(RuleId::rfc6298_5_3_5_6, e.frame, e.time,
          what + ": before the RTO of " + ms(pred) + backoff + " had run" +
              (floorless_on_ ? " (and before even the " + ms(floorless_rto()) + " RTO computed without the 2.4 minimum)"
                          : std::string()));
    }
  } else if (rec.verdict == Verdict::late &&
             waited > pred * limits::kLateFactorNum / limits::kLateFactorDen + tol) {
    add(RuleId::late, e.frame, e.time,
        std::string(e.syn ? "the SYN timer" : "the timer") + " fired " + ms(waited) + " after " +
            armed_by_text(rec.armed_by) + ", far later than the predicted RTO of " + ms(pred) +
            " (not a departure: a sender may wait longer)");
  }
}

void TimerModel::on_timeout(const Expiry& e) {
  if (held_probe_ && !e.syn && chain_.empty()) {
    const HeldProbe h = *held_probe_;
    held_probe_.reset();
    // About twice the probe's wait after it: the probe was the first expiry
    // and this one doubled it (a probe's re-armed RTO would give about 1x).
    if (since(e.time, h.e.time) * limits::kProbeWasRtoDen >= h.wait * limits::kProbeWasRtoNum &&
        !(steps_ && steps_->spans(h.e.time, e.time)) && !h.e.across_step) {
      --out_.by_kind[static_cast<std::size_t>(SendKind::tlp)];
      ++out_.by_kind[static_cast<std::size_t>(SendKind::timeout)];
      arm_ = h.before;
      arm_early_ = h.before_early;
      probe_since_ack_ = false;
      on_timeout(h.e);
    }
  }
  auto& chain = e.syn ? syn_chain_ : chain_;
  const unsigned k = static_cast<unsigned>(chain.size()) + 1;
  TimeoutRecord rec;
  rec.frame = e.frame;
  rec.time = e.time;
  rec.rel_seq = e.rel_seq;
  rec.syn = e.syn;
  rec.backoff = k;

  const std::size_t findings_before = out_.findings.size();
  // 5.4: the retransmission on expiry is of the earliest unacknowledged segment.
  if (!e.syn && e.rel_seq != e.rel_una)
    add(RuleId::rfc6298_5_4, e.frame, e.time,
        "the timer expiry retransmitted relative SEQ " + std::to_string(e.rel_seq) +
            ", but the earliest unacknowledged byte is " + std::to_string(e.rel_una));

  // When was the timer armed? A SYN's timer counts from its previous
  // transmission; data's from the model's arm events (an interval).
  Arm a;
  std::optional<CaptureTime> early;
  if (e.syn) {
    a = syn_arm_.value_or(Arm{e.time, ArmCause::syn_send, std::nullopt});
    if (chain.empty()) a.cause = ArmCause::send;
  } else {
    a = arm_.value_or(Arm{e.time, ArmCause::send, std::nullopt});
    if (arm_early_) early = arm_early_->at;
  }
  bool check = e.check;
  std::optional<std::string> unknown_backoff;  // an INFO, added once the judgements are dropped
  if (e.across_step) {
    // The capture clock stepped between the arm and this expiry
    // (SenderModel said so in an INFO): the wait is unknown, nothing is
    // judged and no judgement state moves. The profile's prediction is shown.
    rec.predicted = e.syn ? syn_est_.rto() : armed_rto();
    rec.armed_by = a.cause;
    rec.wait_unknown = true;
  } else if (k >= 2 && chain.back().unknown && resolve_unknown(chain.back())) {
    const bool relative = judge_backoff(e, rec, chain);
    if (!relative) judge_first(e, rec, chain, a, early);
  } else if (k >= 2 && chain.back().unknown && !(e.syn ? syn_departed_ : chain_departed_)) {
    judge_first(e, rec, chain, a, early);  // on the profile's backoff, which needs no previous wait
  } else if (k >= 2 && chain.back().unknown) {
    // Judged by its backoff alone, but the previous wait spans a clock step
    // and the sender's TSval clock cannot tell it: the doubling is unknown.
    check = false;
    rec.relative = true;
    rec.armed_by = ArmCause::timeout;
    rec.waited = since(e.time, chain.back().time);
    unknown_backoff = std::string(e.syn ? "SYN " : "") + "expiry " + std::to_string(k) +
                      " is judged by the doubling of the previous expiry's wait, which spans a step of the capture "
                      "clock (and no TSval clock tells it): the backoff is not judged";
  } else {
    const bool relative = k >= 2 && judge_backoff(e, rec, chain);
    if (!relative) judge_first(e, rec, chain, a, early);
  }

  if (!check || e.across_step) {
    out_.findings.resize(std::min(out_.findings.size(), findings_before));
    rec.verdict = Verdict::unchecked;
  }
  if (unknown_backoff) add(RuleId::ambiguous, e.frame, e.time, std::move(*unknown_backoff));
  for (std::size_t i = findings_before; i < out_.findings.size(); ++i) rec.rules.push_back(out_.findings[i].rule);
  // The first data timeout before a fresh sample settles an open 5.7 check.
  if (!e.syn) open_57_.reset();
  out_.timeouts.push_back(rec);

  ChainEntry c;
  c.time = e.time;
  c.frame = e.frame;
  c.file = e.file;
  c.syn = e.syn;
  c.tsval = e.tsval;
  c.arm_tsval = a.tsval;
  c.predicted = rec.predicted;
  c.late = rec.verdict == Verdict::late && !rec.relative;
  c.w_hi = early && *early < a.at ? since(e.time, *early) : since(e.time, a.at);
  c.w_lo = !e.syn && rearm_any_ && *rearm_any_ > a.at && *rearm_any_ < e.time ? since(e.time, *rearm_any_)
                                                                                : since(e.time, a.at);
  c.from_timeout = a.cause != ArmCause::ack && a.cause != ArmCause::sack && a.cause != ArmCause::head_send;
  // A probe that sent new data in the first half of the wait may have
  // restarted the timer (Linux tcp_send_loss_probe; its PTO is at most the
  // RTO): the next doubling is accepted against either reading.
  if (k == 1 && new_data_probe_ && *new_data_probe_ > a.at && since(e.time, *new_data_probe_) * 2 >= c.w_lo)
    c.w_lo = since(e.time, *new_data_probe_);
  if (e.across_step) {
    // Unknown on the capture clock; the next expiry reads it on the
    // sender's TSval clock if it can (resolve_unknown).
    c.unknown = true;
    c.late = false;
  }
  chain.push_back(c);

  // 5.5 back off and 5.6 restart, plus the profile's additive slop.
  if (e.syn) {
    est_.on_syn_timeout();
    syn_est_.on_syn_timeout();
    if (floorless_on_) floorless_.on_syn_timeout();
    if (!raw_same_) {
      est_raw_.on_syn_timeout();
      if (floorless_on_) floorless_raw_.on_syn_timeout();
    }
    syn_timed_out_ = true;
    syn_arm_ = Arm{e.time, ArmCause::timeout, e.tsval};
  } else {
    est_.on_timeout();
    if (floorless_on_) floorless_.on_timeout();
    if (!raw_same_) {
      est_raw_.on_timeout();
      if (floorless_on_) floorless_raw_.on_timeout();
    }
  }
  arm(e.time, ArmCause::timeout, e.tsval);
}

}  // namespace replay

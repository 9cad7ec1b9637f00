#include "analysis/engine/chain_judge.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "analysis/engine/backoff_fit.hpp"
#include "analysis/engine/judge_limits.hpp"
#include "analysis/engine/lateness.hpp"

namespace replay::engine {

using std::chrono::microseconds;

namespace {

// One way the chain may be timed: the caps it may reach, the expiries that
// keep the RTO before it doubles, and what that way stands for: the
// profile's default, a documented setting of the stack (INFO), or a cap
// below 2.5's minimum (a departure).
struct Variant {
  Interval cap{microseconds::max(), microseconds::max()};
  unsigned linear = 0;
  SettingUse setting;          // kind none: the profile's default
  bool cap_below_rfc = false;  // the 2.5 departure
  bool thin_only = false;      // applies to expiries of a thin stream only
};

// Doublings of the RTO before the expiry at chain position p (1-based) when
// the first `linear` expiries keep it (Linux's linear SYN and thin-stream
// timeouts: after expiry i the RTO doubles only when i > linear).
unsigned doublings(std::size_t p, unsigned linear) {
  return p - 1 > linear ? static_cast<unsigned>(p - 1 - linear) : 0;
}

Interval widened(const Interval& w, microseconds g) {
  return {w.lo > g ? w.lo - g : microseconds{0}, w.bounded() ? w.hi + g : w.hi};
}

// The judgements and records of the chain under one reading.
struct ReadingOutcome {
  std::vector<TimeoutRecord> records;
  std::vector<Judgement> judgements;
  std::optional<Interval> cap, additive;
  std::optional<unsigned> linear;
  std::size_t broken = 0;  // rules broken
  std::size_t off = 0;     // expiries outside their prediction (late, early) or undecided
};

class ReadingJudge {
 public:
  ReadingJudge(const Options& o, std::span<const ObservedExpiry* const> chain, bool syn)
      : opt_(o), chain_(chain), syn_(syn), models_(lateness_models(o, syn)) {
    variants_ = variants();
    r_min_ = least_rto();
    late_least_.resize(chain_.size());
  }

  ReadingOutcome run() {
    for (std::size_t j = 0; j < chain_.size(); ++j) {
      const ObservedExpiry& e = *chain_[j];
      TimeoutRecord rec = record_of(e, j + 1);
      judged_ = e.check;  // nothing from the peer: recorded, not judged
      if (j == 0) judge_first(e, rec);
      else judge_later(j, rec);
      if (!judged_) rec.verdict = Verdict::unchecked;
      out_.records.push_back(std::move(rec));
    }
    for (const Judgement& j : out_.judgements) out_.broken += j.outcome == Outcome::broken ? 1 : 0;
    for (const TimeoutRecord& r : out_.records)
      out_.off += on_time(r.verdict) ? 0 : 1;
    return std::move(out_);
  }

 private:
  // ---- the ways the chain may be timed ---------------------------------
  std::vector<Variant> variants() const {
    std::vector<Variant> v;
    const StackProfile& p = *opt_.profile;
    Variant def;
    if (opt_.user_max_rto || p.cap_known) def.cap = Interval::point(opt_.config.max_rto);
    else def.cap = Interval::at_least(opt_.config.max_rto);
    def.linear = syn_ ? opt_.config.syn_linear_timeouts : 0;
    v.push_back(def);
    for (const Tunable& t : p.tunables) {
      Variant x = def;
      x.setting.name = t.name;
      switch (t.kind) {
        case Tunable::Kind::max_rto:
          if (opt_.user_max_rto) continue;  // the user pinned it
          x.cap = {t.lo, t.hi};
          x.setting.kind = SettingUse::Kind::max_rto;
          v.push_back(x);
          break;
        case Tunable::Kind::syn_linear:
          if (!syn_ || opt_.user_syn_linear) continue;
          for (unsigned n = 0; n <= t.count; ++n) {
            if (n == def.linear) continue;
            Variant y = x;
            y.linear = n;
            y.setting.kind = SettingUse::Kind::syn_linear;
            y.setting.count = n;
            v.push_back(y);
          }
          break;
        case Tunable::Kind::thin_linear:
          if (syn_) continue;
          x.linear = t.count;
          x.thin_only = true;
          x.setting.kind = SettingUse::Kind::thin_linear;
          x.setting.count = t.count;
          v.push_back(x);
          break;
        case Tunable::Kind::initial_rto:
        case Tunable::Kind::min_rto:
          break;  // the first expiry's, not the chain's
      }
    }
    // A cap below 2.5's minimum: a departure, tried last.
    Variant low = def;
    low.cap = {microseconds{1}, limits::kRfcMinMaxRto - microseconds{1}};
    low.cap_below_rfc = true;
    v.push_back(low);
    return v;
  }

  // A cap the profile does not state (a setting, or one below 2.5's
  // minimum) is read only where the backoff doubled before it held.
  FitBounds bounds(const Variant& v) const {
    const bool stated = v.cap.lo == variants_[0].cap.lo && v.cap.hi == variants_[0].cap.hi;
    return FitBounds{r_min_, v.cap, stated ? std::size_t{0} : std::size_t{2}};
  }

  // The least RTO a stack can have armed at the chain's first expiry (and so
  // at any later one, which backs off from it): RFC 6298's arithmetic on the
  // samples without the 2.4 floor, less the replayed estimator's
  // uncertainty. Without a sample, only that it is positive.
  microseconds least_rto() const {
    if (chain_.empty()) return microseconds{1};
    const FirstExpectation& x = chain_.front()->expect;
    if (x.basis != Basis::profile_rto && x.basis != Basis::fallback_57) return microseconds{1};
    const Interval base = x.floorless ? *x.floorless : x.basis == Basis::fallback_57 && x.before_57 ? *x.before_57 : x.rto;
    const Ratio slack{static_cast<std::int64_t>(opt_.slack_percent), 100};
    const microseconds r = base.lo - slack.ceil_of(base.lo) - opt_.absolute_tolerance;
    return std::max(r, microseconds{1});
  }

  // The fit's view of chain[from..to] (inclusive) under variant v.
  std::vector<FitWait> waits(std::size_t from, std::size_t to, const Variant& v) const {
    std::vector<FitWait> w;
    const unsigned base = doublings(from + 1, v.linear);
    for (std::size_t i = from; i <= to; ++i) {
      const ObservedExpiry& e = *chain_[i];
      Interval iv = !e.wait_unknown ? widened(e.wait, opt_.absolute_tolerance)
                    : e.bridged    ? widened(*e.bridged, opt_.absolute_tolerance)
                                   : Interval{microseconds{0}, microseconds::max()};
      // An expiry that came later than its prediction allows (the chain's
      // first against the profile's RTO, a later one against the doubling):
      // the timer fired late (never a departure), so its wait bounds the RTO
      // it was armed with from above only; from below, the prediction's.
      if (late_least_[i]) iv.lo = std::min(iv.lo, *late_least_[i]);
      FitWait fw{iv, doublings(i + 1, v.linear) - base, std::nullopt, 0};
      // (The expiries of a span before its last, captured held, have waits
      // from 0: never late.)
      if (const auto a = span_start(i); a && *a >= from) {
        fw.span_sum = widened(*e.span_sum, opt_.absolute_tolerance);
        fw.span = static_cast<unsigned>(i - *a + 1);
      }
      w.push_back(fw);
    }
    return w;
  }

  // The first lateness model under which chain[from..to] fits v, or none.
  std::optional<std::size_t> model_fitting(std::size_t from, std::size_t to, const Variant& v) const {
    const auto w = waits(from, to, v);
    for (std::size_t m = 0; m < models_.size(); ++m)
      if (fit(w, models_[m], bounds(v))) return m;
    return std::nullopt;
  }

  bool variant_applies(const Variant& v, std::size_t from, std::size_t to) const {
    if (!v.thin_only) return true;
    for (std::size_t i = from; i <= to; ++i)
      if (!chain_[i]->thin) return false;
    return true;
  }

  // ---- records and judgements ------------------------------------------
  TimeoutRecord record_of(const ObservedExpiry& e, std::size_t k) const {
    TimeoutRecord r;
    r.frame = e.frame;
    r.time = e.time;
    r.rel_seq = e.rel_seq;
    r.syn = e.syn;
    r.expiry = static_cast<unsigned>(k);
    r.wait = e.wait;
    r.wait_unknown = e.wait_unknown;
    r.armed_by = e.armed_by;
    r.clock = e.on_tsval ? ClockUsed::tsval : ClockUsed::capture;
    return r;
  }

  Judgement judgement(RuleId rule, Outcome o, const ObservedExpiry& e, const TimeoutRecord& rec) const {
    Judgement j;
    j.rule = rule;
    j.outcome = o;
    j.level = level_of(rule, o);
    j.frame = e.frame;
    j.time = e.time;
    j.syn = e.syn;
    j.expiry = rec.expiry;
    j.armed_by = e.armed_by;
    j.basis = rec.basis;
    if (!e.wait_unknown) j.waited = e.wait;
    j.predicted = rec.predicted;
    j.accepted = rec.accepted;
    j.alternative = rec.alternative;
    return j;
  }

  void add(Judgement j, TimeoutRecord& rec) {
    if (!judged_) return;
    if (j.topic != Topic::late_expiry && j.topic != Topic::setting) rec.rules.push_back(j.rule);
    out_.judgements.push_back(std::move(j));
  }

  // An early expiry timed from before an ACK the sender showed it had not
  // received: had it received it, the repeat was no expiry at all.
  static void unheard_readings(Judgement& j) {
    j.topic = Topic::readings_differ;
    j.readings = {{Reading::ack_unheard, false}, {Reading::ack_heard, true}};
  }

  // The first expiry of the chain against the profile's RTO then.
  void judge_first(const ObservedExpiry& e, TimeoutRecord& rec) {
    const TimerLateness& lat = models_.front();
    const microseconds g = opt_.absolute_tolerance;
    const Ratio slack{static_cast<std::int64_t>(opt_.slack_percent), 100};
    const FirstExpectation& x = e.expect;
    // The window an RTO in `rto` fires in, less the replayed estimator's
    // uncertainty below (the sender's own samples may differ from ours).
    const auto window = [&](const Interval& rto) {
      const Interval lo = fire_window(lat, rto.lo), hi = fire_window(lat, rto.hi);
      const microseconds least = lo.lo - slack.ceil_of(rto.lo) - g;
      return Interval{std::max(least, microseconds{0}), hi.bounded() ? hi.hi + g : hi.hi};
    };
    rec.basis = x.basis;
    rec.predicted = {fire_window(lat, x.rto.lo).lo, fire_window(lat, x.rto.hi).lo};
    rec.accepted = window(x.rto);
    // A minimum the stack lets its user lower (Linux rto_min): the floorless
    // RTO is a setting's, not a departure's.
    const Tunable* lower_min = nullptr;
    for (const Tunable& t : opt_.profile->tunables)
      if (t.kind == Tunable::Kind::min_rto && !opt_.user_min_rto) lower_min = &t;
    if (x.basis == Basis::fallback_57 && x.before_57) rec.alternative = window(*x.before_57);
    else if (x.floorless && !lower_min) rec.alternative = window(*x.floorless);
    if (e.wait_unknown) {
      rec.verdict = Verdict::unchecked;
      return;
    }
    const Interval& w = e.wait;
    if (w.hi < rec.accepted.lo && lower_min && x.floorless && x.basis == Basis::profile_rto && !e.syn &&
        !e.ack_unheard && w.hi >= window(*x.floorless).lo) {
      // Before the RTO the profile's minimum gives, not before the one a
      // lower minimum gives: the setting explains it. Not when the expiry
      // is one only under the reading that an ACK the capture saw had not
      // reached the sender: other ACKs may not have either (another
      // reading, another timer), and a setting is read from evidence.
      rec.verdict = Verdict::setting;
      rec.alternative = window(*x.floorless);
      Judgement j = judgement(RuleId::stack_setting, Outcome::note, e, rec);
      j.topic = Topic::setting;
      j.setting = SettingUse{SettingUse::Kind::min_rto, *x.floorless, 0, lower_min->name};
      add(std::move(j), rec);
      return;
    }
    if (w.hi < rec.accepted.lo) {
      rec.verdict = e.ack_unheard ? Verdict::cannot_tell : Verdict::early;  // early under one reading only
      RuleId rule = RuleId::rfc6298_5_3_5_6;
      if (x.basis == Basis::fallback_57 && !e.syn) rule = RuleId::rfc6298_5_7;
      else if (x.basis == Basis::initial_rto) rule = RuleId::rfc6298_2_1;
      else if (x.floorless && w.hi >= window(*x.floorless).lo) rule = RuleId::rfc6298_2_4;
      Judgement j = judgement(rule, e.ack_unheard ? Outcome::cannot_tell : Outcome::broken, e, rec);
      if (rule == RuleId::rfc6298_2_4) {
        j.basis = Basis::floorless_rto;
        j.alternative = *x.floorless;  // the RTO without the floor, which the wait met
      }
      if (e.ack_unheard) unheard_readings(j);
      add(std::move(j), rec);
      return;
    }
    if (rec.alternative && w.intersects(*rec.alternative) && w.lo <= rec.accepted.hi) {
      // The wait interval holds both the RTO and the departing one (the
      // floor missing, 5.7's 3 s missing), or the two windows overlap where
      // it falls: an "ok" here is one the departure would have earned too,
      // so the capture cannot tell.
      rec.verdict = Verdict::cannot_tell;
      Judgement j = judgement(x.basis == Basis::fallback_57 ? RuleId::rfc6298_5_7 : RuleId::rfc6298_2_4,
                              Outcome::cannot_tell, e, rec);
      j.topic = Topic::wait_straddles;
      add(std::move(j), rec);
      return;
    }
    if (w.lo > rec.accepted.hi) {
      rec.verdict = Verdict::late;
      late_least_[0] = rec.accepted.lo;
      if (x.basis == Basis::initial_rto) {
        // An initial RTO a documented setting gives (Windows InitialRto 3 s).
        for (const Tunable& t : opt_.profile->tunables) {
          if (t.kind != Tunable::Kind::initial_rto) continue;
          if (!widened(w, g).intersects(Interval{t.lo, t.hi})) continue;
          rec.verdict = Verdict::setting;
          Judgement j = judgement(RuleId::stack_setting, Outcome::note, e, rec);
          j.topic = Topic::setting;
          j.setting = SettingUse{SettingUse::Kind::initial_rto, meet(widened(w, g), Interval{t.lo, t.hi}), 0, t.name};
          add(std::move(j), rec);
          return;
        }
      }
      if (w.lo > limits::kLateFactor.ceil_of(rec.predicted.hi) + g) {
        Judgement j = judgement(RuleId::late, Outcome::note, e, rec);
        j.topic = Topic::late_expiry;
        add(std::move(j), rec);
      }
      return;
    }
    rec.verdict = Verdict::ok;
  }

  // A later expiry: against the RTO the run's earlier waits show, doubled.
  void judge_later(std::size_t j, TimeoutRecord& rec) {
    const ObservedExpiry& e = *chain_[j];
    rec.basis = Basis::doubling;
    if (e.wait_unknown) {
      rec.verdict = Verdict::unchecked;
      return;  // no constraint: the run goes on through it
    }
    Variant& v = variants_[current_];
    if (const auto m = model_fitting(run_start_, j, v); m && variant_applies(v, run_start_, j)) {
      keep(j, rec, v, *m);
      return;
    }
    // The profile's default way does not explain it: a documented setting,
    // a cap below 2.5's minimum, or none.
    for (std::size_t vi = 0; vi < variants_.size(); ++vi) {
      if (vi == current_) continue;
      const Variant& alt = variants_[vi];
      if (!variant_applies(alt, run_start_, j)) continue;
      const auto m = model_fitting(run_start_, j, alt);
      if (!m) continue;
      // A setting is read only from evidence the later frames do not
      // refute: the next expiry of the chain must fit it too, and every
      // expiry the setting keeps linear with the first doubling after them
      // (a timer is never late by a doubling: a backoff seen where the
      // setting keeps the RTO shows the setting is not in force).
      // A thin-stream setting applies only while the stream is thin: past
      // the first expiry that is not, the sender doubles and refutes nothing.
      std::size_t through = std::min(chain_.size() - 1, std::max(j + 1, run_start_ + alt.linear));
      while (through > j + 1 && !variant_applies(alt, run_start_, through)) --through;
      if (through > j && !model_fitting(run_start_, through, alt)) continue;
      // A cap is read only where the backoff grew and then held
      // (limits::kCapEstablishedWaits expiries at it, after a doubling).
      if (alt.cap.lo != variants_[0].cap.lo || alt.cap.hi != variants_[0].cap.hi) {
        std::size_t end = j;
        while (end + 1 < chain_.size() && model_fitting(run_start_, end + 1, alt)) ++end;
        const auto f = fit(waits(run_start_, end, alt), models_[*m], bounds(alt));
        if (!f || !f->capped_from || end - run_start_ + 1 - *f->capped_from < limits::kCapEstablishedWaits)
          continue;
        cap_from_ = run_start_ + *f->capped_from;
        out_.cap = f->cap;
      }
      current_ = vi;
      keep(j, rec, variants_[vi], *m);
      return;
    }
    depart(j, rec);
  }

  // The index of the first expiry of chain_[i]'s span (its span_sum's
  // waits: that one's to i's), when it is in this reading's chain and
  // none of the span's waits is unknown; nullopt otherwise.
  std::optional<std::size_t> span_start(std::size_t i) const {
    const ObservedExpiry& e = *chain_[i];
    if (!e.span_sum || e.wait_unknown) return std::nullopt;
    for (std::size_t a = i; a-- > 0;) {
      if (chain_[a]->wait_unknown) return std::nullopt;
      if (chain_[a]->frame == e.span_from) return a;
      if (chain_[a]->frame < e.span_from) return std::nullopt;
    }
    return std::nullopt;
  }

  // This wait and the ones before it in its span together, where held
  // frames between them hide how they split: short when they together came
  // sooner than the least the run before them (under v) predicts for all,
  // under every lateness model (each expiry's least summed: no split of
  // the sum meets them). The window they together were due in, and how
  // many; nullopt when not short. (A sum held up shows nothing: any of its
  // waits may have been late, its host holding its frames.)
  struct Joint {
    Interval due;
    unsigned expiries = 0;  // the waits summed: this one's and those before it
  };
  std::optional<Joint> joint_off(std::size_t j, const Variant& v) const {
    const auto a = span_start(j);
    if (!a || *a < run_start_ + 1) return std::nullopt;  // the run before the span shows no RTO
    const auto before = waits(run_start_, *a - 1, v);
    const unsigned base = doublings(run_start_ + 1, v.linear);
    const Interval t = widened(*chain_[j]->span_sum, opt_.absolute_tolerance);
    std::optional<Interval> due;
    for (const TimerLateness& model : models_) {
      Interval sum{microseconds{0}, microseconds{0}};
      for (std::size_t i = *a; i <= j; ++i) {
        const auto p = predict(before, doublings(i + 1, v.linear) - base, model, bounds(v));
        if (!p) return std::nullopt;
        sum.lo += p->fire.lo;
        sum.hi = sum.bounded() && p->fire.bounded() ? sum.hi + p->fire.hi : microseconds::max();
      }
      if (t.hi >= sum.lo) return std::nullopt;
      due = due ? Interval{std::min(due->lo, sum.lo), std::max(due->hi, sum.hi)} : sum;
    }
    if (!due) return std::nullopt;
    return Joint{*due, static_cast<unsigned>(j - *a + 1)};
  }

  // Expiry j fits the run under variant v and lateness model m.
  void keep(std::size_t j, TimeoutRecord& rec, const Variant& v, std::size_t m) {
    const ObservedExpiry& e = *chain_[j];
    const microseconds g = opt_.absolute_tolerance;
    const auto prefix = waits(run_start_, j - 1, v);
    const unsigned d = doublings(j + 1, v.linear) - doublings(run_start_ + 1, v.linear);
    const unsigned d_prev = doublings(j, v.linear) - doublings(run_start_ + 1, v.linear);
    const auto pred = predict(prefix, d, models_[m], bounds(v));
    if (pred) {
      rec.predicted = pred->rto;
      rec.accepted = widened(pred->fire, g);
    }
    // The departure 5.5 exists to catch: the RTO not doubled. Not one where
    // the chain is held at its cap (2.5's maximum: no doubling is due).
    const auto f = fit(waits(run_start_, j, v), models_[m], bounds(v));
    const bool capped = f && f->capped_from && run_start_ + *f->capped_from <= j;
    if (d > d_prev && !capped)
      if (const auto alt = predict(prefix, d_prev, models_[m], bounds(v))) rec.alternative = widened(alt->fire, g);
    rec.verdict = Verdict::ok;
    if (models_[m].reading == Reading::additive_lateness && f) out_.additive = f->additive;
    if (v.linear != variants_[0].linear) out_.linear = v.linear;
    rec.readings.push_back({models_.front().reading, m == 0});
    if (m != 0) rec.readings.push_back({models_[m].reading, true});
    if (v.cap_below_rfc && cap_from_ && j >= *cap_from_) {
      // Held at a cap below 2.5's 60 s. What the rule predicts: the previous
      // wait's RTO doubled (no cap below 60 s); the cap is where it fell.
      const Interval at_cap = fire_window(models_[m], out_.cap->hi);
      rec.alternative = widened(Interval{out_.cap->lo, at_cap.hi}, g);
      if (const auto p = predict(waits(j - 1, j - 1, variants_[0]), 1, models_.front(), bounds(variants_[0]))) {
        rec.predicted = p->rto;
        rec.accepted = widened(p->fire, g);
      }
      // Broken here only if no point of this wait is the doubled RTO: a wait
      // the capture bounds loosely (a flushed burst, an unknown arm) may be
      // either, and the cap stands on the waits that showed it.
      const bool either = widened(e.wait, g).intersects(rec.accepted) && !joint_off(j, variants_[0]);
      rec.verdict = either ? Verdict::cannot_tell : Verdict::early;
      Judgement x = judgement(RuleId::rfc6298_2_5, either ? Outcome::cannot_tell : Outcome::broken, e, rec);
      if (either) x.topic = Topic::wait_straddles;
      x.basis = Basis::cap;
      x.setting = SettingUse{SettingUse::Kind::max_rto, *out_.cap, 0, {}};
      x.prev_waited = chain_[j - 1]->wait;
      // The run's earlier expiries: the waits that doubled, then levelled off.
      for (std::size_t i = run_start_; i < j; ++i) x.evidence.push_back(chain_[i]->frame);
      add(std::move(x), rec);
      return;
    }
    if (v.setting.kind != SettingUse::Kind::none && !setting_noted_) {
      setting_noted_ = true;
      Judgement x = judgement(RuleId::stack_setting, Outcome::note, e, rec);
      x.topic = Topic::setting;
      x.setting = v.setting;
      if (v.setting.kind == SettingUse::Kind::max_rto && out_.cap) x.setting.value = *out_.cap;
      x.prev_waited = chain_[j - 1]->wait;
      add(std::move(x), rec);
    }
    // A constant lateness read from the chain, pinned by the run's waits,
    // this one's and the later ones it also explains (settled at the end).
    std::size_t end = j;
    if (models_[m].inferred)
      while (end + 1 < chain_.size() && fit(waits(run_start_, end + 1, v), models_[m], bounds(v))) ++end;
    if (models_[m].inferred && end - run_start_ + 1 < limits::kInferredAdditiveWaits) {
      // Only a constant lateness the run is too short to pin explains it.
      rec.verdict = Verdict::cannot_tell;
      Judgement x = judgement(RuleId::rfc6298_5_5, Outcome::cannot_tell, e, rec);
      x.topic = Topic::readings_differ;
      x.prev_waited = chain_[j - 1]->wait;
      x.readings = {{models_.front().reading, false}, {models_[m].reading, true}};
      add(std::move(x), rec);
      return;
    }
    if (rec.alternative && widened(e.wait, g).intersects(*rec.alternative)) {
      // The wait interval holds the doubled RTO and the one not doubled.
      rec.verdict = Verdict::cannot_tell;
      Judgement x = judgement(RuleId::rfc6298_5_5, Outcome::cannot_tell, e, rec);
      x.topic = Topic::wait_straddles;
      x.prev_waited = chain_[j - 1]->wait;
      add(std::move(x), rec);
    }
  }

  // Expiry j departs from the run: too short (a rule broken), too long (late).
  void depart(std::size_t j, TimeoutRecord& rec) {
    const ObservedExpiry& e = *chain_[j];
    const microseconds g = opt_.absolute_tolerance;
    const Variant& v = variants_[current_];
    const auto prefix = waits(run_start_, j - 1, v);
    const unsigned d = doublings(j + 1, v.linear) - doublings(run_start_ + 1, v.linear);
    const unsigned d_prev = doublings(j, v.linear) - doublings(run_start_ + 1, v.linear);
    const Interval w = widened(e.wait, g);
    bool all_short = true, all_long = true;
    std::optional<Prediction> shown;
    microseconds least = microseconds::max();  // the least RTO any model predicts
    for (std::size_t m = 0; m < models_.size(); ++m) {
      const auto p = predict(prefix, d, models_[m], bounds(v));
      if (!p) continue;
      if (!shown) shown = p;
      all_short = all_short && w.hi < p->fire.lo;
      all_long = all_long && p->fire.bounded() && w.lo > p->fire.hi;
      least = std::min(least, p->fire.lo);
    }
    if (shown) {
      rec.predicted = shown->rto;
      rec.accepted = widened(shown->fire, g);
      if (d > d_prev)
        if (const auto alt = predict(prefix, d_prev, models_.front(), bounds(v))) rec.alternative = widened(alt->fire, g);
    }
    std::optional<Joint> joint;
    if (!all_short && !all_long) {
      joint = joint_off(j, v);
      all_short = joint.has_value();
    }
    const Interval prev = chain_[j - 1]->wait;
    // The expiry this one is timed from may have fired later than its RTO
    // (held back by the newest data): the doubling shown from its wait is
    // one reading only, if an RTO had run out by then (no stack's is below
    // the least the samples give) and the one this wait doubles (under the
    // timer's lateness) had.
    const ObservedExpiry* delayed = nullptr;
    if (const ObservedExpiry& p = *chain_[j - 1];
        p.maybe_delayed && r_min_ <= p.delayed_after_head + g &&
        fire_window(models_.front(), 2 * (p.delayed_after_head + g)).hi >= e.wait.lo)
      delayed = &p;
    if (shown && all_short) {
      rec.verdict = Verdict::early;
      const bool karn = e.after_ambiguous_ack;
      Judgement x = judgement(karn ? RuleId::rfc6298_3_karn : RuleId::rfc6298_5_5,
                              (karn && e.after_sack_sample) || e.ack_unheard || delayed ? Outcome::cannot_tell
                                                                                      : Outcome::broken,
                              e, rec);
      x.basis = karn ? Basis::karn_backoff : Basis::doubling;
      if (x.outcome == Outcome::cannot_tell) {
        x.topic = Topic::readings_differ;
        rec.verdict = Verdict::cannot_tell;  // early under one reading only
      }
      if (e.ack_unheard) {
        unheard_readings(x);
      } else if (delayed && x.outcome == Outcome::cannot_tell && x.readings.empty()) {
        x.readings = {{Reading::earlier_on_time, false}, {Reading::earlier_delayed, true}};
        x.other_frame = delayed->delayed_by;
      }
      x.prev_waited = prev;
      if (joint) {
        x.joint_waited = *e.span_sum;
        x.joint_accepted = joint->due;
        x.joint_expiries = joint->expiries;
        if (x.other_frame == 0) x.other_frame = e.span_from;
      }
      // The run's earlier expiries, whose waits gave the doubling (besides its own frame).
      for (std::size_t i = run_start_; i < j; ++i) x.evidence.push_back(chain_[i]->frame);
      add(std::move(x), rec);
    } else if (shown && all_long) {
      rec.verdict = Verdict::late;
      // The run goes on from an RTO this wait bounds from above only: the
      // doubling is of the RTO, not of the wait a late timer showed.
      late_least_[j] = least > g ? least - g : microseconds{0};
      if (e.wait.lo > limits::kLateFactor.ceil_of(shown->rto.hi) + g) {
        Judgement x = judgement(RuleId::late, Outcome::note, e, rec);
        x.topic = Topic::late_expiry;
        x.prev_waited = prev;
        add(std::move(x), rec);
      }
    } else {
      rec.verdict = Verdict::cannot_tell;
      Judgement x = judgement(RuleId::rfc6298_5_5, Outcome::cannot_tell, e, rec);
      x.topic = Topic::readings_differ;
      x.prev_waited = prev;
      add(std::move(x), rec);
    }
    // The chain goes on from here, judged by its own doubling. A constant
    // lateness is the stack's, not the run's: the next run keeps the most
    // this one's waits allowed of it under each inferred model (the bound
    // that decides how short its waits may be: a larger constant lets its R
    // be smaller).
    for (TimerLateness& l : models_) {
      if (!l.inferred) continue;
      if (const auto f = fit(waits(run_start_, j - 1, v), l, bounds(v)))
        l.additive.hi = std::min(l.additive.hi, f->additive.hi);
    }
    run_start_ = j;
    current_ = 0;
    cap_from_.reset();
    setting_noted_ = false;
  }

  const Options& opt_;
  std::span<const ObservedExpiry* const> chain_;
  bool syn_;
  std::vector<TimerLateness> models_;
  std::vector<Variant> variants_;
  microseconds r_min_{1};      // least_rto()
  // For an expiry later than its prediction's window (all lateness models):
  // that window's lower end, the least RTO it may have been armed with.
  std::vector<std::optional<microseconds>> late_least_;
  std::size_t current_ = 0;    // the variant the current run is read under
  std::size_t run_start_ = 0;  // the run: expiries since the last departure, one doubling chain
  std::optional<std::size_t> cap_from_;
  bool setting_noted_ = false;
  bool judged_ = true;  // the expiry being judged is checked (the peer was seen)
  ReadingOutcome out_;
};

// (frame, rule) of a verdict.
using Key = std::pair<std::uint64_t, RuleId>;

}  // namespace

ChainJudge::ChainJudge(const Options& options) : opt_(options) {}

SettledChain ChainJudge::settle(std::span<const ObservedExpiry> events, bool syn) const {
  // The events whose two readings are weighed: probes at the RTO's own time
  // and repeats in a held burst (the rest read by default: probes as
  // probes, repeats as expiries).
  const auto maybe = [&](std::size_t i) { return events[i].maybe_probe || events[i].maybe_repeat; };
  std::vector<std::size_t> open;
  for (std::size_t i = 0; i < events.size() && open.size() < limits::kMaxProbeReadings; ++i)
    if (maybe(i)) open.push_back(i);
  const std::size_t readings = std::size_t{1} << open.size();
  // The readings a mask departs from the default in (a probe as an expiry,
  // a repeat as none): on a tie of the timing, the fewest.
  const auto off_default = [&](std::size_t mask) {
    std::size_t n = 0;
    for (std::size_t k = 0; k < open.size(); ++k) n += ((mask >> k & 1) != 0) == events[open[k]].maybe_probe ? 1 : 0;
    return n;
  };
  std::vector<ReadingOutcome> outcomes;
  for (std::size_t mask = 0; mask < readings; ++mask) {
    std::vector<const ObservedExpiry*> chain;
    for (std::size_t i = 0; i < events.size(); ++i) {
      if (maybe(i)) {
        const auto at = std::find(open.begin(), open.end(), i);
        const bool as_expiry = at != open.end() ? (mask >> (at - open.begin()) & 1) != 0 : events[i].maybe_repeat;
        if (!as_expiry) continue;
      }
      chain.push_back(&events[i]);
    }
    outcomes.push_back(ReadingJudge(opt_, chain, syn).run());
  }
  // Under a probe reading, the RTO the probe's own timing shows (it fired at
  // the RTO's own time) is re-armed undoubled: the next expiry after it
  // waits about as long again. Where that does not fit, the reading is off.
  const auto models = lateness_models(opt_, syn);
  for (std::size_t k = 0; k < open.size(); ++k) {
    const ObservedExpiry& p = events[open[k]];
    if (!p.maybe_probe) continue;  // (a repeat re-arms nothing of its own)
    const ObservedExpiry* next = nullptr;
    for (std::size_t i = open[k] + 1; i < events.size() && !next; ++i)
      if (!maybe(i)) next = &events[i];
    if (!next || p.wait_unknown || next->wait_unknown) continue;
    const auto g = opt_.absolute_tolerance;
    // (A wait the capture bounds only from below stays unbounded.)
    const FitWait pair[2] = {{p.wait.widened(g, g), 0, std::nullopt, 0}, {next->wait.widened(g, g), 0, std::nullopt, 0}};
    bool fits = false;
    for (const TimerLateness& l : models) fits = fits || fit(pair, l, FitBounds{}).has_value();
    if (fits) continue;
    for (std::size_t mask = 0; mask < readings; ++mask)
      if (!(mask >> k & 1)) ++outcomes[mask].off;
  }
  // Where the profile's stack may not re-arm its timer at a probe (not
  // Linux), a probe at the RTO's own time leaves a third reading: it left
  // the deadline as it was, and the next expiry waited from the probe's own
  // arm (the two waits together). Weighed where one probe is the chain's
  // only open event and the two waits are plain (no clock bridged, no held
  // span, both known), for a stack that sends one probe a flight (a second
  // probe is one more reading of the repeat after it: FreeBSD's RACK
  // sends two): then a rule the chain breaks under all three readings is
  // broken.
  std::optional<ReadingOutcome> deadline_kept;
  if (open.size() == 1 && events[open[0]].maybe_probe && !opt_.profile->rearm_from_head &&
      opt_.profile->probe.max_per_flight == 1) {
    const std::size_t k = open[0];
    const auto plain = [](const ObservedExpiry& e) { return !e.wait_unknown && !e.bridged && !e.span_sum; };
    if (k + 1 < events.size() && plain(events[k]) && plain(events[k + 1]) && events[k].wait.bounded() &&
        events[k + 1].wait.bounded()) {
      const ObservedExpiry& p = events[k];
      ObservedExpiry merged = events[k + 1];
      merged.wait = Interval{p.wait.lo + merged.wait.lo, p.wait.hi + merged.wait.hi};
      merged.ts_wait = p.ts_wait && merged.ts_wait
                           ? std::optional<Interval>(Interval{p.ts_wait->lo + merged.ts_wait->lo,
                                                              p.ts_wait->hi + merged.ts_wait->hi})
                           : std::nullopt;
      merged.on_tsval = p.on_tsval || merged.on_tsval;
      merged.armed_by = p.armed_by;
      merged.arm_frame = p.arm_frame;
      std::vector<const ObservedExpiry*> chain;
      for (std::size_t i = 0; i < events.size(); ++i)
        if (i != k) chain.push_back(i == k + 1 ? &merged : &events[i]);
      deadline_kept = ReadingJudge(opt_, chain, syn).run();
    }
  }
  const auto kept_deadline_breaks = [&](RuleId rule) {
    if (!deadline_kept) return false;
    return std::any_of(deadline_kept->judgements.begin(), deadline_kept->judgements.end(),
                       [&](const Judgement& x) { return x.outcome == Outcome::broken && x.rule == rule; });
  };
  // The reading the timing leaves: the fewest rules broken, then the fewest
  // expiries off their prediction (a probe's re-armed RTO gives the next
  // wait 1 x, an expiry's doubling 2 x); on a tie the default readings: the
  // probes as probes (a probe at the RTO's own time is what Linux sends,
  // RFC 8985 7.2), the repeats as expiries (what their hold sign says).
  std::size_t best = 0;
  for (std::size_t mask = 1; mask < readings; ++mask)
    if (std::tuple(outcomes[mask].broken, outcomes[mask].off, off_default(mask)) <
        std::tuple(outcomes[best].broken, outcomes[best].off, off_default(best)))
      best = mask;
  ReadingOutcome& chosen = outcomes[best];

  SettledChain out;
  out.cap = chosen.cap;
  out.additive = chosen.additive;
  out.linear = chosen.linear;
  // A rule broken at a frame under the chosen reading but kept there under
  // another: cannot tell (unless broken elsewhere under that one, below).
  std::map<Key, std::size_t> broken_in;  // in how many readings each (frame, rule) is broken
  std::map<RuleId, std::size_t> chain_broken_in;  // in how many readings each rule is broken anywhere in the chain
  for (const ReadingOutcome& o : outcomes) {
    std::set<RuleId> here;
    for (const Judgement& j : o.judgements)
      if (j.outcome == Outcome::broken) {
        ++broken_in[{j.frame, j.rule}];
        here.insert(j.rule);
      }
    for (RuleId r : here) ++chain_broken_in[r];
  }
  // The readings of (frame, rule) named in a judgement: those of the probe
  // (the repeat) it depends on, the latest weighed one at or before the
  // frame: not an expiry, an expiry, each keeping the rule there if any
  // reading of the other weighed events with it does.
  struct Weighed {
    bool repeat = false;
    ReadingResult other, expiry;
  };
  const auto weighed = [&](std::uint64_t frame, RuleId rule) {
    std::size_t k = 0;
    for (std::size_t i = 0; i < open.size(); ++i)
      if (events[open[i]].frame <= frame) k = i;
    bool keeps[2] = {false, false};  // [not an expiry, an expiry]
    for (std::size_t mask = 0; mask < readings; ++mask) {
      bool broken = false;
      for (const Judgement& x : outcomes[mask].judgements)
        broken = broken || (x.outcome == Outcome::broken && x.frame == frame && x.rule == rule);
      keeps[mask >> k & 1] = keeps[mask >> k & 1] || !broken;
    }
    const bool repeat = events[open[k]].maybe_repeat;
    return Weighed{repeat, {repeat ? Reading::repeat_other : Reading::as_probe, keeps[0]},
                   {repeat ? Reading::repeat_timer : Reading::as_expiry, keeps[1]}};
  };
  for (Judgement& j : chosen.judgements) {
    // Broken here under this reading, kept here under another: cannot tell,
    // unless every reading breaks the rule somewhere in the chain (at
    // another frame: the expiries they count differ): then the chain departs
    // from it whichever is right, and the chosen reading's frame says where.
    if (j.outcome == Outcome::broken && broken_in[{j.frame, j.rule}] < readings) {
      // (Read before `j` changes: it is the chosen reading's.)
      const Weighed w = weighed(j.frame, j.rule);
      // Every reading breaks it somewhere in the chain: broken, the two
      // readings of that repeat named, neither keeping the rule. For a probe
      // at the RTO's own time, only where the profile's stack re-arms the
      // timer at a probe (Linux), or where the third reading such a stack
      // leaves, the old deadline kept (deadline_kept), breaks it too.
      if (chain_broken_in[j.rule] == readings &&
          (w.repeat || opt_.profile->rearm_from_head || kept_deadline_breaks(j.rule))) {
        j.readings = {{w.other.reading, false}, {w.expiry.reading, false}};
        if (deadline_kept) j.readings.push_back({Reading::probe_deadline_kept, false});
        out.judgements.push_back(std::move(j));
        continue;
      }
      j.outcome = Outcome::cannot_tell;
      j.level = Level::info;
      j.topic = Topic::readings_differ;
      j.readings.push_back(w.other);
      j.readings.push_back(w.expiry);
      // Its expiry's verdict says so too (early under the chosen reading only).
      for (TimeoutRecord& r : chosen.records)
        if (r.frame == j.frame && r.verdict == Verdict::early) r.verdict = Verdict::cannot_tell;
    }
    out.judgements.push_back(std::move(j));
  }
  // Kept at a frame under the chosen reading, broken there under another
  // reading of a held repeat (and the chosen breaks it nowhere): its "ok"
  // is one the departure may have earned too: cannot tell, the other
  // reading's judgement at that frame as an INFO, with the repeat's
  // readings. (A probe at the RTO's own time is read as the profile's
  // probe: RFC 8985 7.2, what Linux sends; the expiry reading only keeps a
  // departure from being claimed.)
  std::set<Key> noted;
  for (const Judgement& j : out.judgements) noted.insert({j.frame, j.rule});
  for (std::size_t mask = 0; mask < readings; ++mask) {
    if (mask == best) continue;
    for (const Judgement& x : outcomes[mask].judgements) {
      if (x.outcome != Outcome::broken || !noted.insert({x.frame, x.rule}).second) continue;
      const Weighed w = weighed(x.frame, x.rule);
      if (!w.repeat) continue;
      Judgement c = x;
      c.outcome = Outcome::cannot_tell;
      c.level = Level::info;
      c.topic = Topic::readings_differ;
      c.readings = {w.other, w.expiry};
      for (TimeoutRecord& r : chosen.records)
        if (r.frame == x.frame && r.verdict != Verdict::early && r.verdict != Verdict::unchecked) {
          r.verdict = Verdict::cannot_tell;
          if (std::find(r.rules.begin(), r.rules.end(), x.rule) == r.rules.end()) r.rules.push_back(x.rule);
        }
      out.judgements.push_back(std::move(c));
    }
  }
  out.records = std::move(chosen.records);
  for (std::size_t k = 0; k < open.size(); ++k) {
    const bool as_expiry = best >> k & 1;
    const bool repeat = events[open[k]].maybe_repeat;
    out.kinds.emplace_back(events[open[k]].frame,
                           as_expiry ? SendKind::timeout : repeat ? SendKind::unclassified : SendKind::tlp);
    // The readings of the probe (the repeat), on the record of the expiry it
    // begins (its own as an expiry, the next one's otherwise).
    const bool other_keeps = outcomes[best & ~(std::size_t{1} << k)].broken == 0;
    const bool expiry_keeps = outcomes[best | (std::size_t{1} << k)].broken == 0;
    for (TimeoutRecord& r : out.records)
      if (r.frame >= events[open[k]].frame) {
        r.readings.insert(r.readings.begin(), {{repeat ? Reading::repeat_other : Reading::as_probe, other_keeps},
                                               {repeat ? Reading::repeat_timer : Reading::as_expiry, expiry_keeps}});
        break;
      }
  }
  // Events that stayed out of the weighing (beyond the weighed ones), read
  // by default: probes as probes, repeats as expiries.
  for (std::size_t i = 0; i < events.size(); ++i)
    if (maybe(i) && std::find(open.begin(), open.end(), i) == open.end())
      out.kinds.emplace_back(events[i].frame, events[i].maybe_repeat ? SendKind::timeout : SendKind::tlp);
  return out;
}

}  // namespace replay::engine

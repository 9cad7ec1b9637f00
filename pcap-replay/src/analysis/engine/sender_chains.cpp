// SenderEngine: chains of expiries and the judgements pending on them.
#include "analysis/engine/sender_engine.hpp"

#include <algorithm>
#include <utility>

#include <rto/seq.hpp>

#include <replay/analysis/thresholds.hpp>

namespace replay::engine {

// ---- chains and pending judgements ------------------------------------------

Judgement SenderEngine::note(Topic topic, std::uint64_t frame, CaptureTime t, bool syn) {
  Judgement j;
  j.rule = RuleId::ambiguous;
  j.outcome = Outcome::note;
  j.level = Level::info;
  j.topic = topic;
  j.frame = frame;
  j.time = t;
  j.syn = syn;
  return j;
}

void SenderEngine::settle_54_waiting() {
  if (!pending_54_) return;
  const Pending54 p = *pending_54_;
  pending_54_.reset();
  notes_waiting_ = open_57_.has_value();
  if (p.head_resent) return;
  Judgement j;
  j.rule = RuleId::rfc6298_5_4;
  // Under the reading that the ACK reached the sender, the resend was of
  // acknowledged data, no expiry: 5.4 is broken under one reading only.
  j.outcome = p.ack_unheard ? Outcome::cannot_tell : Outcome::broken;
  if (p.ack_unheard) {
    j.topic = Topic::readings_differ;
    j.readings = {{Reading::ack_unheard, false}, {Reading::ack_heard, true}};
  }
  j.level = level_of(j.rule, j.outcome);
  j.frame = p.frame;
  j.time = p.time;
  j.expiry = p.expiry;
  j.rel_seq = p.rel_seq;
  j.rel_una = p.rel_una;
  append(std::move(j));
}

void SenderEngine::settle_57(std::uint64_t sample_frame) {
  if (!notes_waiting_ || !open_57_) return;
  const Open57 o = *open_57_;
  open_57_.reset();
  notes_waiting_ = pending_54_.has_value();
  Judgement j = note(Topic::unverifiable_57, o.frame, o.time, false);
  j.rule = RuleId::rfc6298_5_7;
  j.predicted = Interval::point(opt_.config.syn_fallback_rto);
  j.alternative = Interval::point(o.before);
  j.other_frame = sample_frame;
  append(std::move(j));
}

void SenderEngine::absorb(SettledChain&& c) {
  for (Judgement& j : c.judgements) out_.findings.push_back(std::move(j));
  for (TimeoutRecord& r : c.records) {
    // A 5.4 judgement settled with the burst names this expiry too.
    for (const Judgement& j : out_.findings)
      if (j.frame == r.frame && j.rule == RuleId::rfc6298_5_4 &&
          std::find(r.rules.begin(), r.rules.end(), RuleId::rfc6298_5_4) == r.rules.end())
        r.rules.push_back(RuleId::rfc6298_5_4);
    out_.timeouts.push_back(std::move(r));
  }
  for (const auto& [frame, kind] : c.kinds) {
    count(kind);
    for (const auto& [f, row] : provisional_rows_)
      if (f == frame && row < out_.timeline.size()) out_.timeline[row].event = to_string(kind);
  }
  if (c.cap && (!out_.inferred.plateau || c.cap->lo > *out_.inferred.plateau)) out_.inferred.plateau = c.cap->lo;
  if (c.additive && c.additive->bounded()) out_.inferred.additive = (c.additive->lo + c.additive->hi) / 2;
}

void SenderEngine::settle_data_chain() {
  if (!data_chain_open_) return;
  if (activity_) {
    // Each expiry's wait as the capture clock shows it, before a hold moves it.
    std::vector<Interval> captured;
    captured.reserve(data_chain_.size());
    for (const ObservedExpiry& x : data_chain_) captured.push_back(x.wait);
    for (std::size_t k = 0; k < data_chain_.size(); ++k) {
      ObservedExpiry& x = data_chain_[k];
      // A frame captured in a burst its host released after a silence was
      // sent before its capture: a wait that ends at one is at most what
      // the capture shows, one that starts at one at least. The sender's
      // own TSval clock, when it has one, tells the wait itself.
      const auto end_hold = activity_->flushed(file_, x.frame);
      const auto start_hold = x.arm_frame ? activity_->flushed(file_, x.arm_frame) : std::nullopt;
      const bool end_held = end_hold.has_value();
      const bool start_held = start_hold.has_value();
      if ((!end_held && !start_held) || x.wait_unknown) continue;
      if (x.ts_wait) {
        x.wait = *x.ts_wait;
        x.on_tsval = true;
        continue;
      }
      if (end_held) x.wait.lo = microseconds{0};
      if (start_held) {
        // Its arm, the previous expiry, left no sooner than that one's own
        // arm: the wait is at most this one's and that one's on the capture
        // clock together (unbounded when that one's is, or is its TSval
        // clock's: no capture-clock time).
        const ObservedExpiry* prev = k > 0 && data_chain_[k - 1].frame == x.arm_frame ? &data_chain_[k - 1] : nullptr;
        const bool on_capture_clock = prev && prev->wait.bounded() && !prev->wait_unknown && !prev->on_tsval;
        x.wait.hi = on_capture_clock ? x.wait.hi + prev->wait.hi : microseconds::max();
        // The waits from the first held expiry before it (each later one
        // armed by a held one) to this expiry span from that one's arm, sent
        // when captured, to this one: the held frames between cancel out of
        // their sum, which the capture bounds from above (this one, if held
        // itself, left sooner than captured).
        if (on_capture_clock) {
          std::size_t first = k;
          Interval sum = captured[k];
          bool known = true;
          while (first > 0 && data_chain_[first].arm_frame == data_chain_[first - 1].frame &&
                 activity_->flushed(file_, data_chain_[first].arm_frame)) {
            const ObservedExpiry& p = data_chain_[--first];
            known = known && !p.wait_unknown && !p.on_tsval && !p.ts_wait && captured[first].bounded();
            sum = Interval{sum.lo + captured[first].lo, sum.bounded() ? sum.hi + captured[first].hi : sum.hi};
          }
          // (That arm was sent when captured: a held one leaves the first
          // expiry's wait, and so every later one's, unbounded above, and
          // this one's is not.)
          if (known && first < k && sum.bounded()) {
            x.span_sum = sum;
            x.span_from = data_chain_[first].frame;
          }
        }
      }
      // (A repeat's hold is its previous copy's: that one's note names it.)
      if (x.maybe_repeat) continue;
      Judgement j = note(Topic::flushed_burst, x.frame, x.time, x.syn);
      j.other_frame = end_held ? x.frame : x.arm_frame;
      const HostActivity::Hold& hold = end_held ? *end_hold : *start_hold;
      j.hold = hold.sign;
      j.evidence.push_back(hold.frame);
      append(std::move(j));
    }
  }
  absorb(judge_.settle(data_chain_, false));
  data_chain_.clear();
  data_chain_open_ = false;
  provisional_rows_.clear();
}

void SenderEngine::settle_syn_chain() {
  if (syn_chain_.empty()) return;
  absorb(judge_.settle(syn_chain_, true));
  syn_chain_.clear();
}

}  // namespace replay::engine

#include "analysis/inference.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include <replay/thresholds.hpp>

namespace replay {

using std::chrono::microseconds;

namespace {
std::string ms(microseconds d) {
  char buf[32];
  if (d.count() % 1'000'000 == 0 && d.count() > 0)
    std::snprintf(buf, sizeof buf, "%lld s", static_cast<long long>(d.count() / 1'000'000));
  else
    std::snprintf(buf, sizeof buf, "%.0f ms", static_cast<double>(d.count()) / 1000.0);
  return buf;
}
microseconds since(CaptureTime a, CaptureTime b) { return std::chrono::duration_cast<microseconds>(a - b); }
// Two waits are the same within limits::kSameWaitPercent and kSameWaitTicks.
bool same(microseconds a, microseconds b) {
  const microseconds d = a > b ? a - b : b - a;
  return d * 100 <= std::max(a, b) * limits::kSameWaitPercent + limits::kSameWaitTicks * 100;
}
// To the nearest 10 ms for the summary ("1 s", "200 ms").
microseconds round10(microseconds d) { return (d + microseconds{5'000}) / 10'000 * 10'000; }

}  // namespace

void infer_settings(SenderReport& s, const Options& judged, std::span<const std::string_view> ties) {
  InferredSettings& in = s.inferred;
  in.probes = s.by_kind[static_cast<std::size_t>(SendKind::tlp)];
  // The chains: runs of consecutive expiries (backoff 1, 2, 3, ...), SYN and data apart.
  std::vector<std::vector<const TimeoutRecord*>> chains;
  bool broken = false;  // an expiry's wait was unknown: skip to the next chain's first expiry
  for (const auto& t : s.timeouts) {
    // A wait across a step of the capture clock is unknown (clock_steps.hpp):
    // no evidence of a setting, and neither is the rest of its chain (whose
    // waits would be measured from it).
    if (t.wait_unknown) {
      broken = true;
      continue;
    }
    if (broken && t.backoff != 1) continue;
    broken = false;
    if (t.backoff == 1 || chains.empty()) {
      chains.push_back({&t});
      continue;
    }
    // Find the open chain of the same kind (SYN or data).
    bool placed = false;
    for (auto it = chains.rbegin(); it != chains.rend(); ++it) {
      if (it->back()->syn == t.syn && it->back()->backoff + 1 == t.backoff) {
        it->push_back(&t);
        placed = true;
        break;
      }
    }
    if (!placed) chains.push_back({&t});
  }
  for (const auto& c : chains) {
    // The waits of the chain: the first since its arm, the rest between expiries.
    std::vector<microseconds> w{c.front()->waited};
    for (std::size_t i = 1; i < c.size(); ++i) w.push_back(since(c[i]->time, c[i - 1]->time));
    for (const auto* t : c) in.evidence.push_back(t->frame);
    if (c.front()->syn) {
      if (in.syn_waits.empty()) {
        in.syn_waits = w;
        in.initial_rto = w.front();
        unsigned linear = 0;
        std::size_t i = 1;
        while (i < w.size() && same(w[i], w[i - 1])) ++linear, ++i;
        if (i < w.size()) in.syn_linear = linear;  // doubling seen after the linear run
      }
      continue;
    }
    if (!in.min_first_wait || w.front() < *in.min_first_wait) in.min_first_wait = w.front();
    // Linear data expiries before any doubling (thin-stream timeouts?).
    unsigned lin = 0;
    for (std::size_t i = 1; i < w.size() && same(w[i], w[i - 1]); ++i) ++lin;
    bool grew = false;
    for (std::size_t i = 1; i < w.size(); ++i) {
      if (w[i] * limits::kDoublingExpectedDen >= w[i - 1] * limits::kDoublingExpectedNum) grew = true;
      else if (grew && same(w[i], w[i - 1]) && i + 1 < w.size() && same(w[i + 1], w[i]) &&
               (!in.plateau || w[i] > *in.plateau))
        in.plateau = w[i];
    }
    if (!grew) in.linear_data = std::max(in.linear_data, lin);
    // An additive term: waits = RTO x 2^k + b gives b = 2 w[i] - w[i+1].
    if (w.size() >= 3) {
      std::vector<microseconds> b;
      for (std::size_t i = 0; i + 1 < w.size(); ++i) b.push_back(2 * w[i] - w[i + 1]);
      const auto [lo, hi] = std::minmax_element(b.begin(), b.end());
      if (*hi - *lo <= limits::kAdditiveAgreement && *lo >= limits::kAdditiveAgreement) in.additive = (*lo + *hi) / 2;
    }
  }
  for (const auto& t : s.timeouts)
    if (t.verdict == Verdict::ok && !t.relative && t.waited > t.predicted) {
      const microseconds late = t.waited - t.predicted;
      if (!in.lateness || late > *in.lateness) in.lateness = late;
    }
  if (in.min_first_wait)
    in.floor = *in.min_first_wait + judged.tolerance(limits::kRfcMinRto) >= limits::kRfcMinRto
                   ? "sum"
                   : "variance";
  for (const auto& f : s.findings)
    if (f.rule == RuleId::rfc6298_5_7) in.fallback_57 = f.level == Level::must ? "kept the sample's RTO" : "not visible";
  std::sort(in.evidence.begin(), in.evidence.end());
  in.evidence.erase(std::unique(in.evidence.begin(), in.evidence.end()), in.evidence.end());

  // The line.
  std::uint64_t musts = 0;
  for (const auto& f : s.findings) musts += f.level == Level::must ? 1 : 0;
  std::string tied;
  for (auto t : ties) tied += (tied.empty() ? " (so do, as far as this capture shows: " : ", ") + std::string(t);
  if (!tied.empty()) tied += ")";
  std::string line = judged.auto_profile ? "behaves like " + std::string(judged.profile->title) + tied
                     : musts == 0        ? "no MUST departure from " + std::string(judged.profile->title)
                                         : "departs from " + std::string(judged.profile->title);
  std::vector<std::string> parts;
  if (in.initial_rto) parts.push_back("initial RTO " + ms(round10(*in.initial_rto)));
  if (!in.syn_waits.empty()) {
    std::string sched;
    for (auto w : in.syn_waits) sched += (sched.empty() ? "" : ",") + ms(round10(w));
    parts.push_back("SYN waits " + sched +
                    (in.syn_linear ? " (" + std::to_string(*in.syn_linear) + " linear SYN timeouts)" : ""));
  }
  if (in.min_first_wait)
    parts.push_back(in.floor == "sum" ? "first RTO " + ms(round10(*in.min_first_wait)) + " (a 1 s floor on the sum, RFC 6298 2.4)"
                                      : "first RTO " + ms(round10(*in.min_first_wait)) +
                                            " (below 1 s: a floor on the variance term, as Linux's rto_min, or none)");
  if (in.probes) parts.push_back("tail-loss probes (" + std::to_string(in.probes) + ")");
  if (in.plateau) parts.push_back("backoff capped at " + ms(round10(*in.plateau)));
  if (in.additive) parts.push_back("an additive " + ms(round10(*in.additive)) + " on every RTO");
  if (in.linear_data >= 2) parts.push_back(std::to_string(in.linear_data) + " linear data timeouts");
  if (in.lateness) parts.push_back("timers up to " + ms(*in.lateness) + " late");
  if (in.tsval_hz) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "TSval clock %.0f Hz", *in.tsval_hz);
    parts.push_back(buf);
  }
  for (const auto& f : s.findings)
    if (f.rule == RuleId::stack_setting) parts.push_back("setting: " + f.message.substr(0, f.message.find(':')));
  if (s.timeouts.empty() && in.probes == 0) {
    // Nothing to tell one stack from another: say so, not "behaves like".
    std::string rest;
    for (const auto& p : parts) rest += "; " + p;
    in.summary = (judged.auto_profile ? "no timer expiry or probe to tell its stack from (judged against " +
                                            std::string(judged.profile->name) + ", the first profile)"
                                      : line + ": no timer expiry or probe to read settings from") +
                 rest;
    return;
  }
  for (std::size_t i = 0; i < parts.size(); ++i) line += (i == 0 ? ": " : "; ") + parts[i];
  in.summary = line;
}

}  // namespace replay

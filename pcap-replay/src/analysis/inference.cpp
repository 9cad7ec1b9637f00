#include "analysis/inference.hpp"

#include <algorithm>

#include <replay/analysis/thresholds.hpp>

namespace replay {

using std::chrono::microseconds;

namespace {
// Two waits are the same within limits::kSameWaitPercent and kSameWaitTicks.
bool same(microseconds a, microseconds b) {
  const microseconds d = a > b ? a - b : b - a;
  return d * 100 <= std::max(a, b) * limits::kSameWaitPercent + limits::kSameWaitTicks * 100;
}
// A wait read as one number: the interval's lower end (the latest reading of
// the arm; the capture at the sender makes it a point).
microseconds point(const Interval& w) { return w.lo; }
}  // namespace

std::string_view to_string(RtoFloor f) {
  switch (f) {
    case RtoFloor::unknown: return "unknown";
    case RtoFloor::sum: return "sum";
    case RtoFloor::variance: return "variance";
  }
  return "unknown";
}

std::string_view to_string(Seen57 s) {
  switch (s) {
    case Seen57::unknown: return "unknown";
    case Seen57::kept_3s: return "3 s";
    case Seen57::not_kept: return "kept the sample's RTO";
    case Seen57::not_visible: return "not visible";
  }
  return "unknown";
}

void infer_settings(SenderReport& s, const Options& judged, std::span<const std::string_view> ties) {
  InferredSettings& in = s.inferred;
  in.probes = s.by_kind[static_cast<std::size_t>(SendKind::tlp)];
  in.ties.assign(ties.begin(), ties.end());
  // The chains: runs of consecutive expiries (1, 2, 3, ...), SYN and data
  // apart; an expiry whose wait is unknown (a clock step) ends its chain's
  // evidence (the waits after it would be measured from it).
  std::vector<std::vector<const TimeoutRecord*>> chains;
  bool broken = false;
  for (const auto& t : s.timeouts) {
    if (t.wait_unknown) {
      broken = true;
      continue;
    }
    if (broken && t.expiry != 1) continue;
    broken = false;
    if (t.expiry == 1 || chains.empty()) {
      chains.push_back({&t});
      continue;
    }
    bool placed = false;
    for (auto it = chains.rbegin(); it != chains.rend() && !placed; ++it)
      if (it->back()->syn == t.syn && it->back()->expiry + 1 == t.expiry) {
        it->push_back(&t);
        placed = true;
      }
    if (!placed) chains.push_back({&t});
  }
  for (const auto& c : chains) {
    std::vector<microseconds> w;
    for (const auto* t : c) {
      w.push_back(point(t->wait));
      in.evidence.push_back(t->frame);
    }
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
    // Linear data expiries, when the chain never grows (thin-stream timeouts?).
    unsigned lin = 0;
    for (std::size_t i = 1; i < w.size() && same(w[i], w[i - 1]); ++i) ++lin;
    bool grew = false;
    for (std::size_t i = 1; i < w.size(); ++i)
      grew = grew || limits::kDoublingExpected.reached_by(w[i], w[i - 1]);
    if (!grew) in.linear_data = std::max(in.linear_data, lin);
  }
  for (const auto& t : s.timeouts)
    if (t.verdict == Verdict::ok && t.basis != Basis::doubling && !t.wait_unknown && t.wait.lo > t.predicted.hi) {
      const microseconds late = t.wait.lo - t.predicted.hi;
      if (!in.lateness || late > *in.lateness) in.lateness = late;
    }
  // The floor, read only where a wait shows it: a first expiry below 1 s
  // (within the tolerance) fired on an RTO no floor on the sum allows; one
  // at 1 s or more shows the floor on the sum only where it was judged on
  // time against the floored RTO and outside the window of the same
  // arithmetic without it (a wait of 1 s or more on an RTO above 1 s, or in
  // both windows, shows nothing of a floor).
  bool floor_shown = false;
  for (const auto& t : s.timeouts)
    floor_shown = floor_shown || (!t.syn && t.expiry == 1 && t.basis == Basis::profile_rto &&
                                  t.verdict == Verdict::ok && t.alternative && !t.wait_unknown &&
                                  !t.wait.intersects(*t.alternative));
  if (in.min_first_wait)
    in.floor = *in.min_first_wait + judged.tolerance(limits::kRfcMinRto) < limits::kRfcMinRto ? RtoFloor::variance
               : floor_shown                                                                 ? RtoFloor::sum
                                                                                             : RtoFloor::unknown;
  for (const auto& f : s.findings) {
    if (f.rule == RuleId::rfc6298_5_7)
      in.fallback_57 = f.outcome == Outcome::broken ? Seen57::not_kept : f.topic == Topic::unverifiable_57
                                                                             ? Seen57::not_visible
                                                                             : in.fallback_57;
    if (f.topic == Topic::setting && !f.setting.name.empty() &&
        std::find(in.settings.begin(), in.settings.end(), f.setting.name) == in.settings.end())
      in.settings.push_back(f.setting.name);
  }
  for (const auto& t : s.timeouts)
    if (!t.syn && t.basis == Basis::fallback_57 && t.verdict == Verdict::ok && in.fallback_57 == Seen57::unknown)
      in.fallback_57 = Seen57::kept_3s;
  std::sort(in.evidence.begin(), in.evidence.end());
  in.evidence.erase(std::unique(in.evidence.begin(), in.evidence.end()), in.evidence.end());
}

}  // namespace replay

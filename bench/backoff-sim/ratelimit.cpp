// Experiment 2: many workers against a rate-limited API that answers 429.

#include <algorithm>
#include <optional>

#include "models.hpp"
#include "rto/retry/retrier.hpp"
#include "sim.hpp"

namespace backoff_sim {

namespace {

enum class Kind : std::uint8_t { request_at_api, response };
struct Event {
  Kind kind;
  bool ok;
  int worker;
};

}  // namespace

RateResult run_ratelimit(Strategy s, Budget budget_kind, const RateParams& p, std::uint64_t seed) {
  Random net(mix(seed, 1));
  Random jitter(mix(seed, 2));
  const auto pol = policy_ms(s, p.base_ms, p.cap_ms, 0);
  auto budget = make_budget(budget_kind);  // one budget shared by every worker (one client)
  std::vector<std::optional<rto::Retrier>> retrier(static_cast<std::size_t>(p.workers));
  if (pol)
    for (auto& r : retrier) r.emplace(*pol, rto::Idempotency::idempotent, budget.get());
  std::vector<int> jobs_left(static_cast<std::size_t>(p.workers), p.jobs_per_worker);
  auto delay = [&] { return std::fabs(net.normal(p.net_mean_ms, p.net_sd_ms)); };

  EventQueue<Event> q;
  for (int w = 0; w < p.workers; ++w) q.push(delay(), Event{Kind::request_at_api, false, w});
  double tokens = p.burst, refilled_at = 0;
  RateResult r;
  std::vector<std::uint64_t> served_per_bin;
  double t = 0;
  auto next_job = [&](int w) {
    auto& left = jobs_left[static_cast<std::size_t>(w)];
    if (--left > 0) {
      q.push(t + delay(), Event{Kind::request_at_api, false, w});
    } else {
      r.completion_ms = std::max(r.completion_ms, t);
    }
  };
  while (!q.empty()) {
    const Event e = q.pop(t);
    if (t > p.time_limit_ms) {
      r.finished = false;
      r.completion_ms = p.time_limit_ms;
      break;
    }
    if (e.kind == Kind::request_at_api) {
      ++r.calls;
      tokens = std::min(p.burst, tokens + (t - refilled_at) * p.rate_per_s / 1000.0);
      refilled_at = t;
      const bool ok = tokens >= 1.0;
      if (ok) {
        tokens -= 1.0;
        const auto bin = static_cast<std::size_t>(t / p.bin_ms);
        if (served_per_bin.size() <= bin) served_per_bin.resize(bin + 1, 0);
        ++served_per_bin[bin];
      } else {
        ++r.rejected;
        tokens = std::max(0.0, tokens - p.reject_cost);
      }
      q.push(t + delay(), Event{Kind::response, ok, e.worker});
      continue;
    }
    auto& rt = retrier[static_cast<std::size_t>(e.worker)];
    if (!rt) {  // Strategy::none: retry at once
      if (e.ok) next_job(e.worker);
      else q.push(t + delay(), Event{Kind::request_at_api, false, e.worker});
      continue;
    }
    const auto d = rt->on_attempt(rto::AttemptOutcome::http(e.ok ? 200 : 429), jitter.engine());
    if (d.action == rto::RetryDecision::Action::retry) {
      q.push(t + static_cast<double>(d.wait.count()) / 1000.0 + delay(),
             Event{Kind::request_at_api, false, e.worker});
      continue;
    }
    if (d.action == rto::RetryDecision::Action::give_up) ++r.failed_jobs;
    rt->reset();
    next_job(e.worker);
  }
  const double capacity_per_bin = p.rate_per_s * p.bin_ms / 1000.0;
  std::uint64_t served = 0;
  for (auto n : served_per_bin) {
    r.utilisation.push_back(static_cast<double>(n) / capacity_per_bin);
    served += n;
  }
  r.served = served;
  if (r.completion_ms > 0)
    r.mean_utilisation = static_cast<double>(served) / (p.burst + p.rate_per_s * r.completion_ms / 1000.0);
  return r;
}

}  // namespace backoff_sim

// Experiment 3: retries at every layer of a call chain multiply at the bottom.

#include <memory>
#include <vector>

#include "models.hpp"
#include "rto/retry/retrier.hpp"
#include "sim.hpp"

namespace backoff_sim {

namespace {

struct Chain {
  const AmpParams& p;
  Random& rng;
  std::vector<std::unique_ptr<rto::RetryBudget>> budgets;  // one per layer (that layer's client)
  AmpResult result;

  // The bottom service: fails with probability failure_rate.
  bool bottom() {
    ++result.bottom_calls;
    return rng.unit() > p.failure_rate;
  }
  // A call made by layer `layer` (0 = top) to the layer below it, retried
  // with that layer's Retrier (attempt limit; waits are not simulated: only
  // the number of calls matters here). A failure below is reported upwards
  // as a 503 (transient), so every layer retries it.
  bool call(int layer) {
    rto::Retrier r(rto::BackoffPolicy::exponential(std::chrono::milliseconds{10}, std::chrono::seconds{1})
                       .with_max_attempts(static_cast<unsigned>(p.attempts)),
                   rto::Idempotency::idempotent, budgets[static_cast<std::size_t>(layer)].get());
    for (;;) {
      const bool ok = layer + 1 == p.layers ? bottom() : call(layer + 1);
      const auto d = r.on_attempt(rto::AttemptOutcome::http(ok ? 200 : 503), rng.engine());
      if (d.action != rto::RetryDecision::Action::retry) return ok;
    }
  }
};

}  // namespace

AmpResult run_amplification(Budget b, const AmpParams& p, std::uint64_t seed) {
  Random rng(mix(seed, 3));
  Chain chain{p, rng, {}, {}};
  for (int i = 0; i < p.layers; ++i) chain.budgets.push_back(make_budget(b));
  for (int i = 0; i < p.requests; ++i)
    if (!chain.call(0)) ++chain.result.top_failures;
  return chain.result;
}

}  // namespace backoff_sim

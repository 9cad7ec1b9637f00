#pragma once
// The backoff strategies compared by backoff-sim, each a policy of the rto
// library (or none), and retry budgets.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rto/retry/backoff.hpp"
#include "rto/retry/budget.hpp"

namespace backoff_sim {

enum class Strategy { none, exponential, equal, full, decorrelated, grpc };

/// "none", "exponential", "equal", "full", "decorrelated", "grpc".
const char* name(Strategy s);
/// Brooker's five, in the post's order of discussion.
std::vector<Strategy> brooker_strategies();

/// The library policy for `s`: the exponential family's first wait has the
/// ceiling min(cap, base * 2^first_exponent), doubling per failure (Brooker's
/// simulator: first_exponent 1, so its k-th wait, k = 1, 2, ..., has the
/// ceiling min(cap, base * 2^k) and the library's c(0) is 2 * base); decorrelated is
/// min(cap, U[base, 3 * previous]) with previous starting at base; grpc is
/// BackoffPolicy::grpc_connection() with base and cap replaced (x1.6, +-20 %).
/// nullopt for Strategy::none (no wait at all).
std::optional<rto::BackoffPolicy> policy(Strategy s, std::chrono::microseconds base, std::chrono::microseconds cap,
                                         unsigned first_exponent);
/// policy() with base and cap given in milliseconds, as the experiments'
/// parameters hold them (rounded down to whole microseconds).
std::optional<rto::BackoffPolicy> policy_ms(Strategy s, double base_ms, double cap_ms, unsigned first_exponent);

enum class Budget { none, aws, grpc };
const char* name(Budget b);
/// A fresh budget: AwsRetryQuota defaults (500 tokens, 5 / 10 per retry, +1),
/// or GrpcRetryThrottle(maxTokens 10, tokenRatio 0.1) as in gRFC A6's example.
std::unique_ptr<rto::RetryBudget> make_budget(Budget b);

}  // namespace backoff_sim

// Failure classification and the Retrier's decisions.

#include "rto/retry/retrier.hpp"

namespace rto {

using std::chrono::microseconds;

FailureClass classify_http_status(int status) {
  if (status >= 100 && status <= 399) return FailureClass::success;
  switch (status) {
    case 408:  // Request Timeout: the server gave up waiting for the request
    case 429:  // Too Many Requests (RFC 6585 4): come back later
    case 500:  // Internal Server Error: often a passing fault
    case 502:  // Bad Gateway: an upstream failed
    case 503:  // Service Unavailable: overload or maintenance
    case 504:  // Gateway Timeout: an upstream was slow
      return FailureClass::transient;
    default:  // other 4xx, 501, 505-511, invalid codes
      return FailureClass::permanent;
  }
}

FailureClass classify_transport(TransportError e) {
  switch (e) {
    case TransportError::none: return FailureClass::success;
    case TransportError::connection_refused:
    case TransportError::connection_reset:
    case TransportError::timeout: return FailureClass::transient;
    case TransportError::other: return FailureClass::permanent;
  }
  return FailureClass::permanent;
}

bool is_idempotent_method(std::string_view m) {
  return m == "GET" || m == "HEAD" || m == "OPTIONS" || m == "TRACE" || m == "PUT" || m == "DELETE";
}

FailureClass AttemptOutcome::classify() const {
  if (transport != TransportError::none) return classify_transport(transport);
  return classify_http_status(http_status);
}

Retrier::Retrier(BackoffPolicy policy, Idempotency idempotency, RetryBudget* budget)
    : backoff_(policy), idempotency_(idempotency), budget_(budget) {}

void Retrier::reset() {
  backoff_.reset();
  acquired_ = 0;
}

microseconds Retrier::clamp_server(std::chrono::seconds s) {
  // parse_retry_after() guarantees s fits in microseconds; other callers may not.
  constexpr std::chrono::seconds kMax{std::chrono::microseconds::max().count() / 1'000'000};
  if (s < std::chrono::seconds::zero()) return microseconds{0};
  return s > kMax ? std::chrono::duration_cast<microseconds>(kMax) : std::chrono::duration_cast<microseconds>(s);
}

RetryDecision Retrier::succeed() {
  ++counters_.successes;
  if (budget_) budget_->on_success(acquired_);
  acquired_ = 0;
  return {RetryDecision::Action::done, RetryDecision::Reason::success, microseconds{0}};
}

RetryDecision Retrier::give_up(RetryDecision::Reason why, bool retryable_failure) {
  ++counters_.give_ups;
  if (why == RetryDecision::Reason::budget) ++counters_.budget_refusals;
  if (retryable_failure && budget_ && why != RetryDecision::Reason::budget) budget_->on_unretried_failure();
  acquired_ = 0;
  return {RetryDecision::Action::give_up, why, microseconds{0}};
}

RetryDecision Retrier::decide(std::optional<microseconds> wait, bool server, bool timeout) {
  if (!wait) {
    return give_up(backoff_.gave_up() == GiveUp::deadline ? RetryDecision::Reason::deadline
                                                          : RetryDecision::Reason::attempts,
                   true);
  }
  if (budget_) {
    const std::uint32_t got = budget_->acquire(timeout);
    if (got == 0) return give_up(RetryDecision::Reason::budget, true);
    acquired_ = got;
  }
  ++counters_.retries;
  if (server) ++counters_.server_waits;
  return {RetryDecision::Action::retry,
          server ? RetryDecision::Reason::retry_after : RetryDecision::Reason::transient, *wait};
}

}  // namespace rto

#pragma once
// Which failures to retry, and a retry loop's decisions: the Retrier combines
// a Backoff, the idempotency of the operation, a server's Retry-After and an
// optional shared RetryBudget, and keeps counters a caller can export.

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string_view>

#include "rto/retry/backoff.hpp"
#include "rto/retry/budget.hpp"
#include "rto/retry/export.h"

namespace rto {

/// A failure below HTTP (or of an RPC transport).
enum class TransportError {
  none,                ///< there was an HTTP response (see AttemptOutcome::http_status).
  connection_refused,  ///< connect() refused (RST to the SYN): the request never left. Transient.
  connection_reset,    ///< the connection was reset or closed mid-exchange. Transient.
  timeout,             ///< connect, read or whole-attempt timeout. Transient (and charged as one by AwsRetryQuota).
  other,               ///< TLS/certificate, DNS name not found, malformed response...: permanent.
};

/// How a result is to be treated.
enum class FailureClass {
  success,    ///< not a failure (1xx-3xx).
  transient,  ///< worth retrying after a wait.
  permanent,  ///< retrying cannot help (or may do harm).
};

/// Classifies an HTTP status code.
///
/// Transient: 408 Request Timeout, 429 Too Many Requests (RFC 6585 4),
/// 500 Internal Server Error, 502 Bad Gateway, 503 Service Unavailable,
/// 504 Gateway Timeout. Permanent: every other 4xx (the request is wrong, and
/// will be again) and every other 5xx, notably 501 Not Implemented and 505 HTTP
/// Version Not Supported (properties of the server, not of the moment), and
/// 506-511 (configuration or authentication problems). Success: 100-399.
/// Codes outside 100-599 are permanent (not a valid response).
RTO_RETRY_API FailureClass classify_http_status(int status);

/// Classifies a transport error (see TransportError for which is which).
RTO_RETRY_API FailureClass classify_transport(TransportError e);

/// RFC 9110 9.2.2: is the request method idempotent (GET, HEAD, OPTIONS,
/// TRACE, PUT, DELETE; case-sensitive)? POST, PATCH, CONNECT and unknown
/// methods are not.
RTO_RETRY_API bool is_idempotent_method(std::string_view method);

/// Whether an operation may be repeated.
enum class Idempotency {
  idempotent,      ///< repeating it has the effect of doing it once (GET, PUT, a conditional write...).
  non_idempotent,  ///< never retried after a transient failure (the first try may have taken effect).
  marked_safe,     ///< not idempotent by nature, but the caller says a retry is safe (e.g. it carries an idempotency key).
};

/// The result of one attempt.
struct RTO_RETRY_API AttemptOutcome {
  int http_status = 0;                      ///< the response's status; 0 when transport != none.
  TransportError transport = TransportError::none;
  std::optional<std::chrono::seconds> retry_after;  ///< parse_retry_after() of the response, if it had one.

  static AttemptOutcome http(int status, std::optional<std::chrono::seconds> retry_after = std::nullopt) {
    return AttemptOutcome{status, TransportError::none, retry_after};
  }
  static AttemptOutcome failed(TransportError e) { return AttemptOutcome{0, e, std::nullopt}; }
  /// classify_transport(transport) when there was no response, else classify_http_status(http_status).
  FailureClass classify() const;
};

/// What the caller does next.
struct RTO_RETRY_API RetryDecision {
  enum class Action {
    done,     ///< the attempt succeeded.
    retry,    ///< wait `wait`, then try again.
    give_up,  ///< stop; report the last failure.
  };
  enum class Reason {
    success,         ///< Action::done.
    transient,       ///< Action::retry after the backoff's wait.
    retry_after,     ///< Action::retry after the server's Retry-After (clamped to the cap).
    permanent,       ///< the failure is not transient.
    not_idempotent,  ///< transient, but the operation is not safe to repeat.
    attempts,        ///< transient, but max_attempts attempts have failed.
    deadline,        ///< transient, but the wait would end after the deadline.
    budget,          ///< transient, but the retry budget refused it.
  };
  Action action;
  Reason reason;
  std::chrono::microseconds wait{0};  ///< Action::retry only.
};

/// Counters for export (monotonic; Retrier::reset() does not clear them).
struct RTO_RETRY_API RetryCounters {
  std::uint64_t attempts = 0;         ///< attempts reported (first tries and retries).
  std::uint64_t successes = 0;        ///< operations that ended in success.
  std::uint64_t retries = 0;          ///< retry decisions (waits granted).
  std::uint64_t give_ups = 0;         ///< operations that ended in failure, for any reason.
  std::uint64_t budget_refusals = 0;  ///< give-ups because the budget refused the retry.
  std::uint64_t server_waits = 0;     ///< retries whose wait came from Retry-After.
};

/// The retry loop of one operation at a time (reset() between operations).
///
///   rto::Retrier r(rto::BackoffPolicy::full_jitter(100ms, 10s).with_max_attempts(5));
///   for (;;) {
///     auto d = r.on_attempt(send_request(), rng, elapsed());
///     if (d.action != rto::RetryDecision::Action::retry) break;
///     sleep_for(d.wait);
///   }
///
/// A transient failure of an idempotent (or marked_safe) operation is retried
/// while the Backoff allows (attempt limit, deadline) and then the budget (if
/// any) grants tokens. A 503 or 429 with Retry-After waits the server's delay
/// instead of the backoff's, clamped to the policy's cap; it is still subject
/// to the attempt limit, the deadline and the budget.
class RTO_RETRY_API Retrier {
 public:
  /// `budget` may be null (no budget); it is shared, not owned, and must outlive the Retrier.
  explicit Retrier(BackoffPolicy policy, Idempotency idempotency = Idempotency::idempotent,
                   RetryBudget* budget = nullptr);

  /// The attempt ended with `outcome`; elapsed time since the first attempt of
  /// this operation is the sum of the waits granted (attempts take no time).
  template <std::uniform_random_bit_generator G>
  RetryDecision on_attempt(const AttemptOutcome& outcome, G& g) {
    return on_attempt(outcome, g, backoff_.waited());
  }
  /// The same with the caller's measured elapsed time since the operation's first attempt started.
  template <std::uniform_random_bit_generator G>
  RetryDecision on_attempt(const AttemptOutcome& outcome, G& g, std::chrono::microseconds elapsed) {
    ++counters_.attempts;
    const FailureClass cls = outcome.classify();
    if (cls == FailureClass::success) return succeed();
    if (cls == FailureClass::permanent) return give_up(RetryDecision::Reason::permanent, false);
    if (idempotency_ == Idempotency::non_idempotent) return give_up(RetryDecision::Reason::not_idempotent, true);
    const bool server = outcome.retry_after &&
                        (outcome.http_status == 503 || outcome.http_status == 429);
    const auto wait = server ? backoff_.next_delay_instead(g, elapsed, clamp_server(*outcome.retry_after))
                             : backoff_.next_delay(g, elapsed);
    return decide(wait, server, outcome.transport == TransportError::timeout);
  }

  /// Starts a new operation (the backoff restarts at n = 0).
  void reset();

  const RetryCounters& counters() const { return counters_; }
  const Backoff& backoff() const { return backoff_; }
  Idempotency idempotency() const { return idempotency_; }

 private:
  static std::chrono::microseconds clamp_server(std::chrono::seconds s);
  RetryDecision succeed();
  RetryDecision give_up(RetryDecision::Reason why, bool retryable_failure);
  RetryDecision decide(std::optional<std::chrono::microseconds> wait, bool server, bool timeout);

  Backoff backoff_;
  Idempotency idempotency_;
  RetryBudget* budget_;
  std::uint32_t acquired_ = 0;  // tokens of this operation's last retry
  RetryCounters counters_;
};

}  // namespace rto

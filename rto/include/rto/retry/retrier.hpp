#pragma once
// A retry loop's decisions: the Retrier combines a Backoff, the idempotency
// of the operation, a server's requested wait (HTTP Retry-After, gRPC
// pushback), an optional shared RetryBudget, and keeps counters a caller can
// export. retry(callable, policy) in call.hpp runs the loop for the caller.

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>

#include "rto/retry/backoff.hpp"
#include "rto/retry/budget.hpp"
#include "rto/retry/classify.hpp"
#include "rto/retry/export.h"
#include "rto/retry/grpc_status.hpp"

namespace rto {

/// The result of one attempt, as the Retrier needs to know it. Build it with
/// a factory; `source` says which of the fields describe it.
struct RTO_RETRY_API AttemptOutcome {
  /// Where the outcome comes from.
  enum class Source {
    http,       ///< an HTTP response: http_status (and retry_after for a 503 or 429).
    transport,  ///< no response: transport.
    grpc,       ///< a gRPC call's final status: grpc_status (and the server's pushback).
    caller,     ///< the caller classified it (its own error types): caller_class.
  };
  Source source = Source::http;
  int http_status = 0;                               ///< Source::http.
  TransportError transport = TransportError::none;   ///< Source::transport.
  GrpcStatus grpc_status = GrpcStatus::ok;           ///< Source::grpc.
  FailureClass caller_class = FailureClass::success; ///< Source::caller.
  /// The wait the server asked for: Retry-After (honoured on a 503 or 429
  /// only), grpc-retry-pushback-ms, or the caller's. >= 0.
  std::optional<std::chrono::microseconds> retry_after;
  /// The server asked not to retry (a gRPC pushback that is negative or
  /// unparseable): the failure is not retried whatever its class.
  bool server_refused = false;
  /// The attempt timed out (AwsRetryQuota charges a timeout's retry more).
  bool timeout = false;

  /// An HTTP response; `retry_after` is parse_retry_after() of its field.
  /// Seconds beyond what microseconds hold are saturated.
  static AttemptOutcome http(int status, std::optional<std::chrono::seconds> retry_after = std::nullopt);
  /// No response: a failure below HTTP.
  static AttemptOutcome failed(TransportError e);
  /// A gRPC call's final status and, if the trailers had one,
  /// parse_grpc_pushback() of grpc-retry-pushback-ms.
  static AttemptOutcome grpc(GrpcStatus status, std::optional<GrpcPushback> pushback = std::nullopt);
  /// The caller's own classification of its own error type; `retry_after`
  /// a wait its server asked for, if any.
  static AttemptOutcome classified(FailureClass c, std::optional<std::chrono::microseconds> retry_after = std::nullopt,
                                   bool timeout = false);
  /// A success (for a caller whose result says so without an error to classify).
  static AttemptOutcome success() { return classified(FailureClass::success); }

  /// classify_http_status, classify_transport, classify_grpc_status against
  /// `grpc_retryable`, or the caller's class, by source.
  FailureClass classify(GrpcStatusSet grpc_retryable = GrpcStatusSet::a6_default()) const;
  /// The server's wait the Retrier honours instead of the backoff's: the
  /// Retry-After of a 503 or 429 (RFC 9110 10.2.3, RFC 6585 4), a gRPC
  /// pushback delay, the caller's; nullopt otherwise.
  std::optional<std::chrono::microseconds> directed_wait() const;
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
    retry_after,     ///< Action::retry after the server's wait (Retry-After, gRPC pushback).
    permanent,       ///< the failure is not transient.
    not_idempotent,  ///< transient, but the operation is not safe to repeat.
    server_refused,  ///< transient, but the server asked not to retry (gRPC pushback).
    attempts,        ///< transient, but max_attempts attempts have failed.
    deadline,        ///< transient, but the wait (the backoff's or the server's) would end after the deadline.
    budget,          ///< transient, but the retry budget refused it.
  };
  Action action;
  Reason reason;
  std::chrono::microseconds wait{0};  ///< Action::retry only.
};

/// "done", "retry" or "give_up".
RTO_RETRY_API const char* to_string(RetryDecision::Action a);
/// The reason's name, as the enumerator is spelt ("retry_after", "deadline"...):
/// stable, for logs and metric labels.
RTO_RETRY_API const char* to_string(RetryDecision::Reason r);
/// A sentence for a person ("the server asked not to retry (gRPC pushback)").
RTO_RETRY_API const char* describe(RetryDecision::Reason r);

/// Counters for export (monotonic; Retrier::reset() does not clear them).
struct RTO_RETRY_API RetryCounters {
  std::uint64_t attempts = 0;         ///< attempts reported (first tries and retries).
  std::uint64_t successes = 0;        ///< operations that ended in success.
  std::uint64_t retries = 0;          ///< retry decisions (waits granted).
  std::uint64_t give_ups = 0;         ///< operations that ended in failure, for any reason.
  std::uint64_t budget_refusals = 0;  ///< give-ups because the budget refused the retry.
  std::uint64_t server_waits = 0;     ///< retries whose wait came from the server.
};

/// Everything that decides whether and when an operation is retried.
struct RTO_RETRY_API RetryPolicy {
  /// The waits, the attempt limit, the deadline, and how a server's wait
  /// meets the cap (BackoffPolicy::server_delay).
  BackoffPolicy backoff;
  /// Whether a transient failure may be retried at all.
  Idempotency idempotency = Idempotency::idempotent;
  /// The retryableStatusCodes for gRPC outcomes (A6; default {UNAVAILABLE}).
  GrpcStatusSet grpc_retryable = GrpcStatusSet::a6_default();
  /// A budget shared by all the calls of a client, or null. Not owned: it
  /// must outlive every Retrier (and retry() call) that uses the policy.
  RetryBudget* budget = nullptr;
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
/// any) grants tokens. A server's wait (the Retry-After of a 503 or 429, a
/// gRPC pushback) replaces the backoff's; BackoffPolicy::server_delay says
/// whether it is honoured beyond the cap (the default) or clamped to it. It
/// is still subject to the attempt limit, the deadline and the budget. After
/// a gRPC pushback the next backoff starts again from the base (A6: "retry
/// delay will reset to initial backoff"); a pushback asking not to retry ends
/// the operation (Reason::server_refused).
class RTO_RETRY_API Retrier {
 public:
  /// Validates policy.backoff (throws BackoffPolicyError).
  explicit Retrier(const RetryPolicy& policy);
  /// The same with the other fields of RetryPolicy at their defaults but these.
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
    const FailureClass cls = outcome.classify(grpc_retryable_);
    if (cls == FailureClass::success) return succeed();
    if (cls == FailureClass::permanent) return give_up(RetryDecision::Reason::permanent, false);
    if (idempotency_ == Idempotency::non_idempotent) return give_up(RetryDecision::Reason::not_idempotent, true);
    if (outcome.server_refused) return give_up(RetryDecision::Reason::server_refused, true);
    const auto server = outcome.directed_wait();
    const auto wait = server ? backoff_.next_delay_instead(g, elapsed, *server) : backoff_.next_delay(g, elapsed);
    if (wait && server && outcome.source == AttemptOutcome::Source::grpc) backoff_.restart_ceiling();
    return decide(wait, server.has_value(), outcome.timeout);
  }

  /// Starts a new operation (the backoff restarts at n = 0).
  void reset();

  const RetryCounters& counters() const { return counters_; }
  const Backoff& backoff() const { return backoff_; }
  Idempotency idempotency() const { return idempotency_; }
  GrpcStatusSet grpc_retryable() const { return grpc_retryable_; }

 private:
  RetryDecision succeed();
  RetryDecision give_up(RetryDecision::Reason why, bool retryable_failure);
  RetryDecision decide(std::optional<std::chrono::microseconds> wait, bool server, bool timeout);

  Backoff backoff_;
  Idempotency idempotency_;
  GrpcStatusSet grpc_retryable_;
  RetryBudget* budget_;
  std::uint32_t acquired_ = 0;  // tokens of this operation's last retry
  RetryCounters counters_;
};

}  // namespace rto

#pragma once
// rto::retry(callable, policy, rng, ...): runs a callable until it succeeds
// or the policy gives up, and returns its last result with the attempts made
// (what Polly's ExecuteAndCapture and tenacity's Retrying do).
//
// How the callable reports failure: by what it returns, never by throwing.
//   - A result type of std::expected's shape (has_value(), error()):
//     rto::Result<T, E> (result.hpp) in C++20, std::expected<T, E> in C++23,
//     or the caller's own. has_value() is success; otherwise the classifier
//     is given error() and says what kind of failure it is (an AttemptOutcome).
//   - Anything else (an HTTP response whose status is 503, say): the
//     classifier is given the whole value and says whether it is a success.
// Why not exceptions: the last failure must come back to the caller as a
// value beside the attempts, and a failed HTTP or gRPC call is a response in
// most clients, not an exception, so a classifier of returned values is
// needed anyway; the library stays usable with -fno-exceptions, as the TCP
// timer is; and the caller's error type passes through unchanged. Code that
// throws is wrapped in a lambda that catches what it knows how to classify
// and returns Result<T, E>::failure(...).

#include <chrono>
#include <concepts>
#include <functional>
#include <random>
#include <thread>
#include <type_traits>
#include <utility>

#include "rto/retry/retrier.hpp"

namespace rto {

/// A type of std::expected's shape: has_value() and error().
template <class R>
concept ResultLike = requires(const R& r) {
  { r.has_value() } -> std::convertible_to<bool>;
  r.error();
};

/// What retry() needs of time: now() on a monotonic clock (any
/// std::chrono time_point) and sleep_for(wait). The elapsed time it gives
/// the deadline is now() - now() at the first attempt, so the attempts' own
/// durations count.
template <class S>
concept RetrySleeper = requires(S& s, std::chrono::microseconds d) {
  s.now() - s.now();
  s.sleep_for(d);
};

/// The real thing: std::chrono::steady_clock and std::this_thread::sleep_for.
struct SteadySleeper {
  std::chrono::steady_clock::time_point now() const { return std::chrono::steady_clock::now(); }
  void sleep_for(std::chrono::microseconds d) const { std::this_thread::sleep_for(d); }
};

/// The default classifier: for a Result<T, AttemptOutcome> (or an expected
/// whose error is an AttemptOutcome), the error is the outcome.
struct OutcomeIsError {
  AttemptOutcome operator()(const AttemptOutcome& e) const { return e; }
};

/// How retry() ended.
template <class R>
struct RetryResult {
  /// The callable's last return value: the success, or the failure after
  /// which it gave up.
  R last;
  /// Calls made, the first included.
  unsigned attempts = 0;
  /// The sum of the waits between them.
  std::chrono::microseconds waited{0};
  /// The final decision: Action::done, or Action::give_up and its reason.
  RetryDecision decision{RetryDecision::Action::give_up, RetryDecision::Reason::permanent};

  bool ok() const { return decision.action == RetryDecision::Action::done; }
};

namespace detail {

template <class R, class Classify>
AttemptOutcome outcome_of(const R& r, Classify& classify) {
  if constexpr (ResultLike<R>) {
    if (r.has_value()) return AttemptOutcome::success();
    return AttemptOutcome(std::invoke(classify, r.error()));
  } else {
    return AttemptOutcome(std::invoke(classify, r));
  }
}

}  // namespace detail

/// Calls `call()` until an attempt succeeds or `policy` gives up (see
/// Retrier: attempts, deadline, idempotency, the server's waits, the budget),
/// sleeping each wait with `sleeper`, and returns the last result with the
/// attempts made. `g` draws the jitter; `classify` turns a failure into an
/// AttemptOutcome (see the top of this file for what it is given). The
/// sleeper is taken by value: one that shares state (a test's virtual clock)
/// holds a pointer to it. Throws BackoffPolicyError for an invalid
/// policy.backoff, and whatever `call`, `classify` or `sleeper` throw.
///
///   auto r = rto::retry([&] { return fetch(key); },            // rto::Result<Blob, DbError>
///                       policy, rng,
///                       [](const DbError& e) {
///                         return rto::AttemptOutcome::classified(
///                             e.deadlock ? rto::FailureClass::transient : rto::FailureClass::permanent);
///                       });
///   if (!r.ok()) log(r.last.error(), r.attempts, rto::to_string(r.decision.reason));
template <class Call, std::uniform_random_bit_generator G, class Classify = OutcomeIsError,
          RetrySleeper Sleeper = SteadySleeper>
  requires std::invocable<Call&>
RetryResult<std::remove_cvref_t<std::invoke_result_t<Call&>>> retry(Call&& call, const RetryPolicy& policy, G& g,
                                               Classify classify = {}, Sleeper sleeper = {}) {
  using R = std::remove_cvref_t<std::invoke_result_t<Call&>>;
  Retrier retrier(policy);
  const auto start = sleeper.now();
  unsigned attempts = 0;
  for (;;) {
    R last = std::invoke(call);
    if (attempts != ~0u) ++attempts;
    const AttemptOutcome outcome = detail::outcome_of(last, classify);
    const auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(sleeper.now() - start);
    const RetryDecision d = retrier.on_attempt(outcome, g, elapsed);
    if (d.action != RetryDecision::Action::retry)
      return RetryResult<R>{std::move(last), attempts, retrier.backoff().waited(), d};
    sleeper.sleep_for(d.wait);
  }
}

}  // namespace rto

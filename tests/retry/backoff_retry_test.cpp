// Which failures are retried (rto::classify_http_status, classify_transport,
// idempotency, the caller's own classification), the retry budgets
// (rto::AwsRetryQuota, rto::GrpcRetryThrottle), rto::Retrier's decisions and
// counters, and the names of the decisions.

#include <doctest/doctest.h>

#include <set>
#include <string>

#include "backoff_util.hpp"
#include "rto/retry/retrier.hpp"

using rto::AttemptOutcome;
using rto::AwsRetryQuota;
using rto::BackoffPolicy;
using rto::FailureClass;
using rto::GrpcRetryThrottle;
using rto::Idempotency;
using rto::Retrier;
using rto::RetryDecision;
using rto::TransportError;
using rto_test::kHalf;
using rto_test::kTop;
using rto_test::ScriptedGenerator;
using std::chrono::microseconds;
using std::chrono::seconds;
using Action = RetryDecision::Action;
using Reason = RetryDecision::Reason;

TEST_CASE("transient HTTP statuses: 408, 429, 500, 502, 503, 504") {
  for (int s : {408, 429, 500, 502, 503, 504}) {
    CAPTURE(s);
    CHECK(rto::classify_http_status(s) == FailureClass::transient);
  }
}

TEST_CASE("permanent HTTP statuses: other 4xx, 501, 505-511, invalid codes; success 1xx-3xx") {
  for (int s : {400, 401, 403, 404, 405, 409, 410, 412, 413, 422, 501, 505, 506, 507, 508, 510, 511, 0, 99, 600, -1}) {
    CAPTURE(s);
    CHECK(rto::classify_http_status(s) == FailureClass::permanent);
  }
  for (int s : {100, 200, 201, 204, 301, 304, 399}) {
    CAPTURE(s);
    CHECK(rto::classify_http_status(s) == FailureClass::success);
  }
}

TEST_CASE("transport errors: refused, reset, timeout are transient; other is permanent") {
  CHECK(rto::classify_transport(TransportError::connection_refused) == FailureClass::transient);
  CHECK(rto::classify_transport(TransportError::connection_reset) == FailureClass::transient);
  CHECK(rto::classify_transport(TransportError::timeout) == FailureClass::transient);
  CHECK(rto::classify_transport(TransportError::other) == FailureClass::permanent);
  CHECK(AttemptOutcome::failed(TransportError::timeout).classify() == FailureClass::transient);
  CHECK(AttemptOutcome::http(503).classify() == FailureClass::transient);
}

TEST_CASE("idempotent methods (RFC 9110 9.2.2)") {
  for (const char* m : {"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"}) CHECK(rto::is_idempotent_method(m));
  for (const char* m : {"POST", "PATCH", "CONNECT", "get", "FOO", ""}) CHECK_FALSE(rto::is_idempotent_method(m));
}

TEST_CASE("AWS retry quota: 500 tokens, 5 per retry, 10 per timeout retry, refused below the cost") {
  AwsRetryQuota q;
  CHECK(q.tokens() == 500u);
  CHECK(q.acquire(false) == 5u);  // 495
  CHECK(q.acquire(true) == 10u);  // 485
  CHECK(q.tokens() == 485u);
  // 485 = 97 * 5: 97 more retries empty it exactly; the 98th is refused.
  for (int i = 0; i < 97; ++i) REQUIRE(q.acquire(false) == 5u);
  CHECK(q.tokens() == 0u);
  CHECK(q.acquire(false) == 0u);
  // Boundary: 9 tokens allow a plain retry (5) but not a timeout retry (10); 10 allow it.
  for (int i = 0; i < 9; ++i) q.on_success(0);  // first-try successes: +1 each
  CHECK(q.tokens() == 9u);
  CHECK(q.acquire(true) == 0u);
  q.on_success(0);
  CHECK(q.acquire(true) == 10u);
  CHECK(q.tokens() == 0u);
  // A success after a retry returns that retry's cost.
  q.on_success(10);
  CHECK(q.tokens() == 10u);
}

TEST_CASE("AWS retry quota: while everything fails, 100 retries in all; never above capacity") {
  AwsRetryQuota q;
  int retries = 0;
  while (q.acquire(false) != 0) ++retries;
  CHECK(retries == 100);  // 500 / 5
  AwsRetryQuota full;
  full.on_success(0);
  full.on_success(5);
  CHECK(full.tokens() == 500u);
}

TEST_CASE("gRPC throttling: maxTokens 4, tokenRatio 1.6; retries only while tokens > 2 (the boundary refuses)") {
  GrpcRetryThrottle t(4'000, 1'600);
  CHECK(t.acquire(false) == 1u);  // 4 - 1 = 3 > 2
  CHECK(t.milli_tokens() == 3'000u);
  t.on_success(0);  // 3 + 1.6 = 4.6 -> capped at 4
  CHECK(t.milli_tokens() == 4'000u);
  CHECK(t.acquire(false) == 1u);  // 3
  CHECK(t.acquire(false) == 0u);  // 2: at the threshold, not above it: refused
  CHECK_FALSE(t.retry_allowed());
  t.on_success(0);  // 3.6 > 2
  CHECK(t.retry_allowed());
  CHECK(t.acquire(false) == 1u);  // 2.6 > 2
  CHECK(t.acquire(false) == 0u);  // 1.6
  t.on_unretried_failure();       // 0.6
  t.on_unretried_failure();       // not below 0
  CHECK(t.milli_tokens() == 0u);
}

TEST_CASE("gRPC throttling: maxTokens 10, tokenRatio 0.1: the 5th consecutive failure is throttled") {
  GrpcRetryThrottle t(10'000, 100);
  // failures take 10 -> 9, 8, 7, 6 (> 5, allowed), then 5 (= 10/2, refused).
  for (int i = 0; i < 4; ++i) REQUIRE(t.acquire(false) == 1u);
  CHECK(t.acquire(false) == 0u);
  // Ten successes add 10 * 0.1 = 1 token: 6 > 5, allowed again... after its own failure takes it to 5: refused.
  for (int i = 0; i < 10; ++i) t.on_success(0);
  CHECK(t.milli_tokens() == 6'000u);
  CHECK(t.retry_allowed());
  CHECK(t.acquire(false) == 0u);
}

TEST_CASE("Retrier: success, transient retry with the backoff's wait, permanent give-up") {
  ScriptedGenerator g{kTop};
  Retrier r(BackoffPolicy::full_jitter(seconds{1}, seconds{30}).with_max_attempts(3));
  auto d = r.on_attempt(AttemptOutcome::http(503), g);
  CHECK(d.action == Action::retry);
  CHECK(d.reason == Reason::transient);
  CHECK(d.wait == seconds{1});  // top of U[0, 1 s]
  d = r.on_attempt(AttemptOutcome::failed(TransportError::connection_reset), g);
  CHECK(d.action == Action::retry);
  CHECK(d.wait == seconds{2});
  d = r.on_attempt(AttemptOutcome::http(200), g);
  CHECK(d.action == Action::done);
  r.reset();
  d = r.on_attempt(AttemptOutcome::http(404), g);
  CHECK(d.action == Action::give_up);
  CHECK(d.reason == Reason::permanent);
  r.reset();
  (void)r.on_attempt(AttemptOutcome::http(500), g);
  (void)r.on_attempt(AttemptOutcome::http(500), g);
  d = r.on_attempt(AttemptOutcome::http(500), g);  // third attempt of max 3
  CHECK(d.action == Action::give_up);
  CHECK(d.reason == Reason::attempts);
  const auto& c = r.counters();
  CHECK(c.attempts == 7u);
  CHECK(c.successes == 1u);
  CHECK(c.retries == 4u);
  CHECK(c.give_ups == 2u);
  CHECK(c.budget_refusals == 0u);
}

TEST_CASE("Retrier: a non-idempotent operation is not retried unless marked safe") {
  ScriptedGenerator g{kHalf};
  Retrier post(BackoffPolicy::full_jitter(seconds{1}, seconds{30}), Idempotency::non_idempotent);
  auto d = post.on_attempt(AttemptOutcome::failed(TransportError::timeout), g);
  CHECK(d.action == Action::give_up);
  CHECK(d.reason == Reason::not_idempotent);
  Retrier keyed(BackoffPolicy::full_jitter(seconds{1}, seconds{30}), Idempotency::marked_safe);
  CHECK(keyed.on_attempt(AttemptOutcome::failed(TransportError::timeout), g).action == Action::retry);
}

TEST_CASE("Retrier, ServerDelay::clamp_to_cap: Retry-After of a 503 or 429 replaces the backoff's wait, clamped to the cap and deadline") {
  ScriptedGenerator g{kHalf};
  Retrier r(BackoffPolicy::full_jitter(seconds{1}, seconds{30})
                .with_deadline(seconds{60})
                .with_server_delay(rto::ServerDelay::clamp_to_cap));
  auto d = r.on_attempt(AttemptOutcome::http(503, seconds{10}), g);
  CHECK(d.action == Action::retry);
  CHECK(d.reason == Reason::retry_after);
  CHECK(d.wait == seconds{10});
  d = r.on_attempt(AttemptOutcome::http(429, seconds{3600}), g);
  CHECK(d.wait == seconds{30});  // clamped to the cap
  // waited 40 s; the server asks 25 s: 65 > 60 s deadline: give up.
  d = r.on_attempt(AttemptOutcome::http(429, seconds{25}), g);
  CHECK(d.action == Action::give_up);
  CHECK(d.reason == Reason::deadline);
  CHECK(r.counters().server_waits == 2u);
  // Retry-After on a 500 is not a server-directed wait: the backoff's own is used.
  r.reset();
  d = r.on_attempt(AttemptOutcome::http(500, seconds{10}), g);
  CHECK(d.reason == Reason::transient);
  CHECK(d.wait == microseconds{500'000});  // floor(1 000 001 / 2)
}

TEST_CASE("Retrier with an AWS quota: refusals counted, the success refund goes back to the bucket") {
  ScriptedGenerator g{kHalf};
  AwsRetryQuota q(AwsRetryQuota::Config{12, 5, 10, 1});
  Retrier r(BackoffPolicy::full_jitter(seconds{1}, seconds{30}), Idempotency::idempotent, &q);
  CHECK(r.on_attempt(AttemptOutcome::http(503), g).action == Action::retry);                          // 12 -> 7
  CHECK(r.on_attempt(AttemptOutcome::failed(TransportError::timeout), g).reason == Reason::budget);  // 7 < 10
  CHECK(q.tokens() == 7u);
  r.reset();
  CHECK(r.on_attempt(AttemptOutcome::http(502), g).action == Action::retry);  // 7 -> 2
  CHECK(r.on_attempt(AttemptOutcome::http(200), g).action == Action::done);   // refund 5: 7
  CHECK(q.tokens() == 7u);
  CHECK(r.counters().budget_refusals == 1u);
  CHECK(r.counters().give_ups == 1u);
}

TEST_CASE("Retrier with gRPC throttling: failures that are not retried still count") {
  ScriptedGenerator g{kHalf};
  GrpcRetryThrottle t(4'000, 1'000);
  Retrier r(BackoffPolicy::full_jitter(seconds{1}, seconds{30}).with_max_attempts(1), Idempotency::idempotent, &t);
  CHECK(r.on_attempt(AttemptOutcome::http(503), g).reason == Reason::attempts);
  CHECK(t.milli_tokens() == 3'000u);
  r.reset();
  (void)r.on_attempt(AttemptOutcome::http(404), g);  // permanent: not a throttling failure
  CHECK(t.milli_tokens() == 3'000u);
}

TEST_CASE("Retrier: a 503 with Retry-After 30 s and a 5 s cap waits 30 s, honoured up to the deadline (the default)") {
  ScriptedGenerator g{kHalf};
  Retrier r(BackoffPolicy::full_jitter(seconds{1}, seconds{5}).with_deadline(seconds{60}));
  auto d = r.on_attempt(AttemptOutcome::http(503, seconds{30}), g);
  CHECK(d.action == Action::retry);
  CHECK(d.reason == Reason::retry_after);
  CHECK(d.wait == seconds{30});  // not min(30, cap 5)
  // Waited 30 s; a 429 asks 30 s more: ends at 60 s, the deadline itself: allowed.
  d = r.on_attempt(AttemptOutcome::http(429, seconds{30}), g);
  CHECK(d.action == Action::retry);
  CHECK(d.wait == seconds{30});
  // Waited 60 s; 1 s more would end after the deadline: give up rather than retry early.
  d = r.on_attempt(AttemptOutcome::http(503, seconds{1}), g);
  CHECK(d.action == Action::give_up);
  CHECK(d.reason == Reason::deadline);
  // Beyond the deadline from the start: give up at once.
  r.reset();
  d = r.on_attempt(AttemptOutcome::http(503, seconds{61}), g);
  CHECK(d.reason == Reason::deadline);
  // The same 503 under ServerDelay::clamp_to_cap waits the cap, 5 s.
  Retrier clamped(BackoffPolicy::full_jitter(seconds{1}, seconds{5})
                      .with_deadline(seconds{60})
                      .with_server_delay(rto::ServerDelay::clamp_to_cap));
  CHECK(clamped.on_attempt(AttemptOutcome::http(503, seconds{30}), g).wait == seconds{5});
}

TEST_CASE("Retrier: the caller's own classification (AttemptOutcome::classified), its wait and its timeouts") {
  ScriptedGenerator g{kHalf};
  AwsRetryQuota q(AwsRetryQuota::Config{20, 5, 10, 1});
  Retrier r(BackoffPolicy::full_jitter(seconds{1}, seconds{30}), Idempotency::idempotent, &q);
  auto d = r.on_attempt(AttemptOutcome::classified(FailureClass::transient), g);
  CHECK(d.reason == Reason::transient);
  CHECK(d.wait == microseconds{500'000});  // floor(1 000 001 / 2)
  CHECK(q.tokens() == 15u);                // 20 - 5
  d = r.on_attempt(AttemptOutcome::classified(FailureClass::transient, seconds{45}, true), g);
  CHECK(d.reason == Reason::retry_after);
  CHECK(d.wait == seconds{45});  // the caller's server wait, honoured beyond the 30 s cap
  CHECK(q.tokens() == 5u);       // a timeout's retry costs 10
  CHECK(r.on_attempt(AttemptOutcome::classified(FailureClass::permanent), g).reason == Reason::permanent);
  CHECK(r.on_attempt(AttemptOutcome::success(), g).action == Action::done);
}

TEST_CASE("to_string(Reason): the enumerator's name; describe(): a distinct sentence for each") {
  CHECK(std::string(rto::to_string(Reason::success)) == "success");
  CHECK(std::string(rto::to_string(Reason::transient)) == "transient");
  CHECK(std::string(rto::to_string(Reason::retry_after)) == "retry_after");
  CHECK(std::string(rto::to_string(Reason::permanent)) == "permanent");
  CHECK(std::string(rto::to_string(Reason::not_idempotent)) == "not_idempotent");
  CHECK(std::string(rto::to_string(Reason::server_refused)) == "server_refused");
  CHECK(std::string(rto::to_string(Reason::attempts)) == "attempts");
  CHECK(std::string(rto::to_string(Reason::deadline)) == "deadline");
  CHECK(std::string(rto::to_string(Reason::budget)) == "budget");
  CHECK(std::string(rto::describe(Reason::server_refused)) == "the server asked not to retry (gRPC pushback)");
  std::set<std::string> sentences;
  for (int i = 0; i <= static_cast<int>(Reason::budget); ++i) sentences.insert(rto::describe(static_cast<Reason>(i)));
  CHECK(sentences.size() == 9u);
  CHECK(std::string(rto::to_string(Action::done)) == "done");
  CHECK(std::string(rto::to_string(Action::retry)) == "retry");
  CHECK(std::string(rto::to_string(Action::give_up)) == "give_up");
  CHECK(std::string(rto::to_string(FailureClass::transient)) == "transient");
  CHECK(std::string(rto::to_string(rto::TransportError::connection_reset)) == "connection_reset");
}

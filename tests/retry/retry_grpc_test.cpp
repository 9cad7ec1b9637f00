// gRPC in the retry library (gRFC A6): status codes and their names, the
// retryableStatusCodes classification, the grpc-retry-pushback-ms value, and
// the Retrier's handling of both, with a retry throttle.

#include <doctest/doctest.h>

#include <string>

#include "backoff_util.hpp"
#include "rto/retry/grpc_status.hpp"
#include "rto/retry/retrier.hpp"

using rto::AttemptOutcome;
using rto::BackoffPolicy;
using rto::FailureClass;
using rto::GrpcPushback;
using rto::GrpcStatus;
using rto::GrpcStatusSet;
using rto::Retrier;
using rto::RetryDecision;
using rto::RetryPolicy;
using rto_test::kTop;
using rto_test::ScriptedGenerator;
using std::chrono::milliseconds;
using std::chrono::seconds;
using Action = RetryDecision::Action;
using Reason = RetryDecision::Reason;

TEST_CASE("gRPC status codes: numbers 0..16 and canonical names, both ways") {
  CHECK(static_cast<int>(GrpcStatus::unavailable) == 14);
  CHECK(static_cast<int>(GrpcStatus::unauthenticated) == 16);
  CHECK(std::string(rto::to_string(GrpcStatus::ok)) == "OK");
  CHECK(std::string(rto::to_string(GrpcStatus::invalid_argument)) == "INVALID_ARGUMENT");
  CHECK(std::string(rto::to_string(GrpcStatus::unavailable)) == "UNAVAILABLE");
  CHECK(std::string(rto::to_string(GrpcStatus::unauthenticated)) == "UNAUTHENTICATED");
  for (int code = 0; code < rto::kGrpcStatusCount; ++code) {
    CAPTURE(code);
    const auto s = rto::grpc_status_from_code(code);
    REQUIRE(s.has_value());
    CHECK(rto::parse_grpc_status(rto::to_string(*s)) == s);
    CHECK(rto::parse_grpc_status(std::to_string(code)) == s);
  }
  CHECK_FALSE(rto::grpc_status_from_code(17).has_value());
  CHECK_FALSE(rto::grpc_status_from_code(-1).has_value());
  CHECK_FALSE(rto::parse_grpc_status("17").has_value());
  CHECK_FALSE(rto::parse_grpc_status("unavailable").has_value());  // names are upper case
  CHECK_FALSE(rto::parse_grpc_status("").has_value());
}

TEST_CASE("gRPC classification: only the retryableStatusCodes are transient; A6's default set is {UNAVAILABLE}") {
  CHECK(rto::classify_grpc_status(GrpcStatus::ok) == FailureClass::success);
  CHECK(rto::classify_grpc_status(GrpcStatus::unavailable) == FailureClass::transient);
  for (int code = 1; code < rto::kGrpcStatusCount; ++code) {
    const auto s = *rto::grpc_status_from_code(code);
    CAPTURE(rto::to_string(s));
    if (s != GrpcStatus::unavailable) CHECK(rto::classify_grpc_status(s) == FailureClass::permanent);
  }
  const GrpcStatusSet mine{GrpcStatus::unavailable, GrpcStatus::resource_exhausted};
  CHECK(rto::classify_grpc_status(GrpcStatus::resource_exhausted, mine) == FailureClass::transient);
  CHECK(rto::classify_grpc_status(GrpcStatus::invalid_argument, mine) == FailureClass::permanent);
  CHECK(rto::classify_grpc_status(GrpcStatus::ok, GrpcStatusSet{GrpcStatus::ok}) == FailureClass::success);
  CHECK(GrpcStatusSet{}.empty());
  CHECK(GrpcStatusSet::a6_default() == GrpcStatusSet{GrpcStatus::unavailable});
}

TEST_CASE("grpc-retry-pushback-ms: an int32 of ms; negative or unparseable asks not to retry") {
  CHECK(rto::parse_grpc_pushback("250") == GrpcPushback::after(milliseconds{250}));
  CHECK(rto::parse_grpc_pushback("0") == GrpcPushback::after(milliseconds{0}));
  CHECK(rto::parse_grpc_pushback(" 12\t") == GrpcPushback::after(milliseconds{12}));
  CHECK(rto::parse_grpc_pushback("007") == GrpcPushback::after(milliseconds{7}));
  CHECK(rto::parse_grpc_pushback("2147483647") == GrpcPushback::after(milliseconds{2'147'483'647}));  // INT32_MAX
  CHECK(rto::parse_grpc_pushback("-0") == GrpcPushback::after(milliseconds{0}));
  for (const char* stop : {"-1", "-2147483648", "2147483648", "", " ", "+5", "1.5", "12ms", "abc", "- 1", "99999999999999999999"}) {
    CAPTURE(stop);
    CHECK(rto::parse_grpc_pushback(stop) == GrpcPushback::stop());
  }
}

TEST_CASE("Retrier: a gRPC UNAVAILABLE is retried, INVALID_ARGUMENT is not and costs the throttle nothing") {
  ScriptedGenerator g{kTop};
  rto::GrpcRetryThrottle throttle(10'000, 100);  // maxTokens 10, tokenRatio 0.1
  RetryPolicy policy;
  policy.backoff = BackoffPolicy::grpc_retry(milliseconds{100}, seconds{1}, 2, 1, 4);
  policy.budget = &throttle;
  Retrier r(policy);
  auto d = r.on_attempt(AttemptOutcome::grpc(GrpcStatus::unavailable), g);
  CHECK(d.action == Action::retry);
  CHECK(d.reason == Reason::transient);
  CHECK(d.wait == milliseconds{100});       // top of U[0, initialBackoff 100 ms]
  CHECK(throttle.milli_tokens() == 9'000u);  // A6: a retryable failure takes a token
  d = r.on_attempt(AttemptOutcome::grpc(GrpcStatus::invalid_argument), g);
  CHECK(d.action == Action::give_up);
  CHECK(d.reason == Reason::permanent);
  CHECK(throttle.milli_tokens() == 9'000u);  // A6: INVALID_ARGUMENT is not a throttling failure
  r.reset();
  d = r.on_attempt(AttemptOutcome::grpc(GrpcStatus::ok), g);
  CHECK(d.action == Action::done);
  CHECK(throttle.milli_tokens() == 9'100u);  // + tokenRatio
  // The policy's own retryableStatusCodes.
  policy.grpc_retryable = GrpcStatusSet{GrpcStatus::unavailable, GrpcStatus::resource_exhausted};
  Retrier mine(policy);
  CHECK(mine.on_attempt(AttemptOutcome::grpc(GrpcStatus::resource_exhausted), g).action == Action::retry);
  CHECK(mine.on_attempt(AttemptOutcome::grpc(GrpcStatus::internal), g).reason == Reason::permanent);
}

TEST_CASE("Retrier: gRPC pushback is waited exactly, beyond the cap; the next backoff starts from initialBackoff") {
  ScriptedGenerator g{kTop};
  Retrier r(BackoffPolicy::full_jitter(milliseconds{100}, milliseconds{1'000}));
  // No pushback: top of U[0, c(0) = 100 ms]; c(1) = 200 ms.
  CHECK(r.on_attempt(AttemptOutcome::grpc(GrpcStatus::unavailable), g).wait == milliseconds{100});
  // Pushback 2.5 s, above the 1 s cap: waited exactly (the draw from c(1) is discarded; c(2) = 400 ms).
  auto d = r.on_attempt(AttemptOutcome::grpc(GrpcStatus::unavailable, rto::parse_grpc_pushback("2500")), g);
  CHECK(d.action == Action::retry);
  CHECK(d.reason == Reason::retry_after);
  CHECK(d.wait == milliseconds{2'500});
  // A6: "retry delay will reset to initial backoff": top of U[0, 100 ms], not of U[0, 400 ms].
  CHECK(r.on_attempt(AttemptOutcome::grpc(GrpcStatus::unavailable), g).wait == milliseconds{100});
  CHECK(r.counters().server_waits == 1u);
}

TEST_CASE("Retrier: a pushback asking not to retry ends the call and counts as a throttling failure") {
  ScriptedGenerator g{kTop};
  rto::GrpcRetryThrottle throttle(10'000, 100);
  Retrier r(BackoffPolicy::full_jitter(milliseconds{100}, seconds{1}), rto::Idempotency::idempotent, &throttle);
  const auto d = r.on_attempt(AttemptOutcome::grpc(GrpcStatus::unavailable, rto::parse_grpc_pushback("-1")), g);
  CHECK(d.action == Action::give_up);
  CHECK(d.reason == Reason::server_refused);
  CHECK(throttle.milli_tokens() == 9'000u);  // A6: counted as a failure
  // A pushback on a status that is not retryable changes nothing: permanent.
  r.reset();
  CHECK(r.on_attempt(AttemptOutcome::grpc(GrpcStatus::not_found, GrpcPushback::after(milliseconds{5})), g).reason ==
        Reason::permanent);
  // A pushback does not lift the attempt limit (A6 "Pushback").
  Retrier once(BackoffPolicy::full_jitter(milliseconds{100}, seconds{1}).with_max_attempts(1));
  CHECK(once.on_attempt(AttemptOutcome::grpc(GrpcStatus::unavailable, GrpcPushback::after(milliseconds{5})), g).reason ==
        Reason::attempts);
}

TEST_CASE("GrpcStatusSet: a number that is no gRPC code (outside 0..16) is never in a set") {
  GrpcStatusSet s;
  s.insert(static_cast<GrpcStatus>(40));  // a peer's integer cast unchecked: 1 << 40 would be undefined
  CHECK(s.empty());
  CHECK_FALSE(GrpcStatusSet{GrpcStatus::unavailable}.contains(static_cast<GrpcStatus>(17)));
  CHECK(GrpcStatusSet{GrpcStatus::unauthenticated}.contains(GrpcStatus::unauthenticated));  // 16, the last code
}

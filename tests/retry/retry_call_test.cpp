// rto::retry(callable, policy, rng, classify, sleeper): the result or the
// last error with the attempts made, exact waits from a scripted generator on
// a virtual clock, and the caller's own error type through its classifier.

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <vector>

#include "backoff_util.hpp"
#include "rto/retry/call.hpp"
#include "rto/retry/result.hpp"
#include "rto/retry/retry_after.hpp"

using rto::AttemptOutcome;
using rto::BackoffPolicy;
using rto::FailureClass;
using rto::RetryDecision;
using rto::RetryPolicy;
using rto_test::kHalf;
using rto_test::ScriptedGenerator;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::seconds;
using Action = RetryDecision::Action;
using Reason = RetryDecision::Reason;

namespace {

// A virtual clock: the sleeper advances it by each wait and records them; a
// call may advance it too (an attempt that takes time).
struct VirtualClock {
  microseconds now{0};
  std::vector<microseconds> sleeps;
};
struct VirtualSleeper {
  VirtualClock* clock;
  rto::Instant now() const { return rto::Instant{clock->now}; }
  void sleep_for(microseconds d) const {
    clock->sleeps.push_back(d);
    clock->now += d;
  }
};

// The caller's own error type, and its classifier.
enum class DbError { deadlock, constraint_violation };
AttemptOutcome classify_db(DbError e) {
  return AttemptOutcome::classified(e == DbError::deadlock ? FailureClass::transient : FailureClass::permanent);
}

using DbResult = rto::Result<int, DbError>;

// A call that returns the scripted results in turn, each taking `cost` of virtual time.
struct ScriptedCall {
  std::vector<DbResult> script;
  VirtualClock* clock;
  microseconds cost{0};
  int calls = 0;
  DbResult operator()() {
    clock->now += cost;
    return script[static_cast<std::size_t>(calls++)];
  }
};

}  // namespace

TEST_CASE("retry(callable, policy): three deadlocks with max 3 attempts return the last error and the attempts") {
  VirtualClock clock;
  ScriptedGenerator g{kHalf};
  RetryPolicy policy;
  policy.backoff = BackoffPolicy::full_jitter(milliseconds{100}, seconds{10}).with_max_attempts(3);
  ScriptedCall call{{DbResult::failure(DbError::deadlock), DbResult::failure(DbError::deadlock),
                     DbResult::failure(DbError::deadlock), DbResult::success(42)},
                    &clock};
  const auto r = rto::retry(std::ref(call), policy, g, classify_db, VirtualSleeper{&clock});
  CHECK_FALSE(r.ok());
  CHECK(r.attempts == 3u);
  CHECK(call.calls == 3);
  CHECK_FALSE(r.last.has_value());
  CHECK(r.last.error() == DbError::deadlock);
  CHECK(r.decision.action == Action::give_up);
  CHECK(r.decision.reason == Reason::attempts);
  // Waits: U[0, 100 ms] -> floor(100 001 / 2) = 50 000 us; U[0, 200 ms] -> floor(200 001 / 2) = 100 000 us.
  CHECK(clock.sleeps == std::vector<microseconds>{microseconds{50'000}, microseconds{100'000}});
  CHECK(r.waited == microseconds{150'000});
}

TEST_CASE("retry(callable, policy): success at the second attempt returns the value; a permanent error stops at once") {
  VirtualClock clock;
  ScriptedGenerator g{kHalf};
  RetryPolicy policy;
  policy.backoff = BackoffPolicy::full_jitter(milliseconds{100}, seconds{10}).with_max_attempts(3);
  ScriptedCall ok{{DbResult::failure(DbError::deadlock), DbResult::success(42)}, &clock};
  const auto r = rto::retry(std::ref(ok), policy, g, classify_db, VirtualSleeper{&clock});
  CHECK(r.ok());
  CHECK(r.decision.reason == Reason::success);
  CHECK(r.last.value() == 42);
  CHECK(r.attempts == 2u);
  CHECK(r.waited == microseconds{50'000});

  VirtualClock clock2;
  ScriptedCall bad{{DbResult::failure(DbError::constraint_violation)}, &clock2};
  const auto p = rto::retry(std::ref(bad), policy, g, classify_db, VirtualSleeper{&clock2});
  CHECK(p.attempts == 1u);
  CHECK(p.decision.reason == Reason::permanent);
  CHECK(p.last.error() == DbError::constraint_violation);
  CHECK(clock2.sleeps.empty());
}

TEST_CASE("retry(callable, policy): the deadline counts the attempts' own time, read from the sleeper's clock") {
  VirtualClock clock;
  ScriptedGenerator g{kHalf};
  RetryPolicy policy;
  policy.backoff = BackoffPolicy::full_jitter(milliseconds{100}, seconds{10}).with_deadline(milliseconds{2'100});
  ScriptedCall call{{DbResult::failure(DbError::deadlock), DbResult::failure(DbError::deadlock),
                     DbResult::failure(DbError::deadlock)},
                    &clock, seconds{1}};
  const auto r = rto::retry(std::ref(call), policy, g, classify_db, VirtualSleeper{&clock});
  // Attempt 1 ends at 1 s: + 50 ms = 1.05 s <= 2.1 s. Attempt 2 ends at 2.05 s: + 100 ms = 2.15 s > 2.1 s.
  CHECK(r.attempts == 2u);
  CHECK(r.decision.reason == Reason::deadline);
  CHECK(clock.sleeps == std::vector<microseconds>{microseconds{50'000}});
}

TEST_CASE("retry(callable, policy): a response that is not a result type, classified whole (Retry-After honoured)") {
  struct Response {
    int status;
    std::string retry_after;
  };
  VirtualClock clock;
  ScriptedGenerator g{kHalf};
  RetryPolicy policy;
  policy.backoff = BackoffPolicy::full_jitter(milliseconds{100}, seconds{1}).with_deadline(seconds{30});
  int calls = 0;
  const auto r = rto::retry(
      [&] { return calls++ == 0 ? Response{503, "2"} : Response{200, ""}; }, policy, g,
      [](const Response& resp) {
        return AttemptOutcome::http(resp.status, rto::parse_retry_after(resp.retry_after, {}));
      },
      VirtualSleeper{&clock});
  CHECK(r.ok());
  CHECK(r.last.status == 200);
  CHECK(r.attempts == 2u);
  CHECK(clock.sleeps == std::vector<microseconds>{seconds{2}});  // the server's 2 s, above the 1 s cap
}

TEST_CASE("retry(callable, policy): Result<T, AttemptOutcome> needs no classifier; Result<void, E>; a shared budget") {
  VirtualClock clock;
  ScriptedGenerator g{kHalf};
  rto::AwsRetryQuota quota;
  RetryPolicy policy;
  policy.backoff = BackoffPolicy::exponential(milliseconds{10}, seconds{1});
  policy.budget = &quota;
  int calls = 0;
  using Fetch = rto::Result<std::string, AttemptOutcome>;
  const auto r = rto::retry(
      [&]() -> Fetch {
        if (calls++ < 2) return Fetch::failure(AttemptOutcome::grpc(rto::GrpcStatus::unavailable));
        return Fetch::success("payload");
      },
      policy, g, rto::OutcomeIsError{}, VirtualSleeper{&clock});
  CHECK(r.ok());
  CHECK(r.last.value() == "payload");
  CHECK(r.attempts == 3u);
  CHECK(clock.sleeps == std::vector<microseconds>{milliseconds{10}, milliseconds{20}});  // exponential, no jitter
  CHECK(quota.tokens() == 495u);  // 500 - 5 - 5, then the success returns the last retry's 5

  using Done = rto::Result<void, DbError>;
  int writes = 0;
  const auto w = rto::retry([&] { return writes++ == 0 ? Done::failure(DbError::deadlock) : Done::success(); }, policy,
                            g, classify_db, VirtualSleeper{&clock});
  CHECK(w.ok());
  CHECK(w.attempts == 2u);
}

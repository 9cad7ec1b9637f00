// The C API of the retry library (rto/retry/retry.h): the waits of
// rto_backoff and rto_connection_backoff derived by hand, the state kept in
// the caller's own struct, the server's wait beyond the cap honoured up to
// the deadline, and the errors.

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "rto/retry/retry.h"

namespace {

// A generator for rto_random: always returns `word`.
struct FixedWord {
  std::uint64_t word;
  int calls = 0;
};
std::uint64_t fixed_next(void* context) {
  auto* f = static_cast<FixedWord*>(context);
  ++f->calls;
  return f->word;
}
constexpr std::uint64_t kHalf = std::uint64_t{1} << 63;  // uniform_below(n) = floor(n / 2)

// A request of the caller's, with the backoff inside it.
struct Request {
  int id = 0;
  rto_backoff backoff;
};

struct Wait {
  rto_retry_status status;
  bool retry;
  std::int64_t us;
};
Wait next(rto_backoff* b, const rto_random* r, std::int64_t elapsed_us = RTO_BACKOFF_ELAPSED_WAITED) {
  Wait w{RTO_RETRY_OK, false, -1};
  w.status = rto_backoff_next_delay(b, r, elapsed_us, &w.retry, &w.us);
  return w;
}
Wait instead(rto_backoff* b, std::int64_t elapsed_us, std::int64_t server_us) {
  Wait w{RTO_RETRY_OK, false, -1};
  w.status = rto_backoff_next_delay_instead(b, nullptr, elapsed_us, server_us, &w.retry, &w.us);
  return w;
}

}  // namespace

TEST_CASE("C backoff kept in the caller's struct: 100, 200, 400, 800 ms, then 5 attempts have failed") {
  rto_backoff_policy p;
  REQUIRE(rto_backoff_policy_exponential(100'000, 1'000'000, &p) == RTO_RETRY_OK);
  p.max_attempts = 5;  // the first try and 4 retries: 4 waits
  Request req;
  req.id = 7;
  REQUIRE(rto_backoff_init(&req.backoff, &p) == RTO_RETRY_OK);
  // No jitter: nothing is drawn, so no generator is needed.
  for (std::int64_t want : {100'000, 200'000, 400'000, 800'000}) {
    const Wait w = next(&req.backoff, nullptr);
    CHECK(w.status == RTO_RETRY_OK);
    CHECK(w.retry);
    CHECK(w.us == want);
  }
  const Wait fifth = next(&req.backoff, nullptr);
  CHECK(fifth.status == RTO_RETRY_OK);
  CHECK_FALSE(fifth.retry);
  CHECK(fifth.us == 0);
  rto_give_up why = RTO_GIVE_UP_NONE;
  CHECK(rto_backoff_gave_up(&req.backoff, &why) == RTO_RETRY_OK);
  CHECK(why == RTO_GIVE_UP_ATTEMPTS);
  std::int64_t waited = 0;
  CHECK(rto_backoff_waited_us(&req.backoff, &waited) == RTO_RETRY_OK);
  CHECK(waited == 1'500'000);  // 100 + 200 + 400 + 800 ms
  CHECK(req.id == 7);          // the state stayed inside its bytes

  // reset: back to n = 0, nothing waited.
  CHECK(rto_backoff_reset(&req.backoff) == RTO_RETRY_OK);
  unsigned n = 9;
  CHECK(rto_backoff_attempt(&req.backoff, &n) == RTO_RETRY_OK);
  CHECK(n == 0);
  CHECK(next(&req.backoff, nullptr).us == 100'000);
  // The ceiling after 1 failure is 200 ms; capped at 1 s from the fifth.
  std::int64_t c = 0;
  CHECK(rto_backoff_current_ceiling_us(&req.backoff, &c) == RTO_RETRY_OK);
  CHECK(c == 200'000);
  CHECK(rto_backoff_policy_ceiling_us(&p, 4, &c) == RTO_RETRY_OK);
  CHECK(c == 1'000'000);  // min(1 s, 100 ms * 2^4 = 1.6 s)
  CHECK(rto_backoff_policy_ceiling_us(&p, 3, &c) == RTO_RETRY_OK);
  CHECK(c == 800'000);
}

TEST_CASE("C backoff: full jitter draws from the caller's generator, exactly") {
  rto_backoff_policy p;
  REQUIRE(rto_backoff_policy_full_jitter(100'000, 1'000'000, &p) == RTO_RETRY_OK);
  rto_backoff b;
  REQUIRE(rto_backoff_init(&b, &p) == RTO_RETRY_OK);
  // Without a generator the jittered draw is refused, and nothing is counted.
  CHECK(next(&b, nullptr).status == RTO_RETRY_ERR_NULL);
  rto_random no_fn{nullptr, nullptr};
  CHECK(next(&b, &no_fn).status == RTO_RETRY_ERR_NULL);
  unsigned n = 9;
  CHECK(rto_backoff_attempt(&b, &n) == RTO_RETRY_OK);
  CHECK(n == 0);
  // U[0, 100 000] is 100 001 values; x = 2^63 gives floor(100 001 / 2) = 50 000
  // (the low word of x * 100 001 is 2^63, not rejected); then U[0, 200 000]: 100 000.
  FixedWord half{kHalf};
  rto_random r{fixed_next, &half};
  CHECK(next(&b, &r).us == 50'000);
  CHECK(next(&b, &r).us == 100'000);
  CHECK(half.calls == 2);
}

TEST_CASE("C backoff: a Retry-After beyond the cap is honoured up to the deadline, clamped when asked") {
  rto_backoff_policy p;
  REQUIRE(rto_backoff_policy_exponential(1'000'000, 5'000'000, &p) == RTO_RETRY_OK);
  p.deadline_us = 60'000'000;
  CHECK(p.server_delay == RTO_SERVER_DELAY_HONOUR);  // the default
  rto_backoff b;
  REQUIRE(rto_backoff_init(&b, &p) == RTO_RETRY_OK);
  // 503, Retry-After: 30 at 0 s: wait 30 s although the cap is 5 s (0 + 30 <= 60).
  Wait w = instead(&b, 0, 30'000'000);
  CHECK(w.retry);
  CHECK(w.us == 30'000'000);
  // Again at 40 s: 40 + 30 = 70 s > 60 s: give up rather than retry early.
  w = instead(&b, 40'000'000, 30'000'000);
  CHECK_FALSE(w.retry);
  rto_give_up why = RTO_GIVE_UP_NONE;
  CHECK(rto_backoff_gave_up(&b, &why) == RTO_RETRY_OK);
  CHECK(why == RTO_GIVE_UP_DEADLINE);
  // At exactly the deadline: 30 + 30 = 60 s is allowed.
  REQUIRE(rto_backoff_init(&b, &p) == RTO_RETRY_OK);
  CHECK(instead(&b, 30'000'000, 30'000'000).us == 30'000'000);

  p.server_delay = RTO_SERVER_DELAY_CLAMP_TO_CAP;
  REQUIRE(rto_backoff_init(&b, &p) == RTO_RETRY_OK);
  w = instead(&b, 0, 30'000'000);
  CHECK(w.retry);
  CHECK(w.us == 5'000'000);  // min(30 s, cap 5 s)
  // A negative server wait counts as 0.
  CHECK(instead(&b, 0, -7).us == 0);
}

TEST_CASE("C backoff: the deadline counted on the caller's elapsed time or on the waits") {
  rto_backoff_policy p;
  REQUIRE(rto_backoff_policy_exponential(1'000'000, 60'000'000, &p) == RTO_RETRY_OK);
  p.deadline_us = 2'500'000;
  rto_backoff b;
  REQUIRE(rto_backoff_init(&b, &p) == RTO_RETRY_OK);
  // Waits counted: 1 s (1 <= 2.5), then 2 s would end at 3 s > 2.5 s.
  CHECK(next(&b, nullptr).us == 1'000'000);
  CHECK_FALSE(next(&b, nullptr).retry);
  // The caller's clock: 1 s at 1.4 s elapsed ends at 2.4 s, allowed; at 1.6 s it would end at 2.6 s.
  REQUIRE(rto_backoff_init(&b, &p) == RTO_RETRY_OK);
  CHECK(next(&b, nullptr, 1'400'000).retry);
  REQUIRE(rto_backoff_init(&b, &p) == RTO_RETRY_OK);
  CHECK_FALSE(next(&b, nullptr, 1'600'000).retry);
  // A negative elapsed other than RTO_BACKOFF_ELAPSED_WAITED is refused, the state unchanged.
  REQUIRE(rto_backoff_init(&b, &p) == RTO_RETRY_OK);
  CHECK(next(&b, nullptr, -2).status == RTO_RETRY_ERR_INVALID_ARGUMENT);
  unsigned n = 9;
  CHECK(rto_backoff_attempt(&b, &n) == RTO_RETRY_OK);
  CHECK(n == 0);
}

TEST_CASE("C backoff policy: validation names the field; an invalid policy makes no backoff") {
  rto_backoff_policy p;
  REQUIRE(rto_backoff_policy_exponential(1'000'000, 500'000, &p) == RTO_RETRY_OK);
  char message[128];
  CHECK(rto_backoff_policy_validate(&p, message, sizeof message) == RTO_RETRY_ERR_INVALID_POLICY);
  CHECK(std::string(message) == "rto::BackoffPolicy.cap: 500000 us is below base (1000000 us)");
  rto_backoff b;
  CHECK(rto_backoff_init(&b, &p) == RTO_RETRY_ERR_INVALID_POLICY);
  // Truncated to the buffer, NUL-terminated.
  char small[12];
  CHECK(rto_backoff_policy_validate(&p, small, sizeof small) == RTO_RETRY_ERR_INVALID_POLICY);
  CHECK(std::string(small) == "rto::Backof");
  // A C int that is no rto_jitter / rto_server_delay.
  REQUIRE(rto_backoff_policy_exponential(1'000'000, 5'000'000, &p) == RTO_RETRY_OK);
  p.jitter = static_cast<rto_jitter>(5);
  CHECK(rto_backoff_policy_validate(&p, message, sizeof message) == RTO_RETRY_ERR_INVALID_POLICY);
  CHECK(std::string(message) == "rto::BackoffPolicy.jitter: 5 is not a Jitter");
  p.jitter = RTO_JITTER_PROPORTIONAL;  // the last one is valid
  CHECK(rto_backoff_policy_validate(&p, nullptr, 0) == RTO_RETRY_OK);
  p.server_delay = static_cast<rto_server_delay>(2);
  CHECK(rto_backoff_policy_validate(&p, message, sizeof message) == RTO_RETRY_ERR_INVALID_POLICY);
  CHECK(std::string(message) == "rto::BackoffPolicy.server_delay: 2 is not a ServerDelay");
  p.server_delay = RTO_SERVER_DELAY_CLAMP_TO_CAP;
  CHECK(rto_backoff_policy_validate(&p, nullptr, 0) == RTO_RETRY_OK);
  // NULLs.
  CHECK(rto_backoff_policy_validate(nullptr, nullptr, 0) == RTO_RETRY_ERR_NULL);
  CHECK(rto_backoff_init(nullptr, &p) == RTO_RETRY_ERR_NULL);
  CHECK(rto_backoff_policy_exponential(1, 2, nullptr) == RTO_RETRY_ERR_NULL);
  CHECK(std::string(rto_retry_status_string(RTO_RETRY_ERR_INVALID_POLICY)) == "the backoff policy is not valid");
  CHECK(std::string(rto_retry_status_string(static_cast<rto_retry_status>(99))) == "unknown status");
}

TEST_CASE("C backoff policy presets: gRPC connection and retry, decorrelated and equal jitter") {
  rto_backoff_policy p;
  REQUIRE(rto_backoff_policy_grpc_connection(&p) == RTO_RETRY_OK);
  CHECK(p.base_us == 1'000'000);  // INITIAL_BACKOFF 1 s
  CHECK(p.multiplier_num == 8);   // MULTIPLIER 1.6
  CHECK(p.multiplier_den == 5);
  CHECK(p.cap_us == 120'000'000);  // MAX_BACKOFF 120 s
  CHECK(p.jitter == RTO_JITTER_PROPORTIONAL);
  CHECK(p.jitter_permille == 200);                   // JITTER 0.2
  CHECK(p.min_connect_timeout_us == 20'000'000);     // MIN_CONNECT_TIMEOUT 20 s
  CHECK(p.deadline_us == 0);
  REQUIRE(rto_backoff_policy_grpc_retry(100'000, 1'000'000, 13, 10, 9, &p) == RTO_RETRY_OK);
  CHECK(p.max_attempts == 5);  // gRFC A6: the client treats more than 5 as 5
  CHECK(p.jitter == RTO_JITTER_FULL);
  REQUIRE(rto_backoff_policy_decorrelated_jitter(100'000, 1'000'000, &p) == RTO_RETRY_OK);
  CHECK(p.jitter == RTO_JITTER_DECORRELATED);
  CHECK(p.multiplier_num == 3);
  REQUIRE(rto_backoff_policy_equal_jitter(100'000, 1'000'000, &p) == RTO_RETRY_OK);
  CHECK(p.jitter == RTO_JITTER_EQUAL);
  // Equal jitter: U[50 000, 100 000] is 50 001 values, x = 2^63 -> 50 000 + 25 000.
  rto_backoff b;
  REQUIRE(rto_backoff_init(&b, &p) == RTO_RETRY_OK);
  FixedWord half{kHalf};
  rto_random r{fixed_next, &half};
  CHECK(next(&b, &r).us == 75'000);
}

TEST_CASE("C connection backoff: gRPC's schedule on the caller's clock, by hand") {
  rto_backoff_policy p;
  REQUIRE(rto_backoff_policy_grpc_connection(&p) == RTO_RETRY_OK);
  rto_connection_backoff cb;
  REQUIRE(rto_connection_backoff_init(&cb, &p) == RTO_RETRY_OK);
  bool retry = false;
  std::int64_t t = 0;
  // +-20 % spread needs the generator.
  CHECK(rto_connection_backoff_on_failure(&cb, 0, nullptr, &retry, &t) == RTO_RETRY_ERR_NULL);

  p.jitter_permille = 0;  // no spread: the schedule is exact without a generator
  REQUIRE(rto_connection_backoff_init(&cb, &p) == RTO_RETRY_OK);
  // First attempt at 0: backoff deadline 0 + 1 s; it may run max(1 s, 0 + 20 s) = 20 s.
  CHECK(rto_connection_backoff_attempt_deadline(&cb, 0, &t) == RTO_RETRY_OK);
  CHECK(t == 20'000'000);
  // Fails at 20 s: the next starts at max(20 s, 1 s) = 20 s; backoff 1.6 s, deadline 21.6 s.
  CHECK(rto_connection_backoff_on_failure(&cb, 20'000'000, nullptr, &retry, &t) == RTO_RETRY_OK);
  CHECK(retry);
  CHECK(t == 20'000'000);
  std::int64_t backoff = 0;
  CHECK(rto_connection_backoff_current_us(&cb, &backoff) == RTO_RETRY_OK);
  CHECK(backoff == 1'600'000);
  // That attempt fails at once (20.1 s): the next starts at the backoff deadline 21.6 s;
  // backoff 1.6 * 1.6 = 2.56 s.
  CHECK(rto_connection_backoff_on_failure(&cb, 20'100'000, nullptr, &retry, &t) == RTO_RETRY_OK);
  CHECK(retry);
  CHECK(t == 21'600'000);
  CHECK(rto_connection_backoff_current_us(&cb, &backoff) == RTO_RETRY_OK);
  CHECK(backoff == 2'560'000);
  CHECK(rto_connection_backoff_reset(&cb) == RTO_RETRY_OK);
  CHECK(rto_connection_backoff_current_us(&cb, &backoff) == RTO_RETRY_OK);
  CHECK(backoff == 1'000'000);

  // NULL policy: gRPC's defaults.
  REQUIRE(rto_connection_backoff_init(&cb, nullptr) == RTO_RETRY_OK);
  CHECK(rto_connection_backoff_attempt_deadline(&cb, 5'000'000, &t) == RTO_RETRY_OK);
  CHECK(t == 25'000'000);  // max(5 + 1, 5 + 20) s
  // With the spread (and no MIN_CONNECT_TIMEOUT, so the deadline shows the draw):
  // attempt at 0 s, deadline 1 s; it fails at 0.5 s: the next starts at 1 s, backoff
  // 1.6 s, j = 20 % = 320 ms; U[1.28 s, 1.92 s] is 640 001 values, x = 2^63 draws
  // the 320 000th: 1.6 s, so the next backoff deadline is 1 + 1.6 = 2.6 s.
  REQUIRE(rto_backoff_policy_grpc_connection(&p) == RTO_RETRY_OK);
  p.min_connect_timeout_us = 0;
  REQUIRE(rto_connection_backoff_init(&cb, &p) == RTO_RETRY_OK);
  CHECK(rto_connection_backoff_attempt_deadline(&cb, 0, &t) == RTO_RETRY_OK);
  CHECK(t == 1'000'000);
  FixedWord half{kHalf};
  rto_random r{fixed_next, &half};
  CHECK(rto_connection_backoff_on_failure(&cb, 500'000, &r, &retry, &t) == RTO_RETRY_OK);
  CHECK(retry);
  CHECK(t == 1'000'000);
  CHECK(rto_connection_backoff_attempt_deadline(&cb, 1'000'000, &t) == RTO_RETRY_OK);
  CHECK(t == 2'600'000);
  CHECK(half.calls == 1);
}

// rto::ConnectionBackoff: gRPC's connection backoff (grpc/doc/connection-backoff.md):
// attempt start times, connect deadlines with MIN_CONNECT_TIMEOUT, reset, and
// the dispersion of clients that start together.

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <set>

#include "backoff_util.hpp"
#include "rto/retry/backoff.hpp"

using rto::BackoffPolicy;
using rto::ConnectionBackoff;
using rto::Instant;
using rto_test::at_ms;
using rto_test::kHalf;
using rto_test::kTop;
using rto_test::ScriptedGenerator;
using std::chrono::milliseconds;
using std::chrono::seconds;

TEST_CASE("gRPC schedule, connects failing at once, jitter at its midpoint: starts 0, 1, 2.6, 5.16, 9.256 s") {
  ConnectionBackoff cb;
  ScriptedGenerator mid{kHalf};  // U[b - b/5, b + b/5] has an odd span 2j+1: the midpoint b exactly
  // attempt 1 at 0: backoff deadline 0 + 1 s; connect deadline max(1 s, 0 + 20 s) = 20 s.
  CHECK(cb.attempt_deadline(at_ms(0)) == at_ms(20'000));
  // fails at once: next start = the backoff deadline 1 s (INITIAL_BACKOFF, no jitter);
  // backoff 1.6 s; new deadline 1 + 1.6 = 2.6 s.
  CHECK(cb.on_failure(at_ms(0), mid) == at_ms(1'000));
  CHECK(cb.current_backoff() == milliseconds{1'600});
  CHECK(cb.attempt_deadline(at_ms(1'000)) == at_ms(21'000));  // max(2.6 s, 1 + 20 s)
  CHECK(cb.on_failure(at_ms(1'000), mid) == at_ms(2'600));    // backoff 2.56 -> deadline 5.16 s
  CHECK(cb.on_failure(at_ms(2'600), mid) == at_ms(5'160));    // backoff 4.096 -> deadline 9.256 s
  CHECK(cb.on_failure(at_ms(5'160), mid) == at_ms(9'256));
  CHECK(cb.attempt() == 4u);
}

TEST_CASE("gRPC: an attempt gets max(backoff deadline, now + MIN_CONNECT_TIMEOUT); a timed-out one retries at once") {
  ConnectionBackoff cb;
  ScriptedGenerator mid{kHalf};
  CHECK(cb.attempt_deadline(at_ms(0)) == at_ms(20'000));
  // The connect ran to its 20 s timeout; the backoff deadline (1 s) has passed: retry at once.
  CHECK(cb.on_failure(at_ms(20'000), mid) == at_ms(20'000));
  // backoff 1.6 s: deadline 21.6 s; the attempt gets max(21.6, 40) = 40 s.
  CHECK(cb.attempt_deadline(at_ms(20'000)) == at_ms(40'000));
  // Once the backoff exceeds 20 s, it is the backoff deadline that bounds the attempt:
  // backoffs 2.56, 4.096, 6.5536, 10.48576, 16.777216, 26.843546 s (x1.6 rounded up to a us).
  Instant t = at_ms(40'000);
  for (int i = 0; i < 6; ++i) t = *cb.on_failure(t, mid);
  CHECK(cb.current_backoff() == std::chrono::microseconds{26'843'546});
  CHECK(cb.attempt_deadline(t) == t + std::chrono::microseconds{26'843'546});
}

TEST_CASE("gRPC: jitter is +-20 % of the backoff; the cap is 120 s before jitter") {
  ConnectionBackoff cb;
  ScriptedGenerator top{kTop};
  cb.attempt_deadline(at_ms(0));
  Instant t = *cb.on_failure(at_ms(0), top);  // 1 s
  CHECK(t == at_ms(1'000));
  // backoff 1.6 s, top of [1.28, 1.92]: next start 1 + 1.92 = 2.92 s.
  CHECK(cb.on_failure(t, top) == at_ms(2'920));
  for (int i = 0; i < 20; ++i) t = *cb.on_failure(t, top);
  CHECK(cb.current_backoff() == seconds{120});
  // 120 s + 20 % = 144 s after the start.
  CHECK(cb.backoff_deadline() - t == seconds{144});
}

TEST_CASE("gRPC: reset (connection accepted) starts over with INITIAL_BACKOFF") {
  ConnectionBackoff cb;
  ScriptedGenerator mid{kHalf};
  cb.attempt_deadline(at_ms(0));
  for (int i = 0; i < 5; ++i) (void)cb.on_failure(at_ms(0), mid);
  cb.reset();
  CHECK(cb.attempt() == 0u);
  CHECK(cb.current_backoff() == seconds{1});
  CHECK(cb.attempt_deadline(at_ms(100'000)) == at_ms(120'000));
  CHECK(cb.on_failure(at_ms(100'000), mid) == at_ms(101'000));
}

TEST_CASE("gRPC: 1000 clients started together retry together once, then disperse within +-20 %") {
  std::mt19937_64 rng(99);
  std::set<Instant> second, third;
  Instant lo = Instant::max(), hi = Instant::min();
  for (int c = 0; c < 1000; ++c) {
    ConnectionBackoff cb;
    cb.attempt_deadline(at_ms(0));
    const Instant s2 = *cb.on_failure(at_ms(0), rng);
    const Instant s3 = *cb.on_failure(s2, rng);
    second.insert(s2);
    third.insert(s3);
    lo = std::min(lo, s3);
    hi = std::max(hi, s3);
  }
  CHECK(second.size() == 1u);  // all at exactly 1 s
  // third start = 1 s + U[1.28, 1.92] s: within [2.28, 2.92] s, spread over most of it.
  CHECK(lo >= at_ms(2'280));
  CHECK(hi <= at_ms(2'920));
  CHECK(hi - lo > milliseconds{600});
  CHECK(third.size() > 990u);
}

TEST_CASE("gRPC policy with limits: max_attempts and a deadline on the next start") {
  ScriptedGenerator mid{kHalf};
  ConnectionBackoff limited(BackoffPolicy::grpc_connection().with_max_attempts(2));
  limited.attempt_deadline(at_ms(0));
  CHECK(limited.on_failure(at_ms(0), mid) == at_ms(1'000));
  CHECK_FALSE(limited.on_failure(at_ms(1'000), mid).has_value());
  ConnectionBackoff timed(BackoffPolicy::grpc_connection().with_deadline(milliseconds{2'600}));
  timed.attempt_deadline(at_ms(0));
  CHECK(timed.on_failure(at_ms(0), mid) == at_ms(1'000));
  CHECK(timed.on_failure(at_ms(1'000), mid) == at_ms(2'600));  // exactly at the deadline: allowed
  CHECK_FALSE(timed.on_failure(at_ms(2'600), mid).has_value());  // 5.16 s > 2.6 s
}

TEST_CASE("ConnectionBackoff at the ends of the caller's clock: deadlines held at the end, not wrapped") {
  const Instant highest{std::chrono::microseconds{INT64_MAX}}, lowest{std::chrono::microseconds{INT64_MIN}};
  ConnectionBackoff late(BackoffPolicy::grpc_connection());
  // now + 1 s and now + 20 s are past the range: the deadline is the last instant.
  CHECK(late.attempt_deadline(Instant{std::chrono::microseconds{INT64_MAX - 5}}) == highest);
  // A 1 s deadline, failures at the first and the last instant: the second
  // start is 2^64 - 1 us after the first, past any deadline: give up.
  BackoffPolicy p = BackoffPolicy::grpc_connection().with_deadline(std::chrono::seconds{1});
  p.jitter_permille = 0;
  ConnectionBackoff span(p);
  std::mt19937_64 g(1);
  CHECK(span.on_failure(lowest, g) == lowest + std::chrono::seconds{1});  // starts at the backoff deadline
  CHECK_FALSE(span.on_failure(highest, g).has_value());
}

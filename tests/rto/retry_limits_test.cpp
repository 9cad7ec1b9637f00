// rto::RetryCounter against RFC 1122 4.2.3.5 (R2) as the limits document it:
// the expiry that finds max_backoffs (max_syn_backoffs for the SYN) backoffs
// already done gives up; the time limit is measured from the first expiry
// since progress and wins over the count; progress starts both again.

#include <doctest/doctest.h>

#include "rto/retry_limits.hpp"
#include "test_util.hpp"

using namespace rto_test;
using rto::RetryCounter;
using rto::RetryLimits;
using rto::RetryVerdict;

TEST_CASE("retry limits: the defaults are Linux's tcp_retries2 = 15 and tcp_syn_retries = 6") {
  const RetryLimits l;
  CHECK(l.max_backoffs == 15);
  CHECK(l.max_syn_backoffs == 6);
  CHECK(l.max_retry_time == microseconds{0});
}

TEST_CASE("retry limits: data gives up at the expiry after max_backoffs retransmissions, not before") {
  RetryLimits l;
  l.max_backoffs = 3;
  RetryCounter c;
  // Expiries 1, 2, 3 each retransmit (counts 0 -> 1 -> 2 -> 3); expiry 4
  // finds 3 >= 3 and gives up.
  for (int i = 1; i <= 3; ++i) {
    CAPTURE(i);
    CHECK(c.on_expiry(at_ms(1000 * i), false, l) == RetryVerdict::Retransmit);
    CHECK(c.consecutive() == static_cast<unsigned>(i));
  }
  CHECK(c.on_expiry(at_ms(4000), false, l) == RetryVerdict::BackoffLimit);
  CHECK(c.consecutive() == 3);
}

TEST_CASE("retry limits: the SYN uses max_syn_backoffs") {
  RetryLimits l;
  l.max_backoffs = 1;
  l.max_syn_backoffs = 2;
  RetryCounter c;
  CHECK(c.on_expiry(at_ms(1000), true, l) == RetryVerdict::Retransmit);
  CHECK(c.on_expiry(at_ms(3000), true, l) == RetryVerdict::Retransmit);  // 1 < 2, though 1 >= max_backoffs
  CHECK(c.on_expiry(at_ms(7000), true, l) == RetryVerdict::BackoffLimit);
}

TEST_CASE("retry limits: max_retry_time counts from the first expiry and gives up at exactly the limit") {
  RetryLimits l;
  l.max_retry_time = milliseconds{5000};
  RetryCounter c;
  CHECK(c.on_expiry(at_ms(1000), false, l) == RetryVerdict::Retransmit);  // the clock starts at 1000
  // 5999 - 1000 = 4999 ms < 5000: retransmit; 6000 - 1000 = 5000 ms: give up.
  CHECK(c.on_expiry(at_ms(5999), false, l) == RetryVerdict::Retransmit);
  CHECK(c.on_expiry(at_ms(6000), false, l) == RetryVerdict::TimeLimit);
}

TEST_CASE("retry limits: the time limit is reported when both limits are reached") {
  RetryLimits l;
  l.max_backoffs = 1;
  l.max_retry_time = milliseconds{1000};
  RetryCounter c;
  CHECK(c.on_expiry(at_ms(0), false, l) == RetryVerdict::Retransmit);
  CHECK(c.on_expiry(at_ms(1000), false, l) == RetryVerdict::TimeLimit);  // count 1 >= 1 too
}

TEST_CASE("retry limits: progress resets the count and the time limit's clock") {
  RetryLimits l;
  l.max_backoffs = 2;
  l.max_retry_time = milliseconds{3000};
  RetryCounter c;
  CHECK(c.on_expiry(at_ms(0), false, l) == RetryVerdict::Retransmit);
  CHECK(c.on_expiry(at_ms(2000), false, l) == RetryVerdict::Retransmit);
  c.on_progress();
  CHECK(c.consecutive() == 0);
  // The clock restarts at 10000: 12999 - 10000 = 2999 ms < 3000.
  CHECK(c.on_expiry(at_ms(10'000), false, l) == RetryVerdict::Retransmit);
  CHECK(c.on_expiry(at_ms(12'999), false, l) == RetryVerdict::Retransmit);
  CHECK(c.on_expiry(at_ms(12'999), false, l) == RetryVerdict::BackoffLimit);
}

TEST_CASE("retry limits: max_retry_time zero means no time limit") {
  RetryLimits l;
  l.max_backoffs = 100;
  RetryCounter c;
  CHECK(c.on_expiry(at_ms(0), false, l) == RetryVerdict::Retransmit);
  CHECK(c.on_expiry(at_ms(1'000'000'000), false, l) == RetryVerdict::Retransmit);
}

// rto::RetransmissionTimer's retry limits against RFC 1122 4.2.3.5 (R2) as
// RetryLimits documents them: the expiry that finds max_backoffs
// (max_syn_backoffs for the SYN) backoffs already done gives up; the time
// limit is measured from the first expiry since progress and wins over the
// count; progress (5.2, 5.3) starts both again; giving up stops the timer.

#include <doctest/doctest.h>

#include "rto/retransmission_timer.hpp"
#include "test_util.hpp"

using namespace rto_test;
using rto::Config;
using rto::RetransmissionTimer;
using rto::RetryLimits;
using rto::RetryVerdict;

namespace {
// The verdict of a data expiry at `now` / of a SYN expiry.
RetryVerdict data(RetransmissionTimer& t, rto::Instant now) { return t.on_expiry(now).verdict; }
RetryVerdict syn(RetransmissionTimer& t, rto::Instant now) { return t.on_syn_expiry(now).verdict; }
}  // namespace

TEST_CASE("RFC1122-4.2.3.5 retry limits: the defaults are Linux's tcp_retries2 = 15 and tcp_syn_retries = 6") {
  const RetryLimits l;
  CHECK(l.max_backoffs == 15);
  CHECK(l.max_syn_backoffs == 6);
  CHECK(l.max_retry_time == microseconds{0});
}

TEST_CASE("RFC1122-4.2.3.5 retry limits: data gives up at the expiry after max_backoffs retransmissions, not before") {
  RetryLimits l;
  l.max_backoffs = 3;
  RetransmissionTimer c(Config::rfc6298(), l);
  // Expiries 1, 2, 3 each retransmit (counts 0 -> 1 -> 2 -> 3); expiry 4
  // finds 3 >= 3 and gives up.
  for (int i = 1; i <= 3; ++i) {
    CAPTURE(i);
    CHECK(data(c, at_ms(1000 * i)) == RetryVerdict::Retransmit);
    CHECK(c.consecutive_expiries() == static_cast<unsigned>(i));
  }
  CHECK(data(c, at_ms(4000)) == RetryVerdict::BackoffLimit);
  CHECK(c.consecutive_expiries() == 3);
}

TEST_CASE("RFC1122-4.2.3.5 retry limits: the SYN uses max_syn_backoffs") {
  RetryLimits l;
  l.max_backoffs = 1;
  l.max_syn_backoffs = 2;
  RetransmissionTimer c(Config::rfc6298(), l);
  CHECK(syn(c, at_ms(1000)) == RetryVerdict::Retransmit);
  CHECK(syn(c, at_ms(3000)) == RetryVerdict::Retransmit);  // 1 < 2, though 1 >= max_backoffs
  CHECK(syn(c, at_ms(7000)) == RetryVerdict::BackoffLimit);
}

TEST_CASE("RFC1122-4.2.3.5 retry limits: max_retry_time counts from the first expiry and gives up at exactly the limit") {
  RetryLimits l;
  l.max_retry_time = milliseconds{5000};
  RetransmissionTimer c(Config::rfc6298(), l);
  CHECK(data(c, at_ms(1000)) == RetryVerdict::Retransmit);  // the clock starts at 1000
  // 5999 - 1000 = 4999 ms < 5000: retransmit; 6000 - 1000 = 5000 ms: give up.
  CHECK(data(c, at_ms(5999)) == RetryVerdict::Retransmit);
  CHECK(data(c, at_ms(6000)) == RetryVerdict::TimeLimit);
}

TEST_CASE("RFC1122-4.2.3.5 retry limits: the time limit is reported when both limits are reached") {
  RetryLimits l;
  l.max_backoffs = 1;
  l.max_retry_time = milliseconds{1000};
  RetransmissionTimer c(Config::rfc6298(), l);
  CHECK(data(c, at_ms(0)) == RetryVerdict::Retransmit);
  CHECK(data(c, at_ms(1000)) == RetryVerdict::TimeLimit);  // count 1 >= 1 too
}

TEST_CASE("RFC1122-4.2.3.5 retry limits: progress resets the count and the time limit's clock") {
  RetryLimits l;
  l.max_backoffs = 2;
  l.max_retry_time = milliseconds{3000};
  RetransmissionTimer c(Config::rfc6298(), l);
  CHECK(data(c, at_ms(0)) == RetryVerdict::Retransmit);
  CHECK(data(c, at_ms(2000)) == RetryVerdict::Retransmit);
  c.on_new_data_acked(at_ms(9000));  // progress (5.3)
  CHECK(c.consecutive_expiries() == 0);
  // The clock restarts at 10000: 12999 - 10000 = 2999 ms < 3000.
  CHECK(data(c, at_ms(10'000)) == RetryVerdict::Retransmit);
  CHECK(data(c, at_ms(12'999)) == RetryVerdict::Retransmit);
  CHECK(data(c, at_ms(12'999)) == RetryVerdict::BackoffLimit);
}

TEST_CASE("RFC1122-4.2.3.5 retry limits: max_retry_time zero means no time limit") {
  RetryLimits l;
  l.max_backoffs = 100;
  RetransmissionTimer c(Config::rfc6298(), l);
  CHECK(data(c, at_ms(0)) == RetryVerdict::Retransmit);
  CHECK(data(c, at_ms(1'000'000'000)) == RetryVerdict::Retransmit);
}

TEST_CASE("RFC1122-4.2.3.5 retry limits: giving up stops the timer and backs nothing off; 5.2 is progress too") {
  RetryLimits l;
  l.max_backoffs = 1;
  RetransmissionTimer c(Config::rfc6298(), l);
  c.on_data_sent(at_ms(0));
  CHECK(data(c, at_ms(1000)) == RetryVerdict::Retransmit);  // 5.5: 1 s -> 2 s; 5.6: 1 + 2 = 3 s
  CHECK(c.rto() == seconds{2});
  CHECK(c.deadline() == at_ms(3000));
  CHECK(data(c, at_ms(3000)) == RetryVerdict::BackoffLimit);  // count 1 >= 1: give up
  CHECK_FALSE(c.running());
  CHECK(c.rto() == seconds{2});  // not doubled again
  CHECK(c.backoff() == 1u);
  c.on_data_sent(at_ms(4000));
  c.on_all_acked();  // progress (5.2)
  CHECK(c.consecutive_expiries() == 0);
  CHECK(data(c, at_ms(5000)) == RetryVerdict::Retransmit);
}

// rto::RetransmissionTimer: RFC 6298 rules 5.1-5.6 as events on absolute
// deadlines, armed with the RTO it holds.

#include <doctest/doctest.h>

#include "rto/retransmission_timer.hpp"
#include "test_util.hpp"

using rto::Instant;
using rto::RetransmissionTimer;
using rto::Rto;
using rto_test::at_ms;
using rto_test::at_us;
using rto_test::expire;
using std::chrono::milliseconds;
using std::chrono::seconds;

namespace {
// An RTO of `d` (within 1 us .. 1 h), as an estimator would give it.
Rto rto_of(std::chrono::microseconds d) { return Rto::clamped(d, Rto::kMin, Rto::kMax); }
}  // namespace

TEST_CASE("RFC6298-5.1 sending data starts a stopped timer: deadline = now + RTO") {
  RetransmissionTimer t;
  CHECK_FALSE(t.running());
  CHECK(t.deadline() == Instant::max());
  t.on_data_sent(at_ms(250));  // the RTO is 1 s (2.1)
  CHECK(t.running());
  CHECK(t.deadline() == at_ms(1250));
}

TEST_CASE("RFC6298-5.1 sending more data (or a retransmission) leaves a running timer alone") {
  RetransmissionTimer t;
  t.on_data_sent(at_ms(0));  // RTO 1 s
  t.on_data_sent(at_ms(500));
  t.on_rtt_sample(rto_of(seconds{3}));  // a new RTO does not move a running timer either
  t.on_data_sent(at_ms(900));
  CHECK(t.deadline() == at_ms(1000));
}

TEST_CASE("RFC6298-5.2 all data acknowledged stops the timer; it never expires while stopped") {
  RetransmissionTimer t;
  t.on_data_sent(at_ms(0));
  t.on_all_acked();
  CHECK_FALSE(t.running());
  CHECK_FALSE(t.expired(at_ms(5000)));
  CHECK(t.deadline() == Instant::max());
  t.on_data_sent(at_ms(6000));  // 5.1 again afterwards
  CHECK(t.deadline() == at_ms(7000));
}

TEST_CASE("RFC6298-5.3 an ACK of new data restarts the timer with the current RTO") {
  RetransmissionTimer t;
  t.on_data_sent(at_ms(0));
  t.on_rtt_sample(rto_of(milliseconds{2700}));  // the ACK's sample gave RTO 2.7 s
  t.on_new_data_acked(at_ms(700));
  CHECK(t.deadline() == at_ms(3400));
}

TEST_CASE("RFC6298-5.4 RFC6298-5.5 RFC6298-5.6 expiry: never early, the RTO backs off (5.5) and the timer restarts with the doubled RTO (5.6)") {
  RetransmissionTimer t;
  t.on_data_sent(at_ms(0));
  CHECK_FALSE(t.expired(at_us(999'999)));  // 1 us before the deadline
  CHECK(t.expired(at_ms(1000)));
  expire(t, at_ms(1000));  // the caller retransmits the earliest segment (5.4)
  CHECK(t.rto() == seconds{2});
  CHECK(t.backoff() == 1u);
  CHECK(t.running());
  CHECK(t.deadline() == at_ms(3000));
  CHECK_FALSE(t.expired(at_ms(2999)));
}

TEST_CASE("RFC6298-5.6 a late expiry restarts from the time it is handled, not from the old deadline") {
  RetransmissionTimer t;
  t.on_data_sent(at_ms(0));
  expire(t, at_ms(1013));  // handled 13 ms late
  CHECK(t.deadline() == at_ms(3013));
}

TEST_CASE("RFC6298-5.5 SYN expiry (RFC: doubles; Linux: linear for the first 4)") {
  RetransmissionTimer t;
  t.on_data_sent(at_ms(0));
  REQUIRE(t.on_syn_expiry(at_ms(1000)).verdict == rto::RetryVerdict::Retransmit);
  CHECK(t.deadline() == at_ms(3000));
  RetransmissionTimer u(rto::Config::linux_default());
  u.on_data_sent(at_ms(0));
  REQUIRE(u.on_syn_expiry(at_ms(1000)).verdict == rto::RetryVerdict::Retransmit);
  CHECK(u.deadline() == at_ms(2000));
}

TEST_CASE("RFC6298-5.2 stop() is the same as 5.2") {
  RetransmissionTimer t;
  t.on_data_sent(at_ms(0));
  t.stop();
  CHECK_FALSE(t.running());
}

TEST_CASE("RFC6298-5.1 a deadline past the end of the clock saturates at Instant::max() instead of overflowing") {
  RetransmissionTimer t;
  t.on_rtt_sample(rto_of(seconds{60}));
  t.on_data_sent(Instant::max() - milliseconds{1});
  CHECK(t.deadline() == Instant::max());
  CHECK(t.running());
}

TEST_CASE("restart: a stack's own re-arm (Linux loss probe, head send time) moves a running timer") {
  // Running since 0 with 1 s (deadline 1000 ms). Linux tcp_send_loss_probe
  // re-arms a full RTO at the probe: restart at 204 ms with 204 ms -> 408 ms,
  // earlier than the old deadline (5.1's on_data_sent would not move it).
  RetransmissionTimer t;
  t.on_data_sent(at_ms(0));
  t.restart(at_ms(204), rto_of(milliseconds{204}));
  CHECK(t.deadline() == at_ms(408));
  // tcp_rearm_rto counts from the head's send time, which may be in the past:
  // head sent at 100 ms, RTO 300 ms -> deadline 400 ms, expired at 400 ms.
  t.on_rtt_sample(rto_of(milliseconds{300}));
  t.restart(at_ms(100));
  CHECK(t.deadline() == at_ms(400));
  CHECK_FALSE(t.expired(at_ms(399)));
  CHECK(t.expired(at_ms(400)));
  // A stopped timer restarts too.
  t.stop();
  t.restart(at_ms(500), rto_of(seconds{1}));
  CHECK(t.running());
  CHECK(t.deadline() == at_ms(1500));
}

TEST_CASE("RFC6298-5.7 the two rules: RFC 6298 falls back to 3 s after a SYN timeout, Linux whenever the handshake gave no sample") {
  RetransmissionTimer rfc;
  rfc.on_handshake_complete(false, false);  // no SYN timeout: the 1 s of 2.1 stays
  CHECK(rfc.rto() == seconds{1});
  RetransmissionTimer rfc_sampled;
  rfc_sampled.on_handshake_complete(true, true);  // a SYN timeout, RTO 1 s < 3 s: sample or not
  CHECK(rfc_sampled.rto() == seconds{3});
  RetransmissionTimer lin(rto::Config::linux_default());
  lin.on_handshake_complete(false, false);  // tcp_init_metrics: no sample, so 3 s
  CHECK(lin.rto() == seconds{3});
  RetransmissionTimer lin_sampled(rto::Config::linux_default());
  lin_sampled.on_handshake_complete(true, true);  // a sample: the RTO stays, SYN timeout or not
  CHECK(lin_sampled.rto() == seconds{1});
}

TEST_CASE("RFC6298-5-collapse on_rtt_sample: the estimator's new RTO replaces the backed-off one; a running deadline stays") {
  RetransmissionTimer t;
  t.on_data_sent(at_ms(0));
  expire(t, at_ms(1000));  // RTO 2 s, deadline 3 s
  t.on_rtt_sample(rto_of(milliseconds{1500}));
  CHECK(t.backoff() == 0u);
  CHECK(t.base_rto() == milliseconds{1500});
  CHECK(t.rto() == milliseconds{1500});
  CHECK(t.deadline() == at_ms(3000));  // only 5.3 restarts it
  t.on_new_data_acked(at_ms(2000));
  CHECK(t.deadline() == at_ms(3500));
}

TEST_CASE("RFC6298-5-reset the expiry that makes reset_after_backoffs backoffs in a row, and only it, says forget_rtt") {
  rto::Config c = rto::Config::rfc6298();
  c.reset_after_backoffs = 2;
  RetransmissionTimer t(c);
  CHECK_FALSE(expire(t).forget_rtt);  // 1 backoff
  CHECK(expire(t).forget_rtt);        // 2: SRTT and RTTVAR should be cleared
  CHECK_FALSE(expire(t).forget_rtt);  // 3
  t.on_rtt_sample(rto_of(seconds{1}));  // a sample ends the run of backoffs
  CHECK_FALSE(expire(t).forget_rtt);
  CHECK(expire(t).forget_rtt);
}

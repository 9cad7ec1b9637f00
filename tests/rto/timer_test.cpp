// rto::RetransmissionTimer: RFC 6298 rules 5.1-5.6 as events on absolute deadlines.

#include <doctest/doctest.h>

#include "rto/estimator.hpp"
#include "rto/retransmission_timer.hpp"
#include "test_util.hpp"

using rto::Estimator;
using rto::Instant;
using rto::RetransmissionTimer;
using rto_test::at_ms;
using rto_test::at_us;
using std::chrono::milliseconds;
using std::chrono::seconds;

TEST_CASE("RFC6298-5.1 sending data starts a stopped timer: deadline = now + RTO") {
  RetransmissionTimer t;
  CHECK_FALSE(t.running());
  CHECK(t.deadline() == Instant::max());
  t.on_data_sent(at_ms(250), seconds{1});
  CHECK(t.running());
  CHECK(t.deadline() == at_ms(1250));
}

TEST_CASE("RFC6298-5.1 sending more data (or a retransmission) leaves a running timer alone") {
  RetransmissionTimer t;
  t.on_data_sent(at_ms(0), seconds{1});
  t.on_data_sent(at_ms(500), seconds{1});
  t.on_data_sent(at_ms(900), seconds{3});
  CHECK(t.deadline() == at_ms(1000));
}

TEST_CASE("RFC6298-5.2 all data acknowledged stops the timer; it never expires while stopped") {
  RetransmissionTimer t;
  t.on_data_sent(at_ms(0), seconds{1});
  t.on_all_acked();
  CHECK_FALSE(t.running());
  CHECK_FALSE(t.expired(at_ms(5000)));
  CHECK(t.deadline() == Instant::max());
  t.on_data_sent(at_ms(6000), seconds{1});  // 5.1 again afterwards
  CHECK(t.deadline() == at_ms(7000));
}

TEST_CASE("RFC6298-5.3 an ACK of new data restarts the timer with the current RTO") {
  RetransmissionTimer t;
  t.on_data_sent(at_ms(0), seconds{1});
  t.on_new_data_acked(at_ms(700), milliseconds{2700});
  CHECK(t.deadline() == at_ms(3400));
}

TEST_CASE("RFC6298-5.4 RFC6298-5.5 RFC6298-5.6 expiry: never early, the estimator backs off (5.5) and the timer restarts with the doubled RTO (5.6)") {
  Estimator e;
  RetransmissionTimer t;
  t.on_data_sent(at_ms(0), e.rto());
  CHECK_FALSE(t.expired(at_us(999'999)));  // 1 us before the deadline
  CHECK(t.expired(at_ms(1000)));
  t.on_expiry(at_ms(1000), e);  // the caller retransmits the earliest segment (5.4)
  CHECK(e.rto() == seconds{2});
  CHECK(e.backoff() == 1u);
  CHECK(t.running());
  CHECK(t.deadline() == at_ms(3000));
  CHECK_FALSE(t.expired(at_ms(2999)));
}

TEST_CASE("RFC6298-5.6 a late expiry restarts from the time it is handled, not from the old deadline") {
  Estimator e;
  RetransmissionTimer t;
  t.on_data_sent(at_ms(0), e.rto());
  t.on_expiry(at_ms(1013), e);  // handled 13 ms late
  CHECK(t.deadline() == at_ms(3013));
}

TEST_CASE("RFC6298-5.5 SYN expiry uses on_syn_timeout (RFC: doubles; Linux: linear for the first 4)") {
  Estimator rfc;
  RetransmissionTimer t;
  t.on_data_sent(at_ms(0), rfc.rto());
  t.on_syn_expiry(at_ms(1000), rfc);
  CHECK(t.deadline() == at_ms(3000));
  Estimator lin(rto::Config::linux_default());
  RetransmissionTimer u;
  u.on_data_sent(at_ms(0), lin.rto());
  u.on_syn_expiry(at_ms(1000), lin);
  CHECK(u.deadline() == at_ms(2000));
}

TEST_CASE("RFC6298-5.2 stop() is the same as 5.2") {
  RetransmissionTimer t;
  t.on_data_sent(at_ms(0), seconds{1});
  t.stop();
  CHECK_FALSE(t.running());
}

TEST_CASE("RFC6298-5.1 a deadline past the end of the clock saturates at Instant::max() instead of overflowing") {
  RetransmissionTimer t;
  t.on_data_sent(Instant::max() - milliseconds{1}, seconds{60});
  CHECK(t.deadline() == Instant::max());
  CHECK(t.running());
}

TEST_CASE("restart: a stack's own re-arm (Linux loss probe, head send time) moves a running timer") {
  // Running since 0 with 1 s (deadline 1000 ms). Linux tcp_send_loss_probe
  // re-arms a full RTO at the probe: restart at 204 ms with 204 ms -> 408 ms,
  // earlier than the old deadline (5.1's on_data_sent would not move it).
  RetransmissionTimer t;
  t.on_data_sent(at_ms(0), seconds{1});
  t.restart(at_ms(204), milliseconds{204});
  CHECK(t.deadline() == at_ms(408));
  // tcp_rearm_rto counts from the head's send time, which may be in the past:
  // head sent at 100 ms, RTO 300 ms -> deadline 400 ms, expired at 400 ms.
  t.restart(at_ms(100), milliseconds{300});
  CHECK(t.deadline() == at_ms(400));
  CHECK_FALSE(t.expired(at_ms(399)));
  CHECK(t.expired(at_ms(400)));
  // A stopped timer restarts too.
  t.stop();
  t.restart(at_ms(500), seconds{1});
  CHECK(t.running());
  CHECK(t.deadline() == at_ms(1500));
}

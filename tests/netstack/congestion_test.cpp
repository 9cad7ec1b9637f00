// RFC 5681 / RFC 6582 arithmetic of NewReno, by hand with SMSS = 1000.

#include <doctest/doctest.h>

#include "netstack/congestion.hpp"

using netstack::NewReno;

TEST_CASE("RFC 5681 3.1 initial window by SMSS") {
  CHECK(NewReno(1460, 0, 0).cwnd() == 3 * 1460);  // 1095 < SMSS <= 2190: 3 segments
  CHECK(NewReno(1000, 0, 0).cwnd() == 4 * 1000);  // SMSS <= 1095: 4 segments
  CHECK(NewReno(3000, 0, 0).cwnd() == 2 * 3000);  // SMSS > 2190: 2 segments
  CHECK(NewReno(1000, 10, 0).cwnd() == 10 * 1000);
}

TEST_CASE("RFC 5681 slow start then congestion avoidance") {
  NewReno cc(1000, 0, 0);  // cwnd 4000, ssthresh huge
  cc.on_ack_of_new_data(3000);  // slow start: += min(3000, SMSS) = 1000
  CHECK(cc.cwnd() == 5000);
  // A timeout with FlightSize 10000: ssthresh = 5000, cwnd = 1000 (LW).
  cc.on_timeout(10'000, 50'000, false);
  CHECK(cc.ssthresh() == 5000);
  CHECK(cc.cwnd() == 1000);
  // A second timeout of the same segment holds ssthresh (RFC 5681 3.1).
  cc.on_timeout(2000, 50'000, true);
  CHECK(cc.ssthresh() == 5000);
  for (int i = 0; i < 4; ++i) cc.on_ack_of_new_data(1000);
  CHECK(cc.cwnd() == 5000);  // 1000 + 4*1000, reaching ssthresh
  cc.on_ack_of_new_data(1000);  // congestion avoidance: += 1000*1000/5000 = 200
  CHECK(cc.cwnd() == 5200);
}

TEST_CASE("RFC 6582 NewReno: third dup ACK, inflation, partial ACK, full ACK") {
  // ISS 0: recover = 0. 10 segments sent: SND.UNA 1, highest sent 10001 (snd_max).
  NewReno cc(1000, 0, 0);
  CHECK_FALSE(cc.on_dup_ack(1, 1, 10'000, 10'001));
  CHECK_FALSE(cc.on_dup_ack(2, 1, 10'000, 10'001));
  // Third: ssthresh = max(10000/2, 2000) = 5000, cwnd = 5000 + 3*1000 = 8000, recover = 10000.
  CHECK(cc.on_dup_ack(3, 1, 10'000, 10'001));
  CHECK(cc.in_recovery());
  CHECK(cc.ssthresh() == 5000);
  CHECK(cc.cwnd() == 8000);
  CHECK(cc.recover() == 10'000);
  CHECK_FALSE(cc.on_dup_ack(4, 1, 10'000, 10'001));  // step 4: cwnd += SMSS
  CHECK(cc.cwnd() == 9000);
  // Partial ACK of 2000 bytes (ack 2001 <= recover): cwnd = 9000 - 2000 + 1000 = 8000.
  CHECK(cc.on_recovery_ack(2001, 2000, 8000));
  CHECK(cc.cwnd() == 8000);
  CHECK(cc.in_recovery());
  // Full ACK (10001 > recover), FlightSize after = 0: cwnd = min(5000, max(0,1000)+1000) = 2000.
  CHECK_FALSE(cc.on_recovery_ack(10'001, 8000, 0));
  CHECK_FALSE(cc.in_recovery());
  CHECK(cc.cwnd() == 2000);
  // RFC 6582 step 2: three dup ACKs that do not cover more than recover do not re-enter.
  NewReno after_timeout(1000, 0, 0);
  after_timeout.on_timeout(10'000, 20'001, false);  // recover = 20000
  after_timeout.on_dup_ack(1, 15'001, 5000, 20'001);
  after_timeout.on_dup_ack(2, 15'001, 5000, 20'001);
  CHECK_FALSE(after_timeout.on_dup_ack(3, 15'001, 5000, 20'001));
  CHECK_FALSE(after_timeout.in_recovery());
}

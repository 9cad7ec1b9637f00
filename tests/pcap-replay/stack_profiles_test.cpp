// The stacks' minimum RTO and retransmit slop (replay/stack_profile.hpp,
// analysis/stack_profile.cpp), each at the first expiry it times: a
// sender with a 1 ms RTT, whose RTO by RFC 6298's arithmetic is 2.5 ms, so
// the stack's floor decides it. Sources: FreeBSD sys/netinet/tcp_timer.c
// (tcp_rexmit_min 30 ms, tcp_rexmit_slop 200 ms, TCPT_RANGESET), xnu
// bsd/netinet/tcp_timer.h (TCPTV_MIN 10 ms, TCPTV_REXMTSLOP 200 ms),
// Microsoft's MinRto (300 ms).

#include <doctest/doctest.h>

#include "replay_scenario.hpp"

using namespace replaytest;
using replay::Verdict;

namespace {

constexpr std::int64_t ms = 1000;  // microseconds per millisecond

// Handshake sample 1 ms (SRTT 1, RTTVAR 0.5), [1,1001) at 10 ms
// acknowledged at 11 ms (R' = 1 ms: RTTVAR 0.375, SRTT 1, RTO 2.5 ms
// before any floor); [1001,2001) at 20 ms starts the timer; resent at
// 20 ms + `wait`.
Scenario fast_path(std::int64_t wait) {
  Scenario s;
  s.handshake(0, 1 * ms);
  s.data(10 * ms, 1);
  s.ack(11 * ms, 1001);
  s.data(20 * ms, 1001);
  s.data(20 * ms + wait, 1001);
  return s;
}

Verdict first_expiry(std::string_view profile, std::int64_t wait) {
  auto r = analyze(fast_path(wait), std::string(profile) + "-floor", profile);
  const auto& c = client(r);
  REQUIRE(c.timeouts.size() == 1);
  CHECK(point_us(c.timeouts[0].wait) == wait);
  return c.timeouts[0].verdict;
}

}  // namespace

TEST_CASE("FreeBSD: RTO max(2.5 ms, 30 ms) plus 200 ms slop, its tick 1/32 late: fires in [230, 230.94] ms") {
  // Accepted from 230 - 10 % x 30 - 1 = 226 ms to 230 + ceil(30 ms / 32) + 1 = 231.938 ms.
  CHECK(first_expiry("freebsd", 230 * ms) == Verdict::ok);
  CHECK(first_expiry("freebsd", 231 * ms + 938) == Verdict::ok);
  CHECK(first_expiry("freebsd", 231 * ms + 939) == Verdict::late);
  CHECK(first_expiry("freebsd", 225 * ms) == Verdict::early);
}

TEST_CASE("macOS: RTO max(2.5 ms, 10 ms) plus 200 ms slop: fires in [210, 210.31] ms") {
  // Accepted from 210 - 1 - 1 = 208 ms to 210 + ceil(10 ms / 32) + 1 = 211.313 ms.
  CHECK(first_expiry("macos", 210 * ms) == Verdict::ok);
  CHECK(first_expiry("macos", 207 * ms) == Verdict::early);
  CHECK(first_expiry("macos", 211 * ms + 313) == Verdict::ok);
  CHECK(first_expiry("macos", 211 * ms + 314) == Verdict::late);
}

TEST_CASE("Windows: MinRto 300 ms, accepted within 10 % + 1 ms") {
  CHECK(first_expiry("windows", 300 * ms) == Verdict::ok);
  CHECK(first_expiry("windows", 268 * ms) == Verdict::early);
  CHECK(first_expiry("windows", 331 * ms + 1) == Verdict::late);
}

TEST_CASE("Linux re-arms the RTO at a retransmission of the head (tcp_xmit_retransmit_queue)") {
  // base_scenario: [1001,2001) and [2001,3001) at 400 ms start the timer.
  // Three duplicate ACKs at 500, 501, 502 ms; the head resent 0.5 ms after
  // the third (a fast retransmit). Linux re-arms the RTO there: the head
  // resent again 300 ms later is an expiry timed from the fast retransmit
  // (a point), not from 400 ms.
  Scenario s = base_scenario();
  for (std::int64_t t : {500, 501, 502}) s.ack(t * ms, 1001);
  s.data(502 * ms + 500, 1001);
  s.data(802 * ms + 500, 1001);
  auto r = analyze(s, "linux-rearm-head", Profile::linux_kernel);
  const auto& c = client(r);
  CHECK(count(c, replay::SendKind::fast) == 1);
  REQUIRE(c.timeouts.size() == 1);
  CHECK(c.timeouts[0].armed_by == replay::ArmCause::head_retransmit);
  CHECK(point_us(c.timeouts[0].wait) == 300'000);
}

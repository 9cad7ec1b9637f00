// A chain's first expiry that a probe timer, re-armed by new data, may have
// fired later than its RTO (Linux: tcp_write_xmit re-schedules the probe
// timer at each new transmission, and with a probe outstanding the RTO
// fires when that timer does). Its wait then shows no RTO, and the next
// expiry's doubling cannot be judged from it; with no new data a PTO before
// it, the doubling is judged as always. Frames are Wireshark's: 1-based.

#include <doctest/doctest.h>

#include "replay_scenario.hpp"

using namespace replaytest;
using replay::Outcome;
using replay::Reading;

namespace {

constexpr std::int64_t ms = 1000;  // microseconds per millisecond

// Linux, SACK negotiated. Handshake at 0 / 100 ms, then 8 segments each
// acknowledged 100 ms after it (frames 4-19): SRTT 100 ms, RTTVAR 50 x
// (3/4)^8 = 5 ms, RTO 100 + max(200, 4 x 5) = 300 ms (without Linux's 200
// ms floor on the variance term, 120 ms); PTO 2 x 100 + 8 = 208 ms (a
// multiple of the 4 ms tick), firing up to 208 x 1.125 + 1 = 235 ms after.
// A at 2000 ms arms the RTO (frame 20); new data B at 2050 ms (21) and C at
// `c_ms` (22); A resent at 2300 ms (23): the first expiry, 300 ms after A
// (the RTO the profile predicts: ok). Then A again at 2540 ms (24), 240 ms
// later, and at `third_ms` (25). A sender whose rto_min is 20 ms had an RTO
// of 120: its first expiry held back by the probe timer that C re-armed (C
// + 208 = 2300 when c_ms = 2092), the second its doubling (240), the third
// 480 after that (3020 ms). Read from the first expiry's wait (300), the
// second is not doubled: 5.5 expects twice the RTO a 300 ms wait shows
// under the timer's lateness (at most 12.5 %) and the tolerance, over 500 ms.
Scenario chain(std::int64_t c_ms, std::int64_t third_ms) {
  Scenario s;
  s.sack_permitted = true;
  s.handshake(0, 100 * ms);
  for (std::uint32_t k = 0; k < 8; ++k) {
    s.data((200 + 200 * k) * ms, 1 + 1000 * k);
    s.ack((300 + 200 * k) * ms, 1001 + 1000 * k);
  }
  s.data(2000 * ms, 8001);
  s.data(2050 * ms, 9001);
  s.data(c_ms * ms, 10001);
  s.data(2300 * ms, 8001);
  s.data(2540 * ms, 8001);
  s.data(third_ms * ms, 8001);
  return s;
}

const replay::Judgement* at_frame(const replay::SenderReport& c, std::uint64_t frame, std::string_view rule) {
  for (const auto& j : c.findings)
    if (j.frame == frame && replay::to_string(j.rule) == rule) return &j;
  return nullptr;
}

}  // namespace

TEST_CASE("new data a PTO before the first expiry: the next one's doubling cannot be told from that expiry's wait") {
  // C at 2092 ms: the first expiry is 208 ms (one PTO) after it. The second
  // is the doubled RTO of 120 if the first fired late, held by the probe
  // timer; not doubled if the first fired on time: cannot tell, naming C's
  // frame (22). The third (480 after the second: doubled again) is ok.
  const auto r = analyze(chain(2092, 3020), "delayed-first-expiry", Profile::linux_kernel);
  const auto& c = client(r);
  REQUIRE(c.timeouts.size() == 3);
  CHECK(musts(c) == 0);
  const auto* j = at_frame(c, 24, "5.5");
  REQUIRE(j);
  CHECK(j->outcome == Outcome::cannot_tell);
  CHECK(j->other_frame == 22);
  REQUIRE(j->readings.size() == 2);
  CHECK(j->readings[0].reading == Reading::earlier_on_time);
  CHECK_FALSE(j->readings[0].keeps);
  CHECK(j->readings[1].reading == Reading::earlier_delayed);
  CHECK(j->readings[1].keeps);
  CHECK(message(*j, "linux").find("frame 22") != std::string::npos);
  CHECK(c.timeouts[2].verdict == replay::Verdict::ok);
}

TEST_CASE("the doubling judged from the second expiry on: not doubled again is broken") {
  // As above, the third at 2840 ms: 300 ms after the second, which waited
  // 240: not doubled (5.5 expects 480, at least about 2 x 240 / 1.125 = 427):
  // broken, whatever the first expiry was.
  const auto r = analyze(chain(2092, 2840), "delayed-then-flat", Profile::linux_kernel);
  const auto& c = client(r);
  REQUIRE(c.timeouts.size() == 3);
  const auto* j = at_frame(c, 25, "5.5");
  REQUIRE(j);
  CHECK(j->outcome == Outcome::broken);
}

TEST_CASE("no new data a PTO before the first expiry: the next one's doubling is judged from its wait") {
  // C at 2051 ms: the first expiry 249 ms after it, past the PTO's latest
  // firing (235 ms): nothing held it, its wait (300 ms) shows its RTO, and
  // the second, 240 ms later, is not doubled: MUST 5.5.
  const auto r = analyze(chain(2051, 3020), "on-time-first-expiry", Profile::linux_kernel);
  const auto* j = at_frame(client(r), 24, "5.5");
  REQUIRE(j);
  CHECK(j->outcome == Outcome::broken);
  CHECK(j->readings.empty());
  // A stack whose probe timer is not known to be re-armed that way (RFC
  // 8985's, as Windows' profile reads it): the frames of the first case
  // break 5.5 at the second expiry, as before.
  const auto w = analyze(chain(2092, 3020), "probe-not-exact", Profile::windows);
  const auto* k = at_frame(client(w), 24, "5.5");
  REQUIRE(k);
  CHECK(k->outcome == Outcome::broken);
}

TEST_CASE("the probe timer's conditions: SACK, no loss shown, the chain's first expiry only") {
  // Linux schedules its probe timer only with SACK and in the Open state
  // (tcp_schedule_loss_probe), and after an expiry the sender is in loss
  // recovery. Each departure below from the first case's conditions leaves
  // nothing to hold the expiry back: 5.5 broken at the second expiry (or at
  // the third).
  SUBCASE("without SACK") {
    Scenario s = chain(2092, 3020);
    s.sack_permitted = false;
    const auto r = analyze(s, "delayed-no-sack", Profile::linux_kernel);
    const auto* j = at_frame(client(r), 24, "5.5");
    REQUIRE(j);
    CHECK(j->outcome == Outcome::broken);
  }
  SUBCASE("after a duplicate ACK showed a loss") {
    // The peer's ACK of 8001 again at 2150 ms (frame 23, after C): a
    // duplicate ACK, 150 ms before the expiry (more than SRTT: no RACK
    // timer). The expiries move one frame on.
    Scenario s = chain(2092, 3020);
    s.pkts.insert(s.pkts.begin() + 22, Pkt{2150 * ms, false, 1, 8001, wire::kAck, 0, {}, {}, {}});
    const auto r = analyze(s, "delayed-after-dupack", Profile::linux_kernel);
    REQUIRE(client(r).timeouts.size() == 3);
    const auto* j = at_frame(client(r), 25, "5.5");
    REQUIRE(j);
    CHECK(j->outcome == Outcome::broken);
  }
  SUBCASE("new data a PTO before the second expiry, after the first") {
    // The first case with C at 2051 (nothing holds the first expiry) and
    // new data D at 2332 ms, 208 ms before the second expiry (frame 24; the
    // expiries 23, 25, 26). After the first expiry there is no probe: the
    // second is not doubled (MUST), nor is the third, 300 ms after it.
    Scenario s = chain(2051, 2840);
    s.pkts.insert(s.pkts.begin() + 23, Pkt{2332 * ms, true, 11001, 1, wire::kAck | wire::kPsh, 1000, {}, {}, {}});
    const auto r = analyze(s, "new-data-after-expiry", Profile::linux_kernel);
    REQUIRE(client(r).timeouts.size() == 3);
    const auto* j = at_frame(client(r), 25, "5.5");
    REQUIRE(j);
    CHECK(j->outcome == Outcome::broken);
    const auto* k = at_frame(client(r), 26, "5.5");
    REQUIRE(k);
    CHECK(k->outcome == Outcome::broken);
  }
}

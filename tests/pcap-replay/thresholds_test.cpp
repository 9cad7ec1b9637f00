// The thresholds of replay/thresholds.hpp that the sender engine reads, each
// with a keep/break pair at its boundary: hand-made captures a microsecond
// either side of the value, the arithmetic in the comments. Frames are
// Wireshark's (1-based); times in the scenarios are microseconds.

#include <doctest/doctest.h>

#include "replay_scenario.hpp"

using namespace replaytest;
using replay::SendKind;

namespace {

constexpr std::int64_t ms = 1000;  // microseconds per millisecond

}  // namespace

TEST_CASE("kBurstFraction: a repeat within 1/2 of the expiry's wait, no ACK between, is its go-back-N burst") {
  // base_scenario plus [3001,4001) at 400.02 ms; the timer started at
  // 400 ms (5.1) expires at 1400 ms: 1001 resent (frame 9), wait 1000 ms.
  // 2001 follows `gap` later with nothing from the peer: within
  // 1000 x 1/2 = 500 ms it is the burst (slow start after the RTO); from
  // 500 ms on a further expiry (the backed-off RTO is 2 s: 5.5 broken).
  const auto make = [](std::int64_t gap) {
    Scenario s = base_scenario();
    s.data(400 * ms + 20, 3001);
    s.data(1400 * ms, 1001);
    s.data(1400 * ms + gap, 2001);
    return s;
  };
  auto in = analyze(make(500 * ms - 1), "burst-fraction-in", Profile::rfc6298);
  CHECK(count(client(in), SendKind::timeout) == 1);
  CHECK(count(client(in), SendKind::slow_start_after_rto) == 1);
  CHECK(client(in).findings.empty());
  auto out = analyze(make(500 * ms), "burst-fraction-out", Profile::rfc6298);
  CHECK(count(client(out), SendKind::timeout) == 2);
  CHECK(count(client(out), SendKind::slow_start_after_rto) == 0);
  CHECK(findings(client(out), "5.5").size() == 1);
}

TEST_CASE("kMinTimerWait bounds the burst from below: after an 8 ms expiry, 5 ms apart is no longer its burst") {
  // 1001 resent 8 ms after the timer started (frame 8 at 408 ms: an expiry,
  // early). Half its wait is 4 ms, below kMinTimerWait: the burst lasts
  // max(4, 5) = 5 ms. 2001 resent 4.999 ms later belongs to it; 5 ms later
  // it is a second expiry (5 ms after the first: no quiet period is needed
  // after an expiry, and 5 ms is no timer's minimum).
  const auto make = [](std::int64_t gap) {
    Scenario s = base_scenario();
    s.data(408 * ms, 1001);
    s.data(408 * ms + gap, 2001);
    return s;
  };
  auto in = analyze(make(5 * ms - 1), "burst-floor-in", Profile::rfc6298);
  CHECK(count(client(in), SendKind::timeout) == 1);
  CHECK(count(client(in), SendKind::slow_start_after_rto) == 1);
  auto out = analyze(make(5 * ms), "burst-floor-out", Profile::rfc6298);
  CHECK(count(client(out), SendKind::timeout) == 2);
  CHECK(count(client(out), SendKind::slow_start_after_rto) == 0);
}

TEST_CASE("kResponseTrain: segments at most 200 us apart after a response to the peer belong to it") {
  // The peer's ACK of 2001 at 500 ms (no loss evidence). The sender answers
  // 0.5 ms later with new data (within kAckClockMin, 2 ms: a response), and
  // sends 25 more new segments `spacing` apart, then resends 4001 (not
  // SND.UNA = 2001) one `spacing` after the last. Spaced 200 us, that
  // repeat at 500.5 + 26 x 0.2 = 505.7 ms is the tail of one response
  // train (ACK clocked: fast); spaced 210 us (repeat at 505.96 ms) the train
  // ends once the segments are past 2 ms from the ACK, and the repeat,
  // back to back with new data and more than kMinTimerWait after the ACK,
  // has no cause the capture shows (unclassified).
  const auto make = [](std::int64_t spacing) {
    Scenario s;
    s.handshake(0, 100 * ms);
    s.data(200 * ms, 1);
    s.ack(300 * ms, 1001);
    s.data(400 * ms, 1001);
    s.data(400 * ms + 10, 2001);
    s.ack(500 * ms, 2001);
    std::int64_t t = 500 * ms + 500;
    for (std::uint32_t k = 0; k < 26; ++k, t += spacing) s.data(t, 3001 + 1000 * k);
    s.data(t, 4001);
    return s;
  };
  auto in = analyze(make(200), "train-200", Profile::rfc6298);
  CHECK(count(client(in), SendKind::fast) == 1);
  CHECK(count(client(in), SendKind::unclassified) == 0);
  auto out = analyze(make(210), "train-210", Profile::rfc6298);
  CHECK(count(client(out), SendKind::fast) == 0);
  CHECK(count(client(out), SendKind::unclassified) == 1);
}

TEST_CASE("kOldTsvalTicks: a repeat 2 TSval ticks older than the newest sent is an old copy; 1 tick is not") {
  // TSval 1 per ms. A [1,1001) at 1000 ms (TSval 1000), B [1001,2001) at
  // 1010 ms (TSval 1010); A again at 1020 ms with TSval `tsval`. 1008 is 2
  // ticks older than 1010: a copy from the network (RFC 7323: a
  // retransmission carries the current TSval); 1009 is within the tick
  // jitter of a sender's clock: A resent (on the timer armed at 1000 ms).
  const auto make = [](std::uint32_t tsval) {
    Scenario s;
    s.pkts.push_back({0, true, 0, 0, wire::kSyn, 0, 0u, 0u, {}});
    s.pkts.push_back({100 * ms, false, 0, 1, wire::kSyn | wire::kAck, 0, 5000u, 0u, {}});
    s.pkts.push_back({100 * ms + 10, true, 1, 1, wire::kAck, 0, 100u, 5000u, {}});
    s.pkts.push_back({1000 * ms, true, 1, 1, wire::kAck | wire::kPsh, 1000, 1000u, 5000u, {}});
    s.pkts.push_back({1010 * ms, true, 1001, 1, wire::kAck | wire::kPsh, 1000, 1010u, 5000u, {}});
    s.pkts.push_back({1020 * ms, true, 1, 1, wire::kAck | wire::kPsh, 1000, tsval, 5000u, {}});
    s.pkts.push_back({1100 * ms, false, 1, 2001, wire::kAck, 0, 6000u, 1010u, {}});
    return s;
  };
  auto copy = analyze(make(1008), "old-tsval-2", Profile::rfc6298);
  CHECK(count(client(copy), SendKind::out_of_order) == 1);
  CHECK(count(client(copy), SendKind::timeout) == 0);
  auto resent = analyze(make(1009), "old-tsval-1", Profile::rfc6298);
  CHECK(count(client(resent), SendKind::out_of_order) == 0);
  CHECK(count(client(resent), SendKind::timeout) == 1);
}

// The thresholds of replay/thresholds.hpp that the sender engine reads, each
// with a keep/break pair at its boundary: hand-made captures a microsecond
// either side of the value, the arithmetic in the comments. Frames are
// Wireshark's (1-based); times in the scenarios are microseconds.

#include <doctest/doctest.h>

#include <algorithm>

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
  CHECK(judged(client(in)).empty());
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
  // At the sender. [1001,2001) and [2001,3001) at 400 ms; the timer resends
  // [1001,2001) at 1400 ms (RTO 1 s, 2.4): RTO recovery, to SND.MAX 3001.
  // The peer's ACK of 2001 at 1500 ms (new data, short of the recovery
  // point). The sender answers 0.5 ms later with new data (within
  // kAckClockMin, 2 ms: a response), sends 25 more new segments `spacing`
  // apart, then resends 2001 (SND.UNA) one `spacing` after the last. Spaced
  // 200 us, that repeat at 1500.5 + 26 x 0.2 = 1505.7 ms is the tail of one
  // response train (ACK clocked, in recovery: the slow start after the
  // RTO); spaced 210 us (repeat at 1505.96 ms) the train ends once the
  // segments are past 2 ms from the ACK, and the repeat, back to back with
  // new data and more than kMinTimerWait after the ACK, has no cause the
  // capture shows (unclassified).
  const auto make = [](std::int64_t spacing) {
    Scenario s;
    s.handshake(0, 100 * ms);
    s.data(200 * ms, 1);
    s.ack(300 * ms, 1001);
    s.data(400 * ms, 1001);
    s.data(400 * ms + 10, 2001);
    s.data(1400 * ms, 1001);
    s.ack(1500 * ms, 2001);
    std::int64_t t = 1500 * ms + 500;
    for (std::uint32_t k = 0; k < 26; ++k, t += spacing) s.data(t, 3001 + 1000 * k);
    s.data(t, 2001);
    return s;
  };
  auto in = analyze(make(200), "train-200", Profile::rfc6298);
  CHECK(count(client(in), SendKind::slow_start_after_rto) == 1);
  CHECK(count(client(in), SendKind::unclassified) == 0);
  auto out = analyze(make(210), "train-210", Profile::rfc6298);
  CHECK(count(client(out), SendKind::slow_start_after_rto) == 0);
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

namespace {

// Captured away from the client: the client's ACK of the SYN-ACK comes 10 ms
// after the capture saw the SYN-ACK (the capture-to-sender round trip d,
// over kCaptureAtSender). [1,1001) at 200 ms, acknowledged at 300 ms;
// [1001,2001) and [2001,3001) at 400 ms; the ACK of 2001 at 500 ms.
Scenario away_from_sender() {
  Scenario s;
  s.pkts.push_back({0, true, 0, 0, wire::kSyn, 0, {}, {}, {}});
  s.pkts.push_back({100 * ms, false, 0, 1, wire::kSyn | wire::kAck, 0, {}, {}, {}});
  s.pkts.push_back({110 * ms, true, 1, 1, wire::kAck, 0, {}, {}, {}});
  s.data(200 * ms, 1);
  s.ack(300 * ms, 1001);
  s.data(400 * ms, 1001);
  s.data(400 * ms + 10, 2001);
  s.ack(500 * ms, 2001);
  return s;
}

}  // namespace

TEST_CASE("kAckClockMin and kAckClockBand: away from the sender, a response within d x 3/2 + 2 ms of the peer") {
  // d = 10 ms (away_from_sender, with [3001,4001) also sent at 400.02 ms;
  // the ACK of 2001 at 500 ms restarted the timer by 515 ms). The timer
  // resends 2001 at 1515 ms (RTO 1 s, 2.4): RTO recovery, to SND.MAX 4001.
  // The peer's ACK of 3001 at 1600 ms (new data, short of that point). The
  // capture sees the sender's response to it up to 10 x (1 + 1/2) + 2 = 17
  // ms later: 3001 (now SND.UNA) resent at 1617 ms answers it (the slow
  // start after the RTO); at 1617.001 ms it does not, and it comes 2.001 ms
  // after the timer's restart (the ACK reached the sender by 1615 ms at the
  // latest): no quiet period, no timer (unclassified).
  const auto make = [](std::int64_t resend_us) {
    Scenario s = away_from_sender();
    s.pkts.insert(s.pkts.end() - 1, Pkt{400 * ms + 20, true, 3001, 1, wire::kAck | wire::kPsh, 1000, {}, {}, {}});
    s.data(1515 * ms, 2001);
    s.ack(1600 * ms, 3001);
    s.data(resend_us, 3001);
    return s;
  };
  auto r = analyze(make(1617 * ms), "ack-clock-away-in", Profile::rfc6298);
  CHECK(count(client(r), SendKind::slow_start_after_rto) == 1);
  CHECK(count(client(r), SendKind::unclassified) == 0);
  auto o = analyze(make(1617 * ms + 1), "ack-clock-away-out", Profile::rfc6298);
  CHECK(count(client(o), SendKind::slow_start_after_rto) == 0);
  CHECK(count(client(o), SendKind::unclassified) == 1);
}

TEST_CASE("kCaptureAtSender: a handshake response within 1 ms means the capture is at the sender") {
  // The client's ACK `d` after the SYN-ACK. Samples: the handshake's
  // 100 ms, then [1,1001) sent at 200 ms, acknowledged at 300 ms. At the
  // sender (d <= 1 ms) both are 100 ms: SRTT 100 ms. Away from it (d =
  // 1.001 ms) the second is corrected by d: 101.001 ms, SRTT
  // 7/8 x 100 + 1/8 x 101.001 = 100.125 ms.
  const auto make = [](std::int64_t d) {
    Scenario s;
    s.pkts.push_back({0, true, 0, 0, wire::kSyn, 0, {}, {}, {}});
    s.pkts.push_back({100 * ms, false, 0, 1, wire::kSyn | wire::kAck, 0, {}, {}, {}});
    s.pkts.push_back({100 * ms + d, true, 1, 1, wire::kAck, 0, {}, {}, {}});
    s.data(200 * ms, 1);
    s.ack(300 * ms, 1001);
    return s;
  };
  auto at = analyze(make(1000), "at-sender", Profile::rfc6298);
  REQUIRE(client(at).srtt);
  CHECK(us(*client(at).srtt) == 100'000);
  auto away = analyze(make(1001), "away", Profile::rfc6298);
  REQUIRE(client(away).srtt);
  CHECK(us(*client(away).srtt) >= 100'125);
  CHECK(us(*client(away).srtt) <= 100'126);
}

TEST_CASE("kAckClockMin: a server's SYN-ACK within 2 ms of the client's SYN again answers it") {
  // Client SYN at 0, SYN-ACK 0.1 ms later (the capture is at the server),
  // the client's SYN again at 1000 ms (its timer), the server's SYN-ACK
  // again `gap` later. Within 2 ms: a reply (tcp_check_req); 2.001 ms:
  // the SYN-ACK's own timer (1001.9 ms after the first: on time).
  const auto make = [](std::int64_t gap) {
    Scenario s;
    s.pkts.push_back({0, true, 0, 0, wire::kSyn, 0, {}, {}, {}});
    s.pkts.push_back({100, false, 0, 1, wire::kSyn | wire::kAck, 0, {}, {}, {}});
    s.pkts.push_back({1000 * ms, true, 0, 0, wire::kSyn, 0, {}, {}, {}});
    s.pkts.push_back({1000 * ms + gap, false, 0, 1, wire::kSyn | wire::kAck, 0, {}, {}, {}});
    s.pkts.push_back({1100 * ms, true, 1, 1, wire::kAck, 0, {}, {}, {}});
    return s;
  };
  auto in = analyze(make(2 * ms), "synack-reply-in", Profile::rfc6298);
  const auto& server_in = in.flows.at(0).senders[1];
  CHECK(count(server_in, SendKind::syn_reply) == 1);
  CHECK(count(server_in, SendKind::syn_timeout) == 0);
  auto out = analyze(make(2 * ms + 1), "synack-reply-out", Profile::rfc6298);
  const auto& server_out = out.flows.at(0).senders[1];
  CHECK(count(server_out, SendKind::syn_reply) == 0);
  CHECK(count(server_out, SendKind::syn_timeout) == 1);
}

TEST_CASE("kReorderWindowFloor: a hole filled within max(3 ms, handshake RTT) of the segment beyond it is reordering") {
  // Handshake RTT 0.51 ms: the window is its floor, 3 ms. [2001,3001) at
  // 20 ms leaves the hole [1001,2001); [1001,2001) 3 ms later is a first
  // transmission seen out of order; 3.001 ms later it is sent again (with
  // no cause the capture shows: 3.001 ms after the timer started).
  const auto make = [](std::int64_t after) {
    Scenario s;
    s.handshake(0, 500);
    s.data(10 * ms, 1);
    s.ack(11 * ms, 1001);
    s.data(20 * ms, 2001);
    s.data(20 * ms + after, 1001);
    return s;
  };
  auto in = analyze(make(3 * ms), "reorder-floor-in", Profile::rfc6298);
  CHECK(count(client(in), SendKind::out_of_order) == 1);
  auto out = analyze(make(3 * ms + 1), "reorder-floor-out", Profile::rfc6298);
  CHECK(count(client(out), SendKind::out_of_order) == 0);
  CHECK(count(client(out), SendKind::unclassified) == 1);
}

TEST_CASE("kSameIdWindow and kNoIdWindow: the same datagram captured twice") {
  // base_scenario's [1001,2001) at 400 ms (packet 5) captured again `after`
  // later (packet 7). With the same IPv4 ID (4242): one datagram up to
  // 100 ms apart. With ID 0 and no TSval: up to 200 us, no peer segment
  // between. Beyond, the sender sent it again.
  const auto make = [](std::int64_t after, std::uint16_t id) {
    Scenario s = base_scenario();
    s.data(400 * ms + after, 1001);
    if (id != 0) s.ip_id = {{5, id}, {7, id}};
    return s;
  };
  CHECK(analyze(make(100 * ms, 4242), "same-id-in", Profile::rfc6298).flows.at(0).capture_duplicates == 1);
  CHECK(analyze(make(100 * ms + 1, 4242), "same-id-out", Profile::rfc6298).flows.at(0).capture_duplicates == 0);
  CHECK(analyze(make(200, 0), "no-id-in", Profile::rfc6298).flows.at(0).capture_duplicates == 1);
  CHECK(analyze(make(201, 0), "no-id-out", Profile::rfc6298).flows.at(0).capture_duplicates == 0);
}

namespace {

// TSval 1 per ms on the client (from 1000 at the SYN), 5000 on at the
// server; base_scenario's times.
Scenario with_timestamps() {
  Scenario s;
  s.pkts.push_back({0, true, 0, 0, wire::kSyn, 0, 1000u, 0u, {}});
  s.pkts.push_back({100 * ms, false, 0, 1, wire::kSyn | wire::kAck, 0, 5000u, 1000u, {}});
  s.pkts.push_back({100 * ms + 10, true, 1, 1, wire::kAck, 0, 1100u, 5000u, {}});
  s.pkts.push_back({200 * ms, true, 1, 1, wire::kAck | wire::kPsh, 1000, 1200u, 5000u, {}});
  s.pkts.push_back({300 * ms, false, 1, 1001, wire::kAck, 0, 5200u, 1200u, {}});
  s.pkts.push_back({400 * ms, true, 1001, 1, wire::kAck | wire::kPsh, 1000, 1400u, 5200u, {}});
  s.pkts.push_back({400 * ms + 10, true, 2001, 1, wire::kAck | wire::kPsh, 1000, 1400u, 5200u, {}});
  return s;
}

}  // namespace

TEST_CASE("kTsClockMinSpan: the TSval clock's rate is fitted over 200 ms at least") {
  // The client's TSvals span 199 ms (SYN at 0, last segment at 199 ms):
  // no rate; 200 ms: 200 ticks, 1000 Hz.
  const auto make = [](std::int64_t last_ms) {
    Scenario s;
    s.pkts.push_back({0, true, 0, 0, wire::kSyn, 0, 1000u, 0u, {}});
    s.pkts.push_back({100 * ms, false, 0, 1, wire::kSyn | wire::kAck, 0, 5000u, 1000u, {}});
    s.pkts.push_back({100 * ms + 10, true, 1, 1, wire::kAck, 0, 1100u, 5000u, {}});
    s.pkts.push_back({last_ms * ms, true, 1, 1, wire::kAck | wire::kPsh, 1000,
                      static_cast<std::uint32_t>(1000 + last_ms), 5000u, {}});
    return s;
  };
  CHECK_FALSE(client(analyze(make(199), "ts-span-199", Profile::rfc6298)).inferred.tsval_hz.has_value());
  const auto r = analyze(make(200), "ts-span-200", Profile::rfc6298);
  REQUIRE(client(r).inferred.tsval_hz.has_value());
  CHECK(*client(r).inferred.tsval_hz == 1000.0);
}

TEST_CASE("kClockDisagreeTicks: the TSval clock overrides the capture's wait only beyond 2 ticks") {
  // The expiry at 1400 ms, 1000 ms after the timer's start on the capture
  // clock. Its TSval `ts` is 1002 ticks after the start's 1400 (1 kHz):
  // [1000, 1004] ms within 2 ticks, which holds 1000 ms: the capture's
  // wait stands. At 1003 ticks, [1001, 1005] ms: the clocks disagree, the
  // sender's own clock is read.
  const auto make = [](std::uint32_t ts) {
    Scenario s = with_timestamps();
    s.pkts.push_back({1400 * ms, true, 1001, 1, wire::kAck | wire::kPsh, 1000, ts, 5200u, {}});
    return s;
  };
  auto agree = analyze(make(2402), "ts-agree", Profile::rfc6298);
  REQUIRE(client(agree).timeouts.size() == 1);
  CHECK(point_us(client(agree).timeouts[0].wait) == 1'000'000);
  CHECK(client(agree).timeouts[0].clock == replay::ClockUsed::capture);
  auto differ = analyze(make(2403), "ts-differ", Profile::rfc6298);
  REQUIRE(client(differ).timeouts.size() == 1);
  CHECK(client(differ).timeouts[0].clock == replay::ClockUsed::tsval);
  CHECK(us(client(differ).timeouts[0].wait.lo) == 1'001'000);
  CHECK(us(client(differ).timeouts[0].wait.hi) == 1'005'000);
}

TEST_CASE("kTsRateTolerancePercent: a fitted TSval rate within 5 % of a common one snaps to it") {
  // Over 10 s, 10 400 ticks: 1040 Hz, 4 % from 1000 Hz (allowed: 5 % plus
  // one tick at each end, 2 / 10 s = 0.2 Hz): 1000 Hz. 10 530 ticks,
  // 1053 Hz, is 5.3 % off: no common rate, none read.
  const auto make = [](std::uint32_t ticks) {
    Scenario s;
    s.pkts.push_back({0, true, 0, 0, wire::kSyn, 0, 1000u, 0u, {}});
    s.pkts.push_back({100 * ms, false, 0, 1, wire::kSyn | wire::kAck, 0, 5000u, 1000u, {}});
    s.pkts.push_back({100 * ms + 10, true, 1, 1, wire::kAck, 0, 1104u, 5000u, {}});
    s.pkts.push_back({10'000 * ms, true, 1, 1, wire::kAck | wire::kPsh, 1000, 1000 + ticks, 5000u, {}});
    return s;
  };
  const auto snapped = analyze(make(10'400), "ts-rate-1040", Profile::rfc6298);
  REQUIRE(client(snapped).inferred.tsval_hz.has_value());
  CHECK(*client(snapped).inferred.tsval_hz == 1000.0);
  CHECK_FALSE(client(analyze(make(10'530), "ts-rate-1053", Profile::rfc6298)).inferred.tsval_hz.has_value());
}

TEST_CASE("kAckClockHistory: a response is matched against the peer's latest 32 segments") {
  // Captured away from the client (d = 10 ms: a response shows up within
  // 10 x 3/2 + 2 = 17 ms). TSvals 1 per ms. [1001,2001) at 400 ms, resent by
  // the timer at 1410 ms (RTO 1 s, 2.4): RTO recovery. The server sends `n`
  // data segments 0.1 ms apart from 2000 ms (TSvals 7000, 7001, ...,
  // acknowledging nothing new); at 2017.05 ms the client resends
  // [1001,2001) echoing TSval 7000: it had received the first of them. With
  // 32 kept, that one is found: 17.05 ms later, no response (the timer's,
  // 607.05 ms after its expiry at 1410 ms: a second expiry). With 33, the
  // first is gone: the oldest kept, 0.1 ms later, bounds what it heard from
  // below: 16.95 ms, a response (in RTO recovery: the slow start after it).
  const auto make = [](std::uint32_t n) {
    Scenario s;
    s.pkts.push_back({0, true, 0, 0, wire::kSyn, 0, 1000u, 0u, {}});
    s.pkts.push_back({100 * ms, false, 0, 1, wire::kSyn | wire::kAck, 0, 5000u, 1000u, {}});
    s.pkts.push_back({110 * ms, true, 1, 1, wire::kAck, 0, 1110u, 5000u, {}});
    s.pkts.push_back({200 * ms, true, 1, 1, wire::kAck | wire::kPsh, 1000, 1200u, 5000u, {}});
    s.pkts.push_back({300 * ms, false, 1, 1001, wire::kAck, 0, 5300u, 1200u, {}});
    s.pkts.push_back({400 * ms, true, 1001, 1, wire::kAck | wire::kPsh, 1000, 1400u, 5300u, {}});
    s.pkts.push_back({1410 * ms, true, 1001, 1, wire::kAck | wire::kPsh, 1000, 2410u, 5300u, {}});
    for (std::uint32_t k = 0; k < n; ++k)
      s.pkts.push_back({2000 * ms + 100 * k, false, 1 + 100 * k, 1001, wire::kAck | wire::kPsh, 100, 7000u + k,
                        2410u, {}});
    s.pkts.push_back({2017 * ms + 50, true, 1001, 1, wire::kAck | wire::kPsh, 1000, 3017u, 7000u, {}});
    return s;
  };
  auto kept = analyze(make(32), "ack-history-32", Profile::rfc6298);
  CHECK(count(client(kept), SendKind::timeout) == 2);
  CHECK(count(client(kept), SendKind::slow_start_after_rto) == 0);
  auto gone = analyze(make(33), "ack-history-33", Profile::rfc6298);
  CHECK(count(client(gone), SendKind::timeout) == 1);
  CHECK(count(client(gone), SendKind::slow_start_after_rto) == 1);
}

namespace {

// A host's queue flushed at once (host_activity.hpp), shown by a late ACK:
// the server's data [1,101) at 150 ms; the client sends A [1,1001) at
// 200 ms (acknowledged at 300 ms), then nothing until its pure ACK of the
// server's data at 200 ms + `silence`; B [1001,2001) `b_after` later
// starts the timer; B again 200 ms after that. The ACK comes over
// kDelayedAckMax (500 ms) after the data it acknowledges arrived
// (`ack_delay`): it was held in the client's queue, and so, when the
// client was silent kFlushSilence (500 ms) before it, was everything it
// sent within kFlushWindow (5 ms) of it. B's first send is then no send
// time (it left earlier): the wait is 200 ms or more, which holds the RTO
// without the 2.4 floor (250 ms: cannot tell). Otherwise 200 ms is below
// even that (250 less 10 % and 1 ms: 224 ms): 5.3 broken (MUST).
Scenario flushed(std::int64_t silence, std::int64_t b_after, std::int64_t ack_delay) {
  Scenario s;
  s.handshake(0, 100 * ms);
  const std::int64_t ack_at = 200 * ms + silence;
  s.pkts.push_back({ack_at - ack_delay, false, 1, 1, wire::kAck | wire::kPsh, 100, {}, {}, {}});
  s.data(200 * ms, 1);
  s.ack(300 * ms, 1001);
  s.pkts.push_back({ack_at, true, 1001, 101, wire::kAck, 0, {}, {}, {}});
  s.pkts.push_back({ack_at + b_after, true, 1001, 101, wire::kAck | wire::kPsh, 1000, {}, {}, {}});
  s.pkts.push_back({ack_at + b_after + 200 * ms, true, 1001, 101, wire::kAck | wire::kPsh, 1000, {}, {}, {}});
  std::stable_sort(s.pkts.begin(), s.pkts.end(), [](const Pkt& a, const Pkt& b) { return a.t_us < b.t_us; });
  return s;
}

std::size_t must_count(const Scenario& s, const std::string& name) {
  auto r = analyze(s, name, Profile::rfc6298);
  REQUIRE(client(r).timeouts.size() == 1);
  return musts(client(r));
}

}  // namespace

TEST_CASE("kFlushSilence: a burst after 500 ms of silence, not 499.999 ms") {
  CHECK(must_count(flushed(500 * ms, 1 * ms, 550 * ms), "flush-silence-in") == 0);
  CHECK(must_count(flushed(500 * ms - 1, 1 * ms, 550 * ms), "flush-silence-out") == 1);
}

TEST_CASE("kFlushWindow: the burst is what the host sent within 5 ms of its first packet") {
  CHECK(must_count(flushed(600 * ms, 5 * ms, 650 * ms), "flush-window-in") == 0);
  CHECK(must_count(flushed(600 * ms, 5 * ms + 1, 650 * ms), "flush-window-out") == 1);
}

TEST_CASE("kDelayedAckMax: an ACK first acknowledging data over 500 ms old was held") {
  CHECK(must_count(flushed(600 * ms, 1 * ms, 500 * ms + 1), "late-ack-in") == 0);
  // What showed it: the late ACK, frame 7 (in time order: 1-3 the
  // handshake, 4 A at 200 ms, 5 the server's data at 299.999 ms, 6 A's ACK
  // at 300 ms, 7 the client's ACK at 800 ms, 8-9 B).
  auto r = analyze(flushed(600 * ms, 1 * ms, 500 * ms + 1), "late-ack-sign", Profile::rfc6298);
  std::size_t notes = 0;
  for (const auto& f : client(r).findings)
    if (f.topic == replay::Topic::flushed_burst) {
      ++notes;
      CHECK(f.hold == replay::HoldSign::late_ack);
      CHECK(f.evidence == std::vector<std::uint64_t>{7});
    }
  CHECK(notes >= 1);
  CHECK(must_count(flushed(600 * ms, 1 * ms, 500 * ms), "late-ack-out") == 1);
}

TEST_CASE("kPeerDataHistory: the late ACK is matched against the peer's latest 64 data segments") {
  // As kDelayedAckMax's case (silence 600 ms), but the server sends `n`
  // segments of 10 bytes: the first 650 ms before the client's ACK of all
  // of them, the others 100 ms before it. With 64 kept the first is the
  // oldest the ACK first acknowledges: held (no MUST). With 65 the first is
  // forgotten, the oldest kept is 100 ms old: no evidence, 5.3 broken.
  const auto make = [](std::uint32_t n) {
    Scenario s = flushed(600 * ms, 1 * ms, 650 * ms);
    // flushed()'s one server segment [1,101) becomes n segments [1 + 10k, 11 + 10k).
    const std::int64_t ack_at = 800 * ms;
    std::vector<Pkt> out;
    for (const Pkt& p : s.pkts) {
      if (!p.from_client && p.len == 100) {
        for (std::uint32_t k = 0; k < n; ++k)
          out.push_back({k == 0 ? ack_at - 650 * ms : ack_at - 100 * ms + k, false, 1 + 10 * k, 1,
                         wire::kAck | wire::kPsh, 10, {}, {}, {}});
        continue;
      }
      Pkt q = p;
      if (q.from_client && q.rel_ack == 101) q.rel_ack = 1 + 10 * n;
      out.push_back(q);
    }
    std::stable_sort(out.begin(), out.end(), [](const Pkt& a, const Pkt& b) { return a.t_us < b.t_us; });
    s.pkts = out;
    return s;
  };
  CHECK(must_count(make(64), "peer-history-64") == 0);
  CHECK(must_count(make(65), "peer-history-65") == 1);
}

TEST_CASE("kFlushHeld: a segment its TSval shows held 100 ms marks its host's burst, other connections' frames too") {
  // Two connections of the client host 198.18.0.1. Connection 1 (port
  // 40000, TSval 1 per ms, the rate fitted over 0..300 ms) is silent from
  // 300 ms; at 1000 ms it sends a pure ACK whose TSval is `held` ms behind
  // the capture. Connection 2 (port 40001, no timestamps: its handshake at
  // 0/100 ms, [1,1001) at 200 ms acknowledged at 300 ms) sends [1001,2001)
  // at 1001 ms, within kFlushWindow of that ACK, and again 200 ms later. The
  // host was silent 700 ms: a burst. Held 100 ms (kFlushHeld): flushed, the
  // 200 ms wait starts at no send time (cannot tell against the floorless
  // 250 ms); held 99 ms: no evidence, 200 ms < 224 ms: 5.3 broken (MUST).
  const auto make = [](std::uint32_t held) {
    Scenario one;
    one.pkts.push_back({0, true, 0, 0, wire::kSyn, 0, 1000u, 0u, {}});
    one.pkts.push_back({100 * ms, false, 0, 1, wire::kSyn | wire::kAck, 0, 5000u, 1000u, {}});
    one.pkts.push_back({100 * ms + 10, true, 1, 1, wire::kAck, 0, 1100u, 5000u, {}});
    one.pkts.push_back({300 * ms, true, 1, 1, wire::kAck | wire::kPsh, 100, 1300u, 5000u, {}});
    one.pkts.push_back({400 * ms, false, 1, 101, wire::kAck, 0, 5400u, 1300u, {}});
    one.pkts.push_back({1000 * ms, true, 101, 1, wire::kAck, 0, 2000u - held, 5400u, {}});
    Scenario two;
    two.handshake(0, 100 * ms);
    two.data(200 * ms, 1);
    two.ack(300 * ms, 1001);
    two.data(1001 * ms, 1001);
    two.data(1201 * ms, 1001);
    std::vector<std::pair<std::int64_t, Bytes>> all;
    for (const Pkt& p : one.pkts) all.emplace_back(p.t_us, one.packet(p));
    for (const Pkt& p : two.pkts) {
      Bytes b = two.packet(p);
      // Connection 2: the client's port 40001 (bytes 20-21 or 22-23 of the
      // IPv4 packet), its checksum made again.
      b[p.from_client ? 21 : 23] = static_cast<std::uint8_t>(40001 & 0xff);
      b[36] = b[37] = 0;
      const std::array<std::uint8_t, 4> c{198, 18, 0, 1}, srv{198, 18, 0, 2};
      wire::fill_tcp_checksum_v4(p.from_client ? c : srv, p.from_client ? srv : c, std::span(b).subspan(20));
      all.emplace_back(p.t_us, b);
    }
    std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<testcommon::Record> recs;
    for (auto& [t, b] : all)
      recs.push_back({static_cast<std::uint32_t>(1'700'000'000 + t / 1'000'000), static_cast<std::uint32_t>(t % 1'000'000),
                      b, 0});
    const auto path = std::filesystem::temp_directory_path() /
                      ("rto-flush-held-" + std::to_string(::getpid()) + "-" + std::to_string(held) + ".pcap");
    const Bytes file = testcommon::pcap_file(testcommon::kPcapMagicMicros, 101, recs);
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(file.data()),
                                                static_cast<std::streamsize>(file.size()));
    auto r = analyze(path.string(), Profile::rfc6298);
    std::filesystem::remove(path);
    REQUIRE(r.flows.size() == 2);
    const auto& second = r.flows[0].senders[0].timeouts.empty() ? r.flows[1].senders[0] : r.flows[0].senders[0];
    REQUIRE(second.timeouts.size() == 1);
    // What showed the hold: connection 1's pure ACK, by its TSval.
    for (const auto& f : second.findings)
      if (f.topic == replay::Topic::flushed_burst) CHECK(f.hold == replay::HoldSign::tsval);
    return musts(second);
  };
  CHECK(make(100) == 0);
  CHECK(make(99) == 1);
}

TEST_CASE("kMinTimerWait: a repeat within 5 ms of the sender's previous segment, nothing from the peer between, had no quiet period") {
  // base_scenario: the timer started at 400 ms. New data [3001,4001) at
  // 1400 ms - `gap`, then 1001 resent at 1400 ms (1 s after the start: on
  // time for the RTO). 4.999 ms after the new data: back to back, no timer
  // ran (unclassified); 5 ms: the expiry.
  const auto make = [](std::int64_t gap) {
    Scenario s = base_scenario();
    s.data(1400 * ms - gap, 3001);
    s.data(1400 * ms, 1001);
    return s;
  };
  auto b2b = analyze(make(5 * ms - 1), "b2b-4999", Profile::rfc6298);
  CHECK(count(client(b2b), SendKind::unclassified) == 1);
  CHECK(count(client(b2b), SendKind::timeout) == 0);
  auto quiet = analyze(make(5 * ms), "b2b-5000", Profile::rfc6298);
  CHECK(count(client(quiet), SendKind::unclassified) == 0);
  CHECK(count(client(quiet), SendKind::timeout) == 1);
}

TEST_CASE("RFC6298-3-karn away from the sender: an ACK that crossed a retransmission gives no sample") {
  // d = 10 ms (away_from_sender): the ACK of 2001 captured at 500 ms
  // reaches the sender by 510 ms. [1001,2001) resent at 505 ms, before
  // that: the ACK the sender then gets covers a retransmission (Karn): one
  // ambiguous ACK, and only the two samples before it (handshake, 1001).
  Scenario s = away_from_sender();
  s.data(505 * ms, 1001);
  auto r = analyze(s, "karn-pending", Profile::rfc6298);
  CHECK(client(r).ambiguous_acks == 1);
  CHECK(client(r).samples_seq == 2);
}

TEST_CASE("kMinTimerWait's quiet period: a peer segment between two sends ends it (the repeat may be the timer's)") {
  // The capture 1.1 ms of round trip from the client (its ACK 1.1 ms after
  // the SYN-ACK; from 1 ms down it counts as at the sender, where a few ms
  // after a peer segment is never a timer): the ACK clock's window is
  // 1.5 x 1.1 + 2 = 3.65 ms. A [1,1001) at
  // 100 ms starts the timer (RTO 1 s, 2.1/2.4); B [1001,2001) at 1100 ms (an
  // application write: the timer runs on); the server's 100 bytes of data at
  // 1100.5 ms (no ACK of A, no duplicate ACK: it carries data); A again at
  // 1104.6 ms (frame 7): 4.6 ms after B, under kMinTimerWait, but with the
  // server's segment between them, and 4.1 ms after it (past the ACK
  // clock's 3.65 ms): the timer's expiry, 1004.6 ms after A's send, on time.
  // Without the peer segment between, no quiet period: unclassified.
  const auto make = [](bool peer_between) {
    Scenario s;
    s.handshake_at_receiver(1110);
    s.data(100 * ms, 1);
    s.data(1100 * ms, 1001);
    if (peer_between) s.pkts.push_back({1100 * ms + 500, false, 1, 1, wire::kAck | wire::kPsh, 100, {}, {}, {}});
    s.data(1104 * ms + 600, 1);
    return s;
  };
  auto quiet = analyze(make(true), "peer-between", Profile::rfc6298);
  REQUIRE(client(quiet).timeouts.size() == 1);
  CHECK(client(quiet).timeouts[0].verdict == replay::Verdict::ok);
  auto b2b = analyze(make(false), "no-peer-between", Profile::rfc6298);
  CHECK(client(b2b).timeouts.empty());
  CHECK(count(client(b2b), SendKind::unclassified) == 1);
}

TEST_CASE("limits::Ratio: a fraction applied exactly, at its boundary") {
  using replay::limits::Ratio;
  constexpr Ratio half{1, 2}, three_halves{3, 2};
  CHECK(half.of(std::chrono::microseconds{1001}) == std::chrono::microseconds{500});  // 1001 / 2, truncated
  CHECK(half.of(std::int64_t{7}) == 3);
  CHECK(three_halves.reached_by(std::int64_t{3}, std::int64_t{2}));         // 3/2 exactly
  CHECK_FALSE(three_halves.reached_by(std::int64_t{299}, std::int64_t{200}));  // 1.495
  CHECK(three_halves.reached_by(std::chrono::microseconds{301}, std::chrono::microseconds{200}));
  // The named ratios, as the prose of the thresholds states them.
  CHECK(replay::limits::kAckClockBand.num == 1);
  CHECK(replay::limits::kAckClockBand.den == 2);
  CHECK(replay::limits::kBurstFraction.num * 2 == replay::limits::kBurstFraction.den);
  CHECK(replay::limits::kDoublingExpected.num * 2 == replay::limits::kDoublingExpected.den * 3);
}

namespace {

// A host's queue flushed at once, shown by a repeat (HostFeed::feed_activity):
// base_scenario's timer starts at 400 ms and expires at 1400 ms (1001
// resent; the host was silent 1000 ms: a burst opens). 1001 goes again
// `gap` later with nothing from the peer (`ack_between`: the server's
// duplicate ACK of 1001 halfway), and a third time 1000 ms after that.
// Sooner than kMinTimerWait (5 ms) after the same data with nothing to
// clock it, no timer sent the repeat: the two left the sender a timer's
// wait apart and were captured together, so the burst was held. The
// third copy's wait then starts at no send time: at least 1000 ms, which
// holds the doubled RTO (2 s): cannot tell. Without that evidence its
// wait is 1000 ms where 5.5 expects 2 s (at least 2 s less 10 % and 1 ms):
// MUST 5.5.
Scenario repeated(std::int64_t gap, bool ack_between, std::uint32_t again = 1001, std::uint32_t len = 1000,
                  std::int64_t third_after = 1000 * ms) {
  Scenario s = base_scenario();
  s.data(1400 * ms, 1001);
  if (ack_between) s.ack(1400 * ms + gap / 2, 1001);
  s.data(1400 * ms + gap, again, len);
  s.data(1400 * ms + gap + third_after, again);
  return s;
}

// The flushed-burst notes of the client's log, and whether its last frame
// (the third copy) breaks 5.5.
struct RepeatReading {
  std::size_t flushed = 0;
  bool last_breaks_55 = false;
};
RepeatReading read_repeat(const Scenario& s, const std::string& name, std::uint64_t repeat_frame = 9) {
  auto r = analyze(s, name, Profile::rfc6298);
  RepeatReading out;
  const std::uint64_t last = s.pkts.size();
  for (const auto& f : client(r).findings) {
    if (f.topic == replay::Topic::flushed_burst) {
      ++out.flushed;
      // Frames: 1-3 the handshake, 4 [1,1001), 5 its ACK, 6-7 the data at
      // 400 ms, 8 the expiry, 9 the repeat (what showed the hold), 10 the third.
      CHECK(f.hold == replay::HoldSign::repeat);
      CHECK(f.evidence == std::vector<std::uint64_t>{repeat_frame});
    }
    if (f.frame == last && f.rule == replay::RuleId::rfc6298_5_5 && f.level == replay::Level::must)
      out.last_breaks_55 = true;
  }
  return out;
}

}  // namespace

TEST_CASE("kMinTimerWait as a hold: the same data again 4.999 ms later, nothing from the peer between, was held") {
  const RepeatReading in = read_repeat(repeated(5 * ms - 1, false), "repeat-held-in");
  CHECK(in.flushed >= 1);
  CHECK_FALSE(in.last_breaks_55);
  // 5 ms apart a timer may have sent it: no evidence of a hold.
  CHECK(read_repeat(repeated(5 * ms, false), "repeat-held-out").flushed == 0);
  // The peer's ACK between the two copies may have clocked the second.
  const RepeatReading acked = read_repeat(repeated(4 * ms, true), "repeat-held-acked");
  CHECK(acked.flushed == 0);
  CHECK(acked.last_breaks_55);
  // Other data after it ([2001,3001), sent at 400 ms) is no repeat of it.
  CHECK(read_repeat(repeated(4 * ms, false, 2001), "repeat-held-other").flushed == 0);
  // The same sequence number, shorter (a path-MTU resend after an ICMP "too
  // big" the TCP capture does not show): no repeat.
  CHECK(read_repeat(repeated(4 * ms, false, 1001, 900), "repeat-held-shorter").flushed == 0);
  // Longer (all that data again, and more): a repeat.
  CHECK(read_repeat(repeated(4 * ms, false, 1001, 1100), "repeat-held-longer").flushed >= 1);
  // A held arm left no sooner than its own arm. The timer resends 1001 at
  // 1400 ms (expiry 1, 1000 ms) and at 3400 ms (expiry 2, 2000 ms: doubled),
  // repeated 4 ms later (frame 10: the burst at 3400 ms held), and once more
  // at 3904 ms (expiry 3, frame 11). Its arm, frame 9, left after frame 8,
  // captured 2000 ms before it: expiry 3 waited at most 504 + 2000 =
  // 2504 ms, below the RTO doubled again (4 s less 10 % and 1 ms: 3599 ms)
  // under every reading: 5.5 broken.
  Scenario b = base_scenario();
  b.data(1400 * ms, 1001);
  b.data(3400 * ms, 1001);
  b.data(3404 * ms, 1001);
  b.data(3904 * ms, 1001);
  const RepeatReading bounded = read_repeat(b, "repeat-held-bounded", 10);
  CHECK(bounded.flushed >= 1);
  CHECK(bounded.last_breaks_55);
  // Both ends held: expiry 2 at 3400 ms and expiry 3 at 10 400 ms (frame
  // 11), each repeated 4 ms later. Expiry 3 left at no time the capture
  // shows, so the 2000 + 7000 ms captured from expiry 1 to it is no sum of
  // the two waits (read as one, 9 s is later than the doubling allows the
  // two, (2 + 4) x 1001 x 1.1 ms plus the tolerances, about 6.6 s: expiry 3
  // "late"). Its own wait [0, 9000] ms holds the doubled RTO and the one
  // not doubled: cannot tell.
  // A repeat in a held burst is weighed as the timer's expiry (what its
  // hold sign says) and as not one. RTO 1 s doubling from the data at 400
  // ms: expiries at 1400, 3400, 7400 (held: captured at 15 398 ms, with
  // the next), 15 400 and 31 400 ms. Read as an expiry, the repeat at
  // 15 400 ms is the fourth, and 31 400 ms (16 s after it) the fifth: every
  // wait doubles. Counted out, the waits from 3400 ms to 31 400 ms would
  // be three where the sender's timer ran four. No rule broken; four
  // timeouts besides the repeat's reading (the chosen one: as an expiry).
  Scenario rep = base_scenario();
  rep.data(1400 * ms, 1001);
  rep.data(3400 * ms, 1001);
  rep.data(15398 * ms, 1001);
  rep.data(15400 * ms, 1001);
  rep.data(31400 * ms, 1001);
  const auto rr = analyze(rep, "repeat-held-expiry", Profile::rfc6298);
  CHECK(musts(client(rr)) == 0);
  CHECK(count(client(rr), SendKind::timeout) == 5);
  CHECK(count(client(rr), SendKind::unclassified) == 0);

  // Not doubled after a held repeat: expiries at 1400, 3400, 7400 ms, the
  // fourth sent at 15 400 and held (captured at 31 396 ms, 4 ms before the
  // fifth, at 31 400 ms: its repeat), the sixth 16 s after the fifth at
  // 47 400 ms (frame 13), where doubling gives 32 s. Read with the repeat
  // as an expiry, 13 breaks 5.5 (or a cap below 60 s, 2.5); read without
  // it, its wait from the held copy holds a doubling. Whichever reading is
  // chosen, 13's record and finding say the capture cannot tell; an "ok"
  // would be one the departure earned.
  Scenario flat = base_scenario();
  for (std::int64_t t : {1400, 3400, 7400, 31396, 31400, 47400}) flat.data(t * ms, 1001);
  // The verdict of the expiry record at `frame`, if there is one.
  const auto verdict_at = [](const replay::Report& r, std::uint64_t frame) -> std::optional<replay::Verdict> {
    for (const auto& t : client(r).timeouts)
      if (t.frame == frame) return t.verdict;
    return std::nullopt;
  };
  const auto rf = analyze(flat, "repeat-held-not-doubled", Profile::rfc6298);
  CHECK(verdict_at(rf, 13) == replay::Verdict::cannot_tell);
  std::size_t undecided = 0;
  for (const auto& f : client(rf).findings)
    undecided += f.frame == 13 && f.outcome == replay::Outcome::cannot_tell ? 1 : 0;
  CHECK(undecided >= 1);

  Scenario both = base_scenario();
  for (std::int64_t t : {1400, 3400, 3404, 10400, 10404}) both.data(t * ms, 1001);
  const auto rb = analyze(both, "repeat-held-both-ends", Profile::rfc6298);
  CHECK(verdict_at(rb, 11) == replay::Verdict::cannot_tell);
}

namespace {

// The capture beside the server, the client 400 ms away (its handshake ACK
// 400 ms after the SYN-ACK). The server sends `first` bytes at 400.1 ms and
// `second` more at 400.11 ms (0: none); the client acknowledges all of it at
// 800.11 ms. B [1,1001) and C [1001,2001) at 900 ms; the timer (RTO max(1 s,
// 400 + 4 x 200) = 1.2 s) resends B at 2100 ms; the server acknowledges B
// at once (2100.01 ms); C is resent `after` that.
Scenario far_client(std::uint32_t first, std::uint32_t second, std::int64_t after) {
  Scenario s;
  s.handshake_at_receiver(400 * ms);
  s.pkts.push_back({400 * ms + 100, false, 1, 1, wire::kAck | wire::kPsh, first, {}, {}, {}});
  if (second > 0) s.pkts.push_back({400 * ms + 110, false, 1 + first, 1, wire::kAck | wire::kPsh, second, {}, {}, {}});
  const std::uint32_t a = 1 + first + second;
  s.pkts.push_back({800 * ms + 110, true, 1, a, wire::kAck, 0, {}, {}, {}});
  s.pkts.push_back({900 * ms, true, 1, a, wire::kAck | wire::kPsh, 1000, {}, {}, {}});
  s.pkts.push_back({900 * ms + 10, true, 1001, a, wire::kAck | wire::kPsh, 1000, {}, {}, {}});
  s.pkts.push_back({2100 * ms, true, 1, a, wire::kAck | wire::kPsh, 1000, {}, {}, {}});
  s.pkts.push_back({2100 * ms + 10, false, a, 1001, wire::kAck, 0, {}, {}, {}});
  s.pkts.push_back({2100 * ms + 10 + after, true, 1001, a, wire::kAck | wire::kPsh, 1000, {}, {}, {}});
  return s;
}

}  // namespace

TEST_CASE("kAckClockBand below: no response is captured sooner than half the quickest answer the sender has shown") {
  // far_client: the client's ACK of the server's [1,1001) and [1001,2001),
  // sent together, 400 ms after the second: an ACK of two full-sized
  // segments, which no receiver delays: the quickest answer, 400 ms. The
  // handshake's round trip is 400 ms - 10 us = 399.990 ms: the lesser,
  // 399.990 ms, less its half, 199.995 ms, is the soonest a response to the
  // server's ACK of B is captured (the latest 399.990 x 3/2 + 2 = 601.985
  // ms). 199.995 ms after it C is the slow start after the expiry; 199.994
  // ms after it C cannot answer the ACK (it left the client before the ACK
  // reached it), so it is no slow-start resend. With one server segment the
  // ACK may have been delayed: no answer is known, and 199.994 ms is a
  // response again.
  auto in = analyze(far_client(1000, 1000, 199'995), "answer-floor-in", Profile::rfc6298);
  CHECK(count(client(in), SendKind::slow_start_after_rto) == 1);
  auto out = analyze(far_client(1000, 1000, 199'994), "answer-floor-out", Profile::rfc6298);
  CHECK(count(client(out), SendKind::slow_start_after_rto) == 0);
  auto one = analyze(far_client(1000, 0, 199'994), "answer-floor-one", Profile::rfc6298);
  CHECK(count(client(one), SendKind::slow_start_after_rto) == 1);
}

TEST_CASE("kDefaultMss: two segments of 268 bytes (536 in all) may be a delayed ACK's; 537 are not") {
  // far_client with the server's two segments of 268 and then 268 or 269
  // bytes: a receiver acknowledges at once only more than a full-sized
  // segment, at least kDefaultMss (536) bytes (the peer's largest here is
  // smaller). 536 bytes: no answer known, 199.994 ms after the ACK C is a
  // response (slow start); 537: the quickest answer is 400 ms, C is none.
  CHECK(count(client(analyze(far_client(268, 268, 199'994), "default-mss-536", Profile::rfc6298)),
              SendKind::slow_start_after_rto) == 1);
  CHECK(count(client(analyze(far_client(268, 269, 199'994), "default-mss-537", Profile::rfc6298)),
              SendKind::slow_start_after_rto) == 0);
}

TEST_CASE("the quickest answer, not the first: a delayed ACK first, a prompt one later") {
  // As above, but the handshake's round trip is 600 ms (its SYN-ACK slow:
  // 600 ms - 10 us = 599.990 ms); the client's first ACK of two server
  // segments comes 700 ms after the second, its next ACK of two 400 ms
  // after theirs. The quickest answer is 400 ms: no response sooner than
  // 200 ms. B and C at 1800 ms, the timer (RTO 600 + 4 x 300 = 1.8 s)
  // resends B at 3600 ms, the server acknowledges it at once, C follows
  // 250 ms later: the slow start after the expiry (with the first answer,
  // the soonest would be 599.990 / 2 = 299.995 ms: no response).
  Scenario s;
  s.handshake_at_receiver(600 * ms);
  s.pkts.push_back({600 * ms + 100, false, 1, 1, wire::kAck | wire::kPsh, 1000, {}, {}, {}});
  s.pkts.push_back({600 * ms + 110, false, 1001, 1, wire::kAck | wire::kPsh, 1000, {}, {}, {}});
  s.pkts.push_back({1300 * ms + 110, true, 1, 2001, wire::kAck, 0, {}, {}, {}});
  s.pkts.push_back({1300 * ms + 200, false, 2001, 1, wire::kAck | wire::kPsh, 1000, {}, {}, {}});
  s.pkts.push_back({1300 * ms + 210, false, 3001, 1, wire::kAck | wire::kPsh, 1000, {}, {}, {}});
  s.pkts.push_back({1700 * ms + 210, true, 1, 4001, wire::kAck, 0, {}, {}, {}});
  s.pkts.push_back({1800 * ms, true, 1, 4001, wire::kAck | wire::kPsh, 1000, {}, {}, {}});
  s.pkts.push_back({1800 * ms + 10, true, 1001, 4001, wire::kAck | wire::kPsh, 1000, {}, {}, {}});
  s.pkts.push_back({3600 * ms, true, 1, 4001, wire::kAck | wire::kPsh, 1000, {}, {}, {}});
  s.pkts.push_back({3600 * ms + 10, false, 4001, 1001, wire::kAck, 0, {}, {}, {}});
  s.pkts.push_back({3850 * ms + 10, true, 1001, 4001, wire::kAck | wire::kPsh, 1000, {}, {}, {}});
  auto r = analyze(s, "answer-quickest", Profile::rfc6298);
  CHECK(count(client(r), SendKind::timeout) == 1);
  CHECK(count(client(r), SendKind::slow_start_after_rto) == 1);
}

TEST_CASE("kDelayedAckMax counts from the data's latest copy, and not for data the ACKer had SACKed") {
  // flushed()'s late ACK (600 ms of silence, the server's data 650 ms old:
  // held, no MUST), with the server's data sent again 100 ms before the
  // ACK: the copy that reached the client may be the resend, 100 ms old: no
  // evidence of a hold, 5.3 broken (MUST).
  Scenario resent = flushed(600 * ms, 1 * ms, 650 * ms);
  resent.pkts.push_back({800 * ms - 100 * ms, false, 1, 1, wire::kAck | wire::kPsh, 100, {}, {}, {}});
  std::stable_sort(resent.pkts.begin(), resent.pkts.end(), [](const Pkt& a, const Pkt& b) { return a.t_us < b.t_us; });
  CHECK(must_count(resent, "late-ack-resent") == 1);
  // The client's ACK at 800 ms (T) newly acknowledges B [101,201), which it
  // had SACKed at T - 640 ms (B captured at T - 650 ms), and C [201,301),
  // captured at T - 100 ms: B was answered by the SACK; the first data the
  // ACK answers is C, 100 ms old: no evidence, MUST (flushed()'s B sent
  // again 200 ms later, as B1 here). the server's [1,101) at T - 700 ms was
  // acknowledged at T - 690 ms; the client is silent 640 ms before T. T is
  // 1200 ms, after flushed()'s handshake and A.
  const auto sacked = [](bool sack) {
    Scenario s;  // flushed()'s handshake and A: R = 100 ms, RTO without the floor 250 ms
    s.sack_permitted = true;
    s.handshake(0, 100 * ms);
    s.data(200 * ms, 1);
    s.ack(300 * ms, 1001);
    const std::int64_t t = 1200 * ms;
    s.pkts.push_back({t - 700 * ms, false, 1, 1001, wire::kAck | wire::kPsh, 100, {}, {}, {}});
    s.pkts.push_back({t - 690 * ms, true, 1001, 101, wire::kAck, 0, {}, {}, {}});
    s.pkts.push_back({t - 650 * ms, false, 101, 1001, wire::kAck | wire::kPsh, 100, {}, {}, {}});
    // The client's SACK of the server's [101,201): the blocks are written
    // relative to the client's ISN (1000); the server's is 700000.
    Pkt dup{t - 640 * ms, true, 1001, 101, wire::kAck, 0, {}, {}, {}};
    if (sack) dup.sack = {wire::SackBlock{700000 + 101 - 1000, 700000 + 201 - 1000}};
    s.pkts.push_back(dup);
    s.pkts.push_back({t - 100 * ms, false, 201, 1001, wire::kAck | wire::kPsh, 100, {}, {}, {}});
    s.pkts.push_back({t, true, 1001, 301, wire::kAck, 0, {}, {}, {}});
    // B1 and B2, then B1 again 200 ms later (the head, not the highest: no probe).
    s.pkts.push_back({t + 1 * ms, true, 1001, 301, wire::kAck | wire::kPsh, 1000, {}, {}, {}});
    s.pkts.push_back({t + 1 * ms + 10, true, 2001, 301, wire::kAck | wire::kPsh, 1000, {}, {}, {}});
    s.pkts.push_back({t + 201 * ms, true, 1001, 301, wire::kAck | wire::kPsh, 1000, {}, {}, {}});
    return s;
  };
  CHECK(must_count(sacked(true), "late-ack-sacked") == 1);
  // Without the SACK, B's 650 ms before the ACK is a late answer: held, no MUST.
  CHECK(must_count(sacked(false), "late-ack-unsacked") == 0);
}

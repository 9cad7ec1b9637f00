// A delay spike between the sender and a capture taken away from it (at the
// receiver): the sender's segments reach the capture point late, all at
// once, and the receiver's ACKs of the first of them are captured before
// the sender's resends that the capture holds with them. Their TSvals say
// when the sender sent them: its timers and what it had heard are read on
// that clock, the report and the waits it judges on the capture's.
// Frames are Wireshark's: 1-based.

#include <algorithm>

#include <doctest/doctest.h>

#include <replay/analysis/rtt_sampling.hpp>
#include <replay/analysis/thresholds.hpp>

#include "replay_scenario.hpp"

using namespace replaytest;
using replay::ClockUsed;
using replay::Interval;
using replay::SendKind;

namespace {

constexpr std::int64_t ms = 1000;  // microseconds per millisecond

// Captured beside the receiver, SACK and timestamps on both sides, 1 ms per
// tick: the client's TSval is 100 + its send time in ms, the server's 5000
// + its send time in ms.
//
// Handshake (frames 1-3), then 90 paced segments of 1000 bytes every 10 ms
// from 100 ms on, each captured when sent (client TSval 100 + t, so its
// offset from the capture clock, 0, is the least) and acknowledged 50 us
// later (frames 4-183; the last ACK, of 90001, at 990.05 ms, TSval 5990).
//
// The spike: A [90001,91001), B, C sent at 1000 ms (TSval 1100), the loss
// probe of C at 1015 ms (TSval 1115) and the RTO's resend of A at 1220 ms
// (TSval 1320), each echoing 5990 (nothing newer reached the client); the
// path holds them all until 1450 ms, where the capture sees them 20 us
// apart, each original acknowledged 10 us after it (ACKs TSval 6450):
//   184 A   1450.000   185 ACK 91001   186 B   1450.020   187 ACK 92001
//   188 C   1450.040   189 ACK 93001   190 C   1450.060 (the probe)
//   191 ACK 93001      192 A 1450.080 (the RTO)          193 ACK 93001
// then new data D at 1460 ms (TSval 1560, echoing 6450) and its ACK.
//
// `held`: the client's TSvals as above. Otherwise the TSvals follow the
// capture times (TSval 100 + capture ms, 1550 for all five): nothing shows
// a hold, and the resends left 20 and 40 us after the originals.
Scenario spike_at_receiver(bool held) {
  Scenario s;
  s.sack_permitted = true;
  s.pkts.push_back({0, true, 0, 0, wire::kSyn, 0, 100u, 0u, {}});
  s.pkts.push_back({10, false, 0, 1, wire::kSyn | wire::kAck, 0, 5000u, 100u, {}});
  s.pkts.push_back({300, true, 1, 1, wire::kAck, 0, 100u, 5000u, {}});
  std::uint32_t server_ts = 5000;
  for (std::uint32_t k = 0; k < 90; ++k) {
    const std::int64_t t_ms = 100 + 10 * k;
    const auto client_ts = static_cast<std::uint32_t>(100 + t_ms);
    s.pkts.push_back({t_ms * ms, true, 1 + 1000 * k, 1, wire::kAck | wire::kPsh, 1000, client_ts, server_ts, {}});
    server_ts = static_cast<std::uint32_t>(5000 + t_ms);
    s.pkts.push_back({t_ms * ms + 50, false, 1, 1 + 1000 * (k + 1), wire::kAck, 0, server_ts, client_ts, {}});
  }
  const std::uint32_t a = 90001;
  const auto ts = [&](std::uint32_t sent) { return held ? sent : 1550u; };
  const std::int64_t at = 1450 * ms;
  s.pkts.push_back({at, true, a, 1, wire::kAck | wire::kPsh, 1000, ts(1100), 5990u, {}});
  s.pkts.push_back({at + 10, false, 1, a + 1000, wire::kAck, 0, 6450u, ts(1100), {}});
  s.pkts.push_back({at + 20, true, a + 1000, 1, wire::kAck | wire::kPsh, 1000, ts(1100), 5990u, {}});
  s.pkts.push_back({at + 30, false, 1, a + 2000, wire::kAck, 0, 6450u, ts(1100), {}});
  s.pkts.push_back({at + 40, true, a + 2000, 1, wire::kAck | wire::kPsh, 1000, ts(1100), 5990u, {}});
  s.pkts.push_back({at + 50, false, 1, a + 3000, wire::kAck, 0, 6450u, ts(1100), {}});
  s.pkts.push_back({at + 60, true, a + 2000, 1, wire::kAck | wire::kPsh, 1000, ts(1115), 5990u, {}});
  s.pkts.push_back({at + 70, false, 1, a + 3000, wire::kAck, 0, 6450u, ts(1115), {}});
  s.pkts.push_back({at + 80, true, a, 1, wire::kAck | wire::kPsh, 1000, ts(1320), 5990u, {}});
  s.pkts.push_back({at + 90, false, 1, a + 3000, wire::kAck, 0, 6450u, ts(1320), {}});
  s.pkts.push_back({1460 * ms, true, a + 3000, 1, wire::kAck | wire::kPsh, 1000, 1560u, 6450u, {}});
  s.pkts.push_back({1460 * ms + 50, false, 1, a + 4000, wire::kAck, 0, 6460u, 1560u, {}});
  return s;
}

// Captured at the sender, timestamps on: the client's SYN at 0 (TSval 0),
// the server's SYN-ACK at 100 ms (TSval 5000), the client's ACK 10 us later
// (TSval 100): the client's TSval is its send time in ms, offset 0.
Scenario handshake_at_sender() {
  Scenario s;
  s.pkts.push_back({0, true, 0, 0, wire::kSyn, 0, 0u, 0u, {}});
  s.pkts.push_back({100 * ms, false, 0, 1, wire::kSyn | wire::kAck, 0, 5000u, 0u, {}});
  s.pkts.push_back({100 * ms + 10, true, 1, 1, wire::kAck, 0, 100u, 5000u, {}});
  return s;
}

}  // namespace

TEST_CASE("a delay spike before a receiver-side capture: the resends it holds are timed on the sender's TSval clock") {
  // Held: A's TSval puts its send 450 ms before its capture (offset 1450 -
  // 1000 against the least, 0): read as sent by the end of its tick, 1001
  // ms; the probe 1016, the RTO's resend 1221. C resent 15 ms after the
  // timer was armed by A (no ACK heard since 990.05 ms: its TSecr 5990),
  // the highest segment and not the head, before any expiry: the loss
  // probe. A resent 205 ms after the probe re-armed the timer: the RTO's
  // expiry, its wait read on the TSval clock (the capture's is 20 us):
  // 1320 - 1115 = 205 ticks, +/- kClockDisagreeTicks (2): [203, 207] ms.
  const auto r = analyze(spike_at_receiver(true), "held", Profile::linux_kernel, /*timeline=*/true);
  const auto& c = client(r);
  CHECK(count(c, SendKind::tlp) == 1);
  CHECK(count(c, SendKind::spurious) == 0);
  REQUIRE(c.timeouts.size() == 1);
  CHECK(c.timeouts[0].frame == 192);
  CHECK(c.timeouts[0].clock == ClockUsed::tsval);
  CHECK(c.timeouts[0].wait == Interval{std::chrono::microseconds{203 * ms}, std::chrono::microseconds{207 * ms}});
  CHECK(musts(c) == 0);
  // The report keeps the capture's times: frame 190 at 1450.060 ms.
  const auto probe = std::find_if(c.timeline.begin(), c.timeline.end(),
                                  [](const replay::TimelineEvent& e) { return e.frame == 190; });
  REQUIRE(probe != c.timeline.end());
  CHECK(std::chrono::duration_cast<std::chrono::microseconds>(probe->time - c.timeline.front().time).count() ==
        1450 * ms + 60);
}

TEST_CASE("the same frames with TSvals that show no hold: resends 20 and 40 us after the originals are no timer's") {
  // TSval 1550 on all five (100 + their capture ms): the probe's C left 20
  // us after C, A 80 us after A, far sooner than any timer (kMinTimerWait
  // 5 ms): neither a loss probe nor an expiry.
  const auto r = analyze(spike_at_receiver(false), "not-held", Profile::linux_kernel);
  const auto& c = client(r);
  CHECK(count(c, SendKind::tlp) == 0);
  CHECK(c.timeouts.empty());
}

TEST_CASE("a hold is read only beyond kClockDisagreeTicks ticks: 3 ms moves a resend back to back, 2 ms does not") {
  // Captured at the sender, 0.5 ms after each TSval tick (client TSval =
  // send ms; the least offset of capture time - TSval is 0.5 ms). A
  // [1,1001) at 1000.5 ms (TSval 1000) starts the timer; A again at
  // `resend_us` carrying TSval 1003; the ACK of A 100 ms later.
  //   At 1005.5 ms: held 1005.5 - 1003 - 0.5 = 2 ms = 2 ticks, within the
  //   clock's quantisation: read at 1005.5 ms, 5 ms after A (not below
  //   kMinTimerWait, 5 ms): the timer's. (Read past 1 tick instead, it
  //   would move 2 - 1 = 1 ms, to 4 ms after A.)
  //   At 1006.5 ms: held 3 ms, past it: sent by the end of its tick,
  //   1006.5 - (3 - 1) = 1004.5 ms, 4 ms after A, sooner than any timer
  //   fires: no quiet period before it. (Read past 3 ticks, 6 ms: a timer.)
  const auto make = [](std::int64_t resend_us) {
    Scenario s;
    s.pkts.push_back({500, true, 0, 0, wire::kSyn, 0, 0u, 0u, {}});
    s.pkts.push_back({100 * ms + 500, false, 0, 1, wire::kSyn | wire::kAck, 0, 5000u, 0u, {}});
    s.pkts.push_back({100 * ms + 510, true, 1, 1, wire::kAck, 0, 100u, 5000u, {}});
    s.pkts.push_back({1000 * ms + 500, true, 1, 1, wire::kAck | wire::kPsh, 1000, 1000u, 5000u, {}});
    s.pkts.push_back({resend_us, true, 1, 1, wire::kAck | wire::kPsh, 1000, 1003u, 5000u, {}});
    s.pkts.push_back({resend_us + 100 * ms, false, 1, 1001, wire::kAck, 0, 6100u, 1003u, {}});
    return s;
  };
  const auto within = analyze(make(1005 * ms + 500), "held-2-ticks", Profile::rfc6298);
  CHECK(count(client(within), SendKind::timeout) == 1);
  CHECK(count(client(within), SendKind::unclassified) == 0);
  const auto past = analyze(make(1006 * ms + 500), "held-3-ticks", Profile::rfc6298);
  CHECK(count(client(past), SendKind::timeout) == 0);
  CHECK(count(client(past), SendKind::unclassified) == 1);
}

TEST_CASE("a hold never puts a send before the peer segment its TSecr shows it had received") {
  // Captured at the sender (client TSval = send ms, least offset 0). A
  // [1,1001) at 1000 ms (TSval 1000); the peer's data [1,101) at 1010 ms
  // (TSval 6010, acknowledging nothing new: no duplicate ACK, it carries
  // data); A again at 1012 ms with TSval 1001: held 11 ms, so by its TSval
  // sent at 1012 - (11 - 1) = 1002 ms, 2 ms after A: no quiet period, no
  // timer (unclassified). But it echoes 6010: it had received that segment,
  // so it left at 1010 ms at the earliest, 10 ms after A: past the quiet
  // period. No loss shown, no recovery: the peer's data asks for nothing
  // again, so it is read as the timer's (an expiry, early against 2.1's
  // 1 s, which the capture then judges).
  Scenario s = handshake_at_sender();
  s.pkts.push_back({1000 * ms, true, 1, 1, wire::kAck | wire::kPsh, 1000, 1000u, 5000u, {}});
  s.pkts.push_back({1010 * ms, false, 1, 1, wire::kAck | wire::kPsh, 100, 6010u, 1000u, {}});
  s.pkts.push_back({1012 * ms, true, 1, 101, wire::kAck | wire::kPsh, 1000, 1001u, 6010u, {}});
  s.pkts.push_back({1100 * ms, false, 101, 1001, wire::kAck, 0, 6100u, 1001u, {}});
  const auto r = analyze(s, "held-tsecr", Profile::rfc6298);
  CHECK(count(client(r), SendKind::unclassified) == 0);
  CHECK(count(client(r), SendKind::fast) == 0);
  REQUIRE(client(r).timeouts.size() == 1);
}

TEST_CASE("an arm held before the capture point: the expiry's wait on the capture clock counts from its capture") {
  // Captured at the sender (client TSval = send ms, least offset 0; 50 ms
  // is below kFlushHeld, no flushed burst). X [1,1001) at 400 ms (TSval
  // 400: 400 ms of the clock seen, kTsClockMinSpan, so its rate is known),
  // acknowledged at 500 ms. A [1001,2001) with TSval 1000 is captured at
  // 1050 ms: held 50 ms, sent by 1050 - 49 = 1001 ms, where its timer
  // starts. A again at 2001 ms (TSval 2001, not held), then its ACK.
  // On the capture clock the wait is 2001 - 1050 = 951 ms; on the TSval
  // clock 2001 - 1000 = 1001 ticks, +/- kClockDisagreeTicks: [999, 1003]
  // ms. The two disagree: the wait is read on the TSval clock. (Counted
  // from the send time, 1001 ms, it would be 1000 ms, agree with the TSvals
  // and be reported as the capture clock's, which shows 951.)
  Scenario s = handshake_at_sender();
  s.pkts.push_back({400 * ms, true, 1, 1, wire::kAck | wire::kPsh, 1000, 400u, 5000u, {}});
  s.pkts.push_back({500 * ms, false, 1, 1001, wire::kAck, 0, 5500u, 400u, {}});
  s.pkts.push_back({1050 * ms, true, 1001, 1, wire::kAck | wire::kPsh, 1000, 1000u, 5500u, {}});
  s.pkts.push_back({2001 * ms, true, 1001, 1, wire::kAck | wire::kPsh, 1000, 2001u, 5500u, {}});
  s.pkts.push_back({2101 * ms, false, 1, 2001, wire::kAck, 0, 7101u, 2001u, {}});
  const auto r = analyze(s, "held-arm", Profile::rfc6298);
  const auto& c = client(r);
  REQUIRE(c.timeouts.size() == 1);
  CHECK(c.timeouts[0].clock == ClockUsed::tsval);
  CHECK(c.timeouts[0].wait == Interval{std::chrono::microseconds{999 * ms}, std::chrono::microseconds{1003 * ms}});
  CHECK(musts(c) == 0);
}

TEST_CASE("an arm by the peer's ACK is on the capture clock whatever the hold of the segment sent before it") {
  // Captured at the sender (client TSval = send ms, least offset 0). A
  // [1,1001) at 1000 ms (TSval 1000); B [1001,2001) with TSval 1010
  // captured at 1060 ms (held 50 ms, below kFlushHeld); the ACK of A at
  // 1100 ms restarts the timer (5.3) for B: an arm by the peer's segment,
  // at its capture time. B again at 2101 ms (TSval 2101), then its ACK.
  // The wait: 2101 - 1100 = 1001 ms on the capture clock (an ACK carries
  // no TSval of the sender's to read it on). Had the ACK's arm taken B's
  // hold (49 ms), it would read 952 ms.
  Scenario s = handshake_at_sender();
  s.pkts.push_back({1000 * ms, true, 1, 1, wire::kAck | wire::kPsh, 1000, 1000u, 5000u, {}});
  s.pkts.push_back({1060 * ms, true, 1001, 1, wire::kAck | wire::kPsh, 1000, 1010u, 5000u, {}});
  s.pkts.push_back({1100 * ms, false, 1, 1001, wire::kAck, 0, 6100u, 1000u, {}});
  s.pkts.push_back({2101 * ms, true, 1001, 1, wire::kAck | wire::kPsh, 1000, 2101u, 6100u, {}});
  s.pkts.push_back({2201 * ms, false, 1, 2001, wire::kAck, 0, 7201u, 2101u, {}});
  const auto r = analyze(s, "held-then-ack", Profile::rfc6298);
  const auto& c = client(r);
  REQUIRE(c.timeouts.size() == 1);
  CHECK(c.timeouts[0].clock == ClockUsed::capture);
  CHECK(c.timeouts[0].wait == Interval::point(std::chrono::microseconds{1001 * ms}));
}

namespace {

// Early in a connection (the TSval clock's rate is fitted over 200 ms, not
// known yet: no hold is read from it), captured beside the receiver, SACK
// and timestamps on: the client's TSval is 100 + its send time in ms (its
// SYN's `syn_tsval`), the server's 5000 + its send time in ms.
//
// Handshake (frames 1-3), then three segments of 1000 bytes at 10, 20, 30
// ms, each acknowledged 50 us later (frames 4-9: SRTT about 50 us; Linux's
// PTO with three segments out is 2 SRTT + TCP_TIMEOUT_MIN 2 ms, rounded up
// to the 4 ms tick: 4 ms, fitting from 4 - 1 ms tolerance = 3 ms). Then A
// [3001,4001), B, C sent at 40 ms (TSval 140, echoing 5030) and held on
// their way until 45 ms, captured 20 us apart, each acknowledged 10 us
// after it (TSval 5045; frames 10-15); the client's loss probe of C with
// TSval 140 + `probe_ticks`, still echoing 5030 (none of those ACKs had
// reached it), captured at 45.060 ms (frame 16), 20 us after C's ACK.
// `heard_b`: a fourth segment D [6001,7001) at 45.060 ms behind C; B's
// ACK captured after D, at 45.065 ms, the ACKs of C and D not captured;
// the probe resends D (at 45.080 ms) echoing 5045, B's ACK's TSval: the
// sender had heard B's ACK, which re-armed its timer (5.3) with C and D
// out (two segments: the same PTO).
Scenario early_hold(std::uint32_t probe_ticks, std::uint32_t syn_tsval = 100, bool heard_b = false) {
  Scenario s;
  s.sack_permitted = true;
  s.pkts.push_back({0, true, 0, 0, wire::kSyn, 0, syn_tsval, 0u, {}});
  s.pkts.push_back({10, false, 0, 1, wire::kSyn | wire::kAck, 0, 5000u, syn_tsval, {}});
  s.pkts.push_back({300, true, 1, 1, wire::kAck, 0, 100u, 5000u, {}});
  for (std::uint32_t k = 0; k < 3; ++k) {
    const std::int64_t t_ms = 10 + 10 * k;
    const auto ts = static_cast<std::uint32_t>(100 + t_ms);
    s.pkts.push_back({t_ms * ms, true, 1 + 1000 * k, 1, wire::kAck | wire::kPsh, 1000, ts, 5000u, {}});
    s.pkts.push_back({t_ms * ms + 50, false, 1, 1001 + 1000 * k, wire::kAck, 0, static_cast<std::uint32_t>(5000 + t_ms), ts, {}});
  }
  const std::int64_t at = 45 * ms;
  const std::uint32_t burst = heard_b ? 4 : 3;
  for (std::uint32_t k = 0; k < burst; ++k) {
    const std::uint32_t seq = 3001 + 1000 * k;
    s.pkts.push_back({at + 20 * k, true, seq, 1, wire::kAck | wire::kPsh, 1000, 140u, 5030u, {}});
    if (!heard_b || k == 0) s.pkts.push_back({at + 20 * k + 10, false, 1, seq + 1000, wire::kAck, 0, 5045u, 140u, {}});
  }
  if (heard_b) s.pkts.push_back({at + 65, false, 1, 5001, wire::kAck, 0, 5045u, 140u, {}});
  const std::uint32_t last = 3001 + 1000 * (burst - 1);
  s.pkts.push_back({at + 20 * burst, true, last, 1, wire::kAck | wire::kPsh, 1000, 140 + probe_ticks,
                    heard_b ? 5045u : 5030u, {}});
  s.pkts.push_back({at + 20 * burst + 10, false, 1, last + 1000, wire::kAck, 0, 5045u, 140 + probe_ticks, {}});
  return s;
}

}  // namespace

TEST_CASE("TsClock::least_between: the ticks less one at the fastest clock, whatever rate is fitted") {
  using std::chrono::microseconds;
  const replay::CaptureTime t0{std::chrono::seconds{1'700'000'000}};
  replay::TsClock c;
  CHECK(c.least_between(100, 110, t0) == microseconds{0});  // no TSval seen yet
  c.observe(t0, 100);
  const replay::CaptureTime t45 = t0 + microseconds{45 * ms};
  // 2 ticks apart: one tick less, 1 ms at kMaxTsvalHz; 1 tick: none (both
  // may have been stamped within 1 ms); backwards: none.
  CHECK(c.least_between(140, 142, t45) == microseconds{1 * ms});
  CHECK(c.least_between(140, 141, t45) == microseconds{0});
  CHECK(c.least_between(142, 140, t45) == microseconds{0});
  CHECK(c.least_between(140, 146, t45) == microseconds{5 * ms});
  // The clock since its first TSval: 45 ms of capture time allow
  // kFastTsvalFactor x 45 + 2 = 92 ticks: TSval 192 is read, 193 is not (a
  // clock faster than RFC 7323 allows).
  CHECK(c.least_between(186, 192, t45) == microseconds{5 * ms});
  CHECK(c.least_between(187, 193, t45) == microseconds{0});
  // A microsecond clock: 45 000 ticks in 45 ms.
  CHECK(c.least_between(45'000, 45'100, t45) == microseconds{0});
  // With a rate known (250 Hz over 400 ms: 100 ticks), still at the
  // fastest: 6 ticks apart are 5 ms at least, not 20 (a rate pooled from a
  // host's other connections may be another host's, behind a NAT).
  replay::TsClock slow;
  slow.observe(t0, 1000);
  slow.observe(t0 + microseconds{400 * ms}, 1100);
  REQUIRE(slow.rate_hz() == 250.0);
  CHECK(slow.least_between(1100, 1106, t0 + microseconds{401 * ms}) == microseconds{5 * ms});
}

TEST_CASE("a hold before the TSval clock's rate is known: the TSvals still time the loss probe on the sender's clock") {
  // Probe TSval 146: 6 ticks after C's, so sent at least 5 ms after it
  // (TsClock::least_between): 5 ms since the arm by A and since the newest
  // data, within the PTO's [3, 5.5] ms (4 ms, its 1 ms tolerance, Linux's
  // wheel lateness 12.5 %) though captured 20 us after C: the loss probe,
  // read from before the ACKs of A, B and C its TSecr (5030) shows unheard.
  const auto r = analyze(early_hold(6), "early-hold", Profile::linux_kernel);
  const auto& c = client(r);
  CHECK(count(c, SendKind::tlp) == 1);
  CHECK(count(c, SendKind::spurious) == 0);
  CHECK(c.timeouts.empty());
  CHECK(musts(c) == 0);
  // 3 ticks: at least 2 ms after C, sooner than the PTO allows (3 ms): no
  // probe by either clock; the capture shows C acknowledged: spurious.
  const auto soon = analyze(early_hold(3), "early-hold-3", Profile::linux_kernel);
  CHECK(count(client(soon), SendKind::tlp) == 0);
  CHECK(count(client(soon), SendKind::spurious) == 1);
  // 4 ticks: 3 ms at least, the PTO's earliest: the probe.
  const auto four = analyze(early_hold(4), "early-hold-4", Profile::linux_kernel);
  CHECK(count(client(four), SendKind::tlp) == 1);
  // The SYN's TSval 47 ticks behind (53): 146 - 53 = 93 ticks in the 45
  // ms since it, more than kFastTsvalFactor x 45 + 2 = 92: a clock faster
  // than 1000 Hz, whose ticks bound nothing: read on the capture's times
  // (20 us), no probe. TSval 54 (92 ticks): the bound stands.
  CHECK(count(client(analyze(early_hold(6, 53), "fast-clock", Profile::linux_kernel)), SendKind::tlp) == 0);
  CHECK(count(client(analyze(early_hold(6, 54), "fast-clock-54", Profile::linux_kernel)), SendKind::tlp) == 1);
}

TEST_CASE("the TSvals time the sender's own transmissions only: an arm by the peer's ACK stays on the capture's clock") {
  // heard_b: B's ACK (45.065 ms) re-armed the timer with C and D out, and
  // the probe's TSecr shows it heard. When it reached the sender the
  // capture cannot say; the probe of D is captured 15 us after it: since
  // the arm, 15 us on the capture's clock (the TSvals' 5 ms bound is from
  // the previous segment, D, not from an ACK's arrival): sooner than the
  // PTO's 3 ms: no loss probe (no quiet period).
  const auto r = analyze(early_hold(6, 100, /*heard_b=*/true), "ack-arm", Profile::linux_kernel);
  CHECK(count(client(r), SendKind::tlp) == 0);
  CHECK(count(client(r), SendKind::unclassified) == 1);
  CHECK(client(r).timeouts.empty());
  CHECK(musts(client(r)) == 0);
}

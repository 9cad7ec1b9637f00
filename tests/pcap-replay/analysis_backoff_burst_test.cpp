// Hand-made captures for three kinds of fault once found in the analysis:
//  - 5.5 / 2.5 judged against the OBSERVED previous interval between
//    expiries, so a sender whose RTO lies below the 1 s floor (or below the
//    replayed estimator's cap) cannot stop doubling unseen;
//  - the burst of resends right after a timeout retransmission (go-back-N,
//    RFC 5681 3.1) and back-to-back resends without a quiet period are not
//    timer expiries (no 5.4 / 5.5 / 5.3 findings for them), while a wrong
//    first-of-burst segment (5.4) or SND.UNA resent again (5.5) still is;
//  - one-direction captures: repeats are retransmissions of unknown kind
//    ("unclassified"), no timeouts, no backoff, timestamps per direction.
// Each: one capture that breaks the rule, one that keeps it.
//
// Common base (as rules_handmade_test.cpp): handshake RTT 100 ms (SYN at 0),
// data [1,1001) at 200 ms acked at 300 ms: SRTT 100, RTTVAR 37.5 ms; RTO
// (rfc6298) max(1 s, 250 ms) = 1 s, 250 ms without the 2.4 floor; Linux RTO
// 100 + 200 = 300 ms. [1001,2001) and [2001,3001) at 400 ms start the timer (5.1).
// Tolerance: G 1 ms + 10 %; Linux adds the timer-wheel factor 1.125.

#include <doctest/doctest.h>

#include "replay_scenario.hpp"

using namespace replaytest;
using replay::Level;
using replaytest::Profile;
using replay::SendKind;

namespace {

constexpr std::int64_t ms = 1000;  // microseconds per millisecond
using std::chrono::microseconds;




// A chain of expiries of [1001,2001): the timer started at 400 ms (5.1),
// then expiries `gaps` apart (the first counted from 400 ms).
Scenario chain(std::initializer_list<std::int64_t> gaps_ms) {
  Scenario s = base_scenario();
  std::int64_t t = 400 * ms;
  for (std::int64_t g : gaps_ms) {
    t += g * ms;
    s.data(t, 1001);
  }
  return s;
}

}  // namespace

TEST_CASE("rules 5.5/2.5 (observed interval): a sub-1 s sender that stops doubling at expiry 8 is found") {
  // The shape of blackhole-backoff.pcap with frame 7406 moved: a Linux-like
  // sender with base RTO 300 ms doubles 300, 600, ..., 19200 ms, then the 8th
  // expiry comes 19200 ms after the 7th. The replayed rfc6298 estimator
  // (1 s floor, 60 s cap) reaches its own cap at k = 7 (1, 2, ..., 32, 60 s);
  // before the fix its ratio 60/60 switched the doubling check off.
  // 5.5 from the observed interval: expected 2 R, R the RTO expiry 7's wait
  // (19200 +/- 1 ms) shows under a timer up to 10 % late: R in [19199 / 1.1,
  // 19201] = [17453.637, 19201] ms, 2 R = [34907.274, 38402] ms; 19200 is
  // below it: not doubled. The chain had doubled seven times before and its
  // last two waits hold at about 19.2 s: a cap below 60 s -> reported as 2.5
  // (as the Linux profile does).
  // Frames: 7 base + 8 expiries; the 8th expiry is frame 15.
  auto brk = chain({300, 600, 1200, 2400, 4800, 9600, 19200, 19200});
  auto r = analyze(brk, "r55obs-break", Profile::rfc6298);
  const auto& c = client(r);
  REQUIRE(c.timeouts.size() == 8);
  // Expiry 1: 300 ms < 1 s, but >= the 250 ms floorless RTO: SHOULD 2.4 only.
  REQUIRE(findings(c, "2.4").size() == 1);
  CHECK(findings(c, "2.4")[0].frame == 8);
  REQUIRE(findings(c, "2.5").size() == 1);
  CHECK(findings(c, "2.5")[0].frame == 15);
  CHECK(findings(c, "2.5")[0].level == Level::must);
  // Its evidence (a MUST names the frames it reads, besides its own): the
  // run's earlier expiries, frames 8 to 14 (no valid sample since the
  // first), whose waits doubled to 19.2 s (frame 14) and held.
  const std::vector<std::uint64_t> want{8, 9, 10, 11, 12, 13, 14};
  CHECK(findings(c, "2.5")[0].evidence == want);
  CHECK(findings(c, "5.5").empty());
  const auto& t8 = c.timeouts[7];
  CHECK(point_us(t8.wait) == 19'200'000);
  CHECK(t8.predicted == replay::Interval{microseconds{34'907'274}, microseconds{38'402'000}});
  CHECK(us(t8.accepted.lo) == 34'906'274);  // the window shown is the one applied: 34907.274 - 1 ms
  CHECK(t8.verdict == replay::Verdict::early);
  CHECK(t8.basis == replay::Basis::doubling);
  CHECK(r.exit_status(false) == 1);
  // Linux profile: the chain followed the Linux RTO (300 ms * 2^k); the 8th
  // expiry stops growing at 19.2 s, inside the 1..120 s range that Linux's
  // net.ipv4.tcp_rto_max_ms allows: not a MUST but an INFO naming the
  // setting (--profile linux is Linux with any of its documented settings).
  auto l = analyze(brk, "r55obs-break-linux", Profile::linux_kernel);
  CHECK(findings(client(l), "2.5").empty());
  REQUIRE(findings(client(l), "setting").size() == 1);
  CHECK(findings(client(l), "setting")[0].frame == 15);
  CHECK(message(findings(client(l), "setting")[0]).find("tcp_rto_max_ms") != std::string::npos);
  CHECK(l.count(Level::must) == 0);

  // Keep: the 8th expiry 38400 ms after the 7th (doubled; below the 60 s cap).
  auto keep = chain({300, 600, 1200, 2400, 4800, 9600, 19200, 38400});
  auto k = analyze(keep, "r55obs-keep", Profile::rfc6298);
  CHECK(musts(client(k)) == 0);
  CHECK(findings(client(k), "2.4").size() == 1);
  REQUIRE(client(k).timeouts.size() == 8);
  CHECK(client(k).timeouts[7].verdict == replay::Verdict::ok);
  CHECK(k.exit_status(false) == 0);
  auto kl = analyze(keep, "r55obs-keep-linux", Profile::linux_kernel);
  CHECK(kl.count(Level::must) == 0);
  CHECK(kl.count(Level::should) == 0);
}

TEST_CASE("rules 5.5 (observed interval): 390 ms after a 345 ms first expiry is not doubled; 690 ms is") {
  // The shape of random-loss.pcap with frame 1810 moved. An ACK at 500 ms
  // acknowledges [1001,2001) (sample 100 ms: RTTVAR 28.125, SRTT 100; RTO
  // max(1 s, 212.5 ms) = 1 s) and restarts the timer (5.3) for [2001,3001).
  // Expiry 1 at 845 ms: 345 ms < 1 s but >= 212.5 * 0.9 - 1 ms: SHOULD 2.4.
  // Expiry 2 `second` ms later. 5.5, predicted from expiry 1's wait before
  // expiry 2 is compared: a timer up to 10 % late (RFC 6298 as written
  // names no stack) armed with R fired after 345 +/- 1 (G) ms, so R in
  // [344 / 1.1, 346] = [312.728, 346] ms; doubled, 2 R = [625.456, 692] ms,
  // accepted [625.456 - 1, 692 * 1.1 + 1] = [624.456, 762.2] ms; not doubled
  // it would have come in [311.7, 381.6] ms. A constant lateness (FreeBSD's
  // slop) cannot explain 390 either: it needs R = 390 - 345 = 45 ms, below
  // the 212.5 * 0.9 - 1 = 190.25 ms RFC 6298's arithmetic gives from the
  // samples without the floor. Before the fix, rfc6298 accepted 390 ms in
  // [380.5, 1519.0].
  auto make = [](std::int64_t second) {
    Scenario s = base_scenario();
    s.ack(500 * ms, 2001);
    s.data(845 * ms, 2001);
    s.data(845 * ms + second * ms, 2001);
    return s;
  };
  auto r = analyze(make(390), "r55rl-break", Profile::rfc6298);
  const auto& c = client(r);
  REQUIRE(c.timeouts.size() == 2);
  CHECK(point_us(c.timeouts[0].wait) == 345'000);
  CHECK(c.timeouts[0].armed_by == replay::ArmCause::ack);
  // Frames: 7 base, ACK 8, expiry 1 = 9, expiry 2 = 10.
  REQUIRE(findings(c, "5.5").size() == 1);
  CHECK(findings(c, "5.5")[0].frame == 10);
  CHECK(findings(c, "5.5")[0].level == Level::must);
  CHECK(c.timeouts[1].predicted == replay::Interval{microseconds{625'456}, microseconds{692'000}});
  CHECK(c.timeouts[1].accepted == replay::Interval{microseconds{624'456}, microseconds{762'200}});
  REQUIRE(c.timeouts[1].alternative);
  CHECK_FALSE(c.timeouts[1].alternative->contains(microseconds{690'000}));  // the doubled wait is no departure
  CHECK(c.timeouts[1].verdict == replay::Verdict::early);
  CHECK(r.exit_status(false) == 1);
  // Linux: 690 * 0.9 / 1.125 - 1 = 551 ms > 390 ms, not doubled; but one
  // segment is in flight (a thin stream) and 390 ms is about the 345 ms
  // before (within 1 ms + 10 % of 445 ms, the later reading of the wait,
  // plus the 32 ms wheel bucket): Linux's net.ipv4.tcp_thin_linear_timeouts
  // keeps the RTO for 6 expiries. INFO naming it, not MUST.
  auto l = analyze(make(390), "r55rl-break-linux", Profile::linux_kernel);
  CHECK(findings(client(l), "5.5").empty());
  REQUIRE(findings(client(l), "setting").size() == 1);
  CHECK(message(findings(client(l), "setting")[0]).find("tcp_thin_linear_timeouts") != std::string::npos);

  // The widest slack the CLI allows (40 %) still cannot hide it: R in
  // [344 / 1.4, 346] = [245.715, 346] ms, doubled [491.43, 692] ms, accepted
  // from 491.43 - 1 = 490.43 ms > 390 ms.
  {
    replay::Options o = replay::Options::for_profile(Profile::rfc6298);
    o.slack_percent = 40;
    const std::string path = make(390).write("r55rl-slack40");
    std::vector<std::string> errors;
    auto w = replay::analyze_files({path}, o, false, errors);
    std::filesystem::remove(path);
    CHECK(errors.empty());
    CHECK(findings(client(w), "5.5").size() == 1);
    REQUIRE(client(w).timeouts.size() == 2);
    CHECK(us(client(w).timeouts[1].accepted.lo) == 490'430);
  }

  // Keep: 690 ms, doubled.
  auto k = analyze(make(690), "r55rl-keep", Profile::rfc6298);
  CHECK(findings(client(k), "5.5").empty());
  CHECK(musts(client(k)) == 0);
  REQUIRE(client(k).timeouts.size() == 2);
  CHECK(client(k).timeouts[1].verdict == replay::Verdict::ok);
  CHECK(k.exit_status(false) == 0);
}

TEST_CASE("rules 5.5 at the cap: 60 s after 60 s keeps it; 40 s then 40 s breaks it (expected 60 s)") {
  // rfc6298 cap 60 s. Gaps 1, 2, 4, 8, 16, 32 s then 60, 60 s: at 32 s the
  // expected next is min(64, 60) = 60 s; at 60 s (the cap) 1 x: 60 s again.
  auto keep = chain({1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000});
  auto k = analyze(keep, "r55cap-keep", Profile::rfc6298);
  CHECK(judged(client(k)).empty());
  // Gaps ..., 32 s, 40 s, 40 s: the chain grew (doubling from 1 s to 32 s),
  // then holds at 40 s twice: a cap of about 40 s (a cap is read from two
  // expiries at it, after a doubling), below the 60 s 2.5 allows: 2.5 at
  // both held expiries (frames 14 and 15). What 5.5 predicted for expiry 7,
  // from the 32 s before it (32000 +/- 1 ms, a timer up to 10 % late): R in
  // [31999 / 1.1, 32001] ms, doubled [58180, 64002] ms, accepted from
  // 58180 - 1 = 58179 ms; the cap held it at 40 s. No 5.5: one departure,
  // named once by the rule it breaks.
  auto brk = chain({1000, 2000, 4000, 8000, 16000, 32000, 40000, 40000});
  auto b = analyze(brk, "r55cap-break", Profile::rfc6298);
  CHECK(findings(client(b), "5.5").empty());
  REQUIRE(findings(client(b), "2.5").size() == 2);
  CHECK(findings(client(b), "2.5")[0].frame == 14);
  CHECK(findings(client(b), "2.5")[1].frame == 15);
  CHECK(us(client(b).timeouts[6].accepted.lo) == 58'179'000);
  CHECK(findings(client(b), "2.5")[0].setting.kind == replay::SettingUse::Kind::max_rto);
}

TEST_CASE("classify 5.4/5.5: a go-back-N burst after an expiry is one timeout plus slow-start resends") {
  // [3001,4001) also sent at 400 ms. At 1400 ms (RTO 1 s after 5.1) the
  // sender resends 1001 (the expiry), then 2001 and 3001 0.1 ms apart with
  // no ACK between: RFC 5681 3.1 recovery, not further expiries.
  // Before the fix: "expiry 2 came 0.1 ms after ... not doubled" (5.5) and
  // "retransmission of relative SEQ 2001, but SND.UNA is 1001" (5.4).
  auto make = [](std::uint32_t first) {
    Scenario s = base_scenario();
    s.data(400 * ms + 20, 3001);
    s.data(1400 * ms, first);
    s.data(1400 * ms + 100, first == 1001 ? 2001 : 3001);
    s.data(1400 * ms + 200, first == 1001 ? 3001 : 1001);
    s.ack(1500 * ms, 4001);
    return s;
  };
  auto k = analyze(make(1001), "burst-keep", Profile::rfc6298);
  const auto& c = client(k);
  CHECK(count(c, SendKind::timeout) == 1);
  CHECK(count(c, SendKind::slow_start_after_rto) == 2);
  REQUIRE(c.timeouts.size() == 1);
  CHECK(c.timeouts[0].frame == 9);
  CHECK(c.findings.empty());
  // The ACK at 1500 ms covers retransmitted data: no sample (Karn, 3), so the
  // backed-off RTO is kept: backoff 1 (one expiry, not three).
  CHECK(c.backoff == 1);
  CHECK(c.rto.count() == 2'000'000);

  // The expiry resends 2001 (not SND.UNA = 1001) first; 3001 then 1001
  // follow 0.1 ms apart with no ACK: all one go-back-N burst, which does
  // resend the earliest unacknowledged segment. 5.4 does not order the
  // segments inside a burst, and the head again inside it is not a second
  // expiry (0.2 ms < half the 1 s wait).
  auto b = analyze(make(2001), "burst-break-54", Profile::rfc6298);
  const auto& cb = client(b);
  CHECK(findings(cb, "5.4").empty());
  CHECK(count(cb, SendKind::slow_start_after_rto) == 2);
  CHECK(count(cb, SendKind::timeout) == 1);
  CHECK(findings(cb, "5.5").empty());
  // Without the head in the burst (an ACK comes first), 5.4 stands.
  Scenario s = base_scenario();
  s.data(400 * ms + 20, 3001);
  s.data(1400 * ms, 2001);
  s.ack(1450 * ms, 1001);
  auto b2 = analyze(s, "burst-break-54-nohead", Profile::rfc6298);
  REQUIRE(findings(client(b2), "5.4").size() == 1);
  CHECK(findings(client(b2), "5.4")[0].frame == 9);
}

TEST_CASE("classify 5.5: SND.UNA resent again 1 ms after an expiry is no expiry; 601 ms after it is one") {
  // The expiry at 1400 ms re-armed the timer (5.6). No timer fires sooner
  // than limits::kMinTimerWait (5 ms) after what armed it, and a go-back-N
  // burst sends each segment once: the head again 1 ms later is neither a
  // second expiry nor a member of the burst, but a repeat whose cause the
  // capture does not show (unclassified, no departure). It also shows the
  // expiry's burst held before the capture point (the host was silent 1 s:
  // kMinTimerWait as a hold, thresholds_test): the expiry's wait is [0, 1000]
  // ms, a note and a "cannot tell" 2.4, no finding. At 1400 + 601 ms it is
  // a second expiry: 5.5 predicts from the first wait (1000 +/- 1 ms, a
  // timer up to 10 % late) R in [999 / 1.1, 1001] ms, doubled from
  // 2 x 908.182 = 1816.364 ms, accepted from 1815.364 ms > 601 ms: MUST.
  Scenario s = base_scenario();
  s.data(1400 * ms, 1001);
  s.data(1401 * ms, 1001);
  auto r = analyze(s, "burst-head-again", Profile::rfc6298);
  const auto& c = client(r);
  CHECK(count(c, SendKind::timeout) == 1);
  CHECK(count(c, SendKind::slow_start_after_rto) == 0);
  CHECK(count(c, SendKind::unclassified) == 1);
  CHECK(musts(c) == 0);
  std::size_t flushed = 0, cannot_tell = 0;
  for (const auto& j : judged(c)) {
    flushed += j.topic == replay::Topic::flushed_burst && j.frame == 8 ? 1 : 0;
    cannot_tell += j.outcome == replay::Outcome::cannot_tell ? 1 : 0;
  }
  CHECK(flushed == 1);
  CHECK(cannot_tell == 1);
  CHECK(judged(c).size() == 2);
  Scenario s2 = base_scenario();
  s2.data(1400 * ms, 1001);
  s2.data(2001 * ms, 1001);
  auto r2 = analyze(s2, "burst-head-later", Profile::rfc6298);
  CHECK(count(client(r2), SendKind::timeout) == 2);
  REQUIRE(findings(client(r2), "5.5").size() == 1);
  CHECK(findings(client(r2), "5.5")[0].frame == 9);
  // Its evidence: the expiry whose wait gave the doubling (frame 8), not its own frame.
  CHECK(findings(client(r2), "5.5")[0].evidence == std::vector<std::uint64_t>{8});
  CHECK(us(client(r2).timeouts[1].accepted.lo) == 1'815'364);
}

TEST_CASE("classify: a FIN resent 0.2 ms after the data resend of an expiry is not a second expiry") {
  // KakaoTalk_talk frame 29 shape: data [1001,2001) and FIN (seq 2001) at
  // 400 ms; the expiry at 1400 ms resends the data, the FIN follows 0.2 ms later.
  auto make = [](std::int64_t fin_after) {
    Scenario s;
    s.handshake(0, 100 * ms);
    s.data(200 * ms, 1);
    s.ack(300 * ms, 1001);
    s.data(400 * ms, 1001);
    s.pkts.push_back({400 * ms + 10, true, 2001, 1, wire::kAck | wire::kFin, 0, {}, {}, {}});
    s.data(1400 * ms, 1001);
    s.pkts.push_back({1400 * ms + fin_after, true, 2001, 1, wire::kAck | wire::kFin, 0, {}, {}, {}});
    return s;
  };
  auto k = analyze(make(200), "fin-burst-keep", Profile::rfc6298);
  CHECK(count(client(k), SendKind::timeout) == 1);
  CHECK(count(client(k), SendKind::slow_start_after_rto) == 1);
  CHECK(judged(client(k)).empty());
  // Break: the FIN resent alone 1 s after the data's expiry (a quiet period
  // later, not the head): a further expiry, of the wrong segment (5.4), and
  // not doubled (1000 ms where 2000 ms is expected: 5.5).
  auto b = analyze(make(1000 * ms), "fin-burst-break", Profile::rfc6298);
  CHECK(count(client(b), SendKind::timeout) == 2);
  CHECK(findings(client(b), "5.4").size() == 1);
  CHECK(findings(client(b), "5.5").size() == 1);
}

TEST_CASE("classify: a head resend back-to-back with new data, no quiet period, is unclassified, not an expiry") {
  // whatsapp_login_chat frames 40-45 shape: 1001 and 2001 sent at 400 ms,
  // then 1001 again 0.3 ms later with nothing from the peer: no timer can
  // have run (no quiet period), and no ACK or loss evidence explains it.
  Scenario s = base_scenario();
  s.data(400 * ms + 300, 1001);
  s.data(400 * ms + 500, 2001);
  auto r = analyze(s, "b2b-unclassified", Profile::rfc6298);
  const auto& c = client(r);
  CHECK(count(c, SendKind::unclassified) == 2);
  CHECK(c.timeouts.empty());
  CHECK(c.findings.empty());
  CHECK(c.backoff == 0);
  // With a quiet period (1 s after the timer started) the same resend is the
  // expiry, judged as usual (1000 ms: on time).
  Scenario q = base_scenario();
  q.data(1400 * ms, 1001);
  auto k = analyze(q, "b2b-quiet", Profile::rfc6298);
  CHECK(count(client(k), SendKind::timeout) == 1);
  CHECK(count(client(k), SendKind::unclassified) == 0);
}

TEST_CASE("one direction: repeats are unclassified retransmissions, no timeouts, no backoff; TSval per direction") {
  // Only the client's segments, with TSval (mid-connection, no SYN): data
  // [1,1001), [1001,2001), [2001,3001) at 0 ms; [1,1001) again at 300 and
  // 900 ms, [1001,2001) at 900.1 ms. Nothing from the peer: causes unknown.
  Scenario s;
  auto d = [&](std::int64_t t, std::uint32_t seq) {
    s.pkts.push_back({t, true, seq, 1, wire::kAck | wire::kPsh, 1000,
                      static_cast<std::uint32_t>(100 + t / 1000), 0, {}});
  };
  d(0, 1);
  d(10, 1001);
  d(20, 2001);
  d(300 * ms, 1);
  d(900 * ms, 1);
  d(900 * ms + 100, 1001);
  auto r = analyze(s, "oneway", Profile::rfc6298);
  const auto& c = client(r);
  CHECK_FALSE(c.peer_seen);
  CHECK(c.retransmissions() == 3);
  CHECK(count(c, SendKind::unclassified) == 3);
  CHECK(count(c, SendKind::timeout) == 0);
  CHECK(count(c, SendKind::slow_start_after_rto) == 0);
  CHECK(c.timeouts.empty());
  CHECK(c.backoff == 0);
  CHECK(c.rto.count() == 1'000'000);  // the initial RTO (2.1): nothing backed off
  CHECK(c.findings.empty());
  CHECK(c.tsval_sent);
  CHECK_FALSE(c.tsval_peer);
  CHECK_FALSE(c.timestamps);  // "both ways" stays false
  CHECK(r.exit_status(true) == 0);

  // The same client segments plus one segment from the peer (a duplicate
  // ACK of 1 at 100 ms, with TSval): now classified. 1 at 300 ms: an expiry
  // (5.1 start at 0; 300 ms < 1 s before any sample: SHOULD 2.1); 1 at 900 ms:
  // expiry 2, 600 ms = 2 x 300 (5.5 kept); 1001 0.1 ms later: the burst.
  Scenario w = s;
  w.pkts.insert(w.pkts.begin() + 3, Pkt{100 * ms, false, 1, 1, wire::kAck, 0, 5000, 100, {}});
  auto rw = analyze(w, "twoway", Profile::rfc6298);
  const auto& cw = client(rw);
  CHECK(cw.peer_seen);
  CHECK(count(cw, SendKind::unclassified) == 0);
  CHECK(count(cw, SendKind::timeout) == 2);               // 300 ms and 900 ms
  CHECK(count(cw, SendKind::slow_start_after_rto) == 1);  // 1001 in the burst
  CHECK(cw.tsval_sent);
  CHECK(cw.tsval_peer);
  CHECK(cw.timestamps);
}

TEST_CASE("thin stream at its boundary: linear expiries with 3 segments in flight are a setting, with 4 a departure") {
  // Linux tcp_stream_is_thin: packets_out < 4. Base (above): Linux RTO 300
  // ms; `segments` segments of 1000 bytes at 400 ms (frames 6..5+n), then
  // three expiries of [1001,2001) 300 ms apart (700, 1000, 1300 ms): the RTO
  // kept, not doubled: the first wait, 300 +/- 1 ms from a timer up to 1/8
  // late, shows an RTO of at least 299 / 1.125 = 265.8 ms, doubled 531.6 ms,
  // far above 300.
  // net.ipv4.tcp_thin_linear_timeouts keeps the RTO for a thin stream only.
  auto make = [](std::uint32_t segments) {
    Scenario s;
    s.handshake(0, 100 * ms);
    s.data(200 * ms, 1);
    s.ack(300 * ms, 1001);
    for (std::uint32_t i = 0; i < segments; ++i) s.data(400 * ms + i * 10, 1001 + i * 1000);
    for (std::int64_t t : {700, 1000, 1300}) s.data(t * ms, 1001);
    return s;
  };
  auto thin = analyze(make(3), "thin-3", Profile::linux_kernel);
  CHECK(client(thin).timeouts.size() == 3);
  CHECK(findings(client(thin), "5.5").empty());
  REQUIRE(findings(client(thin), "setting").size() == 1);
  CHECK(message(findings(client(thin), "setting")[0]).find("tcp_thin_linear_timeouts") != std::string::npos);
  CHECK(thin.count(Level::must) == 0);

  auto bulk = analyze(make(4), "thin-4", Profile::linux_kernel);
  CHECK(client(bulk).timeouts.size() == 3);
  CHECK(findings(client(bulk), "setting").empty());
  REQUIRE_FALSE(findings(client(bulk), "5.5").empty());
  CHECK(findings(client(bulk), "5.5")[0].frame == 11);  // 5 + 4 segments + expiry 1 (frame 10): expiry 2
  CHECK(findings(client(bulk), "5.5")[0].level == Level::must);
}

TEST_CASE("Linux tcp_rearm_rto: with SACK, the ACK's restart may count from the head's send; without, from the ACK") {
  // Base (above): Linux RTO 300 ms (SRTT 100 ms + rto_min 200 ms). A
  // [1001,2001), B [2001,3001), C [3001,4001) at 400 ms; the ACK of A at
  // 500 ms (with SACK: it SACKs C, B is the hole). B resent at 700 ms:
  // 300 ms after B's send, 200 ms after the ACK.
  // With SACK a loss probe or RACK timer is pending when the ACK arrives,
  // and tcp_rearm_rto counts the RTO from the head's (B's) send: due at
  // 400 + 300 = 700 ms, on time. Without SACK neither timer exists and the
  // ACK restarts the full RTO (5.3): due at 500 + 300 = 800 ms, and 700 ms
  // is 100 ms early, beyond the 1 ms granularity: MUST.
  auto make = [](bool sack) {
    Scenario s;
    s.sack_permitted = sack;
    s.handshake(0, 100 * ms);
    s.data(200 * ms, 1);
    s.ack(300 * ms, 1001);
    for (std::uint32_t i = 0; i < 3; ++i) s.data(400 * ms + i * 10, 1001 + i * 1000);
    if (sack)
      s.ack(500 * ms, 2001, {{3001, 4001}});
    else
      s.ack(500 * ms, 2001);
    s.data(700 * ms, 2001);  // frame 10
    return s;
  };
  auto with_sack = analyze(make(true), "rearm-head-sack", Profile::linux_kernel);
  REQUIRE(client(with_sack).timeouts.size() == 1);
  CHECK(client(with_sack).timeouts[0].frame == 10);
  CHECK(client(with_sack).timeouts[0].verdict == replay::Verdict::ok);
  CHECK(with_sack.count(Level::must) == 0);

  auto without = analyze(make(false), "rearm-head-nosack", Profile::linux_kernel);
  REQUIRE(client(without).timeouts.size() == 1);
  CHECK(client(without).timeouts[0].verdict == replay::Verdict::early);
  CHECK(without.count(Level::must) == 1);
}

TEST_CASE("a setting the later expiries refute is not read: linear, linear, then doubled is no thin-stream setting") {
  // Base: Linux RTO 300 ms, two segments in flight (a thin stream). Expiries
  // of [1001,2001) 300, 300, 300, then 600 ms apart (frames 8..11). Under
  // net.ipv4.tcp_thin_linear_timeouts the first 6 expiries keep the RTO:
  // the 4th would come 300 ms after the 3rd, and 600 ms is a doubling, not
  // a late timer (the wheel is late by 1/8 at most). The setting is not in
  // force; without it, expiry 2 (300 ms, where the doubling of an RTO of at
  // least 299 / 1.125 = 265.8 ms, 531.6 ms, is due) departs from 5.5.
  auto r = analyze(chain({300, 300, 300, 600}), "thin-refuted", Profile::linux_kernel);
  const auto& c = client(r);
  REQUIRE(c.timeouts.size() == 4);
  CHECK(findings(c, "setting").empty());
  REQUIRE_FALSE(findings(c, "5.5").empty());
  CHECK(findings(c, "5.5")[0].frame == 9);
  CHECK(findings(c, "5.5")[0].level == Level::must);
  // The same three linear expiries with none after them: nothing refutes
  // the setting, which is read (INFO), not a MUST.
  auto k = analyze(chain({300, 300, 300}), "thin-unrefuted", Profile::linux_kernel);
  CHECK(findings(client(k), "5.5").empty());
  REQUIRE(findings(client(k), "setting").size() == 1);
  CHECK(k.count(Level::must) == 0);
}

TEST_CASE("a go-back-N burst captured out of order: each segment resent once is the burst's, in any order") {
  // Handshake R = 100 ms, [1,1001) at 200 ms acked at 300 ms (RTO 1 s under
  // rfc6298). Five segments 1001..6001 at 1000 ms; the expiry resends 1001 at
  // 2000 ms (frame 11, 1 s: on time); its burst follows 10 ms apart but
  // captured out of order: 3001, 2001, 4001, 5001 (frames 12-15), each once;
  // all acknowledged at 2100 ms. No further expiry, no 5.4 or 5.5 (a burst
  // member is not a timer's: 2001 at 2020 ms is 20 ms after the expiry).
  Scenario s;
  s.handshake(0, 100 * ms);
  s.data(200 * ms, 1);
  s.ack(300 * ms, 1001);
  for (std::uint32_t i = 0; i < 5; ++i) s.data(1000 * ms + i * 10, 1001 + i * 1000);
  s.data(2000 * ms, 1001);
  std::int64_t t = 2010 * ms;
  for (std::uint32_t seq : {3001u, 2001u, 4001u, 5001u}) {
    s.data(t, seq);
    t += 10 * ms;
  }
  s.ack(2100 * ms, 6001);
  for (auto p : {Profile::rfc6298, Profile::linux_kernel}) {
    CAPTURE(p);
    auto r = analyze(s, "burst-reordered", p);
    const auto& c = client(r);
    CHECK(c.timeouts.size() == 1);
    CHECK(count(c, SendKind::slow_start_after_rto) == 4);
    CHECK(r.count(Level::must) == 0);
  }
}

TEST_CASE("a thin stream that stops being thin: the doubling after it does not refute the linear expiries before") {
  // Linux, base RTO 300 ms. A, B, C (1001..4001) at 400 ms: 3 in flight,
  // thin. A resent at 700 and 1000 ms (300, 300: linear, the thin-stream
  // setting). The ACK of A at 1100 ms (of retransmitted data: no sample),
  // B and C resent, ACK of B at 1200 ms, D and E sent, ACK of C at 1210 ms,
  // F and G sent: D..G, 4 in flight, not thin. Expiry 3 resends D at 1510 ms
  // (300 ms after the ACK: the RTO kept linear), expiry 4 at 2110 ms (600 ms:
  // not thin at expiry 3, so doubled). The doubling comes where the setting
  // no longer applies: it refutes nothing; the setting is read (INFO).
  // Expiry 3 (300 ms after a chain of linear waits, the stream no longer
  // thin) may be noted as cannot-tell; no MUST either way.
  Scenario s;
  s.handshake(0, 100 * ms);
  s.data(200 * ms, 1);
  s.ack(300 * ms, 1001);
  for (std::uint32_t i = 0; i < 3; ++i) s.data(400 * ms + i * 10, 1001 + i * 1000);
  s.data(700 * ms, 1001);
  s.data(1000 * ms, 1001);  // frame 10
  s.ack(1100 * ms, 2001);
  s.data(1100 * ms + 100, 2001);
  s.data(1100 * ms + 110, 3001);
  s.ack(1200 * ms, 3001);
  s.data(1200 * ms + 100, 4001);
  s.data(1200 * ms + 110, 5001);
  s.ack(1210 * ms, 4001);
  s.data(1210 * ms + 100, 6001);
  s.data(1210 * ms + 110, 7001);
  s.data(1510 * ms, 4001);
  s.data(2110 * ms, 4001);
  auto r = analyze(s, "thin-then-bulk", Profile::linux_kernel);
  const auto& c = client(r);
  for (const auto& f : findings(c, "5.5")) CHECK(f.level != Level::must);
  REQUIRE(findings(c, "setting").size() == 1);
  CHECK(findings(c, "setting")[0].frame == 10);
  CHECK(r.count(Level::must) == 0);
}

TEST_CASE("classify: in RTO recovery, a retransmission the peer shows lost is resent in fast recovery") {
  // SACK on both sides. [1,1001) at 200 ms, acknowledged at 300 ms; 1001,
  // 2001, 3001 at 400 ms (+10 us each). The timer resends 1001 at 1400 ms
  // (the expiry), its burst resends 2001 `gap` later. At 1500 ms the peer's
  // duplicate ACK of 1001 SACKs [2001,3001): 1001's retransmission, sent
  // before that SACKed resend, was lost (RACK without a reordering window,
  // as Linux in its Loss state), so the resend of 1001 1 ms later is a fast
  // retransmit (Linux FLAG_LOST_RETRANS: Loss -> Recovery). Sent in the
  // same microsecond (gap 0), the capture does not show 1001's resend the
  // earlier: no evidence, the resend is the slow start after the expiry.
  const auto make = [](std::int64_t gap) {
    Scenario s = base_scenario();
    s.sack_permitted = true;
    s.data(400 * ms + 20, 3001);
    s.data(1400 * ms, 1001);
    s.data(1400 * ms + gap, 2001);
    s.ack(1500 * ms, 1001, {{2001, 3001}});
    s.data(1501 * ms, 1001);
    return s;
  };
  auto lost = analyze(make(10), "lost-retransmission", Profile::linux_kernel);
  CHECK(count(client(lost), SendKind::timeout) == 1);
  CHECK(count(client(lost), SendKind::fast) == 1);
  CHECK(count(client(lost), SendKind::slow_start_after_rto) == 1);
  auto tie = analyze(make(0), "lost-retransmission-tie", Profile::linux_kernel);
  CHECK(count(client(tie), SendKind::fast) == 0);
  CHECK(count(client(tie), SendKind::slow_start_after_rto) == 2);
}

TEST_CASE("classify: a retransmission from before the latest expiry is no lost retransmission") {
  // As above with 3001 resent in the first burst too (1400.02 ms) and the
  // SACK at 1500 ms covering [3001,4001): 2001's resend of the first burst
  // went before it. Nothing more until the timer resends 1001 again at
  // 3400 ms (the second expiry, 2 s: doubled). An expiry marks every segment
  // lost afresh (Linux tcp_enter_loss): 2001's resend from the first burst
  // shows nothing about the second recovery. The peer acknowledges 2001 at
  // 3500 ms and 2001 goes again 1 ms later: the slow start after the second
  // expiry, not a fast retransmit.
  Scenario s = base_scenario();
  s.sack_permitted = true;
  s.data(400 * ms + 20, 3001);
  s.data(1400 * ms, 1001);
  s.data(1400 * ms + 10, 2001);
  s.data(1400 * ms + 20, 3001);
  s.ack(1500 * ms, 1001, {{3001, 4001}});
  s.data(3400 * ms, 1001);
  s.ack(3500 * ms, 2001, {{3001, 4001}});
  s.data(3501 * ms, 2001);
  auto r = analyze(s, "lost-retransmission-earlier", Profile::linux_kernel);
  CHECK(count(client(r), SendKind::timeout) == 2);
  CHECK(count(client(r), SendKind::fast) == 0);
  CHECK(count(client(r), SendKind::slow_start_after_rto) == 3);
}

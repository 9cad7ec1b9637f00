// The sender's view of its peer, which the capture's need not be: an ACK the
// capture saw may never have reached the sender (it resends what the ACK
// acknowledged), and a segment the capture saw first inside a hole may be a
// first transmission reordered before the capture point rather than a
// retransmission. Each case with its arithmetic, and beside it the
// departure that must still be caught. Frames are Wireshark's: 1-based.

#include <doctest/doctest.h>

#include "replay_scenario.hpp"

using namespace replaytest;
using replay::Interval;
using replay::Outcome;
using replay::Reading;
using replay::SendKind;
using replay::Topic;
using replay::Verdict;

namespace {

constexpr std::int64_t ms = 1000;  // microseconds per millisecond

// Handshake at 0 / 100 ms (R = 100 ms: SRTT 100, RTTVAR 50, RTO max(1 s,
// 100 + 4 x 50) = 1 s under RFC 6298). A [1,1001) at 1000 ms (frame 4)
// starts the timer (5.1); B [1001,2001) at 1010 ms (frame 5). Then, when
// `ack_captured`, the peer's ACK of A at 1100 ms (frame 6), which the
// sender shows it never received by resending A at `resend_ms` (frame 7 or
// 6); all acknowledged 100 ms later.
Scenario unheard_ack(bool ack_captured, std::int64_t resend_ms) {
  Scenario s;
  s.handshake(0, 100 * ms);
  s.data(1000 * ms, 1);
  s.data(1010 * ms, 1001);
  if (ack_captured) s.ack(1100 * ms, 1001);
  s.data(resend_ms * ms, 1);
  s.ack((resend_ms + 100) * ms, 2001);
  return s;
}

const replay::Judgement* with_topic(const replay::SenderReport& s, Topic t) {
  for (const auto& j : s.findings)
    if (j.topic == t) return &j;
  return nullptr;
}

// The resend (frame `frame`) read with the sender's state from before the
// ACK at `ack_frame` it did not receive, as `fast` fast retransmits in all:
// no timer, nothing spurious, no MUST, and the note naming both frames.
void check_unheard_fast(const replay::SenderReport& c, std::size_t fast, std::uint64_t frame,
                        std::uint64_t ack_frame) {
  CHECK(count(c, SendKind::fast) == fast);
  CHECK(count(c, SendKind::spurious) == 0);
  CHECK(c.timeouts.empty());
  const auto* n = with_topic(c, Topic::ack_unheard);
  REQUIRE(n);
  CHECK(n->frame == frame);
  CHECK(n->other_frame == ack_frame);
  CHECK(musts(c) == 0);
}

}  // namespace

TEST_CASE("an ACK the sender did not receive: its resend is timed from before that ACK") {
  SUBCASE("1 s after A's send: the RTO's expiry, on time (not 900 ms after the ACK: 5.3 from the capture's view)") {
    auto r = analyze(unheard_ack(true, 2000), "unheard-ok", Profile::rfc6298);
    const auto& c = client(r);
    CHECK(count(c, SendKind::timeout) == 1);
    CHECK(count(c, SendKind::spurious) == 0);
    REQUIRE(c.timeouts.size() == 1);
    CHECK(c.timeouts[0].frame == 7);
    CHECK(c.timeouts[0].verdict == Verdict::ok);
    CHECK(point_us(c.timeouts[0].wait) == 1'000'000);  // 2000 - 1000 ms: from A's send, not from the ACK
    const auto* n = with_topic(c, Topic::ack_unheard);
    REQUIRE(n);
    CHECK(n->frame == 7);
    CHECK(n->other_frame == 6);  // the ACK it did not receive
    CHECK(musts(c) == 0);
  }
  // 200 ms after A's send: before even the RTO without the 1 s floor (100 +
  // 4 x 37.5 = 250 ms, less 10 % and 1 ms: 224 ms), so 5.3/5.6, not 2.4.
  SUBCASE("200 ms after A's send: early even from there, but had it heard the ACK this was no expiry: cannot tell") {
    auto r = analyze(unheard_ack(true, 1200), "unheard-early", Profile::rfc6298);
    const auto& c = client(r);
    CHECK(musts(c) == 0);
    const auto js = findings(c, "5.3/5.6");
    REQUIRE(js.size() == 1);
    CHECK(js[0].outcome == Outcome::cannot_tell);
    CHECK(js[0].topic == Topic::readings_differ);
    REQUIRE(js[0].readings.size() == 2);
    CHECK(js[0].readings[0].reading == Reading::ack_unheard);
    CHECK_FALSE(js[0].readings[0].keeps);  // the rule broken under this reading
    CHECK(js[0].readings[1].reading == Reading::ack_heard);
    CHECK(js[0].readings[1].keeps);
  }
  SUBCASE("the same 200 ms with no ACK in the capture: MUST 5.3/5.6") {
    auto r = analyze(unheard_ack(false, 1200), "no-ack-early", Profile::rfc6298);
    const auto& c = client(r);
    const auto js = findings(c, "5.3/5.6");
    REQUIRE(js.size() == 1);
    CHECK(js[0].outcome == Outcome::broken);
    CHECK(js[0].frame == 6);
    CHECK(musts(c) == 1);
  }
}

TEST_CASE("an ACK the sender did not receive: the loss evidence it held before that ACK makes the resend RACK's") {
  // Handshake at 0 / 100 ms (SRTT 100, RTTVAR 50, RTO max(1 s, 100 + 4 x
  // 50) = 1 s), captured at the sender. A [1,1001) at 1000 ms, B
  // [1001,2001) at 1001, C [2001,3001) at 1002; the peer shows A missing,
  // then an ACK of everything (`ack_captured`, 1120 ms) that never reaches
  // the sender: it resends what that ACK covers at `resend_ms`. The loss
  // evidence is either two duplicate ACKs of 1 (1101, 1102 ms: B and C
  // arrived; fewer than three, so no fast retransmit yet) or, with A
  // delivered and B missing, one ACK of new data (1001) SACKing C at 1102 ms
  // (no duplicate ACK: the evidence is the SACK block alone). Either way
  // the segment sent after the missing one was delivered 100 ms after it
  // left, so RACK (RFC 8985 6.2) marks the missing one lost once SRTT plus
  // its reordering window has passed since its send: a resend 28 ms after
  // the last evidence (within SRTT = 100 ms of it) is RACK's, not a
  // timer's. That holds only with the evidence the sender had before the
  // ACK it did not receive (which reset both): the restore must bring back
  // the duplicate ACK count and the SACK evidence each on its own.
  const auto scenario = [](bool sack, bool ack_captured, std::int64_t resend_ms) {
    Scenario s;
    s.sack_permitted = sack;
    s.handshake(0, 100 * ms);
    s.data(1000 * ms, 1);
    s.data(1001 * ms, 1001);
    s.data(1002 * ms, 2001);
    if (sack) {
      s.ack(1102 * ms, 1001, {wire::SackBlock{2001, 3001}});
    } else {
      s.ack(1101 * ms, 1);
      s.ack(1102 * ms, 1);
    }
    if (ack_captured) s.ack(1120 * ms, 3001);
    s.data(resend_ms * ms, sack ? 1001 : 1);
    s.ack((resend_ms + 100) * ms, 3001);
    return s;
  };
  for (const bool sack : {false, true}) {
    CAPTURE(sack);
    const std::uint64_t ack_frame = sack ? 8 : 9;  // 3 handshake + 3 data + the evidence (1 or 2), then the ACK
    SUBCASE("28 ms after the evidence: RACK's resend, read from before the ACK the sender did not get") {
      auto r = analyze(scenario(sack, true, 1130), "unheard-rack", Profile::rfc6298);
      check_unheard_fast(client(r), 1, ack_frame + 1, ack_frame);
      // The same resend with no such ACK in the capture: RACK's too.
      auto plain = analyze(scenario(sack, false, 1130), "rack", Profile::rfc6298);
      CHECK(count(client(plain), SendKind::fast) == 1);
    }
    // 198 ms after the evidence (beyond SRTT): a timer's. With dupacks only
    // (no sample) the timer runs from A's send (1000 ms): 300 ms, the RTO
    // without its floor (100 + 4 x 50) but under the 1 s floor (2.4). The
    // ACK of new data restarts it (1102 ms) and gives A's sample of 102 ms
    // (RTTVAR 3/4 x 50 + 1/4 x 2 = 38, SRTT 100.25): 198 ms is under even
    // the RTO without the floor, 100.25 + 4 x 38 = 252.25 ms (5.3/5.6). With
    // the unheard ACK in the capture the other reading (heard: a repeat of
    // acknowledged data) keeps the rule: cannot tell.
    SUBCASE("198 ms after the evidence: the timer's, early; cannot tell with the unheard ACK, broken without") {
      const char* rule = sack ? "5.3/5.6" : "2.4";
      auto r = analyze(scenario(sack, true, 1300), "unheard-late", Profile::rfc6298);
      const auto& c = client(r);
      CHECK(count(c, SendKind::timeout) == 1);
      CHECK(musts(c) == 0);
      const auto js = findings(c, rule);
      REQUIRE(js.size() == 1);
      CHECK(js[0].frame == ack_frame + 1);
      CHECK(js[0].outcome == Outcome::cannot_tell);
      auto plain = analyze(scenario(sack, false, 1300), "late", Profile::rfc6298);
      const auto pj = findings(client(plain), rule);
      REQUIRE(pj.size() == 1);
      CHECK(pj[0].outcome == Outcome::broken);
      CHECK(musts(client(plain)) == (sack ? 1u : 0u));  // 2.4's floor is a SHOULD, 5.3/5.6 a MUST
    }
  }
}

TEST_CASE("an ACK the sender did not receive during fast recovery: the recovery it was in makes the resend the recovery's") {
  // Handshake at 0 / 100 ms (SRTT 100, RTO 1 s), captured at the sender,
  // no SACK. A-E [1,5001) at 1000-1004 ms (frames 4-8); A and C are lost:
  // B, D, E bring three duplicate ACKs of 1 (1101, 1103, 1104 ms), A is
  // resent at 1104.5 ms (frame 12: fast retransmit, RFC 5681 3.2; fast
  // recovery until 5001), and the partial ACK of 2001 at 1204.5 ms (frame
  // 13) leaves the sender in fast recovery with C the next hole (RFC 6582),
  // no duplicate ACK counted any more and no SACK: only the recovery state
  // says a loss is being repaired. C, delayed in the network, then arrives:
  // the ACK of 5001 at 1220 ms (frame 14, `ack_captured`) never reaches the
  // sender, which resends C at `resend_ms` (frame 15). At 1230 ms, 25.5 ms
  // after the partial ACK (within SRTT of it), the recovery's repair of the
  // next hole (RACK's reordering window, RFC 8985 6.2), not a timer's; at
  // 1400 ms, 195.5 ms after it, beyond SRTT: a timer restarted by the
  // partial ACK (5.3), firing 195.5 ms into a 1 s RTO: 5.3/5.6, cannot tell
  // with the unheard ACK (heard, it is a repeat of acknowledged data),
  // broken without. Read with the state before the ACK the sender did not
  // get only if the restore brings back the fast recovery.
  const auto scenario = [](bool ack_captured, std::int64_t resend_ms) {
    Scenario s;
    s.handshake(0, 100 * ms);
    for (std::uint32_t i = 0; i < 5; ++i) s.data((1000 + i) * ms, 1 + 1000 * i);
    s.ack(1101 * ms, 1);
    s.ack(1103 * ms, 1);
    s.ack(1104 * ms, 1);
    s.data(1104 * ms + 500, 1);
    s.ack(1204 * ms + 500, 2001);
    if (ack_captured) s.ack(1220 * ms, 5001);
    s.data(resend_ms * ms, 2001);
    s.ack((resend_ms + 100) * ms, 5001);
    return s;
  };
  SUBCASE("25.5 ms after the partial ACK: the recovery's, read from before the ACK the sender did not get") {
    auto r = analyze(scenario(true, 1230), "unheard-recovery", Profile::rfc6298);
    check_unheard_fast(client(r), 2, 15, 14);  // A's fast retransmit and C's
    CHECK(count(client(analyze(scenario(false, 1230), "recovery", Profile::rfc6298)), SendKind::fast) == 2);
  }
  SUBCASE("195.5 ms after it: a timer's, early; cannot tell with the unheard ACK, a MUST without") {
    auto r = analyze(scenario(true, 1400), "unheard-recovery-late", Profile::rfc6298);
    const auto& c = client(r);
    CHECK(count(c, SendKind::timeout) == 1);
    const auto js = findings(c, "5.3/5.6");
    REQUIRE(js.size() == 1);
    CHECK(js[0].frame == 15);
    CHECK(js[0].outcome == Outcome::cannot_tell);
    CHECK(musts(c) == 0);
    auto plain = analyze(scenario(false, 1400), "recovery-late", Profile::rfc6298);
    const auto pj = findings(client(plain), "5.3/5.6");
    REQUIRE(pj.size() == 1);
    CHECK(pj[0].frame == 14);
    CHECK(pj[0].outcome == Outcome::broken);
    CHECK(musts(client(plain)) == 1);
  }
}

TEST_CASE("an ACK the sender shows it received (its TSecr echoes it): a resend of what it acknowledged is spurious") {
  // Timestamps, 1 ms per tick on both sides. The ACK of A (frame 6) carries
  // TSval 5100, a window update after it (frame 7) 5120; C [2001,3001) at
  // 1150 ms echoes `c_tsecr`. Echoing 5120, newer than the ACK's, the sender
  // heard that ACK: A at 2000 ms is then a repeat of acknowledged data
  // (spurious), not an expiry. Echoing 5100 is no proof (a segment of the
  // same tick may have been received before it); 5000 (the SYN-ACK's) none.
  const auto scenario = [](std::uint32_t c_tsecr) {
    Scenario s;
    s.pkts.push_back({0, true, 0, 0, wire::kSyn, 0, 0u, 0u, {}});
    s.pkts.push_back({100 * ms, false, 0, 1, wire::kSyn | wire::kAck, 0, 5000u, 0u, {}});
    s.pkts.push_back({100 * ms + 10, true, 1, 1, wire::kAck, 0, 100u, 5000u, {}});
    s.pkts.push_back({1000 * ms, true, 1, 1, wire::kAck | wire::kPsh, 1000, 1000u, 5000u, {}});
    s.pkts.push_back({1010 * ms, true, 1001, 1, wire::kAck | wire::kPsh, 1000, 1010u, 5000u, {}});
    s.pkts.push_back({1100 * ms, false, 1, 1001, wire::kAck, 0, 5100u, 1000u, {}});
    s.pkts.push_back({1120 * ms, false, 1, 1001, wire::kAck, 0, 5120u, 1000u, {}});
    s.pkts.push_back({1150 * ms, true, 2001, 1, wire::kAck | wire::kPsh, 1000, 1150u, c_tsecr, {}});
    s.pkts.push_back({2000 * ms, true, 1, 1, wire::kAck | wire::kPsh, 1000, 2000u, c_tsecr, {}});
    s.pkts.push_back({2100 * ms, false, 1, 3001, wire::kAck, 0, 6100u, 2000u, {}});
    return s;
  };
  SUBCASE("TSecr 5120: heard") {
    auto r = analyze(scenario(5120), "heard", Profile::rfc6298);
    const auto& c = client(r);
    CHECK(count(c, SendKind::spurious) == 1);
    CHECK(c.timeouts.empty());
    CHECK(with_topic(c, Topic::ack_unheard) == nullptr);
  }
  for (const std::uint32_t tsecr : {5100u, 5000u}) {
    CAPTURE(tsecr);
    // Not shown heard: the resend is the timer's, 1 s after A.
    auto r = analyze(scenario(tsecr), "not-heard", Profile::rfc6298);
    const auto& c = client(r);
    CHECK(count(c, SendKind::spurious) == 0);
    REQUIRE(c.timeouts.size() == 1);
    CHECK(c.timeouts[0].frame == 9);
    CHECK(point_us(c.timeouts[0].wait) == 1'000'000);
    CHECK(musts(c) == 0);
  }
}

namespace {

// A capture at the receiver, 100 ms of round trip from the sender (the
// handshake shows it: SYN-ACK at 0.01 ms, the client's ACK 100 ms later).
// Linux, SACK and timestamps (the client's TSval: ms). B [1001,2001) and C
// [2001,3001) arrive at 1000 and 1000.1 ms (TSval 1100); A [1,1001) was not
// seen before them: a hole. The receiver SACKs B at 1000.05 ms (the first
// evidence of the hole), C at 1000.15 ms. A arrives at `a_ms` (in
// microseconds) with TSval `a_tsval` (none: no timestamps anywhere).
Scenario hole(std::int64_t a_us, std::optional<std::uint32_t> a_tsval) {
  Scenario s;
  s.sack_permitted = true;
  const bool ts = a_tsval.has_value();
  const auto tv = [&](std::uint32_t v) { return ts ? std::optional<std::uint32_t>{v} : std::nullopt; };
  s.pkts.push_back({0, true, 0, 0, wire::kSyn, 0, tv(0), tv(0), {}});
  s.pkts.push_back({10, false, 0, 1, wire::kSyn | wire::kAck, 0, tv(9000), tv(0), {}});
  s.pkts.push_back({100 * ms, true, 1, 1, wire::kAck, 0, tv(100), tv(9000), {}});
  s.pkts.push_back({1000 * ms, true, 1001, 1, wire::kAck, 1000, tv(1100), tv(9000), {}});
  s.pkts.push_back({1000 * ms + 50, false, 1, 1, wire::kAck, 0, tv(9900), tv(100), {{1001, 2001}}});
  s.pkts.push_back({1000 * ms + 100, true, 2001, 1, wire::kAck, 1000, tv(1100), tv(9000), {}});
  s.pkts.push_back({1000 * ms + 150, false, 1, 1, wire::kAck, 0, tv(9900), tv(100), {{1001, 3001}}});
  s.pkts.push_back({a_us, true, 1, 1, wire::kAck, 1000, a_tsval, tv(9000), {}});
  s.pkts.push_back({a_us + 50, false, 1, 3001, wire::kAck, 0, tv(10000), a_tsval, {}});
  return s;
}

std::size_t retransmissions(const replay::SenderReport& s) {
  std::size_t n = 0;
  for (SendKind k : {SendKind::timeout, SendKind::fast, SendKind::tlp, SendKind::slow_start_after_rto,
                     SendKind::unclassified, SendKind::spurious})
    n += count(s, k);
  return n;
}

}  // namespace

TEST_CASE("a segment first seen inside a hole: reordered when sent before what lies beyond, resent when after") {
  // The sender's clock overrides the timing (below) both ways.
  SUBCASE("an older TSval (1099 < 1100) 80 ms after the SACK: sent before B, reordered on the way") {
    auto r = analyze(hole(1080 * ms, 1099), "hole-older-ts", Profile::linux_kernel);
    CHECK(count(client(r), SendKind::out_of_order) == 1);
    CHECK(retransmissions(client(r)) == 0);
  }
  SUBCASE("a newer TSval (1101) 10 ms after the SACK: sent after B, so not B's predecessor reordered") {
    auto r = analyze(hole(1010 * ms, 1101), "hole-newer-ts", Profile::linux_kernel);
    CHECK(count(client(r), SendKind::out_of_order) == 0);
    CHECK(retransmissions(client(r)) == 1);
  }
  SUBCASE("the same TSval as B (one tick): the timing decides, 1 ms after B is reordering") {
    auto r = analyze(hole(1001 * ms, 1100), "hole-same-ts", Profile::linux_kernel);
    CHECK(count(client(r), SendKind::out_of_order) == 1);
  }
  // No timestamps: the timing alone. The sender learns of the hole from the
  // SACK at 1000.05 ms and its response reaches the capture one round trip
  // (100 ms) later at best; the engine takes a fill sooner than half of it
  // (response_floor: 50 ms, at 1050.05 ms) after the SACK as reordering.
  SUBCASE("no timestamps: 49.9 ms after the SACK, reordered") {
    auto r = analyze(hole(1049'950, std::nullopt), "hole-notimes-before", Profile::linux_kernel);
    CHECK(count(client(r), SendKind::out_of_order) == 1);
    CHECK(retransmissions(client(r)) == 0);
  }
  SUBCASE("no timestamps: 50 ms after the SACK, a retransmission") {
    auto r = analyze(hole(1050'050, std::nullopt), "hole-notimes-after", Profile::linux_kernel);
    CHECK(count(client(r), SendKind::out_of_order) == 0);
    CHECK(retransmissions(client(r)) == 1);
  }
}

TEST_CASE("Karn as the sender applies it: an ACK it processed after resending what it acknowledges gives no sample") {
  // Captured at the sender (the client's ACK 10 us after the SYN-ACK: a
  // response time below kCaptureAtSender, 1 ms). A [1,1001) at 1000 ms,
  // its ACK at 1050 ms (R' = 50 ms), A again `resend_us` after that ACK.
  // Within 1 ms the sender had not taken the ACK in when it resent A: the
  // ACK then covers a retransmission (section 3), no sample. Later, the
  // timing says it had, and the sample stands; but a sender never resends
  // below the SND.UNA it knows, so the resend shows that ACK never reached
  // its TCP (dropped inside the host): the last ACK, of A resent, is the
  // one it processed, and gives no sample (ambiguous) in both cases.
  const auto scenario = [](std::int64_t resend_us) {
    Scenario s;
    s.handshake(0, 100 * ms);
    s.data(1000 * ms, 1);
    s.ack(1050 * ms, 1001);
    s.data(1050 * ms + resend_us, 1);
    s.ack(1150 * ms + resend_us, 1001);
    return s;
  };
  auto within = analyze(scenario(900), "karn-at-sender-void", Profile::rfc6298);
  CHECK(client(within).samples_seq == 1);  // the handshake's only
  CHECK(client(within).ambiguous_acks == 1);
  // No duplicate ACK, and the one segment from the peer in the response
  // window is the ACK read as not yet received: no fast retransmit.
  CHECK(count(client(within), SendKind::fast) == 0);
  // Read with the ACK unheard, the resend is an expiry 50.9 ms after A's
  // send, far before the 1 s RTO; read with it heard, no expiry at all:
  // cannot tell, in the expiry's record as in its finding.
  REQUIRE(client(within).timeouts.size() == 1);
  CHECK(client(within).timeouts[0].verdict == Verdict::cannot_tell);
  CHECK(client(within).timeouts[0].verdict != Verdict::early);
  auto after = analyze(scenario(1'100), "karn-at-sender-kept", Profile::rfc6298);
  CHECK(client(after).samples_seq == 2);  // the handshake's and A's 50 ms
  CHECK(client(after).ambiguous_acks == 1);
}

TEST_CASE("Karn as the sender applies it: the samples of the 4 latest ACKs are held, a fifth takes the oldest as it is") {
  // A capture at the receiver: the client's ACK of the SYN-ACK 50 ms after
  // it, so an ACK captured here reaches the client up to 49.99 ms later
  // (50 ms - 10 us). `n` segments [1 + 1000 i, 1001 + 1000 i) at 1000 +
  // 0.1 i ms, each acknowledged 50 us after it (A0 .. A(n-1): every one a
  // sample, held until the client must have taken it), then segment 0
  // again at 1030 ms, before A0 (1000.05 ms + 49.99 ms = 1050.04 ms) can
  // have reached the client: every held sample is of an ACK it processed
  // after that resend, none is taken (Karn, 3), each ACK ambiguous once.
  // The engine holds 4 (kPendingSamplesKept): at A4 the oldest, A0's,
  // is taken as it is. Then everything acknowledged 50 us after the resend.
  const auto scenario = [](std::uint32_t n) {
    Scenario s;
    s.handshake_at_receiver(50 * ms);
    for (std::uint32_t i = 0; i < n; ++i) {
      s.data(1000 * ms + 100 * i, 1 + 1000 * i);
      s.ack(1000 * ms + 100 * i + 50, 1001 + 1000 * i);
    }
    s.data(1030 * ms, 1);
    s.ack(1030 * ms + 50, 1 + 1000 * n);
    return s;
  };
  // n = 4: all four held and voided; the handshake's sample only.
  auto four = analyze(scenario(4), "pending-4", Profile::rfc6298);
  CHECK(client(four).samples_seq == 1);
  CHECK(client(four).ambiguous_acks == 4);
  // n = 5: A0's sample taken at A4, A1-A4 voided.
  auto five = analyze(scenario(5), "pending-5", Profile::rfc6298);
  CHECK(client(five).samples_seq == 2);
  CHECK(client(five).ambiguous_acks == 4);
}

TEST_CASE("an ACK the sender answered (new data within the ACK clock's 2 ms) was received: a resend of what it acknowledged is spurious") {
  // A [1,1001) at 1000 ms, B [1001,2001) at 1010 ms; the ACK of A at
  // 1100 ms (frame 6); C [2001,3001) 1 ms after it: the sender's response
  // to that very ACK, so it had it. A again at 2000 ms repeats
  // acknowledged data: spurious, not an expiry timed from before the ACK.
  Scenario s = unheard_ack(true, 2000);
  s.pkts.insert(s.pkts.begin() + 6, Pkt{1101 * ms, true, 2001, 1, wire::kAck | wire::kPsh, 1000, {}, {}, {}});
  auto r = analyze(s, "answered-ack", Profile::rfc6298);
  const auto& c = client(r);
  CHECK(count(c, SendKind::spurious) == 1);
  CHECK(c.timeouts.empty());
  CHECK(with_topic(c, Topic::ack_unheard) == nullptr);
}

namespace {

// Once a resend showed an ACK unheard, the path after the capture point
// holds ACKs. The unheard_ack scenario's ACKs of A and B (frames 6, 7 at
// 1100 and 1110 ms) unheard: A resent at 2000 ms (frame 8, its RTO's
// expiry, 1 s after A) shows it; all acknowledged at 2100 ms (frame 9;
// Karn: no sample, the backed-off RTO of 2 s stays). Then a train at
// `c_us`: C [2001,3001) (frame 10), C' [3001,4001) 150 us later (frame
// 11), the ACK of both 100 us after that (frame 12), D [4001,5001) 50 us
// after the ACK (frame 13: back-to-back with C', 300 us after C, beyond
// kResponseTrain's 200 us from the train's first); with `gap`, D 1 ms
// after the ACK instead. And C again 2 s after it (frame 14).
Scenario held_then_answered(std::int64_t c_us, bool gap = false) {
  Scenario s;
  s.handshake(0, 100 * ms);
  s.data(1000 * ms, 1);
  s.data(1010 * ms, 1001);
  s.ack(1100 * ms, 1001);
  s.ack(1110 * ms, 2001);
  s.data(2000 * ms, 1);
  s.ack(2100 * ms, 2001);
  s.data(c_us, 2001);
  s.data(c_us + 150, 3001);
  s.ack(c_us + 250, 4001);
  s.data(c_us + (gap ? 1250 : 300), 4001);
  s.data(c_us + 2000 * ms, 2001);
  return s;
}

}  // namespace

TEST_CASE("after a resend showed an ACK unheard, a back-to-back train answers no ACK between its segments") {
  // Frame 13 comes 50 us after frame 12, as an answer to it would; but it is
  // 150 us after frame 11, C' (within kResponseTrain: sent with it), and
  // frame 8 showed the path after the capture point holding ACKs from
  // frame 6 (1100 ms) on, a hold read as lasting while the states before
  // ACKs are kept (2 x the RTO, at least 1 s: 4 s here). So the train goes
  // on and shows nothing heard: C resent at 4200 ms (frame 14) is the RTO's
  // expiry read from before frame 12, 2000 ms after C (the backed-off 2 s),
  // not spurious.
  auto r = analyze(held_then_answered(2200 * ms), "held-train", Profile::rfc6298);
  const auto& c = client(r);
  CHECK(count(c, SendKind::spurious) == 0);
  REQUIRE(c.timeouts.size() == 2);
  CHECK(c.timeouts[1].frame == 14);
  CHECK(point_us(c.timeouts[1].wait) == 2'000'000);
  CHECK(musts(c) == 0);
  // D 1 ms after the ACK (1.1 ms after C'): no train; it answers frame 12,
  // which the sender then heard, hold or not: C again is spurious.
  auto quiet = analyze(held_then_answered(2200 * ms, true), "held-quiet", Profile::rfc6298);
  CHECK(count(client(quiet), SendKind::spurious) == 1);
  CHECK(client(quiet).timeouts.size() == 1);
  // The hold read as lasting 4 s from frame 6 (1100 ms), to 5100 ms: the
  // train at 5099.7 ms, D at 5100 ms, is in it; at 5099.75 ms, D at
  // 5100.05 ms, past it: D answers frame 12, and C again is spurious.
  auto in = analyze(held_then_answered(5099 * ms + 700), "held-last", Profile::rfc6298);
  CHECK(count(client(in), SendKind::spurious) == 0);
  CHECK(client(in).timeouts.size() == 2);
  auto past = analyze(held_then_answered(5099 * ms + 750), "held-past", Profile::rfc6298);
  CHECK(count(client(past), SendKind::spurious) == 1);
  CHECK(client(past).timeouts.size() == 1);
}

TEST_CASE("a hole filled with B's TSval but a TSecr echoing the peer's SACK was sent after it: a retransmission") {
  // As "the same TSval as B" above (1 ms after B, TSval 1100: the timing
  // alone says reordering), but A echoes TSval 9900, the SACK's: the sender
  // had received the SACK (sent after B, whose TSecr is 9000) when it sent
  // A, so A is no first transmission seen late.
  Scenario s = hole(1001 * ms, 1100);
  s.pkts[7].tsecr = 9900u;
  auto r = analyze(s, "hole-newer-tsecr", Profile::linux_kernel);
  CHECK(count(client(r), SendKind::out_of_order) == 0);
  CHECK(retransmissions(client(r)) == 1);
}

TEST_CASE("an ACK the sender did not receive before its third duplicate ACK: the resend is a fast retransmit") {
  // A capture at the receiver, 100 ms of round trip from the sender (as
  // `hole` above), SACK, no timestamps. A [1,1001) is delayed in the
  // network: B, C, D arrive first (1000, 1000.1, 1000.2 ms) and each is
  // answered with a duplicate ACK of 1 SACKing it (1000.05, 1000.15,
  // 1000.25 ms: the third duplicate ACK). A arrives at 1002 ms (2 ms after
  // B, far under the 100 ms the sender needs to answer anything: a first
  // transmission reordered) and is acknowledged with all of D at 1002.05 ms
  // (frame 11). The sender resends A at 1100.25 ms (frame 12): 100 ms after
  // the third duplicate ACK, the sender's response to it (RFC 5681 3.2), and
  // 98.2 ms after the ACK of A, before that ACK can have reached the sender
  // (it is 100 ms away by the round trip). Read from the capture alone, a
  // resend of acknowledged data (spurious); read with the sender's state
  // before that ACK, a fast retransmit: the sender's reading is the one kept.
  Scenario s;
  s.sack_permitted = true;
  s.handshake_at_receiver(100 * ms);
  for (std::uint32_t i = 0; i < 3; ++i) {
    const std::int64_t t = 1000 * ms + i * 100;
    s.pkts.push_back({t, true, 1001 + i * 1000, 1, wire::kAck, 1000, {}, {}, {}});
    s.pkts.push_back({t + 50, false, 1, 1, wire::kAck, 0, {}, {}, {{1001, 2001 + i * 1000}}});
  }
  s.pkts.push_back({1002 * ms, true, 1, 1, wire::kAck, 1000, {}, {}, {}});
  s.pkts.push_back({1002 * ms + 50, false, 1, 4001, wire::kAck, 0, {}, {}, {}});
  s.pkts.push_back({1100 * ms + 250, true, 1, 1, wire::kAck, 1000, {}, {}, {}});
  s.pkts.push_back({1100 * ms + 300, false, 1, 4001, wire::kAck, 0, {}, {}, {}});
  for (auto p : {Profile::linux_kernel, Profile::rfc6298}) {
    CAPTURE(p);
    auto r = analyze(s, "unheard-fast", p);
    check_unheard_fast(client(r), 1, 12, 11);
    CHECK(r.count(replay::Level::must) == 0);
  }
}

TEST_CASE("a segment the sender resends again soon after an expiry, below the capture's SND.UNA: a timer's, not its burst's") {
  // unheard_ack: A at 1000 ms, B at 1010 ms, the ACK of A at 1100 ms
  // (frame 6) that the sender never heard; A resent at 2000 ms (frame 7):
  // the RTO's expiry, 1 s after A's send. A again at 2400 ms (frame 8),
  // nothing from the peer between: within half of the 1 s wait (a burst's
  // time) but a go-back-N burst sends each segment once, and A was resent
  // at 2000 ms: a second expiry, 400 ms after the first, not doubled (5.5
  // expects 2 s, accepted from 2 x 999 / 1.1 - 1 = 1815 ms).
  // The capture's ledger holds nothing below its SND.UNA (2001 after frame 6):
  // what the burst resent is kept apart from it.
  Scenario s;
  s.handshake(0, 100 * ms);
  s.data(1000 * ms, 1);
  s.data(1010 * ms, 1001);
  s.ack(1100 * ms, 1001);
  s.data(2000 * ms, 1);
  s.data(2400 * ms, 1);
  auto r = analyze(s, "burst-below-una", Profile::rfc6298);
  const auto& c = client(r);
  CHECK(count(c, SendKind::slow_start_after_rto) == 0);
  REQUIRE(c.timeouts.size() == 2);
  CHECK(c.timeouts[1].frame == 8);
  CHECK(point_us(c.timeouts[1].wait) == 400'000);
  REQUIRE_FALSE(findings(c, "5.5").empty());
  CHECK(findings(c, "5.5")[0].frame == 8);
}

TEST_CASE("two ACKs the sender did not receive: a resend below both shows neither heard") {
  // A capture at the receiver, 800 ms of round trip (SYN-ACK 10 us after
  // the SYN, the client's ACK 800 ms later). A [1,1001) and B [1001,2001)
  // at 1000 and 1000.01 ms; their ACKs at 1000.1 and 1000.11 ms (frames 6,
  // 7), neither of which reaches the sender: it resends A at 2000 ms (frame
  // 8; 1 s after its send, the initial RTO) and again at 3000 ms (frame 9):
  // 1 s after the first expiry, not doubled (2 s), MUST 5.5. Both resends
  // are within the ACK clock's window of the second ACK (1.5 x 800 + 2 ms):
  // timing alone would say the sender heard it; the resend of A, which both
  // acknowledge, says it heard neither.
  Scenario s;
  s.handshake_at_receiver(800 * ms);
  s.data(1000 * ms, 1);
  s.data(1000 * ms + 10, 1001);
  s.ack(1000 * ms + 100, 1001);
  s.ack(1000 * ms + 110, 2001);
  s.data(2000 * ms, 1);
  s.data(3000 * ms, 1);
  auto r = analyze(s, "two-unheard", Profile::rfc6298);
  const auto& c = client(r);
  CHECK(count(c, SendKind::spurious) == 0);
  REQUIRE(c.timeouts.size() == 2);
  REQUIRE_FALSE(findings(c, "5.5").empty());
  CHECK(findings(c, "5.5")[0].frame == 9);
}

TEST_CASE("a FIN resent after the capture saw it acknowledged is a retransmission, not a keep-alive") {
  // A capture at the receiver, 800 ms of round trip (SYN-ACK 10 us after the
  // SYN, the client's ACK 800 ms later): the ACK clock's window is 1.5 x 800
  // + 2 = 1202 ms. A [1,1001) at 1000 ms, acknowledged at 1000.1 ms; the
  // FIN (sequence 1001) at 2000 ms, acknowledged at 2000.1 ms (frame 7), an
  // ACK the sender never hears: the FIN again at 3000, 4000, 5000 ms (frames
  // 8-10), 1 s apart, never doubled: MUST 5.5 at frames 9 and 10 (the
  // first fits the RTO the samples allow at this capture point, 1 s or
  // more: each later one is due at twice it). Frame 8 comes 999.9 ms after the
  // ACK, inside the window: by timing an answer to it; but it resends what
  // that ACK acknowledged. A FIN is one sequence number at SND.UNA - 1 with
  // nothing outstanding, as a keep-alive's byte is; a keep-alive carries no FIN.
  Scenario s;
  s.handshake_at_receiver(800 * ms);
  s.data(1000 * ms, 1);
  s.ack(1000 * ms + 100, 1001);
  const auto fin = [&](std::int64_t t) {
    s.pkts.push_back({t, true, 1001, 1, wire::kAck | wire::kFin, 0, {}, {}, {}});
  };
  fin(2000 * ms);
  s.ack(2000 * ms + 100, 1002);
  for (std::int64_t t : {3000, 4000, 5000}) fin(t * ms);
  auto r = analyze(s, "fin-unheard", Profile::rfc6298);
  const auto& c = client(r);
  CHECK(c.keepalives == 0);
  CHECK(count(c, SendKind::spurious) == 0);
  const auto f = findings(c, "5.5");
  REQUIRE(f.size() == 2);
  CHECK(f[0].frame == 9);
  CHECK(f[1].frame == 10);
}

TEST_CASE("a later expiry early only if an ACK went unheard: recorded cannot-tell, as its finding") {
  // Captured at the sender (handshake R = 100 ms: RTO 1 s). A [1,1001) at
  // 1000 ms; expiry 1 resends it at 2000 ms (frame 5, on time); the ACK of A
  // at 2100 ms (frame 6); A again at 2500 ms (frame 7). Read with that ACK
  // unheard, expiry 2 after 500 ms where 2 s is due (5.5 broken); read with
  // it heard, a resend of acknowledged data and no expiry: cannot tell.
  Scenario s;
  s.handshake(0, 100 * ms);
  s.data(1000 * ms, 1);
  s.data(2000 * ms, 1);
  s.ack(2100 * ms, 1001);
  s.data(2500 * ms, 1);
  auto r = analyze(s, "later-unheard", Profile::rfc6298);
  const auto& c = client(r);
  REQUIRE(c.timeouts.size() == 2);
  CHECK(c.timeouts[1].frame == 7);
  CHECK(c.timeouts[1].verdict == Verdict::cannot_tell);
  CHECK(r.count(replay::Level::must) == 0);
}

namespace {

// A delay spike after the capture point, at the receiver: timestamps at 1
// ms per tick on both sides; the client's segments all echo the SYN-ACK's
// TSval (9000), so it heard none of the server's ACKs (RFC 7323: TS.Recent
// moves on every segment it accepts). Data i [1 + 1000 i, 1001 + 1000 i) at
// 1000 + i ms (TSval 1000 + i), its ACK 50 us later (TSval 10000 + i), for
// i < n; then the client resends segment `resent` at `resend_ms`, and the
// server acknowledges everything 50 us later.
// Without `timestamps`, the same with no TSval anywhere, and data i every
// `every_ms` (more than the ACK clock's 2 ms: no segment answers an ACK).
Scenario spike(std::uint32_t n, std::uint32_t resent, std::int64_t resend_ms, bool timestamps = true,
               std::int64_t every_ms = 1) {
  Scenario s;
  const auto tv = [&](std::uint32_t v) { return timestamps ? std::optional<std::uint32_t>{v} : std::nullopt; };
  s.pkts.push_back({0, true, 0, 0, wire::kSyn, 0, tv(0), tv(0), {}});
  s.pkts.push_back({10, false, 0, 1, wire::kSyn | wire::kAck, 0, tv(9000), tv(0), {}});
  s.pkts.push_back({1 * ms, true, 1, 1, wire::kAck, 0, tv(1), tv(9000), {}});
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::int64_t t = (1000 + every_ms * i) * ms;
    const auto tick = static_cast<std::uint32_t>(every_ms * i);  // both clocks at 1 kHz
    s.pkts.push_back({t, true, 1 + 1000 * i, 1, wire::kAck | wire::kPsh, 1000, tv(1000 + tick), tv(9000), {}});
    s.pkts.push_back({t + 50, false, 1, 1001 + 1000 * i, wire::kAck, 0, tv(10000 + tick), tv(1000 + tick), {}});
  }
  const auto r_ticks = static_cast<std::uint32_t>(resend_ms);
  s.pkts.push_back({resend_ms * ms, true, 1 + 1000 * resent, 1, wire::kAck | wire::kPsh, 1000, tv(r_ticks), tv(9000), {}});
  s.pkts.push_back({resend_ms * ms + 50, false, 1, 1 + 1000 * n, wire::kAck, 0, tv(9000 + r_ticks), tv(r_ticks), {}});
  return s;
}

}  // namespace

TEST_CASE("a delay spike holds ten ACKs the capture saw: the head resent 1 s after it was sent is the RTO's, not spurious") {
  // TSecr 9000 in every client segment: none of the ten ACKs (TSval 10000
  // to 10009) reached it, so its SND.UNA is still 1 and its timer runs from
  // segment 0 (5.1, 1000 ms). Segment 0 again at 2000 ms: the expiry, 1000
  // ms after the arm = the RTO (RFC 6298: 1 s floor; the handshake's sample
  // is far below it). The state kept for the oldest of the ten ACKs (six
  // beyond the four newest) is what the resend is read from; without it, the
  // resend of data the capture saw acknowledged would be called spurious.
  auto r = analyze(spike(10, 0, 2000), "spike-10", Profile::rfc6298);
  const auto& c = client(r);
  CHECK(count(c, SendKind::spurious) == 0);
  REQUIRE(c.timeouts.size() == 1);
  CHECK(c.timeouts[0].frame == 3 + 2 * 10 + 1);
  CHECK(point_us(c.timeouts[0].wait) == 1'000'000);
  CHECK(c.timeouts[0].verdict == Verdict::ok);
  CHECK(musts(c) == 0);
  const auto* n = with_topic(c, Topic::ack_unheard);
  REQUIRE(n);
  CHECK(n->other_frame == 5);  // the ACK of segment 0, the oldest unheard
}

TEST_CASE("a delay spike: past 4 + 256 unheard ACKs, the oldest 256 and the newest 4 are kept, not those between") {
  // 261 ACKs held (indexes 0-260, all newer than the client's TSecr): the
  // ring keeps the 4 newest (257-260), the older ones the 256 oldest
  // (0-255); ACK 256's state is the one dropped. Segment 255 resent at 2300
  // ms (ACK 255 first acknowledged it): it is read from a kept state (from
  // before ACK 0, the oldest the TSecr shows unheard), not spurious.
  // Segment 256 resent instead: the state of the ACK that first
  // acknowledged it is gone, and the resend of data the capture saw
  // acknowledged is spurious.
  auto kept = analyze(spike(261, 255, 2300), "spike-255", Profile::rfc6298);
  CHECK(count(client(kept), SendKind::spurious) == 0);
  const auto* n = with_topic(client(kept), Topic::ack_unheard);
  REQUIRE(n);
  CHECK(n->other_frame == 5);  // ACK 0's frame: the oldest the TSecr shows unheard
  auto dropped = analyze(spike(261, 256, 2300), "spike-256", Profile::rfc6298);
  CHECK(count(client(dropped), SendKind::spurious) == 1);
  CHECK(client(dropped).timeouts.empty());
  // Segment 257 resent instead: ACK 257, the oldest of the ring's 4, first
  // acknowledged it: kept, the resend read as segment 255's.
  auto ring = analyze(spike(261, 257, 2300), "spike-257", Profile::rfc6298);
  CHECK(count(client(ring), SendKind::spurious) == 0);
  const auto* m = with_topic(client(ring), Topic::ack_unheard);
  REQUIRE(m);
  CHECK(m->other_frame == 5);
}

TEST_CASE("unheard ACKs beyond the ring are dropped after twice the RTO, and never sooner than 1 s") {
  // No timestamps. Data i [1 + 1000 i, 1001 + 1000 i) every 10 ms from
  // 1000 ms (i < 10) and its ACK 50 us later: never within the ACK clock's
  // 2 ms of an answer, so all ten ACKs are kept (four in the ring, six
  // beyond it). Then segment 10 at `late_ms` and its ACK 50 us later (the
  // ACK that drops the old ones), and segment 0 (which ACK 0, at 1000.05 ms,
  // acknowledged) resent 1 ms after it.
  const auto scenario = [](std::int64_t late_ms) {
    Scenario s;
    s.handshake(0, 100 * ms);
    for (std::uint32_t i = 0; i < 10; ++i) {
      s.data((1000 + 10 * i) * ms, 1 + 1000 * i);
      s.ack((1000 + 10 * i) * ms + 50, 1001 + 1000 * i);
    }
    s.data(late_ms * ms, 10001);
    s.ack(late_ms * ms + 50, 11001);
    s.data((late_ms + 1) * ms, 1);
    s.ack((late_ms + 1) * ms + 50, 11001);
    return s;
  };
  // RFC 6298: the RTO is 1 s (2.4's floor over samples of 50 us): kept for
  // 2 x 1 s. ACK 0 (1000.05 ms) is 1900 ms old at the ACK at 2900.05 ms:
  // kept, the resend read from before it (a late expiry, not spurious);
  // 2100 ms at 3100.05 ms: dropped, the resend spurious.
  CHECK(count(client(analyze(scenario(2900), "kept-2rto", Profile::rfc6298)), SendKind::spurious) == 0);
  CHECK(count(client(analyze(scenario(3100), "dropped-2rto", Profile::rfc6298)), SendKind::spurious) == 1);
  // Linux: an RTO of 200 ms + a jiffy (rto_min), twice that 408 ms, below
  // RFC 6298's 1 s, which holds: 900 ms old (at 1900.05 ms) kept, 1100 ms
  // (at 2100.05 ms) dropped.
  CHECK(count(client(analyze(scenario(1900), "kept-1s", Profile::linux_kernel)), SendKind::spurious) == 0);
  CHECK(count(client(analyze(scenario(2100), "dropped-1s", Profile::linux_kernel)), SendKind::spurious) == 1);
}

TEST_CASE("unheard ACKs beyond the ring are dropped once the newest ACK is over 2^30 bytes past them") {
  // spike(6, 0, 2000) but with a hole in the capture: segment 5 ends at
  // `end` (the client's data between 5001 and it not captured), A5
  // acknowledges it. A0 (SND.UNA 1 before it) left the ring at A4; at A5 it
  // is end - 1 bytes behind the newest ACK: kept up to 2^30 (a quarter of
  // the sequence space, kUnheardAckSpan), dropped past it, though the
  // client's TSecr (9000) shows it unheard. Segment 0 resent at 2000 ms:
  // read from before A0, the RTO's expiry 1000 ms after segment 0 started
  // the timer (5.1; RFC 6298: 1 s), or, A0 dropped, data the capture saw
  // acknowledged sent again: spurious.
  const auto scenario = [](std::uint32_t end) {
    Scenario s;
    s.pkts.push_back({0, true, 0, 0, wire::kSyn, 0, 0u, 0u, {}});
    s.pkts.push_back({10, false, 0, 1, wire::kSyn | wire::kAck, 0, 9000u, 0u, {}});
    s.pkts.push_back({1 * ms, true, 1, 1, wire::kAck, 0, 1u, 9000u, {}});
    for (std::uint32_t i = 0; i < 6; ++i) {
      const std::int64_t t = (1000 + i) * ms;
      const std::uint32_t seq = i < 5 ? 1 + 1000 * i : end - 1000;
      s.pkts.push_back({t, true, seq, 1, wire::kAck | wire::kPsh, 1000, 1000 + i, 9000u, {}});
      s.pkts.push_back({t + 50, false, 1, seq + 1000, wire::kAck, 0, 10000 + i, 1000 + i, {}});
    }
    s.pkts.push_back({2000 * ms, true, 1, 1, wire::kAck | wire::kPsh, 1000, 2000u, 9000u, {}});
    s.pkts.push_back({2000 * ms + 50, false, 1, end, wire::kAck, 0, 11000u, 2000u, {}});
    return s;
  };
  constexpr std::uint32_t span = std::uint32_t{1} << 30;
  // A5 = 1 + 2^30: exactly 2^30 past A0's SND.UNA, kept.
  auto kept = analyze(scenario(1 + span), "span-kept", Profile::rfc6298);
  CHECK(count(client(kept), SendKind::spurious) == 0);
  REQUIRE(client(kept).timeouts.size() == 1);
  CHECK(point_us(client(kept).timeouts[0].wait) == 1'000'000);
  const auto* n = with_topic(client(kept), Topic::ack_unheard);
  REQUIRE(n);
  CHECK(n->other_frame == 5);  // A0
  // A5 = 2 + 2^30: one byte further, dropped.
  auto dropped = analyze(scenario(2 + span), "span-dropped", Profile::rfc6298);
  CHECK(count(client(dropped), SendKind::spurious) == 1);
  CHECK(client(dropped).timeouts.empty());
}

namespace {

// Linux, a capture at the receiver (the handshake's round trip from it to
// the client and back: `rtt_us`). S0, S1, S2 [1 + 1000 i, 1001 + 1000 i) at
// 1000, 1000.1, 1000.2 ms, each acknowledged 50 us after it (A0, A1, A2:
// frames 5, 7, 9); then S2 again at `resend_us`, and everything
// acknowledged 50 us later. With timestamps (1 ms ticks): the client's
// TSvals 1000.., the server's ACKs 10000, 10001, 10002, and the resend
// echoes `tsecr`; without, none anywhere. `resent`: which segment is sent
// again; without `acks`, the capture does not have A0-A2.
Scenario three_acks(std::int64_t resend_us, std::optional<std::uint32_t> tsecr, std::int64_t rtt_us,
                    std::uint32_t resent = 2, bool acks = true) {
  Scenario s;
  s.sack_permitted = true;
  const bool ts = tsecr.has_value();
  const auto tv = [&](std::uint32_t v) { return ts ? std::optional<std::uint32_t>{v} : std::nullopt; };
  s.pkts.push_back({0, true, 0, 0, wire::kSyn, 0, tv(0), tv(0), {}});
  s.pkts.push_back({10, false, 0, 1, wire::kSyn | wire::kAck, 0, tv(9000), tv(0), {}});
  s.pkts.push_back({rtt_us, true, 1, 1, wire::kAck, 0, tv(10), tv(9000), {}});
  for (std::uint32_t i = 0; i < 3; ++i) {
    const std::int64_t t = 1000 * ms + 100 * i;
    s.pkts.push_back({t, true, 1 + 1000 * i, 1, wire::kAck | wire::kPsh, 1000, tv(1000), tv(9000), {}});
    if (acks) s.pkts.push_back({t + 50, false, 1, 1001 + 1000 * i, wire::kAck, 0, tv(10000 + i), tv(1000), {}});
  }
  s.pkts.push_back({resend_us, true, 1 + 1000 * resent, 1, wire::kAck | wire::kPsh, 1000,
                    tv(static_cast<std::uint32_t>(resend_us / 1000)), tsecr, {}});
  s.pkts.push_back({resend_us + 50, false, 1, 3001, wire::kAck, 0, tv(10100), tv(1100), {}});
  return s;
}

}  // namespace

TEST_CASE("the sender's TSecr names the first ACK it did not hear: the resend is read from before it") {
  const std::int64_t resend = 1000 * ms + 200 + 30 * ms;  // S2 again 30 ms after it
  // TSecr 9000 (the SYN-ACK's): A0, A1, A2 all unheard: three segments out
  // in the client's view, S2 the highest and not the head: a loss probe.
  const auto all = analyze(three_acks(resend, 9000u, 10 * ms), "tsecr-all", Profile::linux_kernel);
  CHECK(count(client(all), SendKind::tlp) == 1);
  CHECK(client(all).timeouts.empty());
  const auto* n = with_topic(client(all), Topic::ack_unheard);
  REQUIRE(n);
  CHECK(n->other_frame == 5);  // A0: read from before the first ACK the TSecr shows unheard
  // TSecr 10001 (A1's): A0 heard, A1 no evidence (the same tick may have
  // come before it), A2 unheard (newer): read from before A2, S2 alone out
  // and resent 30 ms after it left: not a loss probe (one segment out: the
  // PTO waits for a delayed ACK, 200 ms).
  const auto last = analyze(three_acks(resend, 10001u, 10 * ms), "tsecr-last", Profile::linux_kernel);
  CHECK(count(client(last), SendKind::tlp) == 0);
  CHECK(client(last).timeouts.size() == 1);
  const auto* m = with_topic(client(last), Topic::ack_unheard);
  REQUIRE(m);
  CHECK(m->other_frame == 9);  // A2
}

TEST_CASE("no timestamps: an expiry sooner than any RTO the profile allows is read with the earlier ACKs unheard too, while a loss probe explains it") {
  // The same three ACKs without timestamps, the capture 60 us of round trip
  // from the client (as good as at it: the ACK clock's window is 2 ms). S2
  // again 7 ms after it: the resend shows A2 unheard; read with A2 alone
  // unheard, S2 was alone out and its timer fired 7.05 ms after A1
  // restarted it, far below Linux's least RTO (rto_min 200 ms, less the
  // tolerance 1 ms + 10 %: 179 ms) and no loss probe (one segment out: the
  // PTO waits for a delayed ACK, 200 ms): no reading of the profile's. With
  // A1 unheard too, S1 and S2 were out and S2, the highest, resent on a
  // timer before any expiry: a loss probe.
  const auto soon = analyze(three_acks(1000 * ms + 200 + 7 * ms, std::nullopt, 60), "no-ts-soon", Profile::linux_kernel);
  CHECK(count(client(soon), SendKind::tlp) == 1);
  CHECK(client(soon).timeouts.empty());
  // 400 ms after it, past that least RTO (and past the one-segment PTO): the
  // reading with A2 alone unheard stands, an RTO expiry.
  const auto late = analyze(three_acks(1000 * ms + 200 + 400 * ms, std::nullopt, 60), "no-ts-late", Profile::linux_kernel);
  CHECK(count(client(late), SendKind::tlp) == 0);
  CHECK(client(late).timeouts.size() == 1);
}

TEST_CASE("a delay spike without timestamps: past 4 + 256 ACKs the newest are kept, not the oldest") {
  // 300 ACKs 5 ms apart from 1000 ms (none answered: no segment within 2 ms
  // of an ACK; all within 2 x the 1 s RTO of the last), no TSval to show any
  // of them heard. The ring keeps ACKs 296-299, the older ones the newest
  // 256: 40-295. Segment 290 resent at 3600 ms: read from before ACK 290
  // (ACK 289 acknowledged everything sent, and segment 290, sent at 2450
  // ms, started the timer: 1150 ms > the 1 s RTO, an expiry). Segment 20
  // resent instead: ACK 20's state is gone, the resend spurious.
  const auto newest = analyze(spike(300, 290, 3600, false, 5), "spike-no-ts-newest", Profile::rfc6298);
  CHECK(count(client(newest), SendKind::spurious) == 0);
  CHECK(client(newest).timeouts.size() == 1);
  const auto oldest = analyze(spike(300, 20, 3600, false, 5), "spike-no-ts-oldest", Profile::rfc6298);
  CHECK(count(client(oldest), SendKind::spurious) == 1);
}

TEST_CASE("5.4 under the reading that an ACK went unheard: cannot tell, and broken where the capture saw no ACK") {
  // RFC 6298. S1 [1001,2001) resent at 2100.1 ms, 1100.1 ms after S0
  // started the timer (5.1; RTO 1 s): an expiry that resends S1, not the earliest
  // unacknowledged byte. With A0-A2 captured and the client's TSecr (9000)
  // older than all of them, the resend is of acknowledged data unless they
  // had not reached it: the capture cannot tell 5.4 (INFO). Without the
  // ACKs in the capture, SND.UNA is 1: 5.4 broken (MUST), the departure the
  // rule exists to catch.
  const std::int64_t resend = 1000 * ms + 100 + 1100 * ms;
  const auto unheard = analyze(three_acks(resend, 9000u, 10 * ms, 1), "54-unheard", Profile::rfc6298);
  const auto u = findings(client(unheard), "5.4");
  REQUIRE(u.size() == 1);
  CHECK(u[0].level == replay::Level::info);
  CHECK(u[0].outcome == Outcome::cannot_tell);
  CHECK(u[0].rel_seq == 1001);
  CHECK(u[0].rel_una == 1);
  const auto unseen = analyze(three_acks(resend, 9000u, 10 * ms, 1, false), "54-no-acks", Profile::rfc6298);
  const auto b = findings(client(unseen), "5.4");
  REQUIRE(b.size() == 1);
  CHECK(b[0].level == replay::Level::must);
  CHECK(b[0].rel_una == 1);
}

TEST_CASE("an expiry early only if an ACK went unheard names no setting: a lowered rto_min is read from evidence") {
  // Linux, no timestamps, handshake R = 1 ms. S0 [1,1001) at 1000 ms, its
  // ACK 50 us later, S0 again at 1030 ms: the ACK did not reach the client
  // (or the resend is of acknowledged data). Read so, S0's timer fired 30 ms
  // after S0 started it, below the 204 ms that rto_min gives and above what
  // the same arithmetic gives without it: broken under that reading (2.4),
  // kept under the other: cannot tell, INFO. No earlier ACK to read as
  // unheard. A lowered rto_min is a setting read only from an expiry the
  // capture shows; this one it does not.
  Scenario s;
  s.handshake(0, 1 * ms);
  s.data(1000 * ms, 1);
  s.ack(1000 * ms + 50, 1001);
  s.data(1030 * ms, 1);
  s.ack(1030 * ms + 50, 1001);
  auto r = analyze(s, "early-unheard-no-setting", Profile::linux_kernel);
  const auto& c = client(r);
  REQUIRE(c.timeouts.size() == 1);
  for (const auto& j : c.findings) CHECK(j.rule != replay::RuleId::stack_setting);
  const auto f = findings(c, "2.4");
  REQUIRE(f.size() == 1);
  CHECK(f[0].outcome == Outcome::cannot_tell);
  CHECK(musts(c) == 0);
}

TEST_CASE("segments sent back-to-back are one train: an ACK captured inside it shows nothing heard, for 200 us") {
  // No timestamps; handshake R = 100 ms (RFC 6298: RTO 1 s). A [1,1001) at
  // 1000 ms (frame 4), its ACK 50 us later (frame 5), B [1001,2001) at
  // `b_us` after A and its ACK 50 us after B, C [2001,3001) at `c_us` after
  // A; A again at 2000 ms, all acknowledged 50 us later.
  const auto scenario = [](std::int64_t b_us, std::int64_t c_us) {
    Scenario s;
    s.handshake(0, 100 * ms);
    s.data(1000 * ms, 1);
    s.ack(1000 * ms + 50, 1001);
    s.data(1000 * ms + b_us, 1001);
    s.ack(1000 * ms + b_us + 50, 2001);
    s.data(1000 * ms + c_us, 2001);
    s.data(2000 * ms, 1);
    s.ack(2000 * ms + 50, 3001);
    return s;
  };
  SUBCASE("one train") {
    // B 100 us after A and C 190 us after A: within kResponseTrain (200 us)
    // of the previous segment and of the train's first, A. The ACKs captured
    // between them are no evidence: the resend of A shows its ACK unheard,
    // and it is the RTO's expiry 1000 ms after A (the timer ran from A, 5.1).
    auto r = analyze(scenario(100, 190), "train-190", Profile::rfc6298);
    const auto& c = client(r);
    CHECK(count(c, SendKind::spurious) == 0);
    REQUIRE(c.timeouts.size() == 1);
    CHECK(point_us(c.timeouts[0].wait) == 1'000'000);
  }
  SUBCASE("not back-to-back") {
    // B 300 us after A: no train; 250 us after A's ACK it is the ACK
    // clock's answer (within 2 ms): the sender heard that ACK, and A
    // resent is spurious.
    auto r = analyze(scenario(300, 390), "train-300", Profile::rfc6298);
    CHECK(count(client(r), SendKind::spurious) == 1);
    CHECK(client(r).timeouts.empty());
  }
  SUBCASE("past the train's 200 us") {
    // C 250 us after A (150 us after B) begins another train: it answers
    // B's ACK (100 us before it), which acknowledged A: A resent is spurious.
    auto r = analyze(scenario(100, 250), "train-250", Profile::rfc6298);
    CHECK(count(client(r), SendKind::spurious) == 1);
    CHECK(client(r).timeouts.empty());
  }
}

TEST_CASE("unheard ACKs with TSvals are kept while the TSecr shows them unheard, past the time that drops the others") {
  // Linux (twice the RTO is 408 ms, the least kept 1 s), timestamps: ten
  // segments and their ACKs 150 ms apart from 1000 ms, none echoed (TSecr
  // 9000 throughout); ACK 0 (frame 5) is 1350 ms old when ACK 9 comes. The
  // head, segment 0, resent at 2400 ms is read from before ACK 0 (an
  // expiry, late), not called spurious: the sender's TSecr, not time,
  // says when an ACK with a TSval was heard.
  auto r = analyze(spike(10, 0, 2400, true, 150), "spike-ts-old", Profile::linux_kernel);
  const auto& c = client(r);
  CHECK(count(c, SendKind::spurious) == 0);
  CHECK(c.timeouts.size() == 1);
  const auto* n = with_topic(c, Topic::ack_unheard);
  REQUIRE(n);
  CHECK(n->other_frame == 5);
}

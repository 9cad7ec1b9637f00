// The capture-to-sender round trip from the handshake, paired as the
// sender answered: the client's ACK answers the peer's latest SYN-ACK (a
// SYN it sends again answers nothing); the server's first SYN-ACK answers
// the peer's latest SYN only when the capture shows it does. Each case with
// its arithmetic, and the wrong pairing it replaces, which gives another
// number. Frames are Wireshark's: 1-based.

#include <doctest/doctest.h>

#include "replay_scenario.hpp"

using namespace replaytest;
using replay::SendKind;

namespace {

constexpr std::int64_t ms = 1000;  // microseconds per millisecond

Pkt server_data(std::int64_t t_us, std::uint32_t rel_seq, std::optional<std::uint32_t> tsval = {},
                std::optional<std::uint32_t> tsecr = {}) {
  return {t_us, false, rel_seq, 1, wire::kAck | wire::kPsh, 1000, tsval, tsecr, {}};
}
Pkt client_ack(std::int64_t t_us, std::uint32_t rel_ack, std::optional<std::uint32_t> tsval = {},
               std::optional<std::uint32_t> tsecr = {}) {
  return {t_us, true, 1, rel_ack, wire::kAck, 0, tsval, tsecr, {}};
}
Pkt syn(std::int64_t t_us, std::optional<std::uint32_t> tsval = {}) {
  return {t_us, true, 0, 0, wire::kSyn, 0, tsval, {}, {}};
}
Pkt synack(std::int64_t t_us, std::optional<std::uint32_t> tsval = {}, std::optional<std::uint32_t> tsecr = {}) {
  return {t_us, false, 0, 1, wire::kSyn | wire::kAck, 0, tsval, tsecr, {}};
}

// The client's SYN at 0 (frame 1); the SYN-ACK at 0.01 ms (2), lost on its
// way; the client's SYN timer resends at 1000 ms (3), answered at 1000.01 ms
// (4); its ACK at 1100 ms (5): captured beside the server, the client 100
// ms of round trip away.
Scenario client_syn_again() {
  Scenario s;
  s.pkts.push_back(syn(0));
  s.pkts.push_back(synack(10));
  s.pkts.push_back(syn(1000 * ms));
  s.pkts.push_back(synack(1000 * ms + 10));
  s.pkts.push_back(client_ack(1100 * ms, 1));
  return s;
}

const replay::SenderReport& server(const replay::Report& r) {
  REQUIRE(!r.flows.empty());
  return r.flows.front().senders[1];
}

// The server's `n` segments of 1000 bytes from `t`, `gap` apart, each
// acknowledged `ack_after` after its capture; `t` and `seq` end at the next
// segment's.
void acked_segments(Scenario& s, std::int64_t& t, std::uint32_t& seq, int n, std::int64_t gap,
                    std::int64_t ack_after) {
  for (int k = 0; k < n; ++k, seq += 1000, t += gap) {
    s.pkts.push_back(server_data(t, seq));
    s.pkts.push_back(client_ack(t + ack_after, seq + 1000));
  }
}

// A fast retransmit from `t`: the server's 5 segments from `seq`, 10 us
// apart, the first lost after the capture point; the client's duplicate ACK
// 0.1 ms after each of the next 4; the resend 40 ms after the third
// duplicate ACK's capture (a 40 ms round trip), and the ACK of all five.
void fast_retransmit(Scenario& s, std::int64_t t, std::uint32_t seq) {
  for (std::uint32_t i = 0; i < 5; ++i) s.pkts.push_back(server_data(t + i * 10, seq + i * 1000));
  for (std::uint32_t i = 1; i < 5; ++i) s.pkts.push_back(client_ack(t + i * 10 + 100, seq));
  s.pkts.push_back(server_data(t + 3 * 10 + 100 + 40 * ms, seq));
  s.pkts.push_back(client_ack(t + 3 * 10 + 100 + 80 * ms + 100, seq + 5000));
}

/// Findings of level SHOULD in a sender.
std::size_t shoulds(const replay::SenderReport& s) {
  std::size_t n = 0;
  for (const auto& f : s.findings) n += f.level == replay::Level::should ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("the client's ACK answers the latest SYN-ACK: a SYN sent again after one is no answer") {
  // Captured beside the server; the client is 100 ms of round trip away.
  // SYN at 0 (frame 1); the SYN-ACK at 0.01 ms (2) is lost on its way; the
  // client's SYN timer resends at 1000 ms (3), answered at 1000.01 ms (4);
  // its ACK at 1100 ms (5). Then the client's data at 1200 ms (6), acked
  // beside the server at 1200.05 ms (7): as captured 0.05 ms, at the client
  // 0.05 + (1100 - 1000.01) = 100.04 ms. Pairing the first SYN-ACK with the
  // resent SYN (the capture's first "answer" to it) would make the round
  // trip 1000 - 0.01 = 999.99 ms and the sample 1000.04 ms.
  Scenario s = client_syn_again();
  s.data(1200 * ms, 1);
  s.ack(1200 * ms + 50, 1001);
  for (std::string_view p : {Profile::rfc6298, Profile::linux_kernel}) {
    CAPTURE(p);
    const auto r = analyze(s, "client-syn-again", p);
    const auto& c = client(r);
    // Two samples: the data's, and the SYN's from frame 2 (10 us as
    // captured: the capture's view, taken before the resent SYN shows the
    // client never received that SYN-ACK; its INFO says so).
    CHECK(c.samples_seq == 2);
    CHECK(us(c.rtt_karn.max) == 100'040);
    CHECK(count(c, SendKind::syn_timeout) == 1);
    CHECK(musts(c) == 0);
  }
}

TEST_CASE("the server's first SYN-ACK echoing an older SYN: the timer's or an answer, paired by the later answer") {
  // Captured beside the client (timestamps on, 1 ms ticks); the server is
  // 20 ms away each way. The client's SYNs at 0, 1000 and 3000 ms (frames
  // 1-3; TSval 100, 1100, 3100). The server's SYN-ACK at 3020.3 ms (4)
  // echoes the FIRST SYN's TSval (100): it answers that SYN (sent at once,
  // lost before the capture point) or is its timer's; it left 20 ms before
  // the capture saw it, before the third SYN reached the server (3020 ms),
  // so it is no answer to that SYN, which its 20.3 ms after it suggests.
  // The client ACKs it at once (5, 3020.4 ms). The server answers the third
  // SYN at 3040.9 ms (6), 20.6 ms after its previous SYN-ACK: its SYN timer
  // cannot fire that soon (1 s before a sample, 2.1), so the SYN-ACK answers
  // the SYN sent again, 40.9 ms before it: the capture-to-server round trip
  // (the ACK of frame 5 had not reached the server when it sent frame 6:
  // a SYN-ACK shows the sender in SYN-RCVD). Then the server's data at
  // 3100 ms (7), acked at 3100.05 ms (8): a sample of 0.05 + 40.9 = 40.95 ms.
  // Paired as the first SYN-ACK answering the latest SYN, the round trip
  // would be 20.3 ms (sample 20.35 ms) and frame 6 a SYN timer 20.6 ms after
  // frame 4: SHOULD 2.1.
  Scenario s;
  s.pkts.push_back(syn(0, 100));
  s.pkts.push_back(syn(1000 * ms, 1100));
  s.pkts.push_back(syn(3000 * ms, 3100));
  s.pkts.push_back(synack(3020 * ms + 300, 5000, 100));
  s.pkts.push_back(client_ack(3020 * ms + 400, 1, 3120, 5000));
  s.pkts.push_back(synack(3040 * ms + 900, 5020, 100));
  s.pkts.push_back(server_data(3100 * ms, 1, 5079, 3120));
  s.pkts.push_back(client_ack(3100 * ms + 50, 1001, 3200, 5079));
  for (std::string_view p : {Profile::rfc6298, Profile::linux_kernel}) {
    CAPTURE(p);
    const auto r = analyze(s, "server-synack-older-echo", p, /*timeline=*/true);
    const auto& v = server(r);
    CHECK(count(v, SendKind::syn_reply) == 1);
    CHECK(count(v, SendKind::syn_timeout) == 0);
    CHECK(v.timeouts.empty());
    CHECK(musts(v) == 0);
    CHECK(shoulds(v) == 0);
    for (const auto& ev : v.timeline)
      if (ev.frame == 6) CHECK(ev.event == "syn-reply");
    // Frame 4 may be the timer's resend: no sample from it (Karn).
    CHECK(v.samples_seq == 1);
    CHECK(us(v.rtt_karn.min) == 40'950);
  }
}

TEST_CASE("the server's first SYN-ACK after the SYN was sent again: paired when it echoes the latest SYN, else unknown") {
  // Captured beside the client; SYNs at 0 and 1000 ms (TSval 100, 1100);
  // the server's SYN-ACK at 1040 ms echoes the second (TSecr 1100): the
  // first never reached the server, and this SYN-ACK answers the second:
  // round trip 40 ms. Its data at 1100 ms, acked at 1100.05 ms: 0.05 + 40 =
  // 40.05 ms.
  Scenario echoed;
  echoed.pkts.push_back(syn(0, 100));
  echoed.pkts.push_back(syn(1000 * ms, 1100));
  echoed.pkts.push_back(synack(1040 * ms, 5000, 1100));
  echoed.pkts.push_back(client_ack(1040 * ms + 100, 1, 1140, 5000));
  echoed.pkts.push_back(server_data(1100 * ms, 1, 5060, 1140));
  echoed.pkts.push_back(client_ack(1100 * ms + 50, 1001, 1200, 5060));
  const auto r = analyze(echoed, "server-synack-echoes-latest", Profile::linux_kernel);
  CHECK(us(server(r).rtt_karn.min) == 40'050);
  CHECK(server(r).samples_seq == 2);  // its SYN-ACK's too: 0.1 + 40 ms
  CHECK(us(server(r).rtt_karn.max) == 40'100);
  REQUIRE(server(r).capture_rtt);
  CHECK(server(r).capture_rtt->count() == 40'000);
  CHECK_FALSE(server(r).capture_rtt_bound);

  // Without timestamps the same frames cannot tell whether the SYN-ACK
  // answers the second SYN (a round trip of 40 ms) or is the timer's for
  // the first, its earlier copy lost before the capture point: sent at
  // least 899 ms (the initial RTO less its tolerance, 1 + 100 ms) after the
  // first SYN reached the server, a round trip of at most 1040 - 899 = 141
  // ms: read from 0 to 141 ms while the handshake is all there is. The
  // server's first data at 1100 ms shows it past SYN-RCVD, so it had the
  // client's ACK captured at 1040.1 ms: the round trip is at most 59.9 ms,
  // and the data's sample 0.05 + 59.9 = 59.95 ms (uncorrected, 0.05 ms).
  // The SYN-ACK gives no sample (Karn: it may be a resend). (Read as 40
  // ms from the latest SYN, an early timer of the server's could pass as
  // its answer to an ACK; see "a first SYN-ACK in doubt" below.)
  Scenario plain;
  plain.pkts.push_back(syn(0));
  plain.pkts.push_back(syn(1000 * ms));
  plain.pkts.push_back(synack(1040 * ms));
  plain.pkts.push_back(client_ack(1040 * ms + 100, 1));
  Scenario hs_only = plain;
  plain.pkts.push_back(server_data(1100 * ms, 1));
  plain.pkts.push_back(client_ack(1100 * ms + 50, 1001));
  const auto h = analyze(hs_only, "server-synack-unpaired-handshake", Profile::linux_kernel);
  REQUIRE(server(h).capture_rtt);
  CHECK(server(h).capture_rtt->count() == 141'000);
  CHECK(server(h).capture_rtt_bound);
  // SYNs at 0, 1 and 3 s, the SYN-ACK at 3040 ms: the timer's bound from
  // the first SYN, 3040 - 899 = 2141 ms, is past the initial RTO, which no
  // round trip read from a handshake reaches: read up to 1 s less 1 us.
  Scenario three;
  three.pkts.push_back(syn(0));
  three.pkts.push_back(syn(1000 * ms));
  three.pkts.push_back(syn(3000 * ms));
  three.pkts.push_back(synack(3040 * ms));
  three.pkts.push_back(client_ack(3040 * ms + 100, 1));
  const auto t3 = analyze(three, "server-synack-unpaired-capped", Profile::linux_kernel);
  REQUIRE(server(t3).capture_rtt);
  CHECK(server(t3).capture_rtt->count() == 999'999);
  const auto q = analyze(plain, "server-synack-unpaired", Profile::linux_kernel);
  CHECK(server(q).samples_seq == 1);
  CHECK(us(server(q).rtt_karn.min) == 59'950);
  CHECK(server(q).ambiguous_acks == 1);
  REQUIRE(server(q).capture_rtt);
  CHECK(server(q).capture_rtt->count() == 59'900);
  CHECK(server(q).capture_rtt_bound);

  // The client's data [1,101) at 1045 ms, which the server acknowledges at
  // 1085.1 ms (its first segment past SYN-RCVD, 45 ms after the client's
  // ACK): it had received the data, so the round trip is at most 40.1 ms.
  // Its data's sample: 0.05 + 40.1 = 40.15 ms.
  Scenario bounded = plain;
  bounded.pkts.insert(bounded.pkts.begin() + 4, Pkt{1045 * ms, true, 1, 1, wire::kAck | wire::kPsh, 100, {}, {}, {}});
  bounded.pkts.insert(bounded.pkts.begin() + 5, Pkt{1085 * ms + 100, false, 1, 101, wire::kAck, 0, {}, {}, {}});
  bounded.pkts.back().rel_seq = 101;  // the client's ACK of the data follows its own [1,101)
  const auto b = analyze(bounded, "server-synack-bounded", Profile::linux_kernel);
  CHECK(server(b).samples_seq == 1);
  CHECK(us(server(b).rtt_karn.min) == 40'150);
  REQUIRE(server(b).capture_rtt);
  CHECK(server(b).capture_rtt->count() == 40'100);
  CHECK(server(b).capture_rtt_bound);

  // One SYN only, the same frames otherwise: the SYN-ACK answers it, 40 ms
  // later (timestamps or not), and gives its sample (0.1 + 40 ms).
  Scenario single;
  single.pkts.push_back(syn(1000 * ms));
  for (std::size_t i = 2; i < plain.pkts.size(); ++i) single.pkts.push_back(plain.pkts[i]);
  const auto one = analyze(single, "server-synack-single", Profile::linux_kernel);
  CHECK(server(one).samples_seq == 2);
  CHECK(server(one).ambiguous_acks == 0);
  CHECK(us(server(one).rtt_karn.max) == 40'100);

  // Within kCaptureAtSender (1 ms) of the latest SYN: the capture is at the
  // server, the SYN-ACK its answer, with or without timestamps.
  Scenario at_server;
  at_server.pkts.push_back(syn(0));
  at_server.pkts.push_back(syn(1000 * ms));
  at_server.pkts.push_back(synack(1000 * ms + 500));
  at_server.pkts.push_back(client_ack(1040 * ms, 1));
  at_server.pkts.push_back(server_data(1100 * ms, 1));
  at_server.pkts.push_back(client_ack(1140 * ms, 1001));
  const auto a = analyze(at_server, "server-synack-at-server", Profile::linux_kernel);
  CHECK(server(a).samples_seq == 2);  // 1040 - 1000.5 = 39.5 ms and 40 ms, no correction
  CHECK(us(server(a).rtt_karn.min) == 39'500);
  CHECK(us(server(a).rtt_karn.max) == 40'000);
}

TEST_CASE("a SYN-ACK resent soon after the one that answered the latest SYN, with no SYN between: the timer's, early") {
  // As "echoes the latest SYN" above: the SYN-ACK at 1040 ms answers the
  // SYN of 1000 ms (TSecr 1100), so no SYN is left unanswered. The server
  // sends it again at 1340 ms with nothing from the client between: no
  // answer (nothing asked), so its SYN timer, 300 ms after the first: below
  // the 1 s that 2.1 requires before a sample (SHOULD). Read as an answer
  // to the SYN the first SYN-ACK already answered, the departure would pass.
  Scenario s;
  s.pkts.push_back(syn(0, 100));
  s.pkts.push_back(syn(1000 * ms, 1100));
  s.pkts.push_back(synack(1040 * ms, 5000, 1100));
  s.pkts.push_back(synack(1340 * ms, 5300, 1100));
  const auto r = analyze(s, "server-synack-early", Profile::rfc6298);
  const auto& v = server(r);
  CHECK(count(v, SendKind::syn_reply) == 0);
  CHECK(count(v, SendKind::syn_timeout) == 1);
  REQUIRE(v.timeouts.size() == 1);
  CHECK(v.timeouts[0].frame == 4);
  CHECK(point_us(v.timeouts[0].wait) == 300'000);  // 1340 - 1040 ms
  CHECK(findings(v, "2.1").size() == 1);
}

TEST_CASE("the handshake's round trip, from the client's latest SYN, bounds a reordering") {
  // The handshake of the first case (the client's SYN resent at 1000 ms,
  // answered at 1000.01, its ACK at 1100 ms): round trip 1100 - 1000 = 100
  // ms from the SYN the SYN-ACK answered (from the first SYN it would be
  // 1100 ms). Then [1001,2001) at 1200 ms, past a hole [1,1001) the capture
  // has not seen; [1,1001) fills it at 1250 ms (within 100 ms: a first
  // transmission reordered before the capture point) or at 1500 ms (300 ms
  // later: sent again, not reordered; within 1100 ms it would be).
  for (const std::int64_t fill_ms : {1250, 1500}) {
    CAPTURE(fill_ms);
    Scenario s = client_syn_again();
    s.data(1200 * ms, 1001);
    s.data(fill_ms * ms, 1);
    const auto r = analyze(s, "client-reorder-window", Profile::rfc6298);
    CHECK(count(client(r), SendKind::out_of_order) == (fill_ms == 1250 ? 1 : 0));
  }
}

TEST_CASE("the capture-to-sender round trip corrects a timestamp echo's sample as a segment's") {
  // Captured beside the server (timestamps on, the client's clock 1 tick
  // per ms, TSval = 1000 + ms): the client's SYN at 0, the SYN-ACK 10 us
  // later, the client's ACK at 100 ms: a round trip of 100 - 0.01 = 99.99 ms
  // to the client. Its data at 200 ms, sent again at 1200 ms (TSval 2200),
  // acknowledged at 1200.05 ms echoing that TSval: no sample from the data
  // (Karn), one from the echo: 2200.05 - 2200 ms, under a tick, counts as 1
  // ms (Linux tcp_rtt_tsopt_us), plus the 99.99 ms the capture does not
  // see = 100.99 ms. Uncorrected it would be 1 ms (the kernel's is over 100).
  Scenario s;
  s.pkts.push_back(syn(0, 1000));
  s.pkts.push_back(synack(10, 5000, 1000));
  s.pkts.push_back(client_ack(100 * ms, 1, 1100, 5000));
  s.pkts.push_back(Pkt{200 * ms, true, 1, 1, wire::kAck | wire::kPsh, 1000, 1200, 5000, {}});
  s.pkts.push_back(Pkt{1200 * ms, true, 1, 1, wire::kAck | wire::kPsh, 1000, 2200, 5000, {}});
  s.pkts.push_back(Pkt{1200 * ms + 50, false, 1, 1001, wire::kAck, 0, 6200, 2200, {}});
  const auto r = analyze(s, "ts-echo-corrected", Profile::linux_kernel);
  const auto& c = client(r);
  CHECK(c.samples_ts == 1);
  CHECK(us(c.rtt_ts_echo.min) == 100'990);
}

TEST_CASE("a first SYN-ACK in doubt: the round trip read up to its upper bound, a fast retransmit answers the duplicate ACK") {
  // Captured beside the client, the server 20 ms away each way (no
  // timestamps): SYNs at 0 and 1000 ms, the SYN-ACK at 1040 ms (an answer to
  // the second, or its timer's sent before the second arrived: 40 ms or
  // more), the client's ACK 0.1 ms later. The server then sends 6 segments
  // 40 ms apart, each acknowledged 0.1 ms after its capture; then 5 at 10 us
  // intervals, the first lost after the capture point: the client's
  // duplicate ACKs 0.1 ms after each of the next 4, and the server's fast
  // retransmit 40 ms after the third duplicate ACK's capture (its arrival
  // 20 ms later, the resend's 20 ms back). Read with a round trip of 0 (at
  // the server), that resend came 40 ms after any peer segment the server
  // could answer: a timer, far sooner than any RTO (MUST 5.3/5.6 under
  // FreeBSD's and Darwin's profiles, SHOULD 2.4 under RFC 6298's). With the
  // round trip read up to 1040 - 899 = 141 ms (the SYN-ACK the timer's for
  // the first SYN: see "the server's first SYN-ACK after the SYN was sent
  // again"), it answers the third duplicate ACK: a fast retransmit.
  // The same with the client's second SYN at 1030 ms (its timer 30 ms
  // late), 10 ms before the SYN-ACK: a round trip of 10 ms read from the
  // latest SYN would make the resend 40 ms after the duplicate ACK a timer
  // again (MUST 5.3/5.6 under FreeBSD's profile); the upper bound is the
  // same 141 ms.
  for (const std::int64_t second_syn_ms : {1000, 1030}) {
  CAPTURE(second_syn_ms);
  Scenario s;
  s.pkts.push_back(syn(0));
  s.pkts.push_back(syn(second_syn_ms * ms));
  s.pkts.push_back(synack(1040 * ms));
  s.pkts.push_back(client_ack(1040 * ms + 100, 1));
  std::int64_t t = 1100 * ms;
  std::uint32_t seq = 1;
  acked_segments(s, t, seq, 6, 40 * ms, 100);
  fast_retransmit(s, t, seq);
  for (std::string_view p : {Profile::freebsd, Profile::macos, Profile::rfc6298, Profile::linux_kernel}) {
    CAPTURE(p);
    const auto r = analyze(s, "ambiguous-then-fast", p);
    const auto& v = server(r);
    CHECK(count(v, SendKind::fast) == 1);
    CHECK(v.timeouts.empty());
    CHECK(musts(v) == 0);
    CHECK(shoulds(v) == 0);
  }
  }
}

TEST_CASE("after a first SYN-ACK in doubt, a resend with no loss shown is no answer to an ACK: an early timer stays early") {
  // Captured beside the client, no timestamps: SYNs at 0 and 1000 ms, the
  // server's first SYN-ACK at 1100 ms (100 ms after the second SYN; the
  // round trip read from 0 to max(100, 1100 - 899) = 201 ms), the client's
  // ACK 0.1 ms later. The server sends 8 segments 40 ms apart from 1200 ms,
  // each acknowledged 0.1 ms after its capture, a ninth at 1520 ms (lost),
  // and resends it `resend_ms` later. At 100 ms that is 139.9 ms after the
  // client's last ACK, inside the response window a 201 ms round trip
  // allows (1.5 x 201 + 2 ms), but that ACK acknowledged new data and
  // showed no loss: it asks for nothing again. So it is the timer's: under
  // FreeBSD's profile no RTO is below 200 ms of slop plus the floor of 30
  // ms, whatever the round trip: MUST 5.3/5.6. Read as a fast retransmit
  // (in time for the ACK), it passed. At 240 ms it fits the RTO a 40 ms
  // round trip gives (40 + 4 x 5 or the floor, plus 200): no MUST.
  for (const std::int64_t resend_ms : {100, 240}) {
    CAPTURE(resend_ms);
    Scenario s;
    s.pkts.push_back(syn(0));
    s.pkts.push_back(syn(1000 * ms));
    s.pkts.push_back(synack(1100 * ms));
    s.pkts.push_back(client_ack(1100 * ms + 100, 1));
    std::int64_t t = 1200 * ms;
    std::uint32_t seq = 1;
    acked_segments(s, t, seq, 8, 40 * ms, 100);
    s.pkts.push_back(server_data(t, seq));
    s.pkts.push_back(server_data(t + resend_ms * ms, seq));
    s.pkts.push_back(client_ack(t + resend_ms * ms + 100, seq + 1000));
    const auto r = analyze(s, "ambiguous-hidden-early", Profile::freebsd);
    const auto& v = server(r);
    CHECK(count(v, SendKind::fast) == 0);
    CHECK(v.timeouts.size() == 1);
    CHECK(musts(v) == (resend_ms == 100 ? 1 : 0));
  }
}

TEST_CASE("a later SYN-ACK a timer's wait after the previous is no answer that gives the round trip") {
  // Captured midway, the server 20 ms away each way (d = 40 ms), no
  // timestamps. SYNs at 0 and 1000 ms; the server's first SYN-ACK at 1040
  // ms (in doubt: read up to 1040 - 899 = 141 ms). The client's SYN again at
  // `syn3_ms`; the server's SYN-ACK timer resends at 3040 ms, 2 s (its
  // doubled wait) after its previous copy. 10 ms after a SYN at 3030 ms it
  // falls in that SYN's response window, but the timer can have sent it
  // (2000 ms after our previous SYN-ACK is past the 899 ms the timer waits
  // at least): no round trip from it. The server's data then: 6 segments
  // acknowledged 0.1 ms after their capture, 5 more 10 us apart, the first
  // lost, 4 duplicate ACKs, and the fast retransmit 40 ms after the third
  // (its true round trip). Taken as the answer to that SYN (a round trip of
  // 10 ms), the resend came 40 ms after the duplicate ACK: a timer, MUST
  // 5.3/5.6 under FreeBSD's profile. The server's first data (60 ms after
  // the client's ACK) bounds the round trip to 59.9 ms instead.
  for (const std::int64_t syn3_ms : {3000, 3030}) {
    CAPTURE(syn3_ms);
    Scenario s;
    s.pkts.push_back(syn(0));
    s.pkts.push_back(syn(1000 * ms));
    s.pkts.push_back(synack(1040 * ms));
    s.pkts.push_back(syn(syn3_ms * ms));
    s.pkts.push_back(synack(3040 * ms));
    s.pkts.push_back(client_ack(3040 * ms + 100, 1));
    std::int64_t t = 3100 * ms;
    std::uint32_t seq = 1;
    acked_segments(s, t, seq, 6, 40 * ms, 100);
    fast_retransmit(s, t, seq);
    const auto r = analyze(s, "later-synack-timer", Profile::freebsd);
    const auto& v = server(r);
    CHECK(count(v, SendKind::fast) == 1);
    CHECK(musts(v) == 0);
    REQUIRE(v.capture_rtt);
    CHECK(v.capture_rtt->count() == 59'900);  // 3100 - 3040.1 ms
    CHECK(v.capture_rtt_bound);
  }
}

TEST_CASE("held samples are taken at an expiry of the data timer: the sender had processed their ACKs") {
  // Captured beside the client (d = 50 ms), Linux, no timestamps: SYNs at 1
  // and 3 s, the SYN-ACK 50 ms after the second (in doubt: up to 3050 -
  // 1000 - 899 = 1151 ms), the client's ACK 0.1 ms later. The server waits
  // 1 s before its first data (4050 ms: the round trip bounded to 999.9 ms
  // only), acknowledged 0.1 ms after its capture: a sample of 0.1 + 999.9
  // = 1000 ms (uncorrected 0.1 ms), held until 5050.1 ms. Its next segment
  // at 4100 ms is lost; the timer resends it at 4350 ms (a true SRTT of 50
  // ms: Linux's RTO 250 ms). At that expiry the sender knew SND.UNA past
  // the held sample's ACK: it had taken the sample, and the RTO lies
  // between the readings ([200 ms or so, 3 s]): no MUST. Without it, the
  // expiry is read against 5.7's 3 s (the SYN timed out, no sample since):
  // MUST 5.7.
  Scenario s;
  s.pkts.push_back(syn(1000 * ms));
  s.pkts.push_back(syn(3000 * ms));
  s.pkts.push_back(synack(3050 * ms));
  s.pkts.push_back(client_ack(3050 * ms + 100, 1));
  s.pkts.push_back(server_data(4050 * ms, 1));
  s.pkts.push_back(client_ack(4050 * ms + 100, 1001));
  s.pkts.push_back(server_data(4100 * ms, 1001));
  s.pkts.push_back(server_data(4350 * ms, 1001));
  s.pkts.push_back(client_ack(4350 * ms + 100, 2001));
  const auto r = analyze(s, "held-sample-at-expiry", Profile::linux_kernel);
  const auto& v = server(r);
  REQUIRE(v.timeouts.size() == 1);
  CHECK(musts(v) == 0);
  CHECK(v.samples_seq == 1);
}

TEST_CASE("a FIN sent again answers the peer when it acknowledges the peer's FIN or more than before; else a timer") {
  // Captured at the server (d = 0). 8 segments each acknowledged 40 ms
  // later; the server's FIN at t (lost), the client's 100 bytes at t + 50
  // ms (its ACK field before the FIN), the FIN again 2 ms later: 52 ms
  // after the first, far below any RTO of a 40 ms path under FreeBSD (200
  // ms of slop and more). Its ACK field 1 (nothing new: no answer to the
  // client's data, which it shows it had not processed): the timer's,
  // early: MUST 5.3/5.6. Its ACK field 101 (BSD sets FIN on the ACK of the
  // new data): an answer, no MUST. A FIN acknowledging the client's FIN
  // (sent instead of the data) answers it as well, also when the server's
  // pure ACK of that FIN went 1 ms before it (its ACK field then no more
  // than before).
  enum class Again { stale_ack, acks_data, acks_fin, acks_fin_acked };
  for (const Again a : {Again::stale_ack, Again::acks_data, Again::acks_fin, Again::acks_fin_acked}) {
    CAPTURE(static_cast<int>(a));
    Scenario s;
    s.pkts.push_back(syn(0));
    s.pkts.push_back(synack(50));
    s.pkts.push_back(client_ack(40 * ms, 1));
    std::int64_t t = 41 * ms;
    std::uint32_t seq = 1;
    acked_segments(s, t, seq, 8, 50 * ms, 40 * ms);
    t += 40 * ms;
    s.pkts.push_back(Pkt{t, false, seq, 1, wire::kAck | wire::kFin, 0, {}, {}, {}});
    if (a == Again::acks_fin || a == Again::acks_fin_acked)
      s.pkts.push_back(Pkt{t + 50 * ms, true, 1, seq, wire::kAck | wire::kFin, 0, {}, {}, {}});
    else
      s.pkts.push_back(Pkt{t + 50 * ms, true, 1, seq, wire::kAck | wire::kPsh, 100, {}, {}, {}});
    const std::uint32_t acked = a == Again::stale_ack ? 1 : a == Again::acks_data ? 101 : 2;
    if (a == Again::acks_fin_acked) s.pkts.push_back(Pkt{t + 51 * ms, false, seq, 2, wire::kAck, 0, {}, {}, {}});
    s.pkts.push_back(Pkt{t + 52 * ms, false, seq, acked, wire::kAck | wire::kFin, 0, {}, {}, {}});
    const auto r = analyze(s, "fin-again", Profile::freebsd);
    const auto& v = server(r);
    CHECK(musts(v) == (a == Again::stale_ack ? 1 : 0));
    CHECK(count(v, SendKind::fast) == (a == Again::stale_ack ? 0 : 1));
  }
}

TEST_CASE("a window update is no duplicate ACK: no loss shown, the resend after it is the timer's") {
  // Captured beside the client, the server 40 ms of round trip away (its
  // SYN-ACK 40 ms after the SYN, the client's ACK 0.1 ms later). 8 segments
  // 40 ms apart, each acknowledged 0.1 ms after its capture; a ninth at t,
  // lost; the client's ACK of the same data at t + 100 ms, its window
  // 60000 (was 65535); the server resends at t + 150 ms. A duplicate ACK
  // leaves the window as it was (RFC 5681 2): this one showed no loss, so
  // the resend, 50 ms after it (inside the 1.5 x 40 + 2 = 62 ms window),
  // answers nothing: the timer's, 150 ms after the segment, below FreeBSD's
  // 200 ms of slop: MUST 5.3/5.6. Counted as a duplicate ACK, the resend
  // passed as a fast retransmit. With the window unchanged it is one: no
  // MUST.
  for (const bool update : {true, false}) {
    CAPTURE(update);
    Scenario s;
    s.pkts.push_back(syn(0));
    s.pkts.push_back(synack(40 * ms));
    s.pkts.push_back(client_ack(40 * ms + 100, 1));
    std::int64_t t = 140 * ms;
    std::uint32_t seq = 1;
    acked_segments(s, t, seq, 8, 40 * ms, 100);
    s.pkts.push_back(server_data(t, seq));
    s.pkts.push_back(client_ack(t + 100 * ms, seq));
    if (update) s.window[s.pkts.size() - 1] = 60000;
    s.pkts.push_back(server_data(t + 150 * ms, seq));
    s.pkts.push_back(client_ack(t + 150 * ms + 100, seq + 1000));
    const auto r = analyze(s, "window-update", Profile::freebsd);
    const auto& v = server(r);
    CHECK(musts(v) == (update ? 1 : 0));
    CHECK(count(v, SendKind::fast) == (update ? 0 : 1));
  }
}

TEST_CASE("a SYN-ACK that does not answer the SYN sent again settles it: a later one is judged as the timer's") {
  // Captured beside the server: SYN at 0, SYN-ACK 0.01 ms later (the
  // capture is at the server); the SYN again at 1000 ms; a SYN-ACK at 1010
  // ms (10 ms after that SYN, not within the 2 ms a server at the capture
  // point answers in, and 1010 ms after the first: its timer's) and another
  // at 1510 ms (500 ms after that expiry: not doubled, 5.5 expects 2 s).
  // Read as an answer to the SYN of 1000 ms (still owed), it would pass.
  Scenario s;
  s.pkts.push_back(syn(0));
  s.pkts.push_back(synack(10));
  s.pkts.push_back(syn(1000 * ms));
  s.pkts.push_back(synack(1010 * ms));
  s.pkts.push_back(synack(1510 * ms));
  const auto r = analyze(s, "stale-syn-again", Profile::rfc6298);
  const auto& v = server(r);
  CHECK(count(v, SendKind::syn_reply) == 0);
  CHECK(count(v, SendKind::syn_timeout) == 2);
  CHECK(findings(v, "5.5").size() == 1);
  CHECK(musts(v) == 1);
}

TEST_CASE("simultaneous open: our SYN-ACK answers the peer's SYN, though we sent a SYN before it") {
  // Captured beside B (40 ms from A): B's SYN at 0, A's SYN at 20 ms (sent
  // before B's reached A), A's SYN-ACK at 40 ms (answering B's SYN: 40 ms
  // after it), B's SYN-ACK at 20.05 ms. A sends data 3 s later, acknowledged
  // at once: a sample of 0.05 + 40 = 40.05 ms. Pairing A's first non-SYN
  // segment (3 s later) with B's SYN-ACK would make the round trip 3 s.
  // Each SYN-ACK repeats its sender's SYN 20 ms after it, in answer to the
  // peer's SYN: no SYN timer (which would be SHOULD 2.1, 20 ms < 1 s).
  Scenario s;
  s.pkts.push_back({0, false, 0, 0, wire::kSyn, 0, {}, {}, {}});                    // B's SYN
  s.pkts.push_back({20 * ms, true, 0, 0, wire::kSyn, 0, {}, {}, {}});               // A's SYN
  s.pkts.push_back({20 * ms + 50, false, 0, 1, wire::kSyn | wire::kAck, 0, {}, {}, {}});  // B's SYN-ACK
  s.pkts.push_back({40 * ms, true, 0, 1, wire::kSyn | wire::kAck, 0, {}, {}, {}});  // A's SYN-ACK
  s.data(3040 * ms, 1);
  s.ack(3040 * ms + 50, 1001);
  const auto r = analyze(s, "simultaneous-open", Profile::linux_kernel);
  REQUIRE(r.flows.size() == 1);
  const auto& senders = r.flows[0].senders;
  const auto& a = senders[0].bytes == 1000 ? senders[0] : senders[1];  // A: the one that sent data
  REQUIRE(a.bytes == 1000);
  REQUIRE(a.samples_seq >= 1);
  CHECK(us(a.rtt_karn.max) == 40'050);
  for (const auto& x : senders) {
    CHECK(count(x, SendKind::syn_reply) == 1);
    CHECK(count(x, SendKind::syn_timeout) == 0);
    CHECK(shoulds(x) == 0);
  }
}

TEST_CASE("the client's ACK not captured: its first data long after the SYN-ACK is no answer to it") {
  // SYN at 0, SYN-ACK 0.01 ms later (the capture beside the server... or
  // the client: unknown), the client's ACK not in the capture, its data at
  // 3000 ms, acknowledged 0.05 ms later. An answer comes within the initial
  // RTO (1 s) of what it answers: the 3 s say nothing of the round trip,
  // which stays unknown (0): samples of 0.01 (the SYN's) and 0.05 ms.
  // Paired, the round trip would be 3000 ms and the data's sample 3000.04.
  Scenario s;
  s.pkts.push_back(syn(0));
  s.pkts.push_back(synack(10));
  s.data(3000 * ms, 1);
  s.ack(3000 * ms + 50, 1001);
  const auto r = analyze(s, "client-ack-missing", Profile::linux_kernel);
  CHECK(client(r).samples_seq == 2);
  CHECK(us(client(r).rtt_karn.max) == 50);
}

TEST_CASE("a first SYN-ACK an initial RTO or more after the latest SYN answers none of the capture's") {
  // (ndpi's gnutella capture, stream 63.) SYNs at 0, 3 and 9 s, no
  // timestamps; the server's first SYN-ACK at 31.7 s, 22.7 s after the
  // latest: no answer comes that late (a server answers at once; its
  // timer would have resent the SYN-ACK after 1 s), so it is its timer's
  // (or answers a SYN the capture missed), and the round trip is not 22.7 s.
  // Its next SYN-ACK, 6.4 s later, is the timer's: with a round trip of
  // 22.7 s it would pass as the answer to the SYN of 9 s (29.1 s before it,
  // inside 1.5 round trips).
  Scenario s;
  s.pkts.push_back(syn(0));
  s.pkts.push_back(syn(3000 * ms));
  s.pkts.push_back(syn(9000 * ms));
  s.pkts.push_back(synack(31700 * ms));
  s.pkts.push_back(synack(38100 * ms));
  const auto r = analyze(s, "synack-long-after", Profile::rfc6298);
  const auto& v = server(r);
  CHECK(count(v, SendKind::syn_reply) == 0);
  CHECK(count(v, SendKind::syn_timeout) == 1);

  // No round trip from the handshake; the client's ACK at 38 100.1 ms, its
  // data [1,101) at 38 150 ms, the server's ACK of it at 38 180.05 ms: the
  // round trip is at most 30.05 ms. The server's data at 38 200 ms,
  // acknowledged 0.05 ms later: a sample of 0.05 + 30.05 = 30.1 ms (read
  // as at the server without that bound: 0.05 ms).
  s.pkts.push_back(client_ack(38100 * ms + 100, 1));
  s.pkts.push_back(Pkt{38150 * ms, true, 1, 1, wire::kAck | wire::kPsh, 100, {}, {}, {}});
  s.pkts.push_back(Pkt{38180 * ms + 50, false, 1, 101, wire::kAck, 0, {}, {}, {}});
  s.pkts.push_back(Pkt{38200 * ms, false, 1, 101, wire::kAck | wire::kPsh, 1000, {}, {}, {}});
  s.pkts.push_back(Pkt{38200 * ms + 50, true, 101, 1001, wire::kAck, 0, {}, {}, {}});
  const auto b = analyze(s, "synack-long-after-bounded", Profile::rfc6298);
  CHECK(server(b).samples_seq == 1);
  CHECK(us(server(b).rtt_karn.min) == 30'100);

  // The client's only SYN at 0, the server's first SYN-ACK captured at 1020
  // ms (its answer lost before the capture point; this one its timer's):
  // the SYN was not sent again, so only the initial RTO (1 s) tells that
  // 1020 ms is no round trip. The client's data [1,101) at 1070 ms, the
  // server's ACK at 1090.05 ms: the round trip is at most 20.05 ms, and the
  // server's data at 1100 ms, acknowledged 0.05 ms later, gives 0.05 +
  // 20.05 = 20.1 ms. Read as the round trip, 1020 ms would make it 1020.05.
  Scenario one;
  one.pkts.push_back(syn(0));
  one.pkts.push_back(synack(1020 * ms));
  one.pkts.push_back(client_ack(1020 * ms + 100, 1));
  one.pkts.push_back(Pkt{1070 * ms, true, 1, 1, wire::kAck | wire::kPsh, 100, {}, {}, {}});
  one.pkts.push_back(Pkt{1090 * ms + 50, false, 1, 101, wire::kAck, 0, {}, {}, {}});
  one.pkts.push_back(Pkt{1100 * ms, false, 1, 101, wire::kAck | wire::kPsh, 1000, {}, {}, {}});
  one.pkts.push_back(Pkt{1100 * ms + 50, true, 101, 1001, wire::kAck, 0, {}, {}, {}});
  const auto o = analyze(one, "synack-long-after-one-syn", Profile::rfc6298);
  CHECK(server(o).samples_seq == 1);
  CHECK(us(server(o).rtt_karn.min) == 20'100);
}

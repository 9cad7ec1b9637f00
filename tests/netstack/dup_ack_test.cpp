// Which ACKs count as duplicates for fast retransmit (sender.cpp on_ack):
// RFC 5681 section 2 (unchanged window, condition (e)) OR SACK blocks that
// report new data above SND.UNA (RFC 6675 sections 2 and 5, RFC 2018).
// Pure window updates do not count and do not restart the timer (RFC 6298
// 5.3). The peer is scripted segment by segment, the way the Linux receiver
// behaves: it opens its window on almost every ACK and sends SACK blocks.
//
// Common script (all by hand):
//   SMSS 1460, no timestamps (the SYN-ACK carries none), so every data
//   segment carries 1460 bytes. IW = 10 segments (initial_window_segments).
//   t=0    SYN.  t=100 SYN-ACK (MSS 1460, SACK-permitted, window 65535
//          unscaled): R = 100 ms, SRTT 100, RTTVAR 50, RTO = max(1 s,
//          100 + 4*50) = 1 s (2.2, 2.4); S1..S10 leave at once, the timer
//          starts for 100 + 1000 = 1100 (5.1).
//   S_k covers seq ISS + 1 + (k-1)*1460 .. +1460.

#include <doctest/doctest.h>

#include <initializer_list>
#include <utility>

#include "netstack/segment_codec.hpp"
#include "sim_fixture.hpp"

using namespace nstest;

namespace {

constexpr std::uint32_t kPeerIss = 5000;
constexpr std::uint32_t kSeg = 1460;
const std::uint32_t kIss = sender_config().iss;

/// First sequence number of data segment k (1-based).
std::uint32_t seg(std::uint32_t k) { return kIss + 1 + (k - 1) * kSeg; }

/// A SACK block covering segments first..last.
wire::SackBlock sacks(std::uint32_t first, std::uint32_t last) { return {seg(first), seg(last + 1)}; }

std::vector<std::uint8_t> peer_ack(std::uint32_t ack, std::uint16_t window,
                                   std::initializer_list<wire::SackBlock> blocks = {}) {
  wire::TcpHeader h;
  h.seq = kPeerIss + 1;
  h.ack = ack;
  h.flags = wire::kAck;
  h.window = window;
  for (const auto& b : blocks) h.options.sack[h.options.sack_count++] = b;
  return netstack::encode_segment(sender_config().remote, sender_config().local, h, {});
}

struct Sent {
  std::uint32_t seq;
  std::size_t len;
};

std::vector<Sent> sent(netstack::TcpSender& s) {
  std::vector<Sent> v;
  for (const auto& d : s.take_output()) {
    auto p = netstack::parse_segment(d);
    REQUIRE(std::holds_alternative<netstack::ParsedSegment>(p));
    const auto& ps = std::get<netstack::ParsedSegment>(p);
    v.push_back({ps.tcp.seq, ps.payload.size()});
  }
  return v;
}

/// A sender past the common script's t=100: S1..S10 in flight, and
/// `segments` - 10 more segments written but held back by cwnd.
struct Scripted {
  explicit Scripted(bool sack_permitted = true, std::uint32_t segments = 10) : s(config()) {
    s.write(pattern(segments * kSeg));
    s.connect(at_ms(0));
    s.take_output();
    wire::TcpHeader h;
    h.seq = kPeerIss;
    h.ack = kIss + 1;
    h.flags = wire::kSyn | wire::kAck;
    h.window = 65535;
    h.options.mss = 1460;
    h.options.sack_permitted = sack_permitted;
    s.on_datagram(netstack::encode_segment(sender_config().remote, sender_config().local, h, {}), at_ms(100));
    const auto out = sent(s);
    REQUIRE(out.size() == 11);  // the ACK of the SYN-ACK, then S1..S10
    CHECK(out[1].seq == seg(1));
    CHECK(out[10].seq == seg(10));
    CHECK(out[10].len == kSeg);
    REQUIRE(s.rto() == milliseconds{1000});
    REQUIRE(s.next_deadline() == at_ms(1100));
  }
  static netstack::SenderConfig config() {
    auto c = sender_config();
    c.timestamps = false;
    c.initial_window_segments = 10;
    return c;
  }
  netstack::TcpSender s;
};

}  // namespace

TEST_CASE("RFC 6675 5 dup ACK: growing window + new SACK blocks fast-retransmit at the third; B12 no backoff, 5.1 timer kept") {
  // S1 lost. The peer answers S2, S3, S4 with ACK = S1 and windows 30000,
  // 30100, 30200 (each one changed: never a duplicate under RFC 5681 (e)
  // alone), SACKing S2, S2-S3, S2-S4: each block reports a new segment.
  Scripted t;
  auto& s = t.s;
  s.on_datagram(peer_ack(seg(1), 30000, {sacks(2, 2)}), at_ms(200));
  CHECK(s.stats().dup_acks == 1);
  s.on_datagram(peer_ack(seg(1), 30100, {sacks(2, 3)}), at_ms(201));
  CHECK(s.stats().dup_acks == 2);
  CHECK(sent(s).empty());
  s.on_datagram(peer_ack(seg(1), 30200, {sacks(2, 4)}), at_ms(202));
  CHECK(s.stats().dup_acks == 3);
  // Third duplicate: RFC 6582 3.2 step 3: S1 again, once.
  const auto out = sent(s);
  REQUIRE(out.size() == 1);
  CHECK(out[0].seq == seg(1));
  CHECK(out[0].len == kSeg);
  CHECK(s.stats().retransmissions_fast == 1);
  CHECK(s.stats().fast_recoveries == 1);
  CHECK(s.stats().timeouts == 0);
  // ssthresh = max(FlightSize/2, 2*SMSS) = max(14600/2, 2920) = 7300;
  // cwnd = ssthresh + 3*SMSS = 7300 + 4380 = 11680 (RFC 6582 3.2 step 3).
  CHECK(s.congestion().in_recovery());
  CHECK(s.congestion().ssthresh() == 7300);
  CHECK(s.congestion().cwnd() == 11680);
  // B12: a fast retransmit is not a timeout: RTO still 1 s, backoff 0, and the
  // running timer is neither restarted (5.1) nor moved by the duplicates.
  CHECK(s.rto() == milliseconds{1000});
  CHECK(s.backoff() == 0);
  CHECK(s.next_deadline() == at_ms(1100));
  // Full ACK at 300 (window 33000): recovery ends (step 6, option 1):
  // cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS) = min(7300, 0 + 1460 + 1460) = 2920;
  // everything acknowledged stops the timer (5.2).
  s.on_datagram(peer_ack(seg(11), 33000), at_ms(300));
  CHECK_FALSE(s.congestion().in_recovery());
  CHECK(s.congestion().cwnd() == 2920);
  CHECK(s.snd_una() == seg(11));
  CHECK_FALSE(s.next_deadline().has_value());
  CHECK(s.rto() == milliseconds{1000});
  CHECK(s.backoff() == 0);
}

TEST_CASE("RFC 5681 2 (e) / 6298 5.3: three pure window updates (no SACK) are not duplicates and leave the timer alone") {
  Scripted t;
  auto& s = t.s;
  s.on_datagram(peer_ack(seg(1), 30000), at_ms(200));
  s.on_datagram(peer_ack(seg(1), 30100), at_ms(201));
  s.on_datagram(peer_ack(seg(1), 30200), at_ms(202));
  CHECK(s.stats().dup_acks == 0);
  CHECK(s.stats().retransmissions == 0);
  CHECK_FALSE(s.congestion().in_recovery());
  CHECK(s.snd_wnd() == 30200);
  CHECK(sent(s).empty());
  // 5.3: only an ACK of new data restarts the timer: still 1100, not 1202.
  CHECK(s.next_deadline() == at_ms(1100));
  // So the loss waits for the timer: at 1100, S1 by timeout (5.4), RTO 2 s (5.5).
  s.on_tick(at_ms(1100));
  const auto out = sent(s);
  REQUIRE(out.size() == 1);
  CHECK(out[0].seq == seg(1));
  CHECK(s.stats().timeouts == 1);
  CHECK(s.stats().retransmissions_timeout == 1);
  CHECK(s.backoff() == 1);
  CHECK(s.rto() == milliseconds{2000});
}

TEST_CASE("dup ACK: SACK blocks repeated with a changed window are no news; an unchanged window still counts (RFC 5681 (e))") {
  Scripted t;
  auto& s = t.s;
  // 1: new SACK block S2, window changed: counts (RFC 6675).
  s.on_datagram(peer_ack(seg(1), 30000, {sacks(2, 2)}), at_ms(200));
  CHECK(s.stats().dup_acks == 1);
  // 2, 3: the same block again with windows 30100, 30200 (the application
  // read): window updates, nothing new SACKed: not counted.
  s.on_datagram(peer_ack(seg(1), 30100, {sacks(2, 2)}), at_ms(201));
  s.on_datagram(peer_ack(seg(1), 30200, {sacks(2, 2)}), at_ms(202));
  CHECK(s.stats().dup_acks == 1);
  // A block inside what is already SACKed is no news either.
  s.on_datagram(peer_ack(seg(1), 30300, {{seg(2) + 100, seg(2) + 200}}), at_ms(203));
  CHECK(s.stats().dup_acks == 1);
  CHECK(sent(s).empty());
  // 4, 5: window unchanged (30300), no new SACK: duplicates by RFC 5681 (e).
  s.on_datagram(peer_ack(seg(1), 30300, {sacks(2, 2)}), at_ms(204));
  CHECK(s.stats().dup_acks == 2);
  s.on_datagram(peer_ack(seg(1), 30300), at_ms(205));
  CHECK(s.stats().dup_acks == 3);
  const auto out = sent(s);
  REQUIRE(out.size() == 1);
  CHECK(out[0].seq == seg(1));
  CHECK(s.stats().retransmissions_fast == 1);
  CHECK(s.next_deadline() == at_ms(1100));
}

TEST_CASE("dup ACK: SACK blocks below SND.UNA (D-SACK), beyond SND.MAX, or without SACK-permitted are no news") {
  SUBCASE("invalid blocks") {
    Scripted t;
    auto& s = t.s;
    // Below SND.UNA (a D-SACK of data already acknowledged, RFC 2883).
    s.on_datagram(peer_ack(seg(1), 30000, {{kIss - 3000, kIss - 1000}}), at_ms(200));
    // Reaching past SND.MAX = seg(11): data never sent.
    s.on_datagram(peer_ack(seg(1), 30100, {{seg(10), seg(11) + 1}}), at_ms(201));
    // Right edge not after the left edge.
    s.on_datagram(peer_ack(seg(1), 30200, {{seg(4), seg(3)}}), at_ms(202));
    CHECK(s.stats().dup_acks == 0);
    CHECK(sent(s).empty());
    // A valid one still counts afterwards, and a block straddling SND.UNA is
    // clipped to it (S1 itself was not received; the part above is news).
    s.on_datagram(peer_ack(seg(1), 30300, {{seg(1) - 500, seg(3)}}), at_ms(203));
    CHECK(s.stats().dup_acks == 1);
  }
  SUBCASE("SACK not negotiated: blocks ignored, window updates do not count") {
    Scripted t(false);
    auto& s = t.s;
    s.on_datagram(peer_ack(seg(1), 30000, {sacks(2, 2)}), at_ms(200));
    s.on_datagram(peer_ack(seg(1), 30100, {sacks(2, 3)}), at_ms(201));
    s.on_datagram(peer_ack(seg(1), 30200, {sacks(2, 4)}), at_ms(202));
    CHECK(s.stats().dup_acks == 0);
    CHECK(s.stats().retransmissions == 0);
  }
}

TEST_CASE("RFC 6582 3.2 steps 4-6 with SACK-bearing dup ACKs: inflation, partial ACK, 5.3 restart, full ACK") {
  // S1 and S5 lost; S2-S4 and S6-S10 arrive. Windows grow on every ACK.
  Scripted t;
  auto& s = t.s;
  s.on_datagram(peer_ack(seg(1), 30000, {sacks(2, 2)}), at_ms(200));
  s.on_datagram(peer_ack(seg(1), 30100, {sacks(2, 3)}), at_ms(201));
  s.on_datagram(peer_ack(seg(1), 30200, {sacks(2, 4)}), at_ms(202));
  REQUIRE(s.congestion().in_recovery());
  CHECK(s.congestion().cwnd() == 11680);  // 7300 + 3*1460, as above
  REQUIRE(sent(s).size() == 1);           // S1, fast
  // Step 4: each further duplicate inflates cwnd by SMSS:
  // 11680 + 1460 = 13140, 14600, 16060. No data is left to send.
  s.on_datagram(peer_ack(seg(1), 30300, {sacks(6, 6), sacks(2, 4)}), at_ms(203));
  CHECK(s.congestion().cwnd() == 13140);
  s.on_datagram(peer_ack(seg(1), 30400, {sacks(6, 7), sacks(2, 4)}), at_ms(204));
  s.on_datagram(peer_ack(seg(1), 30500, {sacks(6, 8), sacks(2, 4)}), at_ms(205));
  CHECK(s.congestion().cwnd() == 16060);
  CHECK(s.stats().dup_acks == 6);
  CHECK(sent(s).empty());
  CHECK(s.next_deadline() == at_ms(1100));
  // t=300: the retransmitted S1 arrives: ACK = S5 (acknowledges S1-S4,
  // 4*1460 = 5840 bytes), a partial ACK (below recover = seg(11) - 1):
  // step 5: cwnd = 16060 - 5840 + 1460 = 11680; S5 retransmitted at once;
  // the timer restarts for 300 + 1000 = 1300 (5.3).
  s.on_datagram(peer_ack(seg(5), 31000, {sacks(6, 8)}), at_ms(300));
  CHECK(s.snd_una() == seg(5));
  CHECK(s.congestion().in_recovery());
  CHECK(s.congestion().cwnd() == 11680);
  auto out = sent(s);
  REQUIRE(out.size() == 1);
  CHECK(out[0].seq == seg(5));
  CHECK(s.stats().retransmissions_fast == 2);
  CHECK(s.stats().fast_recoveries == 1);
  CHECK(s.next_deadline() == at_ms(1300));
  // The S6-S8 block repeated with a new window: no news, not a duplicate,
  // no inflation. S9 newly SACKed: a duplicate, cwnd 11680 + 1460 = 13140.
  s.on_datagram(peer_ack(seg(5), 31100, {sacks(6, 8)}), at_ms(301));
  CHECK(s.stats().dup_acks == 6);
  CHECK(s.congestion().cwnd() == 11680);
  s.on_datagram(peer_ack(seg(5), 31200, {sacks(6, 9)}), at_ms(302));
  CHECK(s.stats().dup_acks == 7);
  CHECK(s.congestion().cwnd() == 13140);
  CHECK(s.next_deadline() == at_ms(1300));  // duplicates do not restart it (5.3)
  // t=400: S5 arrives: full ACK of everything; cwnd = min(7300, 0 + 1460 + 1460) = 2920.
  s.on_datagram(peer_ack(seg(11), 32000), at_ms(400));
  CHECK_FALSE(s.congestion().in_recovery());
  CHECK(s.congestion().cwnd() == 2920);
  CHECK(s.stats().timeouts == 0);
  CHECK(s.backoff() == 0);
  CHECK(s.rto() == milliseconds{1000});
  CHECK_FALSE(s.next_deadline().has_value());
}

TEST_CASE("RFC 3042 Limited Transmit: one new segment on each of the first two duplicates, FlightSize <= cwnd + 2*SMSS") {
  SUBCASE("S11 and S12 go out on duplicates 1 and 2; S1 fast at the third") {
    // 14 segments written, S1..S10 in flight (cwnd 14600). Duplicate 1:
    // FlightSize 14600 + 1460 <= cwnd + 2*SMSS = 17520: S11. Duplicate 2:
    // 16060 + 1460 = 17520 <= 17520: S12. cwnd unchanged (14600).
    Scripted t(true, 14);
    auto& s = t.s;
    s.on_datagram(peer_ack(seg(1), 30000, {sacks(2, 2)}), at_ms(200));
    auto out = sent(s);
    REQUIRE(out.size() == 1);
    CHECK(out[0].seq == seg(11));
    CHECK(out[0].len == kSeg);
    s.on_datagram(peer_ack(seg(1), 30100, {sacks(2, 3)}), at_ms(201));
    out = sent(s);
    REQUIRE(out.size() == 1);
    CHECK(out[0].seq == seg(12));
    CHECK(s.congestion().cwnd() == 14600);
    CHECK(s.stats().limited_transmits == 2);
    CHECK(s.stats().retransmissions == 0);
    // Third: FlightSize = 12 * 1460 = 17520: ssthresh 8760, cwnd 8760 + 4380
    // = 13140 < 17520 in flight: only the fast retransmission of S1 leaves.
    s.on_datagram(peer_ack(seg(1), 30200, {sacks(2, 4)}), at_ms(202));
    out = sent(s);
    REQUIRE(out.size() == 1);
    CHECK(out[0].seq == seg(1));
    CHECK(s.congestion().ssthresh() == 8760);
    CHECK(s.congestion().cwnd() == 13140);
    CHECK(s.stats().limited_transmits == 2);
    CHECK(s.next_deadline() == at_ms(1100));  // new data sent with the timer running: not restarted (5.1)
  }
  SUBCASE("not past the peer's window, and not on a window update") {
    Scripted t(true, 14);
    auto& s = t.s;
    // Window update to 20000 (no SACK): not a duplicate; push() may send by
    // cwnd only: 14600 in flight = cwnd: nothing.
    s.on_datagram(peer_ack(seg(1), 20000), at_ms(200));
    CHECK(sent(s).empty());
    // A duplicate (new SACK) whose window is exactly the 14600 in flight: no room.
    s.on_datagram(peer_ack(seg(1), 14600, {sacks(2, 2)}), at_ms(201));
    CHECK(s.stats().dup_acks == 1);
    CHECK(sent(s).empty());
    CHECK(s.stats().limited_transmits == 0);
  }
}

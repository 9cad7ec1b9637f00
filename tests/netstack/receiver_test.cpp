// The receiver core driven by hand-made segments: RFC 7323 4.3 TS.Recent and
// TSecr, delayed ACKs (RFC 1122 4.2.3.2), immediate duplicate ACKs with SACK
// blocks (RFC 5681 4.2, RFC 2018), reassembly, FIN close.

#include <doctest/doctest.h>

#include "netstack/segment_codec.hpp"
#include "sim_fixture.hpp"

using namespace nstest;

namespace {

constexpr std::uint32_t kIss = 1000;  // the peer's ISS; data byte k has SEQ 1001 + k

struct Peer {
  netstack::TcpReceiver r;
  explicit Peer(netstack::ReceiverConfig rc) : r(std::move(rc)) {}

  void send(std::uint8_t flags, std::uint32_t seq, std::uint32_t tsval, std::size_t len, rto::Instant now,
            std::uint32_t ack = receiver_config().iss + 1) {
    wire::TcpHeader h;
    h.flags = flags;
    h.seq = seq;
    h.ack = ack;
    h.window = 65535;
    h.options.tsval = tsval;
    h.options.tsecr = 0;
    if (flags & wire::kSyn) {
      h.options.mss = 1000;
      h.options.sack_permitted = true;
      h.options.window_scale = 0;
    }
    const auto payload = pattern(len, seq);
    r.on_datagram(netstack::encode_segment(sender_config().local, sender_config().remote, h, payload), now);
  }
  std::vector<wire::TcpHeader> out() {
    std::vector<wire::TcpHeader> v;
    for (const auto& d : r.take_output()) {
      auto p = netstack::parse_segment(d);
      REQUIRE(std::holds_alternative<netstack::ParsedSegment>(p));
      v.push_back(std::get<netstack::ParsedSegment>(p).tcp);
    }
    return v;
  }
  void handshake() {
    send(wire::kSyn, kIss, 10, 0, at_ms(0), 0);
    const auto synack = out();
    REQUIRE(synack.size() == 1);
    CHECK(synack[0].options.tsecr == 10u);
    send(wire::kAck, kIss + 1, 11, 0, at_ms(100));
    CHECK(out().empty());
    CHECK(r.state() == netstack::ReceiverState::Established);
  }
};

}  // namespace

TEST_CASE("RFC 7323 4.3 delayed ACK echoes the TSval of the earlier segment; ACK after 2 segments or 40 ms") {
  auto rc = receiver_config();
  rc.delayed_ack = true;
  Peer p(rc);
  p.handshake();
  p.send(wire::kAck, kIss + 1, 100, 500, at_ms(200));
  CHECK(p.out().empty());  // delayed
  CHECK(p.r.next_deadline() == at_ms(240));
  p.send(wire::kAck, kIss + 501, 101, 500, at_ms(210));
  auto acks = p.out();
  REQUIRE(acks.size() == 1);  // every second segment
  CHECK(acks[0].ack == kIss + 1001);
  // TS.Recent took 100 (SEQ 1001 <= Last.ACK.sent 1001), not 101 (SEQ 1501 > 1001).
  CHECK(acks[0].options.tsecr == 100u);
  p.send(wire::kAck, kIss + 1001, 102, 500, at_ms(300));
  CHECK(p.out().empty());
  p.r.on_tick(at_ms(339));
  CHECK(p.out().empty());
  p.r.on_tick(at_ms(340));  // the 40 ms delayed-ACK timer
  acks = p.out();
  REQUIRE(acks.size() == 1);
  CHECK(acks[0].ack == kIss + 1501);
  CHECK(acks[0].options.tsecr == 102u);
}

TEST_CASE("out of order: immediate duplicate ACK with SACK blocks, TSecr not advanced; the gap fill echoes its TSval") {
  Peer p(receiver_config());
  p.handshake();
  p.send(wire::kAck, kIss + 1, 100, 500, at_ms(200));
  CHECK(p.out().size() == 1);
  p.send(wire::kAck, kIss + 1001, 200, 500, at_ms(210));  // [1001,1501) of the stream missing before it
  auto acks = p.out();
  REQUIRE(acks.size() == 1);
  CHECK(acks[0].ack == kIss + 501);
  CHECK(acks[0].options.tsecr == 100u);  // RFC 7323 4.3: SEQ 2001 > Last.ACK.sent: TS.Recent kept
  REQUIRE(acks[0].options.sack_count == 1);
  CHECK(acks[0].options.sack[0].left == kIss + 1001);
  CHECK(acks[0].options.sack[0].right == kIss + 1501);
  p.send(wire::kAck, kIss + 2001, 201, 500, at_ms(220));  // a second island
  acks = p.out();
  REQUIRE(acks.size() == 1);
  REQUIRE(acks[0].options.sack_count == 2);
  CHECK(acks[0].options.sack[0].left == kIss + 2001);  // the latest first (RFC 2018 4)
  CHECK(acks[0].options.sack[1].left == kIss + 1001);
  p.send(wire::kAck, kIss + 501, 300, 500, at_ms(230));  // fills the first gap
  acks = p.out();
  REQUIRE(acks.size() == 1);
  CHECK(acks[0].ack == kIss + 1501);
  CHECK(acks[0].options.tsecr == 300u);
  REQUIRE(acks[0].options.sack_count == 1);
  p.send(wire::kAck, kIss + 1501, 301, 500, at_ms(240));
  acks = p.out();
  REQUIRE(acks.size() == 1);
  CHECK(acks[0].ack == kIss + 2501);
  CHECK(acks[0].options.sack_count == 0);
  std::vector<std::uint8_t> expect;
  for (std::uint32_t seq = kIss + 1; seq < kIss + 2501; seq += 500) {
    const auto part = pattern(500, seq);
    expect.insert(expect.end(), part.begin(), part.end());
  }
  CHECK(p.r.read() == expect);
  CHECK(p.r.stats().bytes_delivered == 2500);
  // A duplicate of old data: counted, ACKed at once, not delivered again.
  p.send(wire::kAck, kIss + 1, 302, 500, at_ms(250));
  CHECK(p.out().size() == 1);
  CHECK(p.r.stats().duplicate_bytes == 500);
  CHECK(p.r.read().empty());
}

TEST_CASE("FIN: delivered in order, answered with FIN+ACK, LAST-ACK until our FIN is acknowledged") {
  Peer p(receiver_config());
  p.handshake();
  p.send(wire::kAck | wire::kFin, kIss + 1, 100, 300, at_ms(200));
  auto acks = p.out();
  REQUIRE(acks.size() == 1);
  CHECK((acks[0].flags & wire::kFin) != 0);
  CHECK(acks[0].ack == kIss + 302);  // 300 bytes + FIN
  CHECK(p.r.peer_closed());
  CHECK(p.r.state() == netstack::ReceiverState::LastAck);
  // Our FIN is retransmitted on the RTO (1 s: no RTT sample beyond the handshake's).
  p.r.on_tick(at_ms(1200));
  acks = p.out();
  REQUIRE(acks.size() == 1);
  CHECK((acks[0].flags & wire::kFin) != 0);
  CHECK(p.r.stats().retransmissions == 1);
  p.send(wire::kAck, kIss + 302, 101, 0, at_ms(1300), receiver_config().iss + 2);
  CHECK(p.r.state() == netstack::ReceiverState::Closed);
}

// Regression tests of what fuzzing found in the receiver core (tests/fuzz/
// netstack_rx): data at or after the peer's FIN was taken as stream
// data, one byte off (the FIN's sequence number counted as a byte). Each
// input is also in tests/fuzz/corpus/netstack_rx/ (regress-*).

#include <doctest/doctest.h>

#include "netstack/segment_codec.hpp"
#include "sim_fixture.hpp"

using namespace nstest;

namespace {

constexpr std::uint32_t kIss = 1000;  // the peer's ISS; data byte k has SEQ 1001 + k

struct Peer {
  netstack::TcpReceiver r{receiver_config()};

  void send(std::uint8_t flags, std::uint32_t seq, std::size_t len, rto::Instant now) {
    wire::TcpHeader h;
    h.flags = flags;
    h.seq = seq;
    h.ack = flags & wire::kSyn ? 0 : receiver_config().iss + 1;
    h.window = 65535;
    r.on_datagram(netstack::encode_segment(sender_config().local, sender_config().remote, h, pattern(len, seq)), now);
    r.take_output();
  }
  void handshake() {
    send(wire::kSyn, kIss, 0, at_ms(0));
    send(wire::kAck, kIss + 1, 0, at_ms(10));
    REQUIRE(r.state() == netstack::ReceiverState::Established);
  }
};

}  // namespace

TEST_CASE("fuzz finding: data after the peer's FIN is not delivered (RFC 9293 3.10.7.4: CLOSE-WAIT ignores text)") {
  Peer p;
  p.handshake();
  // 300 bytes and the FIN: SEQ 1001..1300, FIN at 1301; RCV.NXT = 1302.
  p.send(wire::kAck | wire::kFin, kIss + 1, 300, at_ms(20));
  REQUIRE(p.r.peer_closed());
  REQUIRE(p.r.stats().bytes_delivered == 300);
  // 100 bytes from SEQ 1301 (the FIN's number): before the fix the segment
  // was trimmed by the one "old" byte and its other 99 bytes were delivered
  // as stream bytes 300..398.
  p.send(wire::kAck, kIss + 301, 100, at_ms(30));
  CHECK(p.r.stats().bytes_delivered == 300);
  CHECK(p.r.readable() == 300);
}

TEST_CASE("fuzz finding: bytes past an early FIN stop at it; the bytes before it are delivered and the FIN closes") {
  Peer p;
  p.handshake();
  // A bare FIN at SEQ 1101 (stream offset 100) arrives first, then 200 bytes
  // from offset 0. Offsets 0..99 are the stream, 100 is the FIN: 100 bytes
  // delivered, the peer closed. Before the fix all 200 were delivered and
  // the FIN was never reached (RCV.NXT passed it).
  p.send(wire::kAck | wire::kFin, kIss + 101, 0, at_ms(20));
  CHECK_FALSE(p.r.peer_closed());
  p.send(wire::kAck, kIss + 1, 200, at_ms(30));
  CHECK(p.r.stats().bytes_delivered == 100);
  CHECK(p.r.peer_closed());
}

TEST_CASE("the FIN boundary: bytes exactly up to the FIN are all delivered") {
  Peer p;
  p.handshake();
  p.send(wire::kAck | wire::kFin, kIss + 101, 0, at_ms(20));  // FIN at offset 100
  p.send(wire::kAck, kIss + 1, 100, at_ms(30));               // offsets 0..99
  CHECK(p.r.stats().bytes_delivered == 100);
  CHECK(p.r.peer_closed());
}

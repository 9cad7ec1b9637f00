// The connect path against a server that is not there: a closed port's RST
// (RFC 9293 3.10.7.1) surfacing as ConnectionRefused, and the OPEN timeout
// (RFC 9293 3.10.1, SenderConfig::connect_timeout) against a silent one.

#include <variant>

#include <doctest/doctest.h>

#include "netstack/closed_port.hpp"
#include "netstack/segment_codec.hpp"
#include "sim_fixture.hpp"

using namespace nstest;
using netstack::FailureReason;
using netstack::SenderState;

namespace {

netstack::ParsedSegment parse(const std::vector<std::uint8_t>& d) {
  auto p = netstack::parse_segment(d);
  REQUIRE(std::holds_alternative<netstack::ParsedSegment>(p));
  return std::get<netstack::ParsedSegment>(p);
}

std::vector<std::uint8_t> segment(std::uint8_t flags, std::uint32_t seq, std::uint32_t ack, std::size_t payload = 0) {
  wire::TcpHeader h;
  h.flags = flags;
  h.seq = seq;
  h.ack = ack;
  h.window = 1000;
  const std::vector<std::uint8_t> data(payload, 0x5a);
  return netstack::encode_segment(sender_config().local, sender_config().remote, h, data);
}

}  // namespace

TEST_CASE("closed port (RFC 9293 3.10.7.1): RST,ACK for a SYN, RST for an ACK, nothing for a RST") {
  SUBCASE("SYN without ACK: <SEQ=0><ACK=SEG.SEQ+SEG.LEN><CTL=RST,ACK>, SEG.LEN = 1 for the SYN") {
    const auto reply = netstack::closed_port_reply(segment(wire::kSyn, 1000, 0), 9);
    REQUIRE(reply.has_value());
    const auto p = parse(*reply);
    CHECK(p.src == sender_config().remote);  // from the closed port back to the client
    CHECK(p.dst == sender_config().local);
    CHECK(p.tcp.flags == (wire::kRst | wire::kAck));
    CHECK(p.tcp.seq == 0);
    CHECK(p.tcp.ack == 1001);  // 1000 + 1 (SYN)
    CHECK(p.payload.empty());
  }
  SUBCASE("data and FIN without ACK: ACK = SEG.SEQ + 10 payload bytes + 1 (FIN)") {
    const auto reply = netstack::closed_port_reply(segment(wire::kFin, 500, 0, 10));
    REQUIRE(reply.has_value());
    CHECK(parse(*reply).tcp.ack == 511);  // 500 + 10 + 1
  }
  SUBCASE("ACK on: <SEQ=SEG.ACK><CTL=RST>") {
    const auto reply = netstack::closed_port_reply(segment(wire::kAck, 7, 4242));
    REQUIRE(reply.has_value());
    const auto p = parse(*reply);
    CHECK(p.tcp.flags == wire::kRst);
    CHECK(p.tcp.seq == 4242);
  }
  SUBCASE("a RST and a corrupt datagram get no reply") {
    CHECK_FALSE(netstack::closed_port_reply(segment(wire::kRst, 1, 0)).has_value());
    auto bad = segment(wire::kSyn, 1, 0);
    bad.back() ^= 0xFF;  // checksum fails
    CHECK_FALSE(netstack::closed_port_reply(bad).has_value());
  }
}

TEST_CASE("connect to a closed port: the RST in reply to the SYN surfaces as ConnectionRefused") {
  auto sc = sender_config();
  netstack::TcpSender s(sc);
  s.connect(at_ms(0));
  auto out = s.take_output();
  REQUIRE(out.size() == 1);
  const auto rst = netstack::closed_port_reply(out[0]);
  REQUIRE(rst.has_value());
  s.on_datagram(*rst, at_ms(20));
  CHECK(s.state() == SenderState::Reset);
  CHECK(s.failure() == FailureReason::ConnectionRefused);
  CHECK(s.finished());
  CHECK(s.stats().timeouts == 0);
  CHECK_FALSE(s.next_deadline().has_value());
}

// Silent server, connect_timeout 2500 ms: the SYN at 0 is retransmitted at
// 1000 (RTO 1 s, RFC 6298 2.1) and the RTO doubles to 2 s (5.5), so the next
// retransmission would be at 3000; the connect deadline 0 + 2500 comes first.
TEST_CASE("connect timeout (RFC 9293 3.10.1): a silent server fails the attempt at the deadline, nothing sent") {
  auto sc = sender_config();
  sc.connect_timeout = milliseconds{2500};
  netstack::TcpSender s(sc);
  s.connect(at_ms(0));
  CHECK(s.take_output().size() == 1);
  REQUIRE(s.next_deadline() == at_ms(1000));
  s.on_tick(at_ms(1000));
  CHECK(s.take_output().size() == 1);            // the retransmitted SYN
  CHECK(s.next_deadline() == at_ms(2500));       // min(3000 retransmission, 2500 deadline)
  s.on_tick(at_ms(2499));
  CHECK(s.state() == SenderState::SynSent);      // 1 us before the deadline: still trying
  s.on_tick(at_ms(2500));
  CHECK(s.state() == SenderState::Failed);
  CHECK(s.failure() == FailureReason::ConnectTimeout);
  CHECK(s.take_output().empty());
  CHECK(s.stats().timeouts == 1);
  CHECK_FALSE(s.next_deadline().has_value());
}

// A deadline equal to a retransmission time wins: connect_timeout 1000 ms and
// the first SYN timeout at 1000 ms: the attempt fails, no second SYN.
TEST_CASE("connect timeout equal to the first SYN timeout: fails without retransmitting") {
  auto sc = sender_config();
  sc.connect_timeout = milliseconds{1000};
  netstack::TcpSender s(sc);
  s.connect(at_ms(0));
  (void)s.take_output();
  s.on_tick(at_ms(1000));
  CHECK(s.failure() == FailureReason::ConnectTimeout);
  CHECK(s.take_output().empty());
  CHECK(s.stats().timeouts == 0);
}

// The timeout only bounds the handshake: a connection established over a
// 100 ms RTT path at t = 100 ms is not touched by a 500 ms connect timeout.
TEST_CASE("connect timeout: no effect once established") {
  auto sc = sender_config();
  sc.connect_timeout = milliseconds{500};
  netstack::TcpSender s(sc);
  netstack::TcpReceiver r(receiver_config());
  netstack::SimConfig cfg;
  cfg.forward = plain_link(milliseconds{50});
  cfg.reverse = plain_link(milliseconds{50});
  netstack::SimNetwork net(cfg, s, r);
  s.connect(at_ms(0));
  net.run_until(at_ms(2000));
  CHECK(s.state() == SenderState::Established);
  CHECK(s.failure() == FailureReason::None);
}

// IPv4 Identification of the cores' datagrams: counted up per datagram (RFC
// 6864 4.1 allows any value on atomic datagrams; Linux counts per socket), so a
// capture tells a retransmission (new ID) from a packet captured twice (same ID).

#include <doctest/doctest.h>

#include "netstack/segment_codec.hpp"
#include "sim_fixture.hpp"
#include "wire/ip.hpp"

using namespace nstest;

namespace {

std::uint16_t ipv4_id(const std::vector<std::uint8_t>& datagram) {
  const auto ip = wire::decode_ip(datagram);
  REQUIRE(wire::ok(ip));
  REQUIRE(wire::value(ip).v4.has_value());
  return wire::value(ip).v4->id;
}

}  // namespace

TEST_CASE("encode_segment writes the given IPv4 Identification") {
  wire::TcpHeader h;
  h.flags = wire::kAck;
  CHECK(ipv4_id(netstack::encode_segment(sender_config().local, sender_config().remote, h, {}, 0x1234)) == 0x1234);
  CHECK(ipv4_id(netstack::encode_segment(sender_config().local, sender_config().remote, h, {})) == 0);
}

// The SYN is datagram 1, its retransmission after the 1 s RTO (2.1, 5.5)
// datagram 2: same TCP segment, IDs 1 and 2.
TEST_CASE("the sender's retransmitted SYN carries a new IPv4 Identification") {
  netstack::TcpSender s(sender_config());
  s.connect(at_ms(0));
  auto first = s.take_output();
  REQUIRE(first.size() == 1);
  s.on_tick(at_ms(1000));
  auto second = s.take_output();
  REQUIRE(second.size() == 1);
  CHECK(ipv4_id(first[0]) == 1);
  CHECK(ipv4_id(second[0]) == 2);
}

// Case B20 (shared/cases) and the other link types: the same exchange
// stored as LINUX_SLL, LINUX_SLL2, EN10MB (plain, 802.1Q, QinQ, PPPoE), RAW,
// IPV4, NULL and LOOP decodes to identical segments.
#include "reader_capture_builder.hpp"

#include <functional>

using namespace readertest;

namespace {

// B20: data seq 1 len 100 at t = 0.000, ACK 101 at t = 0.030.
std::vector<Record> exchange(const std::function<Bytes(const Bytes&)>& wrap) {
  return {{1'700'000'000, 0, wrap(ipv4_tcp(false, 1, 1, wire::kAck | wire::kPsh, 100))},
          {1'700'000'000, 30'000, wrap(ipv4_tcp(true, 1, 101, wire::kAck, 0))}};
}

ReadResult read_exchange(std::uint32_t linktype, const std::function<Bytes(const Bytes&)>& wrap,
                         const std::string& name) {
  return read_all(write_temp(pcap_file(0xA1B2C3D4, linktype, exchange(wrap)), name));
}

// The reference decode every link type must reproduce.
void check_exchange(const ReadResult& r) {
  REQUIRE(r.segments.size() == 2);
  CHECK(r.diagnostics.empty());
  const replay::Segment& d = r.segments[0];
  const replay::Segment& a = r.segments[1];
  CHECK(to_string(d.src) == "198.18.0.1:40000");
  CHECK(to_string(d.dst) == "198.18.0.2:5001");
  CHECK(d.src == a.dst);
  CHECK(d.dst == a.src);
  CHECK(d.tcp.seq == 1u);
  CHECK(d.payload_len == 100u);
  CHECK(a.tcp.ack == 101u);
  CHECK(a.payload_len == 0u);
  CHECK(a.tcp.has(wire::kAck));
  CHECK(d.frame == 1);
  CHECK(a.frame == 2);
  // RTT of the B20 case: 30 ms.
  CHECK(ns(a) - ns(d) == 30'000'000);
}

bool same(const replay::Segment& x, const replay::Segment& y) {
  return x.src == y.src && x.dst == y.dst && x.tcp.seq == y.tcp.seq && x.tcp.ack == y.tcp.ack &&
         x.tcp.flags == y.tcp.flags && x.payload_len == y.payload_len && x.time == y.time && x.frame == y.frame;
}

}  // namespace

TEST_CASE("B20: SLL (113), SLL2 (276) and EN10MB (1) give identical segments, RTT 30 ms") {
  const ReadResult e = read_exchange(1, [](const Bytes& ip) { return ether(0x0800, ip); }, "b20-eth.pcap");
  const ReadResult s1 = read_exchange(113, [](const Bytes& ip) { return sll(0x0800, ip); }, "b20-sll.pcap");
  const ReadResult s2 = read_exchange(276, [](const Bytes& ip) { return sll2(0x0800, ip); }, "b20-sll2.pcap");
  check_exchange(e);
  check_exchange(s1);
  check_exchange(s2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(same(e.segments[i], s1.segments[i]));
    CHECK(same(e.segments[i], s2.segments[i]));
  }
}

TEST_CASE("link types: 802.1Q, stacked 802.1ad+802.1Q, PPPoE in QinQ, RAW, IPV4, NULL, LOOP") {
  SUBCASE("802.1Q") {
    check_exchange(read_exchange(1, [](const Bytes& ip) { return ether(0x0800, ip, {0x8100}); }, "vlan.pcap"));
  }
  SUBCASE("802.1ad outer + 802.1Q inner") {
    check_exchange(read_exchange(1, [](const Bytes& ip) { return ether(0x0800, ip, {0x88A8, 0x8100}); }, "qinq.pcap"));
  }
  SUBCASE("PPPoE session in QinQ (RFC 2516, PPP protocol 0x0021)") {
    check_exchange(read_exchange(
        1,
        [](const Bytes& ip) {
          Bytes p{0x11, 0x00, 0x00, 0x07};  // ver/type, code, session 7
          put16be(p, static_cast<std::uint16_t>(ip.size() + 2));
          put16be(p, 0x0021);
          append(p, ip);
          return ether(0x8864, p, {0x88A8, 0x8100});
        },
        "pppoe.pcap"));
  }
  SUBCASE("RAW (LINKTYPE_RAW 101)") {
    check_exchange(read_exchange(101, [](const Bytes& ip) { return ip; }, "raw.pcap"));
  }
  SUBCASE("IPV4 (228)") {
    check_exchange(read_exchange(228, [](const Bytes& ip) { return ip; }, "ipv4.pcap"));
  }
  SUBCASE("NULL (0), family 2 in little-endian host order") {
    check_exchange(read_exchange(0, [](const Bytes& ip) { Bytes f; put32le(f, 2); append(f, ip); return f; },
                                 "null.pcap"));
  }
  SUBCASE("LOOP (108), family 2 in network order") {
    check_exchange(read_exchange(108, [](const Bytes& ip) { Bytes f; put32be(f, 2); append(f, ip); return f; },
                                 "loop.pcap"));
  }
}

TEST_CASE("link types: Ethernet padding after a short IP packet is not TCP payload") {
  const ReadResult r = read_exchange(1, [](const Bytes& ip) {
    Bytes f = ether(0x0800, ip);
    f.resize(f.size() + 6, 0);  // 6 bytes of trailer (padding / FCS)
    return f;
  }, "pad.pcap");
  check_exchange(r);
}

TEST_CASE("link types: an unsupported link type is refused naming the file and the type") {
  const auto path = write_temp(pcap_file(0xA1B2C3D4, 105 /* IEEE802_11 */, exchange([](const Bytes& ip) { return ip; })),
                               "user0.pcap");
  const std::string e = open_error(path);
  CHECK(e.find(path) != std::string::npos);
  CHECK(e.find("link type 105") != std::string::npos);
  CHECK(e.find("IEEE802_11") != std::string::npos);
}

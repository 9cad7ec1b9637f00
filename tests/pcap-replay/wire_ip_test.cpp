// IPv4 (RFC 791) and IPv6 (RFC 8200) headers: encode/decode round trips,
// options, fragments, the extension-header walk, lengths from the header
// (not the capture), and the Error.field of malformed input.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <wire/ip.hpp>

namespace {
using Bytes = std::vector<std::uint8_t>;

Bytes v4_packet(std::size_t payload, std::uint8_t options_len = 0) {
  wire::Ipv4Header h;
  h.id = 0x1234;
  h.df = true;
  h.src = {198, 18, 0, 1};
  h.dst = {198, 18, 0, 2};
  h.options_len = options_len;
  for (std::size_t i = 0; i < options_len; ++i) h.options[i] = 1;  // NOPs
  Bytes b(60 + payload, 0);
  auto n = wire::encode_ipv4(h, payload, b);
  REQUIRE(wire::ok(n));
  b.resize(wire::value(n) + payload);
  return b;
}

// IPv6 fixed header with next header `nh` and payload length `plen`.
Bytes v6_fixed(std::uint8_t nh, std::uint16_t plen, std::uint32_t flow = 0) {
  wire::Ipv6Header h;
  h.next_header = nh;
  h.payload_len = plen;
  h.flow_label = flow;
  h.src[0] = 0xfd;
  h.src[15] = 1;
  h.dst[0] = 0xfd;
  h.dst[15] = 2;
  Bytes b(40);
  auto n = wire::encode_ipv6(h, b);
  REQUIRE(wire::ok(n));
  return b;
}

void append(Bytes& b, const Bytes& more) { b.insert(b.end(), more.begin(), more.end()); }
}  // namespace

TEST_CASE("ipv4: encode/decode round trip with 8 bytes of options, lengths from the header") {
  Bytes b = v4_packet(100, 8);
  CHECK(b[0] == 0x47);  // version 4, IHL 7 words
  CHECK(wire::ipv4_checksum_ok(b));
  auto r = wire::decode_ipv4(b);
  REQUIRE(wire::ok(r));
  const auto& h = wire::value(r);
  CHECK(h.header_len() == 28);
  CHECK(h.total_len == 128);  // 28 + 100
  CHECK(h.id == 0x1234);
  CHECK(h.df);
  CHECK_FALSE(h.is_fragment());
  CHECK(h.options_len == 8);
  CHECK(h.options[7] == 1);
  CHECK(h.protocol == wire::kProtoTcp);

  // Snaplen: keep only 60 of the 128 bytes; TCP's length still comes from ip.len.
  Bytes cut(b.begin(), b.begin() + 60);
  auto p = wire::decode_ip(cut);
  REQUIRE(wire::ok(p));
  CHECK(wire::value(p).l4_offset == 28);
  CHECK(wire::value(p).l4_len == 100);
  CHECK(wire::value(p).src[0] == 198);
  CHECK(wire::value(p).dst[3] == 2);
}

TEST_CASE("ipv4: fragments are flagged; non-first ones are marked") {
  Bytes b = v4_packet(16);
  b[6] = 0x20;  // MF, offset 0: the first fragment
  b[7] = 0x00;
  auto p = wire::decode_ip(b);
  REQUIRE(wire::ok(p));
  CHECK(wire::value(p).fragment);
  CHECK_FALSE(wire::value(p).non_first_fragment);
  b[6] = 0x00;
  b[7] = 0xB9;  // offset 185 * 8 = 1480 bytes, last fragment
  p = wire::decode_ip(b);
  REQUIRE(wire::ok(p));
  CHECK(wire::value(p).non_first_fragment);
  CHECK(wire::value(p).v4->frag_offset == 185);
}

TEST_CASE("ipv4: malformed headers give the right Error.field") {
  const Bytes good = v4_packet(20, 4);
  auto field = [](const Bytes& b) {
    auto r = wire::decode_ip(b);
    REQUIRE_FALSE(wire::ok(r));
    return wire::error(r).field;
  };
  CHECK(field(Bytes{}) == "ip.version");
  CHECK(field(Bytes(good.begin(), good.begin() + 19)) == "ip.hdr_len");
  CHECK(field(Bytes(good.begin(), good.begin() + 23)) == "ip.hdr_len");  // options cut
  Bytes b = good;
  b[0] = 0x44;  // IHL 4
  CHECK(field(b) == "ip.hdr_len");
  b = good;
  b[2] = 0;
  b[3] = 20;  // total length 20 < header 24
  CHECK(field(b) == "ip.len");
  b = good;
  b[0] = 0x55;
  CHECK(field(b) == "ip.version");
  wire::Ipv4Header h;
  h.options_len = 3;
  Bytes out(60);
  auto e = wire::encode_ipv4(h, 0, out);
  REQUIRE_FALSE(wire::ok(e));
  CHECK(wire::error(e).field == "ip.opt");
}

TEST_CASE("ipv4: total length 0 (TSO super-packet) takes the length from the capture") {
  Bytes b = v4_packet(30);
  b[2] = 0;
  b[3] = 0;
  auto p = wire::decode_ip(b);
  REQUIRE(wire::ok(p));
  CHECK(wire::value(p).length_from_capture);
  CHECK(wire::value(p).l4_len == 30);
}

TEST_CASE("ipv6: fixed header round trip keeps traffic class and the 20-bit flow label") {
  wire::Ipv6Header h;
  h.traffic_class = 0xB8;
  h.flow_label = 0xABCDE;
  h.payload_len = 1440;
  h.hop_limit = 3;
  h.src[0] = 0x20;
  Bytes b(40);
  REQUIRE(wire::ok(wire::encode_ipv6(h, b)));
  CHECK(b[0] == 0x6B);  // version 6, high nibble of 0xB8
  CHECK(b[1] == 0x8A);  // low nibble of 0xB8, high nibble of the flow label
  auto r = wire::decode_ipv6(b);
  REQUIRE(wire::ok(r));
  CHECK(wire::value(r).traffic_class == 0xB8);
  CHECK(wire::value(r).flow_label == 0xABCDEu);
  CHECK(wire::value(r).payload_len == 1440);
  CHECK(wire::value(r).hop_limit == 3);
  h.flow_label = 0x100000;
  auto e = wire::encode_ipv6(h, b);
  REQUIRE_FALSE(wire::ok(e));
  CHECK(wire::error(e).field == "ipv6.flow");
}

TEST_CASE("ipv6: walks hop-by-hop, destination options, routing, fragment and AH to TCP") {
  // HBH (8) -> DST (16) -> ROUTING (24) -> FRAG (8, offset 0) -> AH (16) -> TCP (20 header + 10 data).
  const std::uint16_t plen = 8 + 16 + 24 + 8 + 16 + 30;
  Bytes b = v6_fixed(wire::kProtoHopByHop, plen, 0x12345);
  append(b, Bytes{wire::kProtoDestOpts, 0, 1, 4, 0, 0, 0, 0});             // HBH, len 0 -> 8 bytes
  Bytes dst(16, 0);
  dst[0] = wire::kProtoRouting;
  dst[1] = 1;  // (1 + 1) * 8 = 16 bytes
  append(b, dst);
  Bytes rt(24, 0);
  rt[0] = wire::kProtoFragment;
  rt[1] = 2;  // 24 bytes
  append(b, rt);
  append(b, Bytes{wire::kProtoAh, 0, 0x00, 0x01, 0, 0, 0, 7});  // fragment: offset 0, M=1
  Bytes ah(16, 0);
  ah[0] = wire::kProtoTcp;
  ah[1] = 2;  // (2 + 2) * 4 = 16 bytes (RFC 4302)
  append(b, ah);
  append(b, Bytes(20, 0));  // only the TCP header captured, not its 10 data bytes
  auto p = wire::decode_ip(b);
  REQUIRE(wire::ok(p));
  const auto& pk = wire::value(p);
  CHECK(pk.version == 6);
  CHECK(pk.protocol == wire::kProtoTcp);
  CHECK(pk.l4_offset == 40u + 8 + 16 + 24 + 8 + 16);
  CHECK(pk.l4_len == 30);  // from the payload length, not the 20 bytes captured
  CHECK(pk.fragment);
  CHECK_FALSE(pk.non_first_fragment);
  CHECK(pk.flow_label == 0x12345u);
  CHECK(pk.src[15] == 1);
}

TEST_CASE("ipv6: a non-first fragment stops the walk and is flagged") {
  Bytes b = v6_fixed(wire::kProtoFragment, 8 + 100);
  append(b, Bytes{wire::kProtoTcp, 0, 0x05, 0xC8, 0, 0, 0, 9});  // offset 185 (1480 bytes), M=0
  append(b, Bytes(100, 0));
  auto p = wire::decode_ip(b);
  REQUIRE(wire::ok(p));
  CHECK(wire::value(p).non_first_fragment);
  CHECK(wire::value(p).protocol == wire::kProtoTcp);
}

TEST_CASE("ipv6: other upper layers are reported; ESP and no-next-header stop the walk") {
  Bytes b = v6_fixed(wire::kProtoDestOpts, 8 + 8);
  append(b, Bytes{wire::kProtoUdp, 0, 1, 4, 0, 0, 0, 0});
  append(b, Bytes(8, 0));
  auto p = wire::decode_ip(b);
  REQUIRE(wire::ok(p));
  CHECK(wire::value(p).protocol == wire::kProtoUdp);
  CHECK(wire::value(p).l4_len == 8);
  Bytes e = v6_fixed(wire::kProtoEsp, 16);
  append(e, Bytes(16, 0));
  p = wire::decode_ip(e);
  REQUIRE(wire::ok(p));
  CHECK(wire::value(p).protocol == wire::kProtoEsp);
}

TEST_CASE("ipv6: truncated and inconsistent extension headers give the right Error.field") {
  auto field = [](const Bytes& b) {
    auto r = wire::decode_ip(b);
    REQUIRE_FALSE(wire::ok(r));
    return wire::error(r).field;
  };
  Bytes fixed = v6_fixed(wire::kProtoTcp, 20);
  CHECK(field(Bytes(fixed.begin(), fixed.begin() + 39)) == "ipv6");
  // Extension header cut by the capture.
  Bytes b = v6_fixed(wire::kProtoHopByHop, 64);
  append(b, Bytes{wire::kProtoTcp, 3, 0, 0});  // claims 32 bytes, 4 captured
  CHECK(field(b) == "ipv6.opt.length");
  // Extension header longer than the payload length.
  Bytes c = v6_fixed(wire::kProtoHopByHop, 16);
  Bytes hbh(32, 0);
  hbh[0] = wire::kProtoTcp;
  hbh[1] = 3;  // 32 bytes, payload length only 16
  append(c, hbh);
  CHECK(field(c) == "ipv6.plen");
  // Version nibble says 6 but the fixed header is too short, and a bad version.
  CHECK(field(Bytes{0x60, 0, 0}) == "ipv6");
  CHECK(field(Bytes{0x70, 0, 0}) == "ip.version");
}

TEST_CASE("ip: every truncation of an IPv6 packet with extension headers fails or succeeds cleanly") {
  Bytes b = v6_fixed(wire::kProtoHopByHop, 8 + 16 + 20);
  append(b, Bytes{wire::kProtoDestOpts, 0, 1, 4, 0, 0, 0, 0});
  Bytes dst(16, 0);
  dst[0] = wire::kProtoTcp;
  dst[1] = 1;
  append(b, dst);
  append(b, Bytes(20, 0));
  for (std::size_t n = 0; n <= b.size(); ++n) {
    Bytes part(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n));
    auto r = wire::decode_ip(part);
    // The walk needs the fixed header and both extension headers (64 bytes).
    CHECK(wire::ok(r) == (n >= 64));
  }
}

TEST_CASE("ip: decode_ip_into reuses one packet across versions and keeps nothing of the last") {
  // An IPv6 packet (flow label 0xABCDE, src fd00::1), then an IPv4 one with
  // 8 option bytes, then one without, all into the same IpPacket.
  Bytes v6 = v6_fixed(wire::kProtoTcp, 20, 0xABCDE);
  v6.resize(60, 0);
  wire::IpPacket pk;
  REQUIRE_FALSE(wire::decode_ip_into(v6, pk).has_value());
  CHECK(pk.version == 6);
  CHECK(pk.flow_label == 0xABCDEu);
  REQUIRE_FALSE(wire::decode_ip_into(v4_packet(20, 8), pk).has_value());
  CHECK(pk.version == 4);
  CHECK(pk.flow_label == 0u);
  CHECK_FALSE(pk.v6.has_value());
  REQUIRE(pk.v4.has_value());
  CHECK(pk.v4->options_len == 8);
  CHECK(pk.src[0] == 198);
  CHECK(pk.src[15] == 0);  // the IPv6 address's last byte (1) is gone
  CHECK(pk.l4_offset == 28u);  // 20 + 8 option bytes
  REQUIRE_FALSE(wire::decode_ip_into(v4_packet(20), pk).has_value());
  CHECK(pk.v4->options_len == 0);
  CHECK(pk.v4->options[0] == 0);  // the earlier NOPs are not left behind
  CHECK(pk.l4_offset == 20u);
  CHECK(pk.l4_len == 20u);
  const auto e = wire::decode_ip_into(Bytes{0x45, 0}, pk);  // 2 bytes of an IPv4 header
  REQUIRE(e.has_value());
  CHECK(e->field == "ip.hdr_len");
}

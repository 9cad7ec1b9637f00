// RFC 1071 Internet checksum and the TCP pseudo-header checksums
// (RFC 9293 3.1, RFC 8200 8.1), against values computed by hand.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <vector>

#include <wire/checksum.hpp>
#include <wire/ip.hpp>
#include <wire/tcp.hpp>

namespace {
using Bytes = std::vector<std::uint8_t>;

// A bare SYN: ports 1 -> 2, seq 0, ack 0, offset 5, flags 0x02, window 0x1000.
Bytes bare_syn() {
  return Bytes{0x00, 0x01, 0x00, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0x50, 0x02, 0x10, 0x00, 0, 0, 0, 0};
}
}  // namespace

TEST_CASE("checksum: RFC 1071 section 3 example sums to 0xddf2, checksum 0x220d") {
  // 0001 + f203 + f4f5 + f6f7 = 0x2ddf0 -> fold 0xddf0 + 2 = 0xddf2; ~0xddf2 = 0x220d.
  const Bytes b{0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
  wire::Checksum c;
  c.add(b);
  CHECK(c.sum() == 0xddf2);
  CHECK(wire::internet_checksum(b) == 0x220d);
}

TEST_CASE("checksum: odd-length chunks give the same sum as the whole buffer") {
  const Bytes b{0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7, 0x12};
  // Whole: 0x2ddf0 + 0x1200 (odd byte padded) = 0x2eff0 -> 0xeff2; ~ = 0x100d.
  CHECK(wire::internet_checksum(b) == 0x100d);
  for (std::size_t cut = 0; cut <= b.size(); ++cut) {
    for (std::size_t cut2 = cut; cut2 <= b.size(); ++cut2) {
      wire::Checksum c;
      c.add(std::span(b).first(cut));
      c.add(std::span(b).subspan(cut, cut2 - cut));
      c.add(std::span(b).subspan(cut2));
      CHECK(c.finish() == 0x100d);
    }
  }
}

TEST_CASE("checksum: IPv4 header checksum 0xb861 (RFC 791 3.1)") {
  // 4500+0073+0000+4000+4011+0000+c0a8+0001+c0a8+00c7 = 0x2479c -> 0x479e; ~ = 0xb861.
  Bytes h{0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
          0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
  CHECK(wire::internet_checksum(h) == 0xb861);
  CHECK_FALSE(wire::ipv4_checksum_ok(h));
  h[10] = 0xb8;
  h[11] = 0x61;
  CHECK(wire::ipv4_checksum_ok(h));
  // The encoder computes the same value for the same header.
  wire::Ipv4Header ih;
  ih.id = 0;
  ih.df = true;
  ih.ttl = 64;
  ih.protocol = 17;
  ih.src = {192, 168, 0, 1};
  ih.dst = {192, 168, 0, 199};
  std::array<std::uint8_t, 20> out{};
  auto n = wire::encode_ipv4(ih, 0x73 - 20, out);
  REQUIRE(wire::ok(n));
  CHECK(Bytes(out.begin(), out.end()) == h);
}

TEST_CASE("checksum: TCP over the IPv4 pseudo-header (RFC 9293 3.1), even and odd length") {
  const std::array<std::uint8_t, 4> src{10, 0, 0, 1}, dst{10, 0, 0, 2};
  Bytes seg = bare_syn();
  // Pseudo: 0a00+0001+0a00+0002+0006+0014 = 0x141d. TCP words: 0001+0002+5002+1000 = 0x6005.
  // 0x141d + 0x6005 = 0x7422; ~ = 0x8bdd.
  CHECK(wire::tcp_checksum_v4(src, dst, seg) == 0x8bdd);
  CHECK_FALSE(wire::tcp_checksum_ok_v4(src, dst, seg));
  wire::fill_tcp_checksum_v4(src, dst, seg);
  CHECK(seg[16] == 0x8b);
  CHECK(seg[17] == 0xdd);
  CHECK(wire::tcp_checksum_ok_v4(src, dst, seg));
  // The checksum field's own value does not change the computed checksum.
  CHECK(wire::tcp_checksum_v4(src, dst, seg) == 0x8bdd);

  // One payload byte 0xab: length 21 -> pseudo 0x141e; 0x141e + 0x6005 + 0xab00 = 0x11f23
  // -> 0x1f24; ~ = 0xe0db.
  Bytes odd = bare_syn();
  odd.push_back(0xab);
  CHECK(wire::tcp_checksum_v4(src, dst, odd) == 0xe0db);
  wire::fill_tcp_checksum_v4(src, dst, odd);
  CHECK(wire::tcp_checksum_ok_v4(src, dst, odd));
  odd[20] ^= 0x01;  // one flipped bit is caught
  CHECK_FALSE(wire::tcp_checksum_ok_v4(src, dst, odd));
}

TEST_CASE("checksum: TCP over the IPv6 pseudo-header (RFC 8200 8.1)") {
  std::array<std::uint8_t, 16> src{}, dst{};
  src[0] = dst[0] = 0xfd;
  src[15] = 1;
  dst[15] = 2;
  Bytes seg = bare_syn();
  // fd00+0001 + fd00+0002 + (0000+0014 length) + (0000+0006 next header) = 0x1fa1d;
  // + TCP 0x6005 = 0x25a22 -> 0x5a24; ~ = 0xa5db.
  CHECK(wire::tcp_checksum_v6(src, dst, seg) == 0xa5db);
  wire::fill_tcp_checksum_v6(src, dst, seg);
  CHECK(wire::tcp_checksum_ok_v6(src, dst, seg));
  dst[15] = 3;  // a different pseudo-header no longer verifies
  CHECK_FALSE(wire::tcp_checksum_ok_v6(src, dst, seg));
}

TEST_CASE("checksum: segments too short to hold a checksum field never verify") {
  const std::array<std::uint8_t, 4> a{1, 2, 3, 4};
  Bytes tiny(10, 0);
  CHECK_FALSE(wire::tcp_checksum_ok_v4(a, a, tiny));
  wire::fill_tcp_checksum_v4(a, a, tiny);  // no-op, no out-of-bounds write
  CHECK(tiny == Bytes(10, 0));
}

// Robustness: decode_frame on mutated and truncated frames of every link
// type never crashes or reads out of bounds (run under SAN=1 for ASan), and
// whatever it returns is self-consistent. Deterministic (fixed seed).
#include "reader_capture_builder.hpp"

#include <random>

#include <replay/input/decode_frame.hpp>

using namespace readertest;

TEST_CASE("reader: mutated and truncated frames of every link type decode safely") {
  std::mt19937 rng(5);
  const Bytes v4 = ipv4_tcp(false, 1, 2, wire::kAck, 64, 9u);
  // IPv6 + hop-by-hop + TCP with timestamps.
  Bytes v6(40, 0);
  {
    wire::Ipv6Header h;
    h.next_header = wire::kProtoHopByHop;
    h.payload_len = 8 + 32 + 10;
    REQUIRE(wire::ok(wire::encode_ipv6(h, v6)));
    append(v6, Bytes{wire::kProtoTcp, 0, 1, 4, 0, 0, 0, 0});
    wire::TcpHeader t;
    t.options.tsval = 1;
    Bytes tcp(32);
    REQUIRE(wire::ok(wire::encode_tcp(t, tcp)));
    append(v6, tcp);
    append(v6, Bytes(10, 0));
  }
  Bytes null_v4;
  put32le(null_v4, 2);
  append(null_v4, v4);
  Bytes pppoe{0x11, 0, 0, 1};
  put16be(pppoe, static_cast<std::uint16_t>(v4.size() + 2));
  put16be(pppoe, 0x0021);
  append(pppoe, v4);
  const std::vector<std::pair<int, Bytes>> seeds{
      {1, ether(0x0800, v4, {0x88A8, 0x8100})}, {1, ether(0x86DD, v6)}, {1, ether(0x8864, pppoe, {0x8100})},
      {113, sll(0x0800, v4)}, {276, sll2(0x86DD, v6)}, {12, v4}, {229, v6}, {0, null_v4}, {108, null_v4},
  };
  std::size_t tcp = 0, other = 0;
  for (const auto& [dlt, seed] : seeds) {
    CAPTURE(dlt);
    // The unmutated frame is a segment.
    REQUIRE(replay::decode_frame(dlt, seed, static_cast<std::uint32_t>(seed.size())).kind == replay::FrameKind::kTcp);
    for (int iter = 0; iter < 3000; ++iter) {
      Bytes b = seed;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int k = 0; k < flips; ++k) b[rng() % b.size()] = static_cast<std::uint8_t>(rng());
      if (rng() % 3 == 0) b.resize(rng() % (b.size() + 1));
      // Exact-size heap copy so ASan sees any read past the end.
      const std::vector<std::uint8_t> exact(b.begin(), b.end());
      const auto wire_len = static_cast<std::uint32_t>(exact.size() + (rng() % 2 ? 0 : rng() % 100));
      const replay::FrameDecode d = replay::decode_frame(dlt, exact, wire_len);
      if (d.kind == replay::FrameKind::kTcp) {
        ++tcp;
        CHECK(d.segment.tcp.header_len() >= 20);
        CHECK(d.segment.payload_len <= 65535u);
      } else {
        ++other;
        if (d.kind == replay::FrameKind::kMalformed) CHECK_FALSE(d.error.field.empty());
      }
    }
  }
  // Both outcomes occur: the mutations exercise the decoders, not just the first check.
  CHECK(tcp > 1000);
  CHECK(other > 1000);
}

// PacketFilter (the deliberate losses of `netstack send`), blackhole parsing
// and the receiver's CRC-32: pure, no root needed.
#include <doctest/doctest.h>

#include <vector>

#include "netstack/packet_filter.hpp"
#include "netstack/real_peer_receiver.hpp"
#include "netstack/segment_codec.hpp"

using namespace netstack;
using namespace std::chrono_literals;

namespace {

const Endpoint kLocal{IpAddress::v4(198, 18, 1, 2), 40000};
const Endpoint kPeer{IpAddress::v4(198, 18, 2, 2), 5001};
constexpr std::uint32_t kIsn = 0xFFFFFF00u;  // close to the wrap on purpose

std::vector<std::uint8_t> segment(std::uint32_t seq, std::uint8_t flags, std::size_t payload) {
  wire::TcpHeader h;
  h.seq = seq;
  h.flags = flags;
  h.window = 65535;
  const std::vector<std::uint8_t> data(payload, 0xAB);
  return encode_segment(kLocal, kPeer, h, data);
}

rto::Instant at(std::chrono::microseconds t) { return rto::Instant{t}; }

}  // namespace

TEST_CASE("real_peer filter: parse_blackhole reads START:DURATION in seconds") {
  const auto b = parse_blackhole("1.5:5");
  REQUIRE(b.has_value());
  CHECK(b->start == 1'500'000us);
  CHECK(b->duration == 5'000'000us);
  CHECK(parse_blackhole("0:0.25")->duration == 250'000us);
  CHECK_FALSE(parse_blackhole("5").has_value());
  CHECK_FALSE(parse_blackhole("x:5").has_value());
  CHECK_FALSE(parse_blackhole("1:-2").has_value());
  CHECK_FALSE(parse_blackhole("1:2s").has_value());
  CHECK_FALSE(parse_blackhole(":2").has_value());
}

TEST_CASE("real_peer filter: loss outside [0, 1] is refused") {
  PacketFilterConfig c;
  c.loss = 1.5;
  CHECK_THROWS_AS(PacketFilter{c}, std::invalid_argument);
}

TEST_CASE("real_peer filter: drop-seq drops only the first transmission, seq relative to the ISN across the wrap") {
  PacketFilterConfig c;
  // Relative seq 1 = first data byte; 1 + 1448 = the second segment (ISN + 1449
  // wraps past 2^32: 0xFFFFFF00 + 1449 = 0x000004A9).
  c.drop_seq = {1449};
  PacketFilter f(c);
  CHECK(f.outbound(segment(kIsn, wire::kSyn, 0), at(0us)) == Verdict::Pass);
  CHECK(f.outbound(segment(kIsn + 1, wire::kAck, 1448), at(10us)) == Verdict::Pass);
  CHECK(f.outbound(segment(kIsn + 1449, wire::kAck, 1448), at(20us)) == Verdict::DropSeq);
  CHECK(f.outbound(segment(kIsn + 2897, wire::kAck, 1448), at(30us)) == Verdict::Pass);
  // The retransmission of the dropped segment passes.
  CHECK(f.outbound(segment(kIsn + 1449, wire::kAck, 1448), at(1'000'000us)) == Verdict::Pass);
  CHECK(f.stats().dropped_seq == 1);
  CHECK(f.stats().passed == 4);
}

TEST_CASE("real_peer filter: a drop-seq that is not where a segment starts is reported unmatched, with the real starts") {
  PacketFilterConfig c;
  // IPv4-sized boundaries asked for (1 + 1448 = 1449) on segments of 1428
  // bytes (IPv6 with timestamps): starts are 1, 1429, 2857, 4285, 5713.
  c.drop_seq = {1449, 1};
  PacketFilter f(c);
  CHECK(f.outbound(segment(kIsn, wire::kSyn, 0), at(0us)) == Verdict::Pass);
  CHECK(f.outbound(segment(kIsn + 1, wire::kAck, 1428), at(1us)) == Verdict::DropSeq);
  for (std::uint32_t k = 1; k <= 4; ++k) {
    CHECK(f.outbound(segment(kIsn + 1 + 1428 * k, wire::kAck, 1428), at(std::chrono::microseconds{1 + k})) ==
          Verdict::Pass);
  }
  CHECK(f.outbound(segment(kIsn + 1, wire::kAck, 1428), at(10us)) == Verdict::Pass);  // retransmission: not a new start
  CHECK(f.unmatched_drop_seq() == std::vector<std::uint32_t>{1449});
  // Only the first kRememberedSegmentStarts = 4 distinct starts are kept.
  CHECK(f.first_segment_starts() == std::vector<std::uint32_t>{1, 1429, 2857, 4285});
}

TEST_CASE("real_peer filter: a pure ACK at a drop-seq number is not a data segment and passes") {
  PacketFilterConfig c;
  c.drop_seq = {1};
  PacketFilter f(c);
  CHECK(f.outbound(segment(kIsn, wire::kSyn, 0), at(0us)) == Verdict::Pass);
  CHECK(f.outbound(segment(kIsn + 1, wire::kAck, 0), at(1us)) == Verdict::Pass);     // the handshake's ACK
  CHECK(f.outbound(segment(kIsn + 1, wire::kAck, 100), at(2us)) == Verdict::DropSeq);
}

TEST_CASE("real_peer filter: blackhole counts from the first datagram and drops everything inside [start, end)") {
  PacketFilterConfig c;
  c.blackhole = Blackhole{2'000'000us, 5'000'000us};
  PacketFilter f(c);
  const auto t0 = at(10'000'000us);  // the first datagram fixes the epoch
  CHECK_FALSE(f.blackhole_end().has_value());
  CHECK(f.outbound(segment(kIsn, wire::kSyn, 0), t0) == Verdict::Pass);
  REQUIRE(f.blackhole_end().has_value());
  CHECK(*f.blackhole_start() == t0 + 2'000'000us);
  CHECK(*f.blackhole_end() == t0 + 7'000'000us);
  CHECK(f.outbound(segment(kIsn + 1, wire::kAck, 10), t0 + 1'999'999us) == Verdict::Pass);
  CHECK(f.outbound(segment(kIsn + 11, wire::kAck, 10), t0 + 2'000'000us) == Verdict::DropBlackhole);
  CHECK(f.outbound(segment(kIsn + 11, wire::kAck, 10), t0 + 6'999'999us) == Verdict::DropBlackhole);
  CHECK(f.outbound(segment(kIsn + 11, wire::kAck, 10), t0 + 7'000'000us) == Verdict::Pass);
  CHECK(f.stats().dropped_blackhole == 2);
}

TEST_CASE("real_peer filter: loss 0 passes all, loss 1 drops every non-SYN, a seed repeats its drops") {
  PacketFilterConfig none;
  PacketFilterConfig all;
  all.loss = 1.0;
  PacketFilter f0(none), f1(all);
  CHECK(f1.outbound(segment(kIsn, wire::kSyn, 0), at(0us)) == Verdict::Pass);  // SYNs are spared
  for (std::uint32_t i = 0; i < 100; ++i) {
    CHECK(f0.outbound(segment(kIsn + 1 + i * 100, wire::kAck, 100), at(1us)) == Verdict::Pass);
    CHECK(f1.outbound(segment(kIsn + 1 + i * 100, wire::kAck, 100), at(1us)) == Verdict::DropLoss);
  }

  PacketFilterConfig c;
  c.loss = 0.02;
  c.seed = 42;
  PacketFilter a(c), b(c);
  c.seed = 43;
  PacketFilter other(c);
  std::vector<bool> va, vb, vo;
  for (std::uint32_t i = 0; i < 5000; ++i) {
    const auto dg = segment(kIsn + 1 + i * 1000, wire::kAck, 1000);
    va.push_back(a.outbound(dg, at(1us)) == Verdict::Pass);
    vb.push_back(b.outbound(dg, at(1us)) == Verdict::Pass);
    vo.push_back(other.outbound(dg, at(1us)) == Verdict::Pass);
  }
  CHECK(va == vb);
  CHECK(va != vo);
  // 2 % of 5000 = 100 expected; a binomial sd of sqrt(5000*0.02*0.98) = 9.9,
  // so 60..140 is a 4-sigma band.
  CHECK(a.stats().dropped_loss >= 60);
  CHECK(a.stats().dropped_loss <= 140);
}

TEST_CASE("real_peer receiver: CRC-32 check value and chaining") {
  const std::string check = "123456789";
  const std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(check.data()), check.size());
  // The CRC-32/ISO-HDLC check value of "123456789" is 0xCBF43926.
  CHECK(crc32_update(0, bytes) == 0xCBF43926u);
  CHECK(crc32_update(crc32_update(0, bytes.first(4)), bytes.subspan(4)) == 0xCBF43926u);
  CHECK(crc32_update(0, {}) == 0u);
}

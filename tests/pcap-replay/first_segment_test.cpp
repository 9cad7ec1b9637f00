// FirstSegment (pcap-replay/src/analysis/first_segment.hpp): the compact
// copy a connection of one segment keeps gives that segment back exactly,
// every field of Segment and its TCP header, with SACK blocks or without
// (the virtual network is the connection's, given back to it).

#include <doctest/doctest.h>

#include "analysis/first_segment.hpp"

namespace {

using replay::Segment;

// A segment with every field off its default.
Segment full_segment() {
  Segment s;
  s.file_index = 3;
  s.frame = 77;
  s.time = replay::CaptureTime{std::chrono::microseconds{1'700'000'000'123'456}};
  s.rebase = std::chrono::nanoseconds{-2'500'000'000};
  s.src.address.bytes[15] = 1, s.src.port = 40001;
  s.dst.address.bytes[15] = 2, s.dst.port = 443;
  s.tcp.src_port = 40001;
  s.tcp.dst_port = 443;
  s.tcp.seq = 0xdeadbeef;
  s.tcp.ack = 0x01020304;
  s.tcp.data_offset = 15;
  s.tcp.flags = wire::kSyn | wire::kEce | wire::kCwr;
  s.tcp.window = 64240;
  s.tcp.checksum = 0xffff;
  s.tcp.urgent = 9;
  s.tcp.options.mss = 1460;
  s.tcp.options.window_scale = 7;
  s.tcp.options.sack_permitted = true;
  s.tcp.options.sack = {wire::SackBlock{1, 2}, wire::SackBlock{3, 4}, wire::SackBlock{5, 6}, wire::SackBlock{7, 8}};
  s.tcp.options.sack_count = 3;  // the fourth block is kept as it was too
  s.tcp.options.tsval = 123456789;
  s.tcp.options.tsecr = 0;
  s.payload_len = 1448;
  s.flow_label = 0xabcde;
  s.ip_id = 0;
  s.ip_checksum = 0xbeef;
  s.ip_ttl = 63;
  s.vnet.push(replay::VirtualNetwork::Kind::vlan, 10);
  s.vnet.push(replay::VirtualNetwork::Kind::vxlan, 5001);
  s.tcp_options_cut = true;
  s.tcp_options_bad = true;
  return s;
}

void check_same(const Segment& a, const Segment& b) {
  CHECK(a.file_index == b.file_index);
  CHECK(a.frame == b.frame);
  CHECK(a.time == b.time);
  CHECK(a.rebase == b.rebase);
  CHECK(a.src == b.src);
  CHECK(a.dst == b.dst);
  CHECK(a.tcp.src_port == b.tcp.src_port);
  CHECK(a.tcp.dst_port == b.tcp.dst_port);
  CHECK(a.tcp.seq == b.tcp.seq);
  CHECK(a.tcp.ack == b.tcp.ack);
  CHECK(a.tcp.data_offset == b.tcp.data_offset);
  CHECK(a.tcp.flags == b.tcp.flags);
  CHECK(a.tcp.window == b.tcp.window);
  CHECK(a.tcp.checksum == b.tcp.checksum);
  CHECK(a.tcp.urgent == b.tcp.urgent);
  CHECK(a.tcp.options.mss == b.tcp.options.mss);
  CHECK(a.tcp.options.window_scale == b.tcp.options.window_scale);
  CHECK(a.tcp.options.sack_permitted == b.tcp.options.sack_permitted);
  CHECK(a.tcp.options.sack_count == b.tcp.options.sack_count);
  for (std::size_t i = 0; i < a.tcp.options.sack.size(); ++i) {
    CHECK(a.tcp.options.sack[i].left == b.tcp.options.sack[i].left);
    CHECK(a.tcp.options.sack[i].right == b.tcp.options.sack[i].right);
  }
  CHECK(a.tcp.options.tsval == b.tcp.options.tsval);
  CHECK(a.tcp.options.tsecr == b.tcp.options.tsecr);
  CHECK(a.payload_len == b.payload_len);
  CHECK(a.flow_label == b.flow_label);
  CHECK(a.ip_id == b.ip_id);
  CHECK(a.ip_checksum == b.ip_checksum);
  CHECK(a.ip_ttl == b.ip_ttl);
  CHECK(a.vnet == b.vnet);
  CHECK(a.tcp_options_cut == b.tcp_options_cut);
  CHECK(a.tcp_options_bad == b.tcp_options_bad);
}

}  // namespace

TEST_CASE("FirstSegment gives back the segment it kept, sent by either side") {
  const Segment s = full_segment();
  SUBCASE("from the server (side 1): src is the connection's server") {
    const replay::FirstSegment f(s, 1);
    CHECK(f.dir() == 1);
    check_same(f.segment(s.file_index, s.frame, s.time, /*client=*/s.dst, /*server=*/s.src, s.vnet), s);
  }
  SUBCASE("from the client (side 0)") {
    const replay::FirstSegment f(s, 0);
    check_same(f.segment(s.file_index, s.frame, s.time, s.src, s.dst, s.vnet), s);
  }
  SUBCASE("no SACK blocks, no options, no IP ID: the defaults come back") {
    Segment plain;
    plain.src = s.src;
    plain.dst = s.dst;
    plain.tcp.flags = wire::kSyn;
    const replay::FirstSegment f(plain, 0);
    check_same(f.segment(0, 0, plain.time, plain.src, plain.dst, plain.vnet), plain);
  }
}

TEST_CASE("FirstSegment keeps the first TSval rate, or none") {
  replay::FirstSegment f(full_segment(), 0);
  CHECK(!f.first_rate().has_value());
  f.set_first_rate(1000.0);
  REQUIRE(f.first_rate().has_value());
  CHECK(*f.first_rate() == 1000.0);
  f.set_first_rate(std::nullopt);
  CHECK(!f.first_rate().has_value());
}

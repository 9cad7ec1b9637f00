// TCP header and option encode/decode (RFC 9293 3.1, RFC 7323, RFC 2018):
// exact byte layouts, round trips, and the Error.field of malformed input.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <wire/tcp.hpp>

namespace {
using Bytes = std::vector<std::uint8_t>;

Bytes encode(const wire::TcpHeader& h) {
  Bytes out(60, 0xEE);
  auto n = wire::encode_tcp(h, out);
  REQUIRE(wire::ok(n));
  out.resize(wire::value(n));
  return out;
}

std::string field_of(const Bytes& b) {
  auto r = wire::decode_tcp(b);
  REQUIRE_FALSE(wire::ok(r));
  return wire::error(r).field;
}

wire::TcpHeader syn_header() {
  wire::TcpHeader h;
  h.src_port = 40000;
  h.dst_port = 5001;
  h.seq = 0xFFFFFC18;  // near the wrap
  h.flags = wire::kSyn;
  h.window = 64240;
  h.options.mss = 1460;
  h.options.sack_permitted = true;
  h.options.tsval = 0x01020304;
  h.options.tsecr = 0;
  h.options.window_scale = 7;
  return h;
}
}  // namespace

TEST_CASE("tcp encode: SYN with MSS, SACK-permitted, timestamps, window scale is the 40-byte Linux layout") {
  const Bytes b = encode(syn_header());
  REQUIRE(b.size() == 40);  // 20 fixed + MSS 4 + SACKOK+TS 12 + NOP WS 4
  CHECK(b[12] == 0xA0);     // data offset 10 words
  CHECK(b[13] == wire::kSyn);
  const Bytes opts(b.begin() + 20, b.end());
  const Bytes expect{0x02, 0x04, 0x05, 0xB4,                    // MSS 1460
                     0x04, 0x02,                                // SACK permitted
                     0x08, 0x0A, 0x01, 0x02, 0x03, 0x04, 0, 0, 0, 0,  // TS
                     0x01, 0x03, 0x03, 0x07};                   // NOP, WS 7
  CHECK(opts == expect);
}

TEST_CASE("tcp encode/decode: round trip keeps every field and option") {
  wire::TcpHeader h = syn_header();
  h.ack = 0x80000001;
  h.flags = wire::kSyn | wire::kAck | wire::kEce;
  h.urgent = 7;
  h.checksum = 0xBEEF;
  auto r = wire::decode_tcp(encode(h));
  REQUIRE(wire::ok(r));
  const wire::TcpHeader& d = wire::value(r);
  CHECK(d.src_port == 40000);
  CHECK(d.dst_port == 5001);
  CHECK(d.seq == 0xFFFFFC18u);
  CHECK(d.ack == 0x80000001u);
  CHECK(d.data_offset == 10);
  CHECK(d.header_len() == 40);
  CHECK(d.has(wire::kSyn));
  CHECK(d.has(wire::kEce));
  CHECK_FALSE(d.has(wire::kFin));
  CHECK(d.window == 64240);
  CHECK(d.checksum == 0xBEEF);
  CHECK(d.urgent == 7);
  CHECK(d.options.mss == 1460);
  CHECK(d.options.sack_permitted);
  CHECK(d.options.window_scale == 7);
  CHECK(d.options.tsval == 0x01020304u);
  CHECK(d.options.tsecr == 0u);
  CHECK(d.options.sack_count == 0);
}

TEST_CASE("tcp encode: data segment NOP NOP TS, then NOP NOP SACK with 3 blocks fills 40 bytes") {
  wire::TcpHeader h;
  h.flags = wire::kAck;
  h.options.tsval = 1000;
  h.options.tsecr = 999;
  h.options.sack_count = 3;
  h.options.sack[0] = {100, 200};
  h.options.sack[1] = {300, 400};
  h.options.sack[2] = {0xFFFFFF00, 0x00000100};  // a block across the wrap
  CHECK(wire::tcp_options_len(h.options) == 40);  // 12 + 4 + 3*8
  const Bytes b = encode(h);
  REQUIRE(b.size() == 60);
  CHECK(b[20] == 1);
  CHECK(b[21] == 1);
  CHECK(b[22] == 8);
  CHECK(b[32] == 1);
  CHECK(b[33] == 1);
  CHECK(b[34] == 5);
  CHECK(b[35] == 26);  // 2 + 3*8
  auto r = wire::decode_tcp(b);
  REQUIRE(wire::ok(r));
  const auto& o = wire::value(r).options;
  CHECK(o.tsval == 1000u);
  CHECK(o.tsecr == 999u);
  REQUIRE(o.sack_count == 3);
  CHECK(o.sack[2].left == 0xFFFFFF00u);
  CHECK(o.sack[2].right == 0x100u);
  CHECK_FALSE(o.mss.has_value());
}

TEST_CASE("tcp encode: refusals name the field") {
  wire::TcpHeader h;
  h.options.tsval = 1;
  h.options.sack_count = 4;  // 12 + 4 + 32 = 48 > 40
  Bytes out(80);
  auto r = wire::encode_tcp(h, out);
  REQUIRE_FALSE(wire::ok(r));
  CHECK(wire::error(r).field == "tcp.options");
  h.options.sack_count = 5;
  r = wire::encode_tcp(h, out);
  REQUIRE_FALSE(wire::ok(r));
  CHECK(wire::error(r).field == "tcp.option.sack");
  wire::TcpHeader plain;
  Bytes small(19);
  r = wire::encode_tcp(plain, small);
  REQUIRE_FALSE(wire::ok(r));
  CHECK(wire::error(r).field == "buffer");
  // Option-free header is 20 bytes with data offset 5.
  const Bytes b = encode(plain);
  CHECK(b.size() == 20);
  CHECK(b[12] == 0x50);
}

TEST_CASE("tcp decode: truncated and malformed headers give the right Error.field") {
  const Bytes good = encode(syn_header());
  SUBCASE("fewer than 20 bytes") {
    CHECK(field_of(Bytes(good.begin(), good.begin() + 19)) == "tcp");
    CHECK(field_of(Bytes{}) == "tcp");
  }
  SUBCASE("data offset below 5") {
    Bytes b = good;
    b[12] = 0x40;
    CHECK(field_of(b) == "tcp.hdr_len");
  }
  SUBCASE("header runs past the bytes") {
    CHECK(field_of(Bytes(good.begin(), good.begin() + 39)) == "tcp.hdr_len");
  }
  SUBCASE("option length runs past the header") {
    Bytes b = good;
    b[21] = 30;  // MSS claims 30 bytes, 20 remain
    auto r = wire::decode_tcp(b);
    REQUIRE_FALSE(wire::ok(r));
    CHECK(wire::error(r).field == "tcp.option.len");
    CHECK(wire::error(r).message.find("runs 10 bytes past") != std::string::npos);
  }
  SUBCASE("option length below 2") {
    Bytes b = good;
    b[21] = 1;
    CHECK(field_of(b) == "tcp.option.len");
  }
  SUBCASE("last byte is an option kind without a length") {
    Bytes b = good;
    b[36] = 1; b[37] = 1; b[38] = 1; b[39] = 0x1E;  // NOP NOP NOP, then kind 30 with no length byte
    CHECK(field_of(b) == "tcp.option.len");
  }
  SUBCASE("known options with the wrong length") {
    Bytes b = good;
    b[21] = 3;  // MSS len 3: next option starts mid-value
    CHECK(field_of(b) == "tcp.option.mss");
    b = good;
    b[27] = 8;  // timestamps length 8
    CHECK(field_of(b) == "tcp.option.tsval");
    b = good;
    b[5 + 20] = 3;  // SACK-permitted length 3
    CHECK(field_of(b) == "tcp.option.sack_perm");
    b = good;
    b[38] = 2;  // window scale length 2
    CHECK(field_of(b) == "tcp.option.wscale");
  }
  SUBCASE("SACK block count not 2 + 8n") {
    Bytes b(32, 0);
    b[12] = 0x80;  // 8 words
    b[20] = 1; b[21] = 1; b[22] = 5; b[23] = 9;  // SACK len 9
    CHECK(field_of(b) == "tcp.option.sack");
  }
}

TEST_CASE("tcp decode: EOL ends the list and unknown options are skipped by length") {
  Bytes b(32, 0);
  b[12] = 0x80;
  b[20] = 30; b[21] = 4; b[22] = 0xAA; b[23] = 0xBB;  // unknown kind 30 (MPTCP), 4 bytes
  b[24] = 2; b[25] = 4; b[26] = 0x05; b[27] = 0xDC;   // MSS 1500
  b[28] = 0;                                          // EOL
  b[29] = 0xFF; b[30] = 0xFF; b[31] = 0xFF;           // garbage after EOL is ignored
  auto r = wire::decode_tcp(b);
  REQUIRE(wire::ok(r));
  CHECK(wire::value(r).options.mss == 1500);
}

TEST_CASE("tcp decode_tcp_tolerant: snaplen-cut options and a bad option keep the segment") {
  const Bytes good = encode(syn_header());
  SUBCASE("cut in the middle of the timestamps option") {
    const Bytes cut(good.begin(), good.begin() + 34);  // MSS + SACKOK + 8 of 10 TS bytes
    wire::TcpTolerance t;
    auto r = wire::decode_tcp_tolerant(cut, t);
    REQUIRE(wire::ok(r));
    CHECK(t.options_cut);
    CHECK_FALSE(t.option_error.has_value());
    CHECK(wire::value(r).options.mss == 1460);
    CHECK(wire::value(r).options.sack_permitted);
    CHECK_FALSE(wire::value(r).options.tsval.has_value());
    CHECK(wire::value(r).header_len() == 40);
  }
  SUBCASE("timestamps with length 8 (zeek truncated-header frame 1) is skipped, MSS kept") {
    Bytes b(good.begin(), good.begin() + 40);
    b[27] = 8;  // TS len 8: the walk resumes 2 bytes early inside the TS value
    wire::TcpTolerance t;
    auto r = wire::decode_tcp_tolerant(b, t);
    REQUIRE(wire::ok(r));
    REQUIRE(t.option_error.has_value());
    CHECK(t.option_error->field == "tcp.option.tsval");
    CHECK(wire::value(r).options.mss == 1460);
    CHECK_FALSE(wire::value(r).options.tsval.has_value());
  }
  SUBCASE("the fixed header still has to be there") {
    wire::TcpTolerance t;
    auto r = wire::decode_tcp_tolerant(Bytes(good.begin(), good.begin() + 12), t);
    REQUIRE_FALSE(wire::ok(r));
    CHECK(wire::error(r).field == "tcp");
  }
}

TEST_CASE("tcp decode: every truncation of a full header fails cleanly, never reads past the end") {
  wire::TcpHeader h;
  h.options.tsval = 5;
  h.options.tsecr = 6;
  h.options.sack_count = 3;
  const Bytes good = encode(h);
  for (std::size_t n = 0; n < good.size(); ++n) {
    // A heap copy of exactly n bytes, so ASan catches any overread.
    std::vector<std::uint8_t> part(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    auto r = wire::decode_tcp(part);
    CHECK_FALSE(wire::ok(r));
    wire::TcpTolerance t;
    auto r2 = wire::decode_tcp_tolerant(part, t);
    CHECK(wire::ok(r2) == (n >= 20));
  }
}

TEST_CASE("tcp decode_tcp_tolerant_into: storage that held another header keeps nothing of it") {
  // First a SYN (MSS 1460, SACK-permitted, TS, WS 7), then a data segment
  // with one SACK block {100, 200} and a TSval of 1000, into the same header.
  wire::TcpHeader syn = syn_header();
  wire::TcpHeader data;
  data.flags = wire::kAck;
  data.seq = 5;
  data.options.tsval = 1000;
  data.options.tsecr = 999;
  data.options.sack_count = 1;
  data.options.sack[0] = {100, 200};
  wire::TcpHeader into;
  into.options.sack_count = 4;
  for (auto& b : into.options.sack) b = {7, 8};  // a previous frame's four blocks
  wire::TcpTolerance t;
  REQUIRE_FALSE(wire::decode_tcp_tolerant_into(encode(syn), into, t).has_value());
  CHECK(into.options.mss == 1460);
  CHECK(into.options.window_scale == 7);
  CHECK(into.options.sack_count == 0);
  CHECK(into.options.sack[0].left == 0);  // the old blocks went with the old header
  REQUIRE_FALSE(wire::decode_tcp_tolerant_into(encode(data), into, t).has_value());
  CHECK(into.seq == 5u);
  CHECK_FALSE(into.options.mss.has_value());
  CHECK_FALSE(into.options.window_scale.has_value());
  CHECK_FALSE(into.options.sack_permitted);
  CHECK(into.options.tsval == 1000u);
  REQUIRE(into.options.sack_count == 1);
  CHECK(into.options.sack[0].left == 100u);
  CHECK(into.options.sack[0].right == 200u);
  CHECK(into.options.sack[1].left == 0u);
  CHECK(into.options.sack[3].right == 0u);
  SUBCASE("a bad option is worded as decode_tcp_options words it alone, and the rest is kept") {
    Bytes b = encode(syn);
    b[27] = 8;  // the TS option's length 8 (zeek truncated-header frame 1)
    REQUIRE_FALSE(wire::decode_tcp_tolerant_into(b, into, t).has_value());
    REQUIRE(t.option_error.has_value());
    const auto alone = wire::decode_tcp_options(Bytes{8, 8, 0, 0, 0, 0, 0, 0});
    REQUIRE_FALSE(wire::ok(alone));
    CHECK(t.option_error->field == wire::error(alone).field);
    CHECK(t.option_error->message == wire::error(alone).message);
    CHECK(into.options.mss == 1460);
    CHECK_FALSE(into.options.tsval.has_value());
  }
}

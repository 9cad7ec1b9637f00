// Regression tests of what fuzzing found in the frame decoder (tests/fuzz/);
// each input is also in tests/fuzz/corpus/ (regress-*), which the
// fuzz smoke run replays. Frames are built byte by byte here.
#include "reader_capture_builder.hpp"

#include <replay/input/decode_frame.hpp>

using namespace readertest;

namespace {
constexpr int kDltRaw = 12;  // DLT_RAW: IP at offset 0
}  // namespace

TEST_CASE("fuzz finding: a tunnelled packet whose IP length claims more than the outer packet carried is capped") {
  // IP-in-IP (protocol 4): outer IPv4 (20) + inner IPv4 (20) + TCP (20) + 10
  // payload bytes = 70 bytes on the wire; the inner header claims a total
  // length of 1000. Before the fix only the outermost packet was checked and
  // the segment came out with 1000 - 20 - 20 = 960 payload bytes; what the
  // outer packet carried is 70 - 20 = 50 bytes of inner packet, so 50 - 20
  // - 20 = 10 payload bytes, with the "ip.len" warning.
  Bytes inner = ipv4_tcp(false, 1000, 1, wire::kAck, 10);
  REQUIRE(inner.size() == 50);
  inner[2] = 1000 >> 8;  // total length field (RFC 791), bytes 2-3
  inner[3] = 1000 & 0xFF;
  wire::Ipv4Header outer;
  outer.protocol = wire::kProtoIpv4;
  outer.src = {10, 0, 0, 1};
  outer.dst = {10, 0, 0, 2};
  Bytes frame(20);
  REQUIRE(wire::ok(wire::encode_ipv4(outer, inner.size(), frame)));
  append(frame, inner);
  REQUIRE(frame.size() == 70);

  const replay::FrameDecode d = replay::decode_frame(kDltRaw, frame, 70);
  REQUIRE(d.kind == replay::FrameKind::kTcp);
  CHECK(d.segment.payload_len == 10);
  REQUIRE(d.warning.has_value());
  CHECK(d.warning->field == "ip.len");
  CHECK(d.warning->message.find("gives the upper layer 980 bytes but the frame carried 30") != std::string::npos);
}

TEST_CASE("fuzz finding: the tunnelled length cap at its boundary: 50 claimed and carried is clean, 51 is capped") {
  // The frame above with the inner total length at its true 50 (20 + 30 of
  // upper layer, exactly what the outer packet carried): 10 payload bytes,
  // no warning. One byte more (51: 31 claimed, 30 carried): the same 10
  // payload bytes and the warning.
  for (const std::uint16_t claimed : {50, 51}) {
    CAPTURE(claimed);
    Bytes inner = ipv4_tcp(false, 1000, 1, wire::kAck, 10);
    inner[2] = static_cast<std::uint8_t>(claimed >> 8);
    inner[3] = static_cast<std::uint8_t>(claimed & 0xFF);
    wire::Ipv4Header outer;
    outer.protocol = wire::kProtoIpv4;
    Bytes frame(20);
    REQUIRE(wire::ok(wire::encode_ipv4(outer, inner.size(), frame)));
    append(frame, inner);
    const replay::FrameDecode d = replay::decode_frame(kDltRaw, frame, 70);
    REQUIRE(d.kind == replay::FrameKind::kTcp);
    CHECK(d.segment.payload_len == 10);
    CHECK(d.warning.has_value() == (claimed == 51));
  }
}

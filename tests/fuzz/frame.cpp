// Fuzz harness: one frame through decode_frame (link layer, IP, tunnels,
// TCP; decode_frame.hpp) and, in a second mode, one tunnel header through
// decapsulate / skip_mpls (tunnel_decap.hpp). Input: byte 0 picks the mode
// and link type (or IP protocol), bytes 1-2 how much longer the frame was on
// the wire than captured, the rest is the frame. Invariants:
//  - decode_frame and decode_frame_into (the reader's allocation-free path)
//    agree on the kind and, for TCP, on every field;
//  - a malformed frame names the field at fault; only TCP frames carry a warning;
//  - a TCP segment: data offset 5..15, at most 4 SACK blocks, both addresses
//    of one IP version, and a payload no longer than the frame was on the wire;
//  - a tunnel's inner packet lies inside the bytes it was opened from.
#include <array>

#include <replay/input/decode_frame.hpp>

#include "common/memory_file.hpp"
#include "input/tunnel_decap.hpp"

namespace {

// Every link type decode_link knows (decode_link.hpp) and one it does not (147, USER0).
constexpr std::array<int, 11> kLinkTypes{1, 113, 276, 12, 14, 101, 228, 229, 0, 108, 147};
// The IP protocols tunnel_decap opens (GRE 47, UDP 17, MPLS-in-IP 137) and TCP (6).
constexpr std::array<std::uint8_t, 4> kTunnelProtocols{47, 17, 137, 6};

bool same_segment(const replay::Segment& a, const replay::Segment& b) {
  const auto& x = a.tcp;
  const auto& y = b.tcp;
  const auto& o = x.options;
  const auto& p = y.options;
  bool sack_same = o.sack_count == p.sack_count;
  for (std::size_t i = 0; sack_same && i < o.sack_count; ++i)
    sack_same = o.sack[i].left == p.sack[i].left && o.sack[i].right == p.sack[i].right;
  return a.src == b.src && a.dst == b.dst && a.payload_len == b.payload_len && a.flow_label == b.flow_label &&
         a.ip_id == b.ip_id && a.ip_checksum == b.ip_checksum && a.ip_ttl == b.ip_ttl && a.vnet == b.vnet &&
         a.tcp_options_cut == b.tcp_options_cut && a.tcp_options_bad == b.tcp_options_bad &&
         x.seq == y.seq && x.ack == y.ack && x.flags == y.flags && x.window == y.window &&
         x.data_offset == y.data_offset && o.mss == p.mss && o.window_scale == p.window_scale &&
         o.sack_permitted == p.sack_permitted && o.tsval == p.tsval && o.tsecr == p.tsecr && sack_same;
}

void check_inside(std::span<const std::uint8_t> inner, std::span<const std::uint8_t> outer) {
  fuzz::check(inner.empty() || (inner.data() >= outer.data() && inner.data() + inner.size() <= outer.data() + outer.size()),
              "a tunnel's inner packet lies inside its outer bytes");
}

void fuzz_tunnel(std::uint8_t protocol, std::span<const std::uint8_t> l4) {
  const auto d = replay::decapsulate(protocol, l4);
  if (wire::ok(d)) {
    check_inside(wire::value(d).bytes, l4);
    if (wire::value(d).kind == replay::Inner::kMpls) {
      const auto m = replay::skip_mpls(wire::value(d).bytes);
      if (wire::ok(m)) check_inside(wire::value(m).bytes, l4);
    }
  } else {
    fuzz::check(!wire::error(d).field.empty(), "a tunnel error names its field");
  }
  const auto m = replay::skip_mpls(l4);
  if (wire::ok(m)) check_inside(wire::value(m).bytes, l4);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace replay;
  if (size < 3) return 0;
  const std::span<const std::uint8_t> frame(data + 3, size - 3);
  if (data[0] >= 0xF0) {
    fuzz_tunnel(kTunnelProtocols[data[0] % kTunnelProtocols.size()], frame);
    return 0;
  }
  const int dlt = kLinkTypes[data[0] % kLinkTypes.size()];
  const std::uint32_t extra = (std::uint32_t{data[1]} << 8) | data[2];
  const std::uint32_t wire_len = static_cast<std::uint32_t>(frame.size()) + (extra == 0xFFFF ? 0 : extra);
  const FrameDecode d = decode_frame(dlt, frame, wire_len);
  Segment into;
  FrameIssue issue;
  const FrameKind kind = decode_frame_into(dlt, frame, wire_len, into, issue);
  fuzz::check(kind == d.kind, "decode_frame and decode_frame_into agree on the kind");
  if (d.kind == FrameKind::kMalformed) {
    fuzz::check(!d.error.field.empty() && !d.error.message.empty(), "a malformed frame names its field");
    fuzz::check(issue.error.field == d.error.field, "both paths name the same field");
  }
  if (d.kind != FrameKind::kTcp) {
    fuzz::check(!d.warning, "only a TCP frame carries a warning");
    return 0;
  }
  fuzz::check(same_segment(d.segment, into), "decode_frame and decode_frame_into give the same segment");
  fuzz::check(d.warning.has_value() == issue.warning.has_value(), "both paths warn alike");
  const auto& t = d.segment.tcp;
  fuzz::check(t.data_offset >= 5 && t.data_offset <= 15, "TCP data offset 5..15");
  fuzz::check(t.options.sack_count <= 4, "at most 4 SACK blocks");
  fuzz::check(d.segment.src.address.version == d.segment.dst.address.version, "one IP version for both addresses");
  fuzz::check(std::uint64_t{d.segment.payload_len} + t.header_len() <= std::max<std::uint64_t>(wire_len, frame.size()),
              "the payload is no longer than the frame on the wire: payload " + std::to_string(d.segment.payload_len) +
                  " + TCP header " + std::to_string(t.header_len()) + " > wire length " + std::to_string(wire_len));
  return 0;
}

// Frame -> Segment: link header, IP (tunnels followed), TCP.
#include "decode_frame.hpp"

#include <algorithm>
#include <string>

#include <wire/ip.hpp>
#include <wire/tcp.hpp>

#include "decode_link.hpp"

namespace replay {
namespace {

FrameDecode malformed(wire::Error e) {
  FrameDecode d;
  d.kind = FrameKind::kMalformed;
  d.error = std::move(e);
  return d;
}

FrameDecode of_kind(FrameKind k) {
  FrameDecode d;
  d.kind = k;
  return d;
}

}  // namespace

FrameDecode decode_frame(int dlt, std::span<const std::uint8_t> captured, std::uint32_t wire_len) {
  auto link = decode_link(dlt, captured);
  if (!wire::ok(link)) return malformed(wire::error(link));
  const LinkPayload& lp = wire::value(link);
  if (lp.proto == NetProto::kOther) return of_kind(FrameKind::kNotIp);

  std::span<const std::uint8_t> bytes = captured.subspan(std::min(lp.offset, captured.size()));
  // Bytes of the network packet the frame carried on the wire (not just captured).
  std::size_t on_wire = wire_len > lp.offset ? wire_len - lp.offset : 0;
  if (lp.declared_len && *lp.declared_len < on_wire) on_wire = *lp.declared_len;
  std::optional<wire::Error> warning;
  // Follow IPv4-in-IP / IPv6-in-IP tunnels to the innermost packet (RFC 2003, RFC 2473).
  for (int depth = 0;; ++depth) {
    auto ip = wire::decode_ip(bytes);
    if (!wire::ok(ip)) return malformed(wire::error(ip));
    const wire::IpPacket& pk = wire::value(ip);
    if (pk.non_first_fragment) return of_kind(FrameKind::kNonFirstFragment);
    std::uint32_t l4_len = pk.l4_len;
    if (depth == 0 && !pk.length_from_capture && pk.l4_offset + l4_len > on_wire) {
      const std::size_t carried = on_wire > pk.l4_offset ? on_wire - pk.l4_offset : 0;
      warning = wire::Error{pk.version == 4 ? "ip.len" : "ipv6.plen",
                            "the IP header gives the upper layer " + std::to_string(l4_len) +
                                " bytes but the frame carried " + std::to_string(carried) +
                                "; the length is taken from the frame"};
      l4_len = static_cast<std::uint32_t>(carried);
    }
    // The upper layer as far as it was captured and no further than the IP length
    // says (Ethernet pads short frames; the padding is not TCP).
    std::span<const std::uint8_t> l4 = bytes.subspan(std::min(pk.l4_offset, bytes.size()));
    if (l4.size() > l4_len) l4 = l4.first(l4_len);
    if ((pk.protocol == wire::kProtoIpv4 || pk.protocol == wire::kProtoIpv6) && depth < 4) {
      bytes = l4;
      continue;
    }
    if (pk.protocol != wire::kProtoTcp) return of_kind(FrameKind::kNotTcp);

    wire::TcpTolerance tol;
    auto tcp = wire::decode_tcp_tolerant(l4, tol);
    if (!wire::ok(tcp)) return malformed(wire::error(tcp));
    const wire::TcpHeader& th = wire::value(tcp);
    if (th.header_len() > l4_len) {
      return malformed(wire::Error{"tcp.hdr_len", "TCP header length " + std::to_string(th.header_len()) +
                                                      " exceeds the " + std::to_string(l4_len) +
                                                      " bytes the IP header gives TCP"});
    }
    if (tol.options_cut && wire_len <= captured.size()) {
      // Not a snaplen cut: the frame itself is shorter than its TCP header says.
      return malformed(wire::Error{"tcp.hdr_len", "header length " + std::to_string(th.header_len()) +
                                                      " bytes runs past the " + std::to_string(l4.size()) +
                                                      " bytes of the frame"});
    }
    FrameDecode d;
    d.kind = FrameKind::kTcp;
    Segment& s = d.segment;
    s.src.addr = pk.src;
    s.dst.addr = pk.dst;
    s.src.v6 = s.dst.v6 = pk.version == 6;
    s.src.port = th.src_port;
    s.dst.port = th.dst_port;
    s.tcp = th;
    s.payload_len = l4_len - static_cast<std::uint32_t>(th.header_len());
    s.flow_label = pk.flow_label;
    if (pk.v4) s.ip_id = pk.v4->id;
    s.tcp_options_bad = tol.option_error.has_value();
    s.tcp_options_cut = tol.options_cut;
    // One warning per frame: the IP length first, then a bad option, then a cut.
    d.warning = warning;
    if (!d.warning && tol.option_error) {
      d.warning = wire::Error{tol.option_error->field,
                              tol.option_error->message + "; the other options are kept, the frame is used"};
    }
    if (!d.warning && tol.options_cut) {
      d.warning = wire::Error{"tcp.options", "TCP options cut by the snapshot length: " + std::to_string(l4.size()) +
                                                 " of " + std::to_string(th.header_len()) +
                                                 " header bytes captured; the options after the cut are unknown"};
    }
    return d;
  }
}

}  // namespace replay

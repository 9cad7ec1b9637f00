// Frame -> Segment: link header, IP (tunnels followed), TCP.
#include <replay/input/decode_frame.hpp>

#include <algorithm>
#include <cstdint>
#include <string>

#include <wire/bytes.hpp>
#include <wire/ip.hpp>
#include <wire/tcp.hpp>

#include "input/decode_link.hpp"
#include "input/tunnel_decap.hpp"

namespace {
constexpr int kDltEthernet = 1;  // DLT_EN10MB
}  // namespace


namespace replay {

namespace {

// The common frame, decoded without the general walk: untagged Ethernet,
// IPv4 without options or fragmentation or IPv6 without extension headers,
// TCP whose header and options are whole and well formed, lengths that
// agree. True when `s` holds the frame exactly as decode_frame_general
// would fill it (tests/pcap-replay/decode_fast_path_test.cpp holds the two
// against each other); false for any other frame, which the general walk
// then decodes (and words any error or warning) from the start.
bool decode_plain_tcp(int dlt, std::span<const std::uint8_t> captured, std::uint32_t wire_len, Segment& s) {
  constexpr std::size_t kEth = 14, kIp4 = 20, kIp6 = 40, kTcp = 20;
  if (dlt != kDltEthernet || captured.size() < kEth + kIp4 + kTcp) return false;
  const std::uint8_t* ip = captured.data() + kEth;
  const std::uint16_t type = wire::load_be16(captured.data() + 12);
  const std::uint32_t on_wire = wire_len > kEth ? wire_len - kEth : 0;
  std::size_t ip_len = 0;
  std::uint32_t l4_len = 0;
  if (type == 0x0800) {  // IPv4, no VLAN tag
    if (ip[0] != 0x45 || ip[9] != wire::kProtoTcp) return false;  // version 4, no options; TCP
    if ((wire::load_be16(ip + 6) & 0x3FFFu) != 0) return false;   // MF or an offset: a fragment
    const std::uint32_t total = wire::load_be16(ip + 2);
    if (total < kIp4 + kTcp || total > on_wire) return false;  // (0: a TSO super-packet; longer: the warning)
    ip_len = kIp4;
    l4_len = total - kIp4;
  } else if (type == 0x86DD) {  // IPv6, no VLAN tag
    if (captured.size() < kEth + kIp6 + kTcp || (ip[0] >> 4) != 6 || ip[6] != wire::kProtoTcp) return false;
    const std::uint32_t payload = wire::load_be16(ip + 4);
    if (payload < kTcp || kIp6 + payload > on_wire) return false;  // (0: a jumbogram or GSO)
    ip_len = kIp6;
    l4_len = payload;
  } else {
    return false;
  }
  std::span<const std::uint8_t> l4 = captured.subspan(kEth + ip_len);
  if (l4.size() > l4_len) l4 = l4.first(l4_len);  // Ethernet padding is not TCP
  if (l4.size() < kTcp) return false;
  const std::size_t doff = static_cast<std::size_t>(l4[12] >> 4) * 4;
  if (doff < kTcp || doff > l4.size()) return false;  // a bad offset, or options cut by the snaplen
  wire::TcpTolerance tol;
  if (wire::decode_tcp_tolerant_into(l4, s.tcp, tol) || tol.options_cut || tol.option_error) return false;
  s.vnet = VirtualNetwork{};
  if (ip_len == kIp4) {
    s.src.address.bytes = {};
    s.dst.address.bytes = {};
    std::copy_n(ip + 12, 4, s.src.address.bytes.begin());
    std::copy_n(ip + 16, 4, s.dst.address.bytes.begin());
    s.src.address.version = s.dst.address.version = 4;
    s.flow_label = 0;
    s.ip_id = wire::load_be16(ip + 4);
    s.ip_checksum = wire::load_be16(ip + 10);
    s.ip_ttl = ip[8];
  } else {
    std::copy_n(ip + 8, 16, s.src.address.bytes.begin());
    std::copy_n(ip + 24, 16, s.dst.address.bytes.begin());
    s.src.address.version = s.dst.address.version = 6;
    s.flow_label = wire::load_be32(ip) & 0xFFFFFu;
    s.ip_id.reset();
    s.ip_checksum = 0;
    s.ip_ttl = ip[7];  // hop limit
  }
  s.src.port = s.tcp.src_port;
  s.dst.port = s.tcp.dst_port;
  s.payload_len = l4_len - static_cast<std::uint32_t>(doff);
  s.tcp_options_bad = false;
  s.tcp_options_cut = false;
  return true;
}

}  // namespace

FrameKind decode_frame_into(int dlt, std::span<const std::uint8_t> captured, std::uint32_t wire_len, Segment& s,
                            FrameIssue& issue) {
  issue.warning.reset();
  if (decode_plain_tcp(dlt, captured, wire_len, s)) return FrameKind::kTcp;
  return decode_frame_general(dlt, captured, wire_len, s, issue);
}

FrameKind decode_frame_general(int dlt, std::span<const std::uint8_t> captured, std::uint32_t wire_len, Segment& s,
                               FrameIssue& issue) {
  issue.warning.reset();
  s.vnet = VirtualNetwork{};
  auto link = decode_link(dlt, captured, &s.vnet);
  if (!wire::ok(link)) {
    issue.error = wire::error(link);
    return FrameKind::kMalformed;
  }
  const LinkPayload& lp = wire::value(link);
  if (lp.proto == NetProto::kOther) return FrameKind::kNotIp;

  std::span<const std::uint8_t> bytes = captured.subspan(std::min(lp.offset, captured.size()));
  // Bytes of the network packet the frame carried on the wire (not just captured).
  std::size_t on_wire = wire_len > lp.offset ? wire_len - lp.offset : 0;
  if (lp.declared_len && *lp.declared_len < on_wire) on_wire = *lp.declared_len;
  // Follow tunnels to the innermost packet: IP-in-IP (RFC 2003, RFC 2473)
  // here, the others through tunnel_decap. An inner packet is checked
  // against what its outer layer carried on the wire (`on_wire` follows it
  // in), as the outermost one is against the frame.
  wire::IpPacket pk;  // each layer decoded into it in turn
  for (int layer = 0;; ++layer) {
    if (auto e = wire::decode_ip_into(bytes, pk)) {
      issue.error = std::move(*e);
      return FrameKind::kMalformed;
    }
    if (pk.non_first_fragment) return FrameKind::kNonFirstFragment;
    std::uint32_t l4_len = pk.l4_len;
    if (!pk.length_from_capture && pk.l4_offset + l4_len > on_wire) {
      const std::size_t carried = on_wire > pk.l4_offset ? on_wire - pk.l4_offset : 0;
      if (!issue.warning)
        issue.warning = wire::Error{pk.version == 4 ? "ip.len" : "ipv6.plen",
                                    "the IP header gives the upper layer " + std::to_string(l4_len) +
                                        " bytes but the frame carried " + std::to_string(carried) +
                                        "; the length is taken from the frame"};
      l4_len = static_cast<std::uint32_t>(carried);
    }
    // The upper layer as far as it was captured and no further than the IP length
    // says (Ethernet pads short frames; the padding is not TCP).
    std::span<const std::uint8_t> l4 = bytes.subspan(std::min(pk.l4_offset, bytes.size()));
    if (l4.size() > l4_len) l4 = l4.first(l4_len);
    if (pk.protocol == wire::kProtoIpv4 || pk.protocol == wire::kProtoIpv6) {
      if (layer + 1 >= kMaxTunnelLayers) return FrameKind::kNotTcp;
      bytes = l4;
      on_wire = l4_len;
      continue;
    }
    if (pk.protocol != wire::kProtoTcp) {
      auto dec = decapsulate(pk.protocol, l4);
      if (!wire::ok(dec)) {
        issue.error = wire::error(dec);
        return FrameKind::kMalformed;
      }
      Decap inner = wire::value(dec);
      if (inner.vnet_kind) s.vnet.push(*inner.vnet_kind, inner.vnet_id);
      // Ethernet and MPLS layers inside the tunnel, down to an IP packet.
      while (inner.kind == Inner::kEthernet || inner.kind == Inner::kMpls) {
        if (++layer >= kMaxTunnelLayers) return FrameKind::kNotTcp;
        if (inner.kind == Inner::kMpls) {
          auto m = skip_mpls(inner.bytes);
          if (!wire::ok(m)) {
            issue.error = wire::error(m);
            return FrameKind::kMalformed;
          }
          inner = wire::value(m);
          continue;
        }
        auto eth = decode_link(kDltEthernet, inner.bytes, &s.vnet);
        if (!wire::ok(eth)) {
          issue.error = wire::error(eth);
          return FrameKind::kMalformed;
        }
        const LinkPayload& e = wire::value(eth);
        if (e.proto == NetProto::kOther) return FrameKind::kNotTcp;
        inner = Decap{Inner::kIp, inner.bytes.subspan(std::min(e.offset, inner.bytes.size()))};
      }
      if (inner.kind != Inner::kIp || layer + 1 >= kMaxTunnelLayers) return FrameKind::kNotTcp;
      // The tunnel headers take the bytes before the inner packet.
      const std::size_t headers = inner.bytes.empty() ? l4.size() : static_cast<std::size_t>(inner.bytes.data() - l4.data());
      on_wire = l4_len > headers ? l4_len - headers : 0;
      bytes = inner.bytes;
      continue;
    }

    wire::TcpTolerance tol;
    // Straight into the caller's segment (no copy of the header per frame).
    if (auto e = wire::decode_tcp_tolerant_into(l4, s.tcp, tol)) {
      issue.error = std::move(*e);
      return FrameKind::kMalformed;
    }
    const wire::TcpHeader& th = s.tcp;
    if (th.header_len() > l4_len) {
      issue.error = wire::Error{"tcp.hdr_len", "TCP header length " + std::to_string(th.header_len()) +
                                                   " exceeds the " + std::to_string(l4_len) +
                                                   " bytes the IP header gives TCP"};
      return FrameKind::kMalformed;
    }
    if (tol.options_cut && wire_len <= captured.size()) {
      // Not a snaplen cut: the frame itself is shorter than its TCP header says.
      issue.error = wire::Error{"tcp.hdr_len", "header length " + std::to_string(th.header_len()) +
                                                   " bytes runs past the " + std::to_string(l4.size()) +
                                                   " bytes of the frame"};
      return FrameKind::kMalformed;
    }
    s.src.address.bytes = pk.src;
    s.dst.address.bytes = pk.dst;
    s.src.address.version = s.dst.address.version = pk.version;
    s.src.port = th.src_port;
    s.dst.port = th.dst_port;
    s.payload_len = l4_len - static_cast<std::uint32_t>(th.header_len());
    s.flow_label = pk.flow_label;
    s.ip_id = pk.v4 ? std::optional<std::uint16_t>(pk.v4->id) : std::nullopt;
    s.ip_checksum = pk.v4 ? pk.v4->checksum : 0;
    s.ip_ttl = pk.v4 ? pk.v4->ttl : pk.v6 ? pk.v6->hop_limit : 0;
    s.tcp_options_bad = tol.option_error.has_value();
    s.tcp_options_cut = tol.options_cut;
    // One warning per frame: the IP length first, then a bad option, then a cut.
    if (!issue.warning && tol.option_error) {
      issue.warning = wire::Error{tol.option_error->field,
                                  tol.option_error->message + "; the other options are kept, the frame is used"};
    }
    if (!issue.warning && tol.options_cut) {
      issue.warning = wire::Error{"tcp.options", "TCP options cut by the snapshot length: " +
                                                     std::to_string(l4.size()) + " of " +
                                                     std::to_string(th.header_len()) +
                                                     " header bytes captured; the options after the cut are unknown"};
    }
    return FrameKind::kTcp;
  }
}

FrameDecode decode_frame(int dlt, std::span<const std::uint8_t> captured, std::uint32_t wire_len) {
  FrameDecode d;
  FrameIssue issue;
  d.kind = decode_frame_into(dlt, captured, wire_len, d.segment, issue);
  if (d.kind == FrameKind::kMalformed) d.error = std::move(issue.error);
  if (d.kind == FrameKind::kTcp) d.warning = std::move(issue.warning);
  return d;
}

}  // namespace replay

#include "netstack/closed_port.hpp"

#include <variant>

#include "netstack/segment_codec.hpp"

namespace netstack {

std::optional<std::vector<std::uint8_t>> closed_port_reply(std::span<const std::uint8_t> datagram,
                                                           std::uint16_t ipv4_id) {
  const auto parsed = parse_segment(datagram);
  const auto* seg = std::get_if<ParsedSegment>(&parsed);
  if (seg == nullptr || seg->tcp.has(wire::kRst)) return std::nullopt;  // RFC 9293 3.10.7.1: a RST is discarded
  wire::TcpHeader h;
  h.src_port = seg->dst.port;
  h.dst_port = seg->src.port;
  h.window = 0;
  if (seg->tcp.has(wire::kAck)) {
    h.seq = seg->tcp.ack;  // <SEQ=SEG.ACK><CTL=RST>
    h.flags = wire::kRst;
  } else {
    const auto len = static_cast<std::uint32_t>(seg->payload.size()) + (seg->tcp.has(wire::kSyn) ? 1u : 0u) +
                     (seg->tcp.has(wire::kFin) ? 1u : 0u);
    h.seq = 0;  // <SEQ=0><ACK=SEG.SEQ+SEG.LEN><CTL=RST,ACK>
    h.ack = seg->tcp.seq + len;
    h.flags = wire::kRst | wire::kAck;
  }
  return encode_segment(seg->dst, seg->src, h, {}, ipv4_id);
}

}  // namespace netstack

#include "netstack/segment_codec.hpp"

#include <stdexcept>

#include "wire/ip.hpp"

namespace netstack {

std::vector<std::uint8_t> encode_segment(const Endpoint& src, const Endpoint& dst, wire::TcpHeader tcp,
                                         std::span<const std::uint8_t> payload, std::uint16_t ipv4_id) {
  if (src.address.version != dst.address.version) {
    throw std::invalid_argument("encode_segment: source and destination IP versions differ");
  }
  tcp.src_port = src.port;
  tcp.dst_port = dst.port;
  tcp.checksum = 0;
  const std::size_t ip_len = src.address.version == 4 ? 20 : 40;
  const std::size_t tcp_len = 20 + wire::tcp_options_len(tcp.options);
  std::vector<std::uint8_t> out(ip_len + tcp_len + payload.size());
  const std::span<std::uint8_t> all(out);

  const auto tcp_written = wire::encode_tcp(tcp, all.subspan(ip_len));
  if (!wire::ok(tcp_written)) {
    throw std::invalid_argument("encode_segment: " + wire::error(tcp_written).field + ": " +
                                wire::error(tcp_written).message);
  }
  std::copy(payload.begin(), payload.end(), out.begin() + static_cast<std::ptrdiff_t>(ip_len + tcp_len));
  const std::span<std::uint8_t> segment = all.subspan(ip_len);

  if (src.address.version == 4) {
    wire::Ipv4Header ip;
    ip.df = true;
    ip.id = ipv4_id;
    ip.ttl = 64;
    ip.protocol = wire::kProtoTcp;
    ip.src = src.address.v4_bytes();
    ip.dst = dst.address.v4_bytes();
    const auto r = wire::encode_ipv4(ip, segment.size(), all);
    if (!wire::ok(r)) throw std::invalid_argument("encode_segment: " + wire::error(r).message);
    wire::fill_tcp_checksum_v4(ip.src, ip.dst, segment);
  } else {
    wire::Ipv6Header ip;
    ip.payload_len = static_cast<std::uint16_t>(segment.size());
    ip.next_header = wire::kProtoTcp;
    ip.hop_limit = 64;
    ip.src = src.address.bytes;
    ip.dst = dst.address.bytes;
    const auto r = wire::encode_ipv6(ip, all);
    if (!wire::ok(r)) throw std::invalid_argument("encode_segment: " + wire::error(r).message);
    wire::fill_tcp_checksum_v6(ip.src, ip.dst, segment);
  }
  return out;
}

std::variant<ParsedSegment, wire::Error> parse_segment(std::span<const std::uint8_t> datagram) {
  auto ip = wire::decode_ip(datagram);
  if (!wire::ok(ip)) return wire::error(ip);
  const wire::IpPacket& p = wire::value(ip);
  if (p.fragment) return wire::Error{"ip.fragment", "fragmented datagrams are not reassembled"};
  if (p.protocol != wire::kProtoTcp) {
    return wire::Error{"ip.proto", "protocol " + std::to_string(p.protocol) + " is not TCP"};
  }
  if (p.l4_offset + p.l4_len > datagram.size()) {
    return wire::Error{"tcp.len", "the IP length claims more TCP bytes than the datagram holds"};
  }
  const auto segment = datagram.subspan(p.l4_offset, p.l4_len);
  auto tcp = wire::decode_tcp(segment);
  if (!wire::ok(tcp)) return wire::error(tcp);

  ParsedSegment out;
  out.src.address.version = p.version;
  out.dst.address.version = p.version;
  out.src.address.bytes = p.src;
  out.dst.address.bytes = p.dst;
  const bool checksum_ok =
      p.version == 4
          ? wire::tcp_checksum_ok_v4(out.src.address.v4_bytes(), out.dst.address.v4_bytes(), segment)
          : wire::tcp_checksum_ok_v6(p.src, p.dst, segment);
  if (!checksum_ok) return wire::Error{"tcp.checksum", "TCP checksum does not verify"};
  out.tcp = wire::value(tcp);
  out.src.port = out.tcp.src_port;
  out.dst.port = out.tcp.dst_port;
  if (out.tcp.header_len() > segment.size()) {
    return wire::Error{"tcp.hdr_len", "TCP header longer than the segment"};
  }
  out.payload = segment.subspan(out.tcp.header_len());
  return out;
}

std::optional<ParsedSegment> accept_segment(std::span<const std::uint8_t> datagram, const Endpoint& local,
                                            const std::optional<Endpoint>& remote) {
  auto parsed = parse_segment(datagram);
  auto* seg = std::get_if<ParsedSegment>(&parsed);
  if (seg == nullptr || !(seg->dst == local) || (remote && !(seg->src == *remote))) return std::nullopt;
  return *seg;
}

}  // namespace netstack

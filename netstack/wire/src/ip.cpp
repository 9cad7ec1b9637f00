// IPv4 (RFC 791 3.1) and IPv6 (RFC 8200) header decode/encode and the walk
// to the upper-layer header.
#include <wire/ip.hpp>

#include <algorithm>
#include <string>

#include <wire/bytes.hpp>
#include <wire/checksum.hpp>

namespace wire {
namespace {

Error err(std::string field, std::string message) { return Error{std::move(field), std::move(message)}; }
std::string num(std::size_t v) { return std::to_string(v); }

}  // namespace

std::optional<Error> decode_ipv4_into(std::span<const std::uint8_t> b, Ipv4Header& h) {
  if (b.size() < 20) {
    return err("ip.hdr_len", "IPv4 header truncated: " + num(b.size()) + " of at least 20 bytes captured");
  }
  if ((b[0] >> 4) != 4) return err("ip.version", "version " + num(b[0] >> 4) + " where 4 was expected");
  h.ihl = b[0] & 0x0F;
  if (h.ihl < 5) return err("ip.hdr_len", "header length " + num(h.ihl) + " words is below the 5-word minimum");
  if (h.header_len() > b.size()) {
    return err("ip.hdr_len", "header length " + num(h.header_len()) + " bytes runs past the " +
                                 num(b.size()) + " bytes captured");
  }
  h.tos = b[1];
  h.total_len = load_be16(&b[2]);
  h.id = load_be16(&b[4]);
  const std::uint16_t ff = load_be16(&b[6]);
  h.df = (ff & 0x4000) != 0;
  h.mf = (ff & 0x2000) != 0;
  h.frag_offset = ff & 0x1FFF;
  h.ttl = b[8];
  h.protocol = b[9];
  h.checksum = load_be16(&b[10]);
  std::copy_n(&b[12], 4, h.src.begin());
  std::copy_n(&b[16], 4, h.dst.begin());
  h.options_len = static_cast<std::uint8_t>(h.header_len() - 20);
  // The bytes past options_len are zero, as in a header decoded afresh.
  std::copy_n(&b[20], h.options_len, h.options.begin());
  std::fill(h.options.begin() + h.options_len, h.options.end(), std::uint8_t{0});
  // total_len 0 is what Linux records for a TSO/GSO super-packet: allowed,
  // decode_ip then takes the length from the capture.
  if (h.total_len != 0 && h.total_len < h.header_len()) {
    return err("ip.len", "total length " + num(h.total_len) + " is below the header length " +
                             num(h.header_len()));
  }
  return std::nullopt;
}

Result<Ipv4Header> decode_ipv4(std::span<const std::uint8_t> b) {
  Ipv4Header h;
  if (auto e = decode_ipv4_into(b, h)) return std::move(*e);
  return h;
}

bool ipv4_checksum_ok(std::span<const std::uint8_t> b) {
  if (b.size() < 20) return false;
  const std::size_t hl = std::size_t{b[0] & 0x0Fu} * 4;
  if (hl < 20 || hl > b.size()) return false;
  Checksum c;
  c.add(b.first(hl));
  return c.sum() == 0xFFFF;
}

Result<std::size_t> encode_ipv4(const Ipv4Header& h, std::size_t payload_len, std::span<std::uint8_t> out) {
  if (h.options_len > 40 || h.options_len % 4 != 0) {
    return err("ip.opt", "options length " + num(h.options_len) + " is not a multiple of 4 up to 40");
  }
  const std::size_t hl = 20 + std::size_t{h.options_len};
  if (hl + payload_len > 65535) {
    return err("ip.len", "total length " + num(hl + payload_len) + " exceeds 65535");
  }
  if (out.size() < hl) {
    return err("buffer", "output buffer of " + num(out.size()) + " bytes is smaller than the " + num(hl) +
                             "-byte header");
  }
  std::uint8_t* p = out.data();
  p[0] = static_cast<std::uint8_t>(0x40 | (hl / 4));
  p[1] = h.tos;
  store_be16(p + 2, static_cast<std::uint16_t>(hl + payload_len));
  store_be16(p + 4, h.id);
  store_be16(p + 6, static_cast<std::uint16_t>((h.df ? 0x4000 : 0) | (h.mf ? 0x2000 : 0) | (h.frag_offset & 0x1FFF)));
  p[8] = h.ttl;
  p[9] = h.protocol;
  store_be16(p + 10, 0);
  std::copy_n(h.src.begin(), 4, p + 12);
  std::copy_n(h.dst.begin(), 4, p + 16);
  std::copy_n(h.options.begin(), h.options_len, p + 20);
  store_be16(p + 10, internet_checksum(out.first(hl)));  // RFC 791 3.1 header checksum
  return hl;
}

Result<Ipv6Header> decode_ipv6(std::span<const std::uint8_t> b) {
  if (b.size() < 40) return err("ipv6", "IPv6 header truncated: " + num(b.size()) + " of 40 bytes captured");
  if ((b[0] >> 4) != 6) return err("ipv6.version", "version " + num(b[0] >> 4) + " where 6 was expected");
  Ipv6Header h;
  const std::uint32_t w = load_be32(&b[0]);
  h.traffic_class = static_cast<std::uint8_t>(w >> 20);
  h.flow_label = w & 0xFFFFF;
  h.payload_len = load_be16(&b[4]);
  h.next_header = b[6];
  h.hop_limit = b[7];
  std::copy_n(&b[8], 16, h.src.begin());
  std::copy_n(&b[24], 16, h.dst.begin());
  return h;
}

Result<std::size_t> encode_ipv6(const Ipv6Header& h, std::span<std::uint8_t> out) {
  if (h.flow_label > 0xFFFFF) return err("ipv6.flow", "flow label " + num(h.flow_label) + " exceeds 20 bits");
  if (out.size() < 40) return err("buffer", "output buffer of " + num(out.size()) + " bytes is smaller than 40");
  std::uint8_t* p = out.data();
  store_be32(p, (6u << 28) | (std::uint32_t{h.traffic_class} << 20) | h.flow_label);
  store_be16(p + 4, h.payload_len);
  p[6] = h.next_header;
  p[7] = h.hop_limit;
  std::copy_n(h.src.begin(), 16, p + 8);
  std::copy_n(h.dst.begin(), 16, p + 24);
  return std::size_t{40};
}

namespace {

std::optional<Error> decode_ipv4_packet(std::span<const std::uint8_t> b, IpPacket& pk) {
  Ipv4Header& h = pk.v4.emplace();
  if (auto e = decode_ipv4_into(b, h)) return e;
  pk.version = 4;
  std::copy_n(h.src.begin(), 4, pk.src.begin());
  std::fill(pk.src.begin() + 4, pk.src.end(), std::uint8_t{0});
  std::copy_n(h.dst.begin(), 4, pk.dst.begin());
  std::fill(pk.dst.begin() + 4, pk.dst.end(), std::uint8_t{0});
  pk.protocol = h.protocol;
  pk.l4_offset = h.header_len();
  pk.length_from_capture = h.total_len == 0;
  if (h.total_len == 0) {
    pk.l4_len = static_cast<std::uint32_t>(b.size() - h.header_len());
  } else {
    pk.l4_len = h.total_len - static_cast<std::uint32_t>(h.header_len());
  }
  pk.fragment = h.is_fragment();
  pk.non_first_fragment = h.frag_offset != 0;
  pk.flow_label = 0;
  pk.v6.reset();
  return std::nullopt;
}

bool is_ipv6_extension(std::uint8_t nh) {
  return nh == kProtoHopByHop || nh == kProtoRouting || nh == kProtoFragment || nh == kProtoDestOpts ||
         nh == kProtoAh || nh == kProtoMobility;
}

std::optional<Error> decode_ipv6_packet(std::span<const std::uint8_t> b, IpPacket& pk) {
  auto r = decode_ipv6(b);
  if (!ok(r)) return error(r);
  const Ipv6Header& h = value(r);
  pk = IpPacket{};
  pk.version = 6;
  pk.src = h.src;
  pk.dst = h.dst;
  pk.flow_label = h.flow_label;
  pk.v6 = h;
  bool jumbo = h.payload_len == 0;  // RFC 2675 jumbogram or GSO: length from the capture
  const std::size_t end = jumbo ? b.size() : 40 + std::size_t{h.payload_len};
  pk.length_from_capture = jumbo;
  std::uint8_t nh = h.next_header;
  std::size_t off = 40;
  // RFC 8200 4.1: each extension header names the next; stop at the first
  // that is not one (the upper layer) or at a non-first fragment.
  for (int guard = 0; is_ipv6_extension(nh); ++guard) {
    if (guard > 64) return err("ipv6.nxt", "more than 64 extension headers");
    if (off + 8 > b.size()) {
      return err("ipv6.opt.length", "extension header " + num(nh) + " at byte " + num(off) +
                                        " runs past the " + num(b.size()) + " bytes captured");
    }
    std::size_t len = 0;
    if (nh == kProtoFragment) {
      len = 8;  // RFC 8200 4.5: fixed size
      const std::uint16_t offm = load_be16(&b[off + 2]);
      pk.fragment = true;
      if ((offm >> 3) != 0) {
        pk.non_first_fragment = true;
        pk.protocol = b[off];
        pk.l4_offset = off + len;
        pk.l4_len = end > off + len ? static_cast<std::uint32_t>(end - off - len) : 0;
        return std::nullopt;
      }
    } else if (nh == kProtoAh) {
      len = (std::size_t{b[off + 1]} + 2) * 4;  // RFC 4302 2.2: 32-bit words minus 2
    } else {
      len = (std::size_t{b[off + 1]} + 1) * 8;  // RFC 8200 4.3-4.6: 8-octet units, first not counted
    }
    if (off + len > end) {
      return err("ipv6.plen", "extension header " + num(nh) + " of " + num(len) + " bytes at byte " + num(off) +
                                  " runs past the payload length " + num(h.payload_len));
    }
    if (off + len > b.size()) {
      return err("ipv6.opt.length", "extension header " + num(nh) + " of " + num(len) + " bytes at byte " +
                                        num(off) + " runs past the " + num(b.size()) + " bytes captured");
    }
    nh = b[off];
    off += len;
  }
  if (off > end) return err("ipv6.plen", "payload length " + num(h.payload_len) + " is shorter than its headers");
  pk.protocol = nh;
  pk.l4_offset = off;
  pk.l4_len = static_cast<std::uint32_t>(end - off);
  return std::nullopt;
}

}  // namespace

std::optional<Error> decode_ip_into(std::span<const std::uint8_t> b, IpPacket& out) {
  if (b.empty()) return err("ip.version", "no IP header captured (0 bytes)");
  switch (b[0] >> 4) {
    case 4: return decode_ipv4_packet(b, out);
    case 6: return decode_ipv6_packet(b, out);
    default: return err("ip.version", "IP version " + num(b[0] >> 4) + " is neither 4 nor 6");
  }
}

Result<IpPacket> decode_ip(std::span<const std::uint8_t> b) {
  IpPacket pk;
  if (auto e = decode_ip_into(b, pk)) return std::move(*e);
  return pk;
}

}  // namespace wire

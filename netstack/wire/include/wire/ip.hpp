#pragma once
// IPv4 (RFC 791 3.1) and IPv6 (RFC 8200 3-4) headers on the wire.
// Decoders never throw and never read past the span; they take the bytes
// that were captured, which may be fewer than the packet had (a snaplen of
// 128 keeps only the headers): lengths of the upper layer always come from
// the IP header (IPv4 total length, IPv6 payload length), never from the
// number of captured bytes.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include <wire/error.hpp>

namespace wire {

using Ipv4Address = std::array<std::uint8_t, 4>;
using Ipv6Address = std::array<std::uint8_t, 16>;

/// IANA protocol numbers this library names (also IPv6 next-header values).
enum IpProto : std::uint8_t {
  kProtoHopByHop = 0,    ///< IPv6 hop-by-hop options (RFC 8200 4.3)
  kProtoIpv4 = 4,        ///< IPv4-in-IP tunnel (RFC 2003)
  kProtoTcp = 6,
  kProtoUdp = 17,
  kProtoIpv6 = 41,       ///< IPv6-in-IP tunnel (RFC 2473)
  kProtoRouting = 43,    ///< IPv6 routing header (RFC 8200 4.4)
  kProtoFragment = 44,   ///< IPv6 fragment header (RFC 8200 4.5)
  kProtoEsp = 50,        ///< RFC 4303: encrypted, the walk stops here
  kProtoAh = 51,         ///< RFC 4302: length in 4-octet units minus 2
  kProtoIcmpv6 = 58,
  kProtoNoNext = 59,     ///< RFC 8200 4.7
  kProtoDestOpts = 60,   ///< IPv6 destination options (RFC 8200 4.6)
  kProtoMobility = 135,  ///< RFC 6275, an extension header in the IPv6 chain
};

/// An IPv4 header (RFC 791 3.1), options kept as raw bytes.
struct Ipv4Header {
  std::uint8_t ihl = 5;            ///< header length in 32-bit words, 5..15
  std::uint8_t tos = 0;            ///< DSCP (6 bits) + ECN (2 bits, RFC 3168)
  std::uint16_t total_len = 0;     ///< header + payload, bytes ("ip.len")
  std::uint16_t id = 0;
  bool df = false;                 ///< Don't Fragment
  bool mf = false;                 ///< More Fragments
  std::uint16_t frag_offset = 0;   ///< fragment offset in 8-byte units, 0..8191
  std::uint8_t ttl = 64;
  std::uint8_t protocol = kProtoTcp;
  std::uint16_t checksum = 0;      ///< as found on decode; computed on encode
  Ipv4Address src{};
  Ipv4Address dst{};
  std::array<std::uint8_t, 40> options{};  ///< first options_len bytes valid
  std::uint8_t options_len = 0;            ///< bytes, a multiple of 4, <= 40

  std::size_t header_len() const { return std::size_t{ihl} * 4; }
  /// A fragment of a larger datagram (MF set or offset non-zero).
  bool is_fragment() const { return mf || frag_offset != 0; }
};

/// Decodes an IPv4 header from the start of `bytes` (captured bytes).
/// Errors: fewer than 20 bytes or fewer than ihl*4 captured ("ip.hdr_len"),
/// version not 4 ("ip.version"), ihl < 5 ("ip.hdr_len"), total length below
/// the header length ("ip.len"). The header checksum is NOT checked here
/// (captures of offloading hosts carry unfilled checksums): see ipv4_checksum_ok().
Result<Ipv4Header> decode_ipv4(std::span<const std::uint8_t> bytes);

/// decode_ipv4 into caller-owned storage (every field of `out` is written
/// on success; on an error `out` is unspecified): the Error, or nullopt.
std::optional<Error> decode_ipv4_into(std::span<const std::uint8_t> bytes, Ipv4Header& out);

/// True when the IPv4 header at the start of `bytes` (ihl*4 bytes, which
/// must be present) has a correct header checksum (RFC 791 3.1, RFC 1071).
bool ipv4_checksum_ok(std::span<const std::uint8_t> bytes);

/// Encodes `h` into `out`: ihl is derived from options_len (which must be a
/// multiple of 4, <= 40), total_len = header + payload_len, the header
/// checksum is computed (h.ihl, h.total_len and h.checksum are ignored).
/// Returns the header length written. Errors: "ip.opt" (bad options_len),
/// "ip.len" (total over 65535), "buffer" (out too small).
Result<std::size_t> encode_ipv4(const Ipv4Header& h, std::size_t payload_len,
                                std::span<std::uint8_t> out);

/// The fixed IPv6 header (RFC 8200 section 3), 40 bytes.
struct Ipv6Header {
  std::uint8_t traffic_class = 0;  ///< DSCP + ECN
  std::uint32_t flow_label = 0;    ///< 20 bits (RFC 6437)
  std::uint16_t payload_len = 0;   ///< bytes after the fixed header ("ipv6.plen")
  std::uint8_t next_header = kProtoTcp;
  std::uint8_t hop_limit = 64;
  Ipv6Address src{};
  Ipv6Address dst{};
};

/// Decodes the fixed IPv6 header. Errors: fewer than 40 bytes ("ipv6"),
/// version not 6 ("ipv6.version").
Result<Ipv6Header> decode_ipv6(std::span<const std::uint8_t> bytes);

/// Encodes the fixed IPv6 header into out[0..40); returns 40.
/// Errors: flow label over 20 bits ("ipv6.flow"), "buffer" (out too small).
Result<std::size_t> encode_ipv6(const Ipv6Header& h, std::span<std::uint8_t> out);

/// An IP packet located down to its upper-layer (transport) header: the
/// result of walking IPv4 options or the IPv6 extension-header chain.
struct IpPacket {
  std::uint8_t version = 4;          ///< 4 or 6
  std::array<std::uint8_t, 16> src{};  ///< IPv4 in the first 4 bytes
  std::array<std::uint8_t, 16> dst{};
  std::uint8_t protocol = 0;         ///< upper-layer protocol after extension headers
  std::size_t l4_offset = 0;         ///< offset of the upper-layer header in the input bytes
  std::uint32_t l4_len = 0;          ///< upper-layer bytes per the IP header (not the capture)
  bool fragment = false;             ///< part of a fragmented datagram (any fragment)
  bool non_first_fragment = false;   ///< offset != 0: no upper-layer header here
  bool length_from_capture = false;  ///< IP length was 0 (TSO / jumbogram): l4_len is from the captured bytes
  std::uint32_t flow_label = 0;      ///< IPv6 flow label, 0 for IPv4
  std::optional<Ipv4Header> v4;      ///< the header, when version 4
  std::optional<Ipv6Header> v6;      ///< the fixed header, when version 6
};

/// Decodes an IPv4 or IPv6 packet, chosen by the version nibble, and walks to
/// the upper-layer header. IPv6 extension headers walked: hop-by-hop (0),
/// routing (43), fragment (44; non-first fragments are flagged and the walk
/// stops), destination options (60), AH (51), mobility (135). The walk stops
/// at any other next-header value, which is reported in `protocol`.
/// Errors name the field: "ip.version", "ip.hdr_len", "ip.len", "ipv6",
/// "ipv6.plen", "ipv6.opt.length" (an extension header running past the
/// captured bytes or past the payload length), "ipv6.fragment".
Result<IpPacket> decode_ip(std::span<const std::uint8_t> bytes);

/// decode_ip into caller-owned storage, for a reader that decodes every
/// frame into the same IpPacket (no copy of the packet per frame): on
/// success every field of `out` is what decode_ip would return and the
/// result is nullopt; otherwise the Error decode_ip would return (`out` is
/// then unspecified).
std::optional<Error> decode_ip_into(std::span<const std::uint8_t> bytes, IpPacket& out);

}  // namespace wire

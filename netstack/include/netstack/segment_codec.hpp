#pragma once
// Builds and parses the IP datagrams the cores exchange: one TCP segment in
// an IPv4 (RFC 791) or IPv6 (RFC 8200) packet, encoded and checked with
// libwire (headers, options, RFC 9293 3.1 checksum over the pseudo-header).

#include <cstdint>
#include <optional>
#include <span>
#include <variant>
#include <vector>

#include "netstack/address.hpp"
#include "wire/error.hpp"
#include "wire/tcp.hpp"

namespace netstack {

/// Encodes `tcp` (ports taken from src/dst; options as given) with `payload`
/// into an IP datagram from src to dst, IP version from src.address, with
/// correct IP and TCP checksums. IPv4 datagrams carry DF and the
/// Identification `ipv4_id` (RFC 6864 4.1: any value for atomic datagrams;
/// the cores count it up per datagram, as Linux does per socket, so a capture
/// tells a retransmission from a packet captured twice). Throws
/// std::invalid_argument when the addresses differ in version or the options
/// do not fit (40 bytes).
std::vector<std::uint8_t> encode_segment(const Endpoint& src, const Endpoint& dst, wire::TcpHeader tcp,
                                         std::span<const std::uint8_t> payload, std::uint16_t ipv4_id = 0);

/// A parsed datagram carrying TCP. `payload` points into the input bytes.
struct ParsedSegment {
  Endpoint src;
  Endpoint dst;
  wire::TcpHeader tcp;
  std::span<const std::uint8_t> payload;
};

/// Parses an IPv4/IPv6 datagram carrying one TCP segment and verifies its TCP
/// checksum. Errors name the field ("ip.proto" not TCP, "ip.fragment",
/// "tcp.checksum", "tcp.len", or libwire's own field names).
std::variant<ParsedSegment, wire::Error> parse_segment(std::span<const std::uint8_t> datagram);

/// How a core opens an arriving datagram: parse_segment(), then keep the
/// segment only when it is addressed to `local` and, when `remote` is given,
/// comes from `remote` (RFC 9293 3.10.7: a segment belongs to the connection
/// its four-tuple names). nullopt for anything else, which the core counts
/// as a bad datagram and ignores.
std::optional<ParsedSegment> accept_segment(std::span<const std::uint8_t> datagram, const Endpoint& local,
                                            const std::optional<Endpoint>& remote);

}  // namespace netstack

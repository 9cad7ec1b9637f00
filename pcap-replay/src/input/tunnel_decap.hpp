#pragma once
// Tunnels a TCP segment may travel in, one layer at a time: given an IP
// packet's upper layer (protocol number and bytes), what it carries.
//  - GRE (IP protocol 47; RFC 2784, RFC 2890 key and sequence, RFC 2637
//    enhanced GRE version 1 with PPP): IPv4 0x0800, IPv6 0x86DD, transparent
//    Ethernet bridging 0x6558, MPLS 0x8847/0x8848, PPP 0x880B, ERSPAN type I
//    and II (0x88BE: 8-byte header when the sequence bit is set, none without)
//    and type III (0x22EB: 12 bytes, plus the 8-byte platform subheader when
//    its O bit is set; frame type 0 Ethernet, 2 IP).
//  - UDP (17) to port 4789 VXLAN (RFC 7348, Ethernet inside), 6081 Geneve
//    (RFC 8926: options skipped, protocol type Ethernet / IPv4 / IPv6), 2152
//    GTP-U (3GPP TS 29.281: G-PDU, optional sequence / N-PDU / extension
//    headers skipped, IP inside).
//  - MPLS in IP (137, RFC 4023).
// IP-in-IP (4, 41) is an IP packet directly and is followed by decode_frame.

#include <cstdint>
#include <span>

#include <optional>

#include <wire/error.hpp>

#include <replay/input/segment.hpp>

namespace replay {

/// What a tunnel header encloses.
enum class Inner : std::uint8_t {
  kNone,      ///< not a tunnel we follow (plain UDP, GRE with an unknown type ...)
  kIp,        ///< an IPv4 or IPv6 packet (by its version nibble)
  kEthernet,  ///< an Ethernet frame (VLAN tags allowed)
  kMpls,      ///< an MPLS label stack
};

/// The layer inside a tunnel header.
struct Decap {
  Decap() = default;
  Decap(Inner k, std::span<const std::uint8_t> b) : kind(k), bytes(b) {}
  Inner kind = Inner::kNone;
  std::span<const std::uint8_t> bytes;  ///< the enclosed packet (as far as captured)
  /// The virtual network the tunnel header names (VirtualNetwork says which
  /// ids count): VXLAN's and Geneve's VNI, NVGRE's VSID; nullopt for the others.
  std::optional<VirtualNetwork::Kind> vnet_kind;
  std::uint32_t vnet_id = 0;  ///< the id when vnet_kind is set (24 bits)
};

/// UDP destination ports of the UDP tunnels (IANA).
inline constexpr std::uint16_t kVxlanPort = 4789, kGenevePort = 6081, kGtpuPort = 2152;

/// Opens the tunnel header of an upper layer of IP protocol `protocol`.
/// kNone for anything else. Errors (field "gre", "erspan", "vxlan",
/// "geneve", "gtp", "udp") for a tunnel header cut short by the capture.
wire::Result<Decap> decapsulate(std::uint8_t protocol, std::span<const std::uint8_t> l4);

/// Skips an MPLS label stack (RFC 3032: to the bottom-of-stack bit); the rest
/// is IP when its version nibble is 4 or 6, else an Ethernet pseudowire
/// after a 4-byte control word (RFC 4448) when the nibble is 0.
wire::Result<Decap> skip_mpls(std::span<const std::uint8_t> bytes);

}  // namespace replay

#pragma once
// Link-layer headers of the capture link types pcap-replay reads: where the
// IP packet starts in a frame. Link type numbers are libpcap DLT_ values as
// pcap_datalink() returns them (see pcap-linktype(7)).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include <wire/error.hpp>

#include <replay/input/segment.hpp>

namespace replay {

/// The network-layer protocol a frame carries.
enum class NetProto { kIpv4, kIpv6, kOther };

/// Where the network layer of a frame starts and what it is.
struct LinkPayload {
  NetProto proto = NetProto::kOther;
  std::size_t offset = 0;      ///< byte offset of the IP header in the frame
  std::uint32_t type = 0;      ///< the ethertype / address family / PPP protocol seen (for messages)
  /// The length of the network packet the link header declares, when it
  /// declares one (PPPoE's length field minus the 2-byte PPP protocol):
  /// bytes past it are link padding, whatever the IP header claims.
  std::optional<std::size_t> declared_len;
};

/// True for the link types decode_link understands: 0 NULL, 1 EN10MB,
/// 12/14 RAW, 101 RAW, 108 LOOP, 113 LINUX_SLL, 228 IPV4, 229 IPV6, 276 LINUX_SLL2.
bool link_type_supported(int dlt);

/// Decodes the link header of `frame` (the captured bytes).
///  - EN10MB: 14-byte header; 802.1Q (0x8100), 802.1ad (0x88A8) and 0x9100
///    tags, any number stacked; PPPoE session (0x8864) with PPP protocol
///    0x0021/0x0057; an MPLS label stack (0x8847/0x8848) followed by IP.
///  - LINUX_SLL: 16 bytes, protocol at offset 14. LINUX_SLL2: 20 bytes, protocol at 0.
///  - RAW, IPV4, IPV6: IP at offset 0 (RAW by the version nibble).
///  - NULL / LOOP: 4-byte address family, host or network byte order;
///    AF_INET 2, AF_INET6 10 (Linux), 24 (NetBSD/OpenBSD), 28 (FreeBSD), 30 (macOS).
/// Errors (field): "eth", "vlan", "pppoes", "mpls", "sll", "null" for a
/// frame shorter than its link header; "frame.linktype" for an unsupported type.
/// The id of each VLAN tag, outermost first, is appended to `vnet` when given.
wire::Result<LinkPayload> decode_link(int dlt, std::span<const std::uint8_t> frame, VirtualNetwork* vnet = nullptr);

}  // namespace replay

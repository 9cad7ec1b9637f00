#pragma once
// The record that flows from the capture reader to the analysis: one TCP
// segment seen in a capture, with where it came from (file, frame) so every
// finding can be opened in Wireshark at the same frame number.

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <wire/address.hpp>
#include <wire/tcp.hpp>

namespace replay {

/// The project's one endpoint type (wire/address.hpp): an IPv4 or IPv6
/// address and a TCP port; `to_string` prints "198.18.0.1:5001" or
/// "[fd00::1]:5001".
using wire::Endpoint;
using wire::to_string;

/// The virtual networks a packet travelled on, outermost first: the ids
/// that name a space of addresses, where the same addresses may be other
/// hosts (a 4-tuple on VLAN 10 and on VLAN 20 is two conversations, as
/// Wireshark's conversation deinterlacing by VLAN keys them):
///  - the VLAN id of every 802.1Q tag (12 bits, "vlan.id") and 802.1ad
///    service tag ("ieee8021ad.id"),
///  - the VNI of VXLAN (RFC 7348) and of Geneve (RFC 8926) (24 bits),
///  - the VSID of NVGRE (RFC 7637: a GRE key on Ethernet, its upper 24 bits).
/// Not kept: ids that name a path rather than a network, which change
/// between the directions of one connection or during it, or between two
/// capture points of one packet: MPLS labels (per hop and direction, RFC
/// 3031), GTP-U TEIDs (one per direction, new at a handover, TS 29.281),
/// the key of a GRE tunnel carrying IP (ikey/okey per direction, RFC 2890)
/// and PPTP's call id, ERSPAN session ids (the mirror, not the traffic), and
/// the outer addresses of any tunnel (IP-in-IP, GRE, VXLAN: a route, moved
/// by failover, ECMP or mobility; a load balancer may tunnel one direction
/// only, RFC 2003 as IPVS uses it; a host's capture sees the packet inside
/// and outside its tunnel).
struct VirtualNetwork {
  /// What an id is (the top byte of an entry of `ids`).
  enum class Kind : std::uint8_t { vlan = 1, vxlan = 2, geneve = 3, nvgre = 4, svlan = 5 /* 802.1ad */ };
  /// Ids kept per packet; deeper ones are not part of it (no capture has
  /// shown more than a QinQ pair, a VNI and an inner tag).
  static constexpr std::size_t kMaxIds = 6;
  std::array<std::uint32_t, kMaxIds> ids{};  ///< (kind << 24) | id, outermost first
  std::uint8_t count = 0;                    ///< entries of `ids` in use

  bool empty() const { return count == 0; }
  /// Appends an id (24 bits are kept); nothing once kMaxIds are held.
  void push(Kind k, std::uint32_t id) {
    if (count < kMaxIds) ids[count++] = (static_cast<std::uint32_t>(k) << 24) | (id & 0xFFFFFFu);
  }
  Kind kind(std::size_t i) const { return static_cast<Kind>(ids[i] >> 24); }
  std::uint32_t id(std::size_t i) const { return ids[i] & 0xFFFFFFu; }
  template <typename H>
  friend H AbslHashValue(H h, const VirtualNetwork& v) {
    return H::combine(H::combine_contiguous(std::move(h), v.ids.data(), v.count), v.count);
  }
  friend bool operator==(const VirtualNetwork& a, const VirtualNetwork& b) {
    if (a.count != b.count) return false;
    for (std::size_t i = 0; i < a.count; ++i)
      if (a.ids[i] != b.ids[i]) return false;
    return true;
  }
};

/// "vlan 10", "svlan 100/vlan 200" (an 802.1ad service tag, then 802.1Q),
/// "vxlan 5001/vlan 7", "nvgre 42", "geneve 9"; "" when empty.
std::string to_string(const VirtualNetwork& v);

/// Capture time: nanoseconds since the Unix epoch, as precise as the file has it.
using CaptureTime = std::chrono::time_point<std::chrono::system_clock, std::chrono::nanoseconds>;

/// One decoded TCP segment.
struct Segment {
  std::size_t file_index = 0;   ///< index into the list of input files
  std::uint64_t frame = 0;      ///< Wireshark's frame number within its file, from 1
  CaptureTime time{};           ///< capture timestamp (the frame's own, as Wireshark shows it)
  /// Added to `time` for the model (the analysis' monotonic clock): the sum
  /// of the clock steps back larger than limits::kClockReorderMax before this
  /// frame in its input (CaptureReader re-bases them); 0 in a capture whose
  /// clock never stepped back.
  std::chrono::nanoseconds rebase{0};
  Endpoint src;
  Endpoint dst;
  wire::TcpHeader tcp;          ///< header and options
  std::uint32_t payload_len = 0;  ///< TCP payload bytes, from the IP length (not the snaplen)
  std::uint32_t flow_label = 0;   ///< IPv6 flow label (informational; flows are keyed by 4-tuple)
  /// IPv4 Identification field (RFC 791 3.1, "ip.id") of the packet carrying
  /// the segment (the innermost one for tunnels); nullopt for IPv6, which has
  /// no such field outside a fragment header. Tells a packet captured twice
  /// (same ID) from a retransmission (a sender numbering its datagrams gives
  /// it a new ID); 0 is what many stacks send with DF set and tells nothing.
  std::optional<std::uint16_t> ip_id;
  /// IPv4 header checksum as captured ("ip.checksum", unverified); 0 for IPv6.
  /// With the TTL it tells whether two packets with one ID have the same IP
  /// header (a retransmission without ECT, RFC 3168 6.1.5, has another).
  std::uint16_t ip_checksum = 0;
  std::uint8_t ip_ttl = 0;        ///< IPv4 TTL or IPv6 hop limit of the innermost packet
  VirtualNetwork vnet;            ///< the virtual networks it travelled on (empty: none)
  bool tcp_options_cut = false;   ///< the snaplen cut the TCP options: tcp.options holds only those
                                  ///< fully captured (the frame also has a Diagnostic "tcp.options")
  bool tcp_options_bad = false;   ///< a malformed TCP option was skipped (Wireshark dissects such
                                  ///< frames too); the frame has a Diagnostic naming the option
};

}  // namespace replay

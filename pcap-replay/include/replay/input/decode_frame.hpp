#pragma once
// One captured frame to one replay::Segment: link header (decode_link.hpp),
// IP (wire/ip.hpp), tunnels followed to the innermost TCP (IP-in-IP,
// 6in4, 4in6, GRE, ERSPAN, VXLAN, Geneve, GTP-U, MPLS: tunnel_decap.hpp),
// TCP (wire/tcp.hpp).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include <wire/error.hpp>

#include <replay/input/segment.hpp>
#include <replay/input/reader_limits.hpp>

namespace replay {

/// What a frame turned out to hold.
enum class FrameKind {
  kTcp,               ///< a TCP segment: FrameDecode::segment is filled
  kNotIp,             ///< link payload not IPv4/IPv6 (ARP, LLC, ...)
  kNotTcp,            ///< IP whose upper layer is not TCP
  kNonFirstFragment,  ///< an IP fragment with offset != 0: no TCP header in it
  kMalformed,         ///< truncated or invalid: FrameDecode::error says which field
};

/// The outcome of decode_frame.
struct FrameDecode {
  FrameKind kind = FrameKind::kMalformed;
  /// For kTcp: src, dst, tcp, payload_len, flow_label, ip_id, ip_checksum,
  /// ip_ttl, vnet, tcp_options_cut/bad set;
  /// file_index, frame and time are left for the caller.
  Segment segment;
  wire::Error error;  ///< for kMalformed: the field at fault
  /// For kTcp: something was overlooked to decode the frame (options cut by
  /// the snaplen, a bad option skipped, an IP length beyond the frame capped).
  std::optional<wire::Error> warning;
};

using limits::kMaxTunnelLayers;  // reader_limits.hpp

/// What decode_frame_into found wrong, for kMalformed (error) or for a kTcp
/// frame decoded with a workaround (warning). Reuse one across calls: it is
/// only written when there is something to say (no allocation per frame).
struct FrameIssue {
  wire::Error error;                  ///< for kMalformed: the field at fault
  std::optional<wire::Error> warning; ///< for kTcp: reset on every call
};

/// decode_frame into caller-owned storage: for kTcp, `out`'s src, dst, tcp,
/// payload_len, flow_label, ip_id, ip_checksum, ip_ttl, vnet (the VLAN tags
/// and tunnel ids VirtualNetwork keeps, outermost first), tcp_options_cut
/// and tcp_options_bad are all written (file_index, frame and time are the caller's); for any other
/// kind `out` is unspecified.
FrameKind decode_frame_into(int dlt, std::span<const std::uint8_t> captured, std::uint32_t wire_len, Segment& out,
                            FrameIssue& issue);

/// decode_frame_into without its shortcut for the common frame (untagged
/// Ethernet, IPv4 without options or fragments or IPv6 without extension
/// headers, whole TCP): every frame through the general walk. The same
/// result for every input (the shortcut is a speed-up only; tests hold the
/// two against each other).
FrameKind decode_frame_general(int dlt, std::span<const std::uint8_t> captured, std::uint32_t wire_len, Segment& out,
                               FrameIssue& issue);

/// Decodes a frame of link type `dlt` (libpcap DLT_). `captured` are the
/// bytes in the file (caplen), `wire_len` the frame's original length (len):
/// when wire_len > captured.size() the frame was cut by the snaplen, and a
/// TCP header whose options are cut is still decoded (tcp_options_cut) as
/// long as its fixed 20 bytes are there. A malformed option is skipped and
/// flagged (tcp_options_bad), as Wireshark does. The TCP payload length is
/// the IP length minus the IP and TCP headers; only when the IP length
/// claims more than the frame had on the wire (its original length, or a
/// PPPoE length) is it capped to what the frame carried, with a warning
/// "ip.len" (Wireshark: "IPv4 total length exceeds packet length").
FrameDecode decode_frame(int dlt, std::span<const std::uint8_t> captured, std::uint32_t wire_len);

}  // namespace replay

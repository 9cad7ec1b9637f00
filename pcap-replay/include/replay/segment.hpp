#pragma once
// The record that flows from the capture reader to the analysis: one TCP
// segment seen in a capture, with where it came from (file, frame) so every
// finding can be opened in Wireshark at the same frame number.

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include <wire/address.hpp>
#include <wire/tcp.hpp>

namespace replay {

/// The project's one endpoint type (wire/address.hpp): an IPv4 or IPv6
/// address and a TCP port; `to_string` prints "198.18.0.1:5001" or
/// "[fd00::1]:5001".
using wire::Endpoint;
using wire::to_string;

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
  bool tcp_options_cut = false;   ///< the snaplen cut the TCP options: tcp.options holds only those
                                  ///< fully captured (the frame also has a Diagnostic "tcp.options")
  bool tcp_options_bad = false;   ///< a malformed TCP option was skipped (Wireshark dissects such
                                  ///< frames too); the frame has a Diagnostic naming the option
};

}  // namespace replay

#pragma once
// How Wireshark names what the report names: a connection's tcp.stream index
// and the display filter that shows a frame, so that a finding can be pasted
// into Wireshark's filter bar.

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "flow_report.hpp"

namespace replay {

/// The tcp.stream index Wireshark gives each connection of a report when it
/// opens the connection's file: 0-based, in order of first frame, counting
/// only the connections of that file (Wireshark numbers each file it opens
/// from 0). A connection that starts with a SYN carrying the same ISN as the
/// SYN of the previous connection on its address pair (a SYN re-sent after
/// an RST or FIN: a new connection here) has that connection's index, as in
/// Wireshark, which starts a new stream only on a SYN with another ISN
/// (packet-tcp.c). Unknown (nullopt) under a BPF filter (-f): Wireshark
/// numbers the connections the filter hides too, and they are not read.
/// Computed once for all connections (O(n log n)).
class StreamNumbers {
 public:
  explicit StreamNumbers(const Report& r);
  /// The index of connection `f` of the report; nullopt under -f or for a
  /// connection not in the report.
  std::optional<std::uint64_t> of(const FlowReport& f) const;

 private:
  bool known_ = false;
  std::unordered_map<std::size_t, std::uint64_t> by_id_;  // FlowReport::id -> tcp.stream
};

/// The Wireshark display filter for one frame: "frame.number == 179".
std::string frame_filter(std::uint64_t frame);

/// The Wireshark display filter for connection `f`: "tcp.stream == 3" when
/// `stream` (its StreamNumbers::of) is known, else the address pair
/// "ip.addr == A && tcp.port == P && ip.addr == B && tcp.port == Q"
/// (ipv6.addr for IPv6).
std::string stream_filter(const FlowReport& f, std::optional<std::uint64_t> stream);

}  // namespace replay

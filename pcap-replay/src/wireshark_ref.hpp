#pragma once
// How Wireshark names what the report names: a connection's tcp.stream index
// and the display filter that shows a frame, so that a finding can be pasted
// into Wireshark's filter bar.

#include <cstdint>
#include <optional>
#include <string>

#include "flow_report.hpp"

namespace replay {

/// The tcp.stream index Wireshark gives connection `f` when it opens f.file:
/// 0-based, in order of the first frame, counting only the connections of
/// that file (Wireshark numbers each file it opens from 0). Equal to
/// Wireshark's when our connections are its conversations (the same 4-tuple
/// split: Wireshark starts a new stream on a SYN reusing a closed tuple, we
/// on a SYN after FIN/RST or 300 s idle; see SCHEMA.md). nullopt under a BPF
/// filter (-f): Wireshark numbers the connections the filter hides too, and
/// they are not read.
std::optional<std::uint64_t> tcp_stream(const Report& r, const FlowReport& f);

/// The Wireshark display filter for one frame: "frame.number == 179".
std::string frame_filter(std::uint64_t frame);

/// The Wireshark display filter for a connection: "tcp.stream == 3", or,
/// under -f (tcp_stream unknown), the 4-tuple
/// "ip.addr == A && tcp.port == P && ip.addr == B && tcp.port == Q"
/// (ipv6.addr for IPv6).
std::string stream_filter(const Report& r, const FlowReport& f);

}  // namespace replay

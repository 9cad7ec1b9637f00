#pragma once
// Checks a BPF filter expression (-f) before any file is opened, so that a
// filter that does not compile is an argument error, not unusable input.

#include <optional>
#include <string>

namespace replay {

/// libpcap's reason when `expr` does not compile (pcap_compile on an
/// Ethernet handle, the link type that accepts the most primitives: ether,
/// vlan, mpls, pppoes), e.g. "syntax error"; nullopt when it compiles. A
/// filter valid on Ethernet but not on a file's link type is still refused
/// when that file is opened (CaptureReader::open).
std::optional<std::string> bpf_error(const std::string& expr);

}  // namespace replay

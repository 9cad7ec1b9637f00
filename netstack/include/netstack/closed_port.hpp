#pragma once
// What a host answers for a port nobody listens on (RFC 9293 3.10.7.1, the
// CLOSED state): a RST for every segment that does not carry one. The storm
// simulator's server uses it while its port is closed; any embedder can use
// it for ports it does not serve.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace netstack {

/// The reply of a closed port to one IP datagram carrying TCP, by RFC 9293
/// 3.10.7.1: nothing for a RST; for a segment without ACK,
/// <SEQ=0><ACK=SEG.SEQ+SEG.LEN><CTL=RST,ACK> (SEG.LEN counts SYN and FIN);
/// with ACK, <SEQ=SEG.ACK><CTL=RST>. The reply goes from the segment's
/// destination to its source, window 0, no options, IPv4 Identification
/// `ipv4_id`. nullopt also for a datagram that does not parse as TCP or fails
/// its checksum (a host drops those silently).
std::optional<std::vector<std::uint8_t>> closed_port_reply(std::span<const std::uint8_t> datagram,
                                                           std::uint16_t ipv4_id = 0);

}  // namespace netstack

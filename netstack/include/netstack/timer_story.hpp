#pragma once
// The story of a sender's retransmission timer, one line per event in plain
// words, as `netstack sim` prints it: each RTT sample with the SRTT, RTTVAR
// and RTO it leads to (RFC 6298 2.2-2.4), each expiry with how long the timer
// waited, the backoff and the RTO after it (5.5), and the other
// retransmissions around them. Times since the SYN and sequence numbers
// relative to the ISN, as in the capture and in pcap-replay's report.

#include <cstdint>
#include <string>
#include <vector>

#include "netstack/sender.hpp"
#include "rto/clock.hpp"

namespace netstack {

/// The lines, in time order (at one instant, an RTT sample before a
/// retransmission), for a connection whose SYN went out at `syn_time` with
/// initial sequence number `iss`; RTT samples need
/// TcpSender::set_log_rtt_samples(true):
///   "+0.100 s  RTT sample 100.0 ms: SRTT 100.0 ms, RTTVAR 50.0 ms, RTO 1000.0 ms"
///   "+2.100 s  RTO expired after 1000.0 ms: retransmit seq 1001 len 1000; backoff 1, RTO now 2000.0 ms"
///   "+1.000 s  RTO expired after 1000.0 ms: retransmit the SYN; backoff 1, RTO now 2000.0 ms"
///   "+0.512 s  fast retransmit of seq 14281 len 1428 (duplicate ACKs)"
///   "+2.200 s  resend seq 2001 len 1000 after the timeout (go-back-N)"
std::vector<std::string> timer_story(const SenderStats& stats, rto::Instant syn_time, std::uint32_t iss);

}  // namespace netstack

#pragma once
// The progress lines `netstack send` prints while it runs: one per
// retransmission, as it happens, in the terms the capture and pcap-replay
// use (time since the SYN, sequence numbers relative to the ISN).

#include <cstdint>
#include <string>

#include "netstack/sender.hpp"
#include "rto/clock.hpp"

namespace netstack {

/// One line (no newline) for a retransmission `r` of a connection whose SYN
/// went out at `syn_time` with initial sequence number `iss`:
///   "+1.100 s  RTO        seq 1 len 1000: waited 1000.0 ms, backoff 1, RTO now 2000 ms"
///   "+3.000 s  SYN RTO    seq 0 len 1: waited 1000.0 ms, backoff 1, RTO now 3000 ms"
///   "+0.512 s  fast       seq 14281 len 1428"
///   "+1.101 s  after-RTO  seq 1001 len 1428"
/// Times in seconds with millisecond digits (as Wireshark's
/// frame.time_relative from the SYN); seq relative to `iss` modulo 2^32
/// (Wireshark's tcp.seq: the SYN is 0, the first data byte 1); "waited" is
/// RetransmitRecord::waited, the time the timer ran before it expired.
std::string progress_line(const RetransmitRecord& r, rto::Instant syn_time, std::uint32_t iss);

}  // namespace netstack

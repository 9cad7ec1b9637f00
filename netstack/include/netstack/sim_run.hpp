#pragma once
// `netstack sim`: one transfer from our TcpSender to our TcpReceiver in the
// deterministic simulator (SimNetwork), with the path's delay, jitter,
// bandwidth, queue, random losses and blackholes, an optional capture, and
// the sender's logs for the story of its timer (timer_story.hpp). Virtual
// time: a run takes what the transfer needs of the CPU, not of the clock,
// and the same options and seed always give the same run, byte for byte.

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "netstack/receiver.hpp"
#include "netstack/sender.hpp"
#include "netstack/sim_link.hpp"
#include "rto/config.hpp"

namespace netstack {

/// What to send over which path.
struct SimRunOptions {
  /// The bytes the sender writes (then it closes: a FIN follows them).
  std::vector<std::uint8_t> payload;
  /// The sender's retransmission timer profile (RFC 6298, or Linux's).
  rto::Config rto = rto::Config::rfc6298();
  /// One-way propagation delay, each direction.
  std::chrono::microseconds delay{50'000};
  /// Extra delay per datagram, uniform in [0, jitter], each direction.
  std::chrono::microseconds jitter{0};
  /// Link rate each direction, bits per second; 0 = no serialisation delay.
  std::uint64_t bandwidth_bps = 0;
  /// Datagrams that may wait for a link (drop-tail beyond).
  std::size_t queue_limit = 1000;
  /// Probability that a datagram from the sender (the SYN included) is lost.
  double loss = 0.0;
  /// Probability that a datagram from the receiver (an ACK) is lost.
  double ack_loss = 0.0;
  /// Intervals of virtual time (t = 0 is the SYN) during which everything the
  /// sender sends is lost.
  std::vector<SimInterval> blackholes;
  /// Seed of the losses and the jitter (the reverse link draws from another
  /// seed derived from it).
  std::uint64_t seed = 1;
  /// IPv6 (fd00::1 -> fd00::2) instead of IPv4 (198.18.0.1 -> 198.18.0.2).
  bool ipv6 = false;
  /// Write the traffic as the sender's host sees it to this pcap file (raw IP;
  /// timestamps are virtual time from 1970-01-01). Empty: no capture.
  std::string capture_path;
  /// Give up when the transfer has not finished at this virtual time.
  std::chrono::seconds time_limit{600};
};

/// How a run went.
struct SimRunResult {
  bool ok = false;          ///< closed cleanly and the receiver got the payload byte-exact
  std::string message;      ///< one line: why not ok, or a summary
  SenderConfig sender_config;  ///< addresses and ISN used
  SenderState final_state = SenderState::Closed;
  FailureReason failure = FailureReason::None;
  SenderStats sender;       ///< counters, retransmission log, RTT sample log
  std::uint64_t bytes_received = 0;  ///< what the receiver delivered in order
  LinkStats forward;        ///< sender -> receiver
  LinkStats reverse;        ///< receiver -> sender
  rto::Instant end{};       ///< virtual time of the last event
  std::uint64_t captured = 0;  ///< pcap records written
};

/// Runs one transfer (connect at t = 0, write, close, run to completion or
/// the time limit). Throws PcapWriteError when the capture cannot be written,
/// rto::ConfigError for an invalid timer profile.
SimRunResult run_sim(const SimRunOptions& options);

}  // namespace netstack

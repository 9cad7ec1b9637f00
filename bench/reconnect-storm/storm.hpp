#pragma once
// Experiment 4: a reconnect storm in netstack's simulator. N clients (each
// its own host, 198.18.1.1 and up) connect at t = 0 to one server port
// (198.18.0.2:5001) that is closed (RST) or silent for `outage`, then opens.
// Every client is a fresh netstack::TcpSender per attempt (a new ephemeral
// port and ISS, as a kernel gives a new socket) and, after each failure
// (RST, or its connect timeout), waits as its rto::BackoffPolicy says before
// the next attempt. The server counts the SYNs that reach it per bin.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rto/retry/backoff.hpp"
#include "storm_server.hpp"

namespace storm {

/// How a client spaces its attempts.
struct Strategy {
  std::string name;            ///< table and file name ("exponential", "full-jitter", "grpc")
  rto::BackoffPolicy policy;   ///< the waits
  /// true: rto::ConnectionBackoff (gRPC's spec: attempts start at backoff
  /// deadlines, each runs until max(backoff deadline, start + MIN_CONNECT_TIMEOUT));
  /// false: rto::Backoff, the wait counted from each failure, every attempt
  /// given StormConfig::connect_timeout.
  bool grpc = false;
};

/// The strategies of the table: exponential, full, equal and decorrelated
/// jitter (base 1 s, cap 60 s, the AWS post's variants), and gRPC's
/// connection backoff (1 s, x1.6, cap 120 s, +-20 %, 20 s connect timeout).
std::vector<Strategy> default_strategies();

/// One storm run.
struct StormConfig {
  unsigned connections = 1000;      ///< clients, one connection each, all starting at t = 0
  OutageMode mode = OutageMode::refuse;
  std::chrono::microseconds outage{30'000'000};     ///< the server opens at t = outage
  std::chrono::microseconds one_way_delay{5'000};   ///< client <-> server, each way, no loss
  /// A non-gRPC attempt still in SynSent this long after its SYN gives up
  /// (netstack::SenderConfig::connect_timeout): 3 s lets the SYN be
  /// retransmitted once, at +1 s (RFC 6298 2.1), and gives up when the
  /// second retransmission (at +3 s) would go.
  std::chrono::microseconds connect_timeout{3'000'000};
  std::chrono::microseconds bin{100'000};           ///< counting interval at the server
  std::chrono::microseconds horizon{600'000'000};   ///< the run stops here if not all connected
  std::uint64_t seed = 1;                           ///< the clients' jitter draws
  std::optional<std::string> pcap_path;             ///< capture at the server (raw IP pcap)
  /// Added to the capture's timestamps (virtual t = 0 is this many us after 1970).
  std::chrono::microseconds pcap_epoch{std::chrono::seconds{1'796'000'000}};
};

/// What one run measured.
struct StormResult {
  std::string strategy;
  OutageMode mode = OutageMode::refuse;
  /// SYNs (first transmissions and retransmissions alike: each one the
  /// listener must answer) arriving at the server per bin, from t = 0 to the
  /// bin in which the last client connected (or the horizon).
  std::vector<std::uint32_t> syns_per_bin;
  std::uint64_t syns = 0;        ///< their sum
  std::uint64_t attempts = 0;    ///< connection attempts the clients started (first SYNs)
  unsigned connected = 0;        ///< clients connected by the end
  /// When the last client's handshake completed (nullopt: not all did by the horizon).
  std::optional<std::chrono::microseconds> all_connected;
  std::uint64_t captured = 0;    ///< records written to the pcap (0 without one)

  /// The statistics below leave out bin 0, the first SYN of every client
  /// (all start at t = 0, whatever the strategy): they describe the retries.
  std::uint32_t peak() const;    ///< largest bin from bin 1 on
  double mean() const;           ///< SYNs in bins 1.. / their number (0 when there are none)
  double cv() const;             ///< standard deviation of bins 1.. / their mean (0 when empty)
  /// Largest bin from the server's opening (StormConfig::outage) on: the herd
  /// the listener meets.
  std::uint32_t peak_after(std::chrono::microseconds opens_at, std::chrono::microseconds bin) const;
};

/// Runs one storm (deterministic for a given config and strategy).
/// Throws netstack::PcapWriteError when the capture cannot be written.
StormResult run_storm(const StormConfig& config, const Strategy& strategy);

}  // namespace storm

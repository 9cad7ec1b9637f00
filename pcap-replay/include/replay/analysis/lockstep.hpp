#pragma once
// Lockstep retries: groups of connections to one server that retried at the
// same moments after a common start, within a few ms of each other across
// clients, i.e. with no jitter (the thundering herd of "Exponential Backoff
// And Jitter", Brooker 2015; the kernel's SYN retransmissions, RFC 6298 5.5,
// which no stack jitters). An INFO finding: no RFC requires jitter, but a
// herd that retries in lockstep meets the server as one pulse every time.
//
// Two kinds of retry are looked at, each on its own:
//  - SYN retransmissions: the SYNs (same ISN) a connection attempt sent after
//    its first one; the chain is one attempt.
//  - reconnects: the first SYNs of new attempts from the same client host
//    (IP address) to the same server endpoint after an attempt of that host
//    failed (RST, or nothing came back); the chain is that host's sequence of
//    attempts. A host with several attempts outstanding links them first in,
//    first out: each new attempt continues the chain of the oldest failure
//    before it that no attempt has continued yet.
//
// Self-contained: its input is one record per connection attempt (Attempt),
// filled by AttemptCollector from the segments as the analysis reads them,
// or built by hand; its output is a list of groups and of dispersed herds,
// each with its numbers, frames and one sentence.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <replay/input/segment.hpp>

namespace replay::lockstep {

/// Retries of different chains whose times lie within this window (max - min)
/// are "in lockstep". 10 ms covers the kernel's own granularity on the wire:
/// 208 Linux connections started within 1.5 ms retransmitted their SYNs
/// within 0.5 ms of each other (up to 4.0 ms in another run: one jiffy at
/// HZ=250; a jiffy is 10 ms at HZ=100),
/// while a jittered client spreads a 1 s wait over hundreds of ms (gRPC's
/// +-20 %: 400 ms; full jitter: the whole second). Source:
/// tests/captures/lockstep/lockstep-syn.pcap.
inline constexpr std::chrono::microseconds kLockstepWindow{10'000};

/// The fewest chains that make a group (or a dispersed herd worth reporting).
/// A handful of clients meeting in a 10 ms window happens by chance; eight
/// retrying together at every offset does not.
inline constexpr std::size_t kMinGroupSize = 8;

/// Other chains' first retries within this span before and after a candidate
/// group set the chance level: with m of them, about m * kLockstepWindow /
/// (2 * kChanceNeighbourhood) would fall in any one window at random.
inline constexpr std::chrono::microseconds kChanceNeighbourhood{500'000};

/// A candidate group must hold at least this many times the chance level
/// (see kChanceNeighbourhood): 1000 fully jittered clients put ~10 first
/// retries into every 10 ms of a 1 s spread, which is no lockstep.
inline constexpr std::size_t kMinChanceRatio = 4;

/// How a connection attempt ended, as far as the capture shows.
enum class Outcome {
  syn_ack,  ///< the server answered with a SYN-ACK (connected)
  rst,      ///< the server answered with a RST (refused)
  none,     ///< nothing came back (blackholed, or the capture ended)
};

/// One packet of an attempt: its capture time and Wireshark frame number.
struct Sent {
  CaptureTime time{};
  std::uint64_t frame = 0;
};

/// One connection attempt: a SYN (with one ISN) from client to server, the
/// SYNs retransmitted after it, and how it ended.
struct Attempt {
  std::size_t file_index = 0;   ///< input file (groups never span files)
  Endpoint server;              ///< the SYN's destination
  Endpoint client;              ///< its source (address and ephemeral port)
  Sent first;                   ///< the first SYN
  std::vector<Sent> retransmits;  ///< later SYNs with the same ISN, in time order
  Outcome outcome = Outcome::none;
  std::optional<Sent> end;      ///< the SYN-ACK or RST that ended it (nullopt for none)
};

/// Which retries a group is made of.
enum class RetryKind {
  syn_retransmission,  ///< retransmitted SYNs of one attempt
  reconnect,           ///< new attempts from the same host after a failure
};
/// "syn-retransmission" or "reconnect".
std::string_view to_string(RetryKind k);

/// One retry position (the k-th retry of every member) of a group.
struct Offset {
  unsigned retry = 1;                     ///< k, from 1
  std::chrono::microseconds offset{0};    ///< mean time of the members' k-th retry after the group's start
  std::chrono::microseconds spread{0};    ///< max - min of those times
  std::size_t members = 0;                ///< members that made a k-th retry
  std::vector<std::uint64_t> frames;      ///< their frames, in time order
};

/// Connections to one server that retried in lockstep.
struct Group {
  std::size_t file_index = 0;
  Endpoint server;
  RetryKind kind = RetryKind::syn_retransmission;
  std::size_t members = 0;        ///< chains (attempts, or hosts' reconnect chains)
  std::size_t client_hosts = 0;   ///< distinct client addresses among them
  CaptureTime start{};            ///< the earliest first SYN of the members
  std::uint64_t start_frame = 0;  ///< its frame
  /// The retry positions at which the members stayed within kLockstepWindow
  /// (from retry 1 on, while at least kMinGroupSize members retried).
  std::vector<Offset> offsets;
  /// The first retry position where they no longer did (jitter took over,
  /// e.g. gRPC after its unjittered first backoff), if any.
  std::optional<Offset> dispersed;
  std::string message;            ///< one sentence with the numbers
};

/// Chains to one server that retried with no lockstep group among them: how
/// far their first retries were spread.
struct Dispersion {
  std::size_t file_index = 0;
  Endpoint server;
  RetryKind kind = RetryKind::syn_retransmission;
  std::size_t chains = 0;          ///< chains that retried and are in no group
  std::chrono::microseconds spread{0};   ///< max - min of their first retry's offset after their start
  std::chrono::microseconds stddev{0};   ///< standard deviation of those offsets
  std::size_t largest_cluster = 0; ///< most first retries within kLockstepWindow of each other
  std::uint64_t first_frame = 0;   ///< frame of the earliest of those first retries
  std::string message;
};

/// The result: groups first by file, server, kind and start; then dispersions.
struct Result {
  std::vector<Group> groups;
  std::vector<Dispersion> dispersed;
};

/// Finds the lockstep groups among `attempts` (any order). A group: at least
/// kMinGroupSize chains to one server endpoint (one file, one RetryKind)
/// whose first retries lie within kLockstepWindow of each other and at least
/// kMinChanceRatio times the chance level; its offsets list every further
/// retry position still within the window. Chains that retried but fell in no
/// group are reported as one Dispersion per server and kind when there are at
/// least kMinGroupSize of them.
Result find_groups(std::span<const Attempt> attempts);
/// The same over pointers to the attempts (in the order given), for a
/// caller that keeps them elsewhere (AttemptCollector::groups).
Result find_groups(std::span<const Attempt* const> attempts);

/// Where an AttemptCollector keeps the attempt of one connection: the
/// caller holds it with the connection (kNoAttempt until the connection's
/// first SYN from its client), so the collector needs no index of its own.
using AttemptRef = std::size_t;
inline constexpr AttemptRef kNoAttempt = static_cast<AttemptRef>(-1);

/// Builds Attempts from the segments of the analysis, one per connection (the
/// analyzer's connection index; a SYN with a new ISN is a new connection).
/// Holds one record per attempt (no per-attempt allocation unless it has
/// retransmitted SYNs) until the end of the analysis.
class AttemptCollector {
 public:
  /// One segment of connection `connection`, whose client (sender of the
  /// first SYN) and server are given; `ref` is the connection's AttemptRef
  /// (kNoAttempt at first; set when its attempt begins). Call in capture
  /// order, after dropping capture duplicates. Only SYNs, SYN-ACKs and RSTs
  /// matter.
  void add(const Segment& s, std::size_t connection, const Endpoint& client, const Endpoint& server,
           AttemptRef& ref);
  /// The attempts seen (connections that began with a SYN from the client),
  /// by connection.
  std::vector<Attempt> attempts() const;
  /// find_groups() over the attempts seen, by connection, without copying them.
  Result groups() const;

 private:
  struct Slot {
    Attempt attempt;
    std::uint32_t isn = 0;
    std::size_t connection = 0;
  };
  /// By connection, except where a connection's attempt began after a later
  /// connection's (its first segment was no SYN from its client).
  std::vector<const Slot*> by_connection() const;
  std::deque<Slot> slots_;  // in the order the attempts began (a deque: no copy as it grows)
};

}  // namespace replay::lockstep

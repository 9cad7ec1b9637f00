#pragma once
// Losses made on purpose between our TcpSender and the real peer (drop
// chosen segments or a seeded fraction of them, and hold a blackhole for a
// while, so timeouts happen for real). The filter sits on
// the sender -> peer path AFTER the capture point, as the project's Linux
// captures drop at the receiver's ingress: every transmission is in the
// pcap, and the dropped ones simply never get an ACK.

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "netstack/sim_random.hpp"
#include "rto/clock.hpp"

namespace netstack {

/// A time window during which every outbound datagram is dropped.
/// Both times count from the first datagram the filter sees (the SYN).
struct Blackhole {
  std::chrono::microseconds start{0};     ///< from the first datagram
  std::chrono::microseconds duration{0};  ///< length of the outage
};

/// Parses "START:DURATION" in seconds (decimals allowed, e.g. "1.5:5").
/// Returns nullopt when the text is malformed or a value is negative.
std::optional<Blackhole> parse_blackhole(const std::string& text);

/// What to drop.
struct PacketFilterConfig {
  /// Probability in [0, 1] that an outbound TCP datagram without SYN is
  /// dropped (SYNs are spared so every run gets past the handshake at the
  /// same time; SYN loss is the simulator's job).
  double loss = 0.0;
  /// Seed of the loss draws (netstack::SimRandom): one draw per outbound
  /// datagram without SYN, so a seed picks the same drops for the same
  /// sequence of datagrams.
  std::uint64_t seed = 1;
  /// Relative sequence numbers (Wireshark's: the SYN is 0, the first data
  /// byte 1) whose FIRST transmission is dropped; a retransmission of the
  /// same segment passes.
  std::vector<std::uint32_t> drop_seq;
  /// At most one blackhole.
  std::optional<Blackhole> blackhole;
};

/// Why the filter passed or dropped a datagram.
enum class Verdict { Pass, DropLoss, DropSeq, DropBlackhole };

/// Name of a verdict ("pass", "loss", "drop-seq", "blackhole").
const char* to_string(Verdict v);

/// Counters of a PacketFilter.
struct PacketFilterStats {
  std::uint64_t passed = 0;
  std::uint64_t dropped_loss = 0;
  std::uint64_t dropped_seq = 0;
  std::uint64_t dropped_blackhole = 0;
  /// All drops, whatever the reason.
  std::uint64_t dropped() const { return dropped_loss + dropped_seq + dropped_blackhole; }
};

/// Decides, datagram by datagram, what reaches the peer. Deterministic for a
/// config and a sequence of (datagram, time) inputs.
class PacketFilter {
 public:
  /// Throws std::invalid_argument when loss is outside [0, 1].
  explicit PacketFilter(PacketFilterConfig config);

  /// Verdict for one IP datagram from our sender toward the peer, sent at
  /// `now`. Datagrams that are not TCP (or do not parse) are subject only to
  /// the blackhole. The first SYN seen fixes the ISN for drop_seq.
  Verdict outbound(std::span<const std::uint8_t> datagram, rto::Instant now);

  /// True while `now` is inside the blackhole (false before the first datagram).
  bool in_blackhole(rto::Instant now) const;
  /// When the blackhole ends, once the first datagram has fixed the epoch.
  std::optional<rto::Instant> blackhole_end() const;
  /// When it starts, likewise.
  std::optional<rto::Instant> blackhole_start() const;

  /// Counters since construction.
  const PacketFilterStats& stats() const { return stats_; }

  /// How many distinct starts of data segments the filter remembers (for the
  /// hint that goes with an unmatched drop_seq).
  static constexpr std::size_t kRememberedSegmentStarts = 4;
  /// The drop_seq values that matched no segment so far, in config order
  /// (a value that is not where a segment starts never matches: e.g. IPv6's
  /// segments are 20 bytes shorter than IPv4's).
  std::vector<std::uint32_t> unmatched_drop_seq() const;
  /// Relative sequence numbers of the first kRememberedSegmentStarts
  /// distinct data segments seen (where segments really start).
  const std::vector<std::uint32_t>& first_segment_starts() const { return starts_; }

 private:
  PacketFilterConfig config_;
  SimRandom random_;
  std::optional<rto::Instant> epoch_;
  std::optional<std::uint32_t> isn_;
  std::vector<bool> seq_done_;  ///< parallel to config_.drop_seq
  std::vector<std::uint32_t> starts_;  ///< first_segment_starts()
  PacketFilterStats stats_;
};

}  // namespace netstack

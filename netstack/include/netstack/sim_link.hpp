#pragma once
// One direction of a simulated path: a drop-tail queue in front of a link of
// fixed bandwidth, then a propagation delay with jitter. Losses (random with a
// seed, scheduled blackholes, chosen packet numbers), reordering and
// duplication are applied as a datagram enters. Virtual time only; the same
// config and seed always give the same deliveries.

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "netstack/sim_random.hpp"
#include "rto/clock.hpp"

namespace netstack {

/// A half-open interval [start, end) of virtual time.
struct SimInterval {
  rto::Instant start;  ///< first instant inside
  rto::Instant end;    ///< first instant after
  /// True when start <= t < end.
  bool contains(rto::Instant t) const { return t >= start && t < end; }
};

/// Parameters of one direction of a simulated path.
struct LinkConfig {
  /// One-way propagation delay (added after serialisation).
  std::chrono::microseconds delay{50'000};
  /// Extra delay drawn uniformly from [0, jitter] per datagram. Jitter alone
  /// never reorders: a datagram is never delivered before the one sent ahead
  /// of it (use `reorder` for that).
  std::chrono::microseconds jitter{0};
  /// Link rate in bits per second; 0 means infinitely fast (no serialisation
  /// delay, no queue).
  std::uint64_t bandwidth_bps = 0;
  /// Datagrams that may wait for the link (not counting the one being
  /// serialised); an arrival that finds the queue full is dropped (drop-tail).
  std::size_t queue_limit = 1000;
  /// Probability that a datagram is lost, independently of the others.
  double loss = 0.0;
  /// Datagrams entering the link while one of these intervals holds are lost.
  std::vector<SimInterval> blackholes;
  /// 1-based numbers (in the order they enter this link) of datagrams to lose.
  std::vector<std::uint64_t> drop_numbers;
  /// Probability that a datagram is held back by `reorder_delay` (it is then
  /// overtaken by the ones sent after it).
  double reorder = 0.0;
  std::chrono::microseconds reorder_delay{20'000};
  /// Probability that a datagram is delivered twice.
  double duplicate = 0.0;
  /// Seed of this link's random draws.
  std::uint64_t seed = 1;
};

/// Counters of one link.
struct LinkStats {
  std::uint64_t entered = 0;       ///< datagrams offered to the link
  std::uint64_t delivered = 0;     ///< datagrams handed to the far end (copies count)
  std::uint64_t lost_random = 0;   ///< dropped by `loss`
  std::uint64_t lost_blackhole = 0;///< dropped by a blackhole interval
  std::uint64_t lost_chosen = 0;   ///< dropped by `drop_numbers`
  std::uint64_t lost_queue = 0;    ///< dropped by the full queue
  std::uint64_t reordered = 0;
  std::uint64_t duplicated = 0;
};

/// One direction of a path. Datagrams are IP packets as byte vectors.
class SimLink {
 public:
  /// A link with `config`; its random draws are seeded from config.seed.
  explicit SimLink(LinkConfig config);

  /// Offers a datagram to the link at virtual time `now` (times must not go
  /// backwards). Returns false if the datagram was lost on entry.
  bool send(rto::Instant now, std::vector<std::uint8_t> datagram);

  /// The time of the next delivery, if any datagram is in flight.
  std::optional<rto::Instant> next_delivery() const;

  /// Removes and returns every datagram due at or before `now`, in delivery
  /// order.
  std::vector<std::vector<std::uint8_t>> deliver_due(rto::Instant now);

  /// True when nothing is in flight.
  bool idle() const { return in_flight_.empty(); }

  /// Counters since construction.
  const LinkStats& stats() const { return stats_; }
  /// The configuration in use.
  const LinkConfig& config() const { return config_; }

 private:
  struct InFlight {
    rto::Instant due;
    std::uint64_t order;  // tie-break: entry order
    std::vector<std::uint8_t> bytes;
  };
  void schedule(rto::Instant due, std::vector<std::uint8_t> bytes);

  LinkConfig config_;
  SimRandom random_;
  LinkStats stats_;
  std::vector<InFlight> in_flight_;  // min-heap on (due, order)
  std::deque<rto::Instant> queue_departures_;  // when queued datagrams finish serialising
  rto::Instant link_free_at_{};
  rto::Instant last_fifo_due_{};
  std::uint64_t order_ = 0;
};

}  // namespace netstack

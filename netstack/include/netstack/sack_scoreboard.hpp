#pragma once
// The sender's SACK scoreboard (RFC 2018 section 3, RFC 6675 section 3):
// the ranges above SND.UNA the peer has reported holding.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "wire/tcp.hpp"

namespace netstack {

/// Sorted, disjoint, non-adjacent [begin, end) ranges of sequence offsets
/// (64-bit offsets from the ISS, as the sender counts) the peer has SACKed.
/// The sender uses it only to tell whether an ACK's SACK blocks report new
/// out-of-order data (the duplicate-ACK rule); nothing is retransmitted from it.
class SackScoreboard {
 public:
  /// A SACKed range [first, second) of offsets.
  using Range = std::pair<std::uint64_t, std::uint64_t>;
  /// At most this many ranges are kept; past it the highest is forgotten,
  /// which can only make a later block look new (one more duplicate ACK).
  static constexpr std::size_t kMaxRanges = 64;

  /// Forgets every range (RFC 2018 section 8: after a retransmission
  /// timeout, since the receiver may have reneged).
  void clear();
  /// Drops what lies below `una` (SND.UNA, now cumulatively acknowledged).
  void prune(std::uint64_t una);
  /// Adds the SACK blocks of `options` (sequence numbers; `una_seq` is
  /// SND.UNA on the wire, `una` and `max` SND.UNA and SND.MAX as offsets).
  /// Blocks are clipped to [SND.UNA, SND.MAX); a block wholly below SND.UNA
  /// (a D-SACK, RFC 2883) or reaching past SND.MAX (never sent: bogus)
  /// reports nothing. True when a block covered offsets not SACKed before.
  bool record(const wire::TcpOptions& options, std::uint32_t una_seq, std::uint64_t una, std::uint64_t max);
  /// Merges [begin, end); true when it covered anything not held before.
  bool add(std::uint64_t begin, std::uint64_t end);
  /// The ranges, lowest first.
  const std::vector<Range>& ranges() const { return ranges_; }

 private:
  std::vector<Range> ranges_;
};

}  // namespace netstack

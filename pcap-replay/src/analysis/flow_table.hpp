#pragma once
// Connections by 4-tuple (addresses and ports, never the IPv6 flow label,
// which Linux changes at every RTO), per input file, split anew on a SYN
// after FIN/RST, on a SYN with another ISN, or after a long idle gap.
// One hashed lookup per segment (FlowTable::lookup).

#include <chrono>
#include <compare>
#include <cstddef>
#include <optional>
#include <unordered_map>

#include <replay/segment.hpp>

namespace replay {

/// Order-independent key of a 4-tuple within one input file.
struct FlowKey {
  std::size_t file_index = 0;
  Endpoint lo, hi;  ///< the two endpoints, lo < hi
  friend auto operator<=>(const FlowKey&, const FlowKey&) = default;
  friend bool operator==(const FlowKey&, const FlowKey&) = default;
};

/// A hash of every field of a FlowKey (addresses, ports, family, file).
struct FlowKeyHash {
  std::size_t operator()(const FlowKey& k) const noexcept;
};

/// The key of the connection a segment belongs to.
FlowKey flow_key(const Segment& s);

/// What the table remembers of the current connection on a 4-tuple.
struct FlowSlot {
  std::size_t index = 0;         ///< caller's connection index
  CaptureTime last_time{};
  bool closed = false;           ///< FIN or RST seen
  std::optional<std::uint32_t> syn_isn;  ///< ISN of the SYN that opened it
  Endpoint syn_sender;
};

/// Maps segments to connections.
class FlowTable {
 public:
  explicit FlowTable(std::chrono::microseconds idle_split) : idle_split_(idle_split) {}

  /// The slot of the connection `s` belongs to (then updated with `s`: time,
  /// FIN/RST, SYN ISN), or null when `s` opens a new connection (first
  /// segment of the 4-tuple, a SYN after FIN/RST, with a new ISN or after an
  /// idle gap longer than the idle split, or any segment after retire());
  /// then call open() with the new connection's index. One hash lookup.
  FlowSlot* lookup(const Segment& s);
  /// The slot of `s`'s 4-tuple as it is (no update, no split rule), or null.
  const FlowSlot* find(const Segment& s) const;
  /// Registers connection `index` as the current one for `s`'s 4-tuple
  /// (updated with `s`); returns its slot.
  FlowSlot& open(const Segment& s, std::size_t index);
  /// The caller finished the connection of `s`'s 4-tuple whose index is
  /// `index`: its slot is dropped (nothing if another connection has the
  /// 4-tuple since).
  void retire(const FlowKey& key, std::size_t index);
  /// Connections currently in the table.
  std::size_t size() const { return slots_.size(); }

 private:
  static void update(FlowSlot& f, const Segment& s);
  std::chrono::microseconds idle_split_;
  std::unordered_map<FlowKey, FlowSlot, FlowKeyHash> slots_;
};

}  // namespace replay

#pragma once
// Connections by 4-tuple (addresses and ports, never the IPv6 flow label,
// which Linux changes at every RTO), per input file, split anew on a SYN
// after FIN/RST, on a SYN with another ISN, or after a long idle gap.

#include <chrono>
#include <compare>
#include <cstddef>
#include <map>
#include <optional>

#include "segment.hpp"

namespace replay {

/// Order-independent key of a 4-tuple within one input file.
struct FlowKey {
  std::size_t file_index = 0;
  Endpoint lo, hi;  ///< the two endpoints, lo < hi
  friend auto operator<=>(const FlowKey&, const FlowKey&) = default;
  friend bool operator==(const FlowKey&, const FlowKey&) = default;
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

  /// The connection index of `s`, or nullopt when `s` opens a new connection
  /// (first segment of the 4-tuple, or a SYN after FIN/RST / a new ISN / an
  /// idle gap); then call open() with the new index.
  std::optional<std::size_t> find(const Segment& s) const;
  /// Registers connection `index` as the current one for `s`'s 4-tuple.
  void open(const Segment& s, std::size_t index);
  /// Updates the slot with `s` (time, FIN/RST, SYN ISN). Call for every segment.
  void update(const Segment& s);

 private:
  std::chrono::microseconds idle_split_;
  std::map<FlowKey, FlowSlot> slots_;
};

}  // namespace replay

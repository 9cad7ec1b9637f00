#pragma once
// The receiver's reassembly queue (RFC 9293 3.10.7.4, "segments that are not
// at RCV.NXT are held until the gap fills"): out-of-order payload keyed by
// 64-bit stream offsets, merged so that no byte is stored twice.

#include <cstdint>
#include <map>
#include <span>
#include <vector>


namespace netstack {

/// Out-of-order bytes waiting for the gap before them to fill.
class ReassemblyQueue {
 public:
  /// Stores `data` at stream offset `offset` (bytes already held are kept,
  /// overlaps are trimmed). Returns the number of new bytes stored.
  std::uint64_t insert(std::uint64_t offset, std::span<const std::uint8_t> data);

  /// Removes every byte before `next` and appends the bytes that continue
  /// contiguously from `next` to `out`; returns the new next offset.
  std::uint64_t pop_contiguous(std::uint64_t next, std::vector<std::uint8_t>& out);

  /// Bytes held.
  std::uint64_t size() const { return bytes_; }
  bool empty() const { return blocks_.empty(); }

  /// The held ranges [first, second) in stream offsets, merged, ascending.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges() const;

 private:
  std::map<std::uint64_t, std::vector<std::uint8_t>> blocks_;  // non-overlapping
  std::uint64_t bytes_ = 0;
};

}  // namespace netstack

#pragma once
// The sender's buffer of application bytes not yet acknowledged.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace netstack {

/// Application bytes by sequence offset (offset 1 is the first data byte:
/// offset 0 is the SYN). Bytes are kept from the oldest unacknowledged one
/// to the last written; release_to() drops acknowledged ones.
class SendBuffer {
 public:
  /// Dropped bytes are kept in place until this many have accumulated (and
  /// make up over half the storage); then the storage is compacted.
  static constexpr std::size_t kCompactAfterBytes = std::size_t{1} << 20;

  /// Appends application bytes (copied).
  void append(std::span<const std::uint8_t> data);
  /// Bytes written since construction.
  std::uint64_t written() const { return written_; }
  /// The offset one past the last data byte (1 + written()).
  std::uint64_t data_end() const { return 1 + written_; }
  /// `len` bytes from offset `off`; [off, off + len) must lie between the
  /// last release_to() and data_end().
  std::span<const std::uint8_t> bytes(std::uint64_t off, std::size_t len) const;
  /// Drops the bytes below offset `off` (acknowledged); no-op if already dropped.
  void release_to(std::uint64_t off);

 private:
  std::vector<std::uint8_t> buf_;
  std::size_t head_ = 0;      // buf_[head_] holds offset first_
  std::uint64_t first_ = 1;
  std::uint64_t written_ = 0;
};

}  // namespace netstack

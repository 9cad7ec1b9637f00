#pragma once
// The Internet checksum (RFC 1071): the 16-bit one's complement of the one's
// complement sum of the data taken as big-endian 16-bit words, an odd final
// byte padded with a zero byte. Used by the IPv4 header (RFC 791 3.1) and by
// TCP over its pseudo-header (RFC 9293 3.1, RFC 8200 8.1).

#include <cstddef>
#include <cstdint>
#include <span>

namespace wire {

/// Incremental one's-complement sum. Chunks may have any length, odd ones
/// included: byte positions are tracked across add() calls, so summing a
/// buffer in pieces gives the same result as summing it whole (RFC 1071 2(B)).
class Checksum {
 public:
  /// Adds the bytes of `data` in order.
  void add(std::span<const std::uint8_t> data);
  /// Adds one big-endian 16-bit word (must be at an even position).
  void add16(std::uint16_t word) { sum_ += word; }
  /// Adds a big-endian 32-bit value as two words (must be at an even position).
  void add32(std::uint32_t v) { sum_ += (v >> 16) + (v & 0xFFFF); }
  /// The folded one's-complement sum (not complemented); 0xFFFF means
  /// "verifies" when the data included its own checksum field.
  std::uint16_t sum() const;
  /// The checksum to store: ~sum(). (0x0000 and 0xFFFF are equivalent in
  /// one's complement; TCP and IPv4 store what this returns.)
  std::uint16_t finish() const { return static_cast<std::uint16_t>(~sum()); }

 private:
  std::uint64_t sum_ = 0;
  bool odd_ = false;  ///< an odd number of bytes has been added so far
};

/// RFC 1071 checksum of `data` in one call. Known value (RFC 1071 section 3
/// example): bytes 00 01 f2 03 f4 f5 f6 f7 sum to 0xddf2, checksum 0x220d.
std::uint16_t internet_checksum(std::span<const std::uint8_t> data);

}  // namespace wire

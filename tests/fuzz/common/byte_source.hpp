#pragma once
// Fuzz harness helper: the fuzz input read as a stream of small integers
// that drive a harness's choices. Past the end every read gives 0, so any
// input, the empty one included, is a whole run.

#include <cstddef>
#include <cstdint>

namespace fuzz {

/// Reads `n` bytes from `p` front to back; multi-byte values are big-endian
/// (the first byte read is the most significant).
struct ByteSource {
  const std::uint8_t* p = nullptr;
  std::size_t n = 0;

  /// The next byte, or 0 when the input is used up.
  std::uint8_t u8() {
    if (n == 0) return 0;
    --n;
    return *p++;
  }
  /// The next two bytes, big-endian.
  std::uint16_t u16() {
    const std::uint8_t hi = u8();
    return static_cast<std::uint16_t>((hi << 8) | u8());
  }
  /// The next four bytes, big-endian.
  std::uint32_t u32() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | u8();
    return v;
  }
};

}  // namespace fuzz

#pragma once
// Network-byte-order (big-endian) loads and stores. Callers check bounds
// first; these helpers only do the byte shuffling (RFC 1700 "network order").

#include <cstddef>
#include <cstdint>
#include <span>

namespace wire {

/// Reads a big-endian 16-bit value at p[0..1].
constexpr std::uint16_t load_be16(const std::uint8_t* p) {
  return static_cast<std::uint16_t>((p[0] << 8) | p[1]);
}
/// Reads a big-endian 32-bit value at p[0..3].
constexpr std::uint32_t load_be32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) |
         (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]};
}
/// Reads a little-endian 32-bit value at p[0..3] (pcap link headers of some hosts).
constexpr std::uint32_t load_le32(const std::uint8_t* p) {
  return (std::uint32_t{p[3]} << 24) | (std::uint32_t{p[2]} << 16) |
         (std::uint32_t{p[1]} << 8) | std::uint32_t{p[0]};
}
/// Writes v big-endian at p[0..1].
constexpr void store_be16(std::uint8_t* p, std::uint16_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 8);
  p[1] = static_cast<std::uint8_t>(v);
}
/// Writes v big-endian at p[0..3].
constexpr void store_be32(std::uint8_t* p, std::uint32_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 24);
  p[1] = static_cast<std::uint8_t>(v >> 16);
  p[2] = static_cast<std::uint8_t>(v >> 8);
  p[3] = static_cast<std::uint8_t>(v);
}

}  // namespace wire

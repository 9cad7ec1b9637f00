#pragma once
// Modulo-2^32 ("serial number", RFC 1982 style) arithmetic for TCP sequence
// numbers (RFC 9293 section 3.4) and RFC 7323 timestamps (section 5.2).
// A bare uint32_t is a sequence number or a TSval; these functions are the
// only comparisons that are correct across the wrap.

#include <cstdint>

namespace rto {

/// Signed distance a - b in the 32-bit sequence space: in [-2^31, 2^31).
/// Positive when a is after b. Correct across the wrap: seq_diff(0, 0xFFFFFC18) = 1000.
constexpr std::int32_t seq_diff(std::uint32_t a, std::uint32_t b) {
  return static_cast<std::int32_t>(a - b);
}
/// a < b modulo 2^32 (RFC 9293 3.4 "SEQ.LT").
constexpr bool seq_lt(std::uint32_t a, std::uint32_t b) { return seq_diff(a, b) < 0; }
/// a <= b modulo 2^32.
constexpr bool seq_le(std::uint32_t a, std::uint32_t b) { return seq_diff(a, b) <= 0; }
/// a > b modulo 2^32.
constexpr bool seq_gt(std::uint32_t a, std::uint32_t b) { return seq_diff(a, b) > 0; }
/// a >= b modulo 2^32.
constexpr bool seq_ge(std::uint32_t a, std::uint32_t b) { return seq_diff(a, b) >= 0; }
/// The later of a and b modulo 2^32.
constexpr std::uint32_t seq_max(std::uint32_t a, std::uint32_t b) { return seq_ge(a, b) ? a : b; }

/// RFC 7323 section 5.2: timestamp values compare the same way, modulo 2^32.
/// ts_diff(5, 4294967290) = 11; ts_diff(5000, 5003) = -3.
constexpr std::int32_t ts_diff(std::uint32_t a, std::uint32_t b) { return seq_diff(a, b); }

static_assert(seq_diff(0u, 0xFFFFFC18u) == 1000);
static_assert(seq_lt(0xFFFFFC18u, 0u));
static_assert(ts_diff(5u, 4294967290u) == 11);
static_assert(ts_diff(5000u, 5003u) == -3);

}  // namespace rto

#pragma once
// Uniform integer draws from any std::uniform_random_bit_generator, without
// floating point and without modulo bias, so that a deterministic generator
// gives exact, hand-checkable values (used by rto/retry/backoff.hpp for jitter).

#include <bit>
#include <chrono>
#include <concepts>
#include <cstdint>
#include <limits>
#include <random>

namespace rto {

/// The most redraws in a row either rejection loop below makes (random_u64:
/// for each chunk of bits; uniform_below: after its first draw): a fair
/// generator is rejected 64 times in a row with probability below 2^-64, so
/// only a generator that keeps returning a rejected value (a constant 0, as a
/// test may write) reaches it; the last draw is then taken (random_u64: its
/// low bits; uniform_below: its high word), biased but moot for such a
/// generator, and the call returns instead of spinning.
inline constexpr int kMaxRedraws = 64;

namespace detail {

/// The 128-bit product of two 64-bit words, as (high, low) words. Portable
/// (four 32x32 -> 64 multiplies), no compiler extension.
struct Product128 {
  std::uint64_t high;
  std::uint64_t low;
};

constexpr Product128 multiply_64x64(std::uint64_t a, std::uint64_t b) {
  const std::uint64_t a_lo = a & 0xffff'ffffu, a_hi = a >> 32;
  const std::uint64_t b_lo = b & 0xffff'ffffu, b_hi = b >> 32;
  const std::uint64_t lo_lo = a_lo * b_lo;
  const std::uint64_t hi_lo = a_hi * b_lo;
  const std::uint64_t lo_hi = a_lo * b_hi;
  const std::uint64_t hi_hi = a_hi * b_hi;
  const std::uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xffff'ffffu) + lo_hi;
  return {hi_hi + (hi_lo >> 32) + (cross >> 32), (cross << 32) | (lo_lo & 0xffff'ffffu)};
}

}  // namespace detail

/// 64 uniformly distributed bits from `g`, whatever its range.
///
/// A generator whose range (max - min + 1) is 2^64 (std::mt19937_64) gives
/// one draw, `g() - G::min()`, unchanged. Otherwise the bits are gathered from
/// several draws, most significant first: with 2^k the largest power of two
/// not above the range, each draw v = g() - G::min() with v >= 2^k is rejected
/// (never happens for std::mt19937, whose range is exactly 2^32), and the k
/// low bits of the others are shifted in until 64 bits are collected.
template <std::uniform_random_bit_generator G>
std::uint64_t random_u64(G& g) {
  using R = typename G::result_type;
  constexpr std::uint64_t span = static_cast<std::uint64_t>(G::max()) - static_cast<std::uint64_t>(G::min());
  static_assert(G::max() > G::min(), "a generator needs at least two values");
  if constexpr (span == std::numeric_limits<std::uint64_t>::max()) {
    return static_cast<std::uint64_t>(static_cast<R>(g() - G::min()));
  } else {
    constexpr int bits = std::bit_width(span + 1) - 1;  // floor(log2(range)), >= 1
    constexpr std::uint64_t limit = std::uint64_t{1} << bits;
    std::uint64_t acc = 0;
    int have = 0;
    int redraws = 0;
    while (have < 64) {
      std::uint64_t v = static_cast<std::uint64_t>(g()) - static_cast<std::uint64_t>(G::min());
      if (v >= limit) {  // rejection keeps the k bits uniform
        if (++redraws <= kMaxRedraws) continue;
        v &= limit - 1;  // a generator stuck above the power of two: its low bits
      }
      redraws = 0;
      acc = (bits >= 64 ? 0 : (acc << bits)) | v;
      have += bits;
    }
    return acc;
  }
}

/// A uniform integer in [0, n), n >= 1, by Lemire's nearly divisionless method
/// ("Fast Random Integer Generation in an Interval", 2019): with x = random_u64(g),
/// the 128-bit product x*n is formed; its low word below (2^64 - n) mod n is
/// rejected (so every result has the same number of x), and the high word,
/// floor(x*n / 2^64), is the result. Hand rule for tests: x = f * 2^64 gives
/// floor(f * n); e.g. x = 2^63 gives floor(n/2). n = 0 returns 0. A
/// generator stuck on a rejected value is answered after kMaxRedraws more draws.
template <std::uniform_random_bit_generator G>
std::uint64_t uniform_below(G& g, std::uint64_t n) {
  if (n == 0) return 0;
  auto m = detail::multiply_64x64(random_u64(g), n);
  if (m.low < n) {
    const std::uint64_t threshold = (0 - n) % n;  // 2^64 mod n
    for (int redraws = 0; m.low < threshold && redraws < kMaxRedraws; ++redraws)
      m = detail::multiply_64x64(random_u64(g), n);
  }
  return m.high;
}

/// A uniform integer in the closed interval [lo, hi] (lo <= hi, else lo):
/// lo + uniform_below(g, hi - lo + 1); the whole 64-bit range is one draw.
template <std::uniform_random_bit_generator G>
std::uint64_t uniform_between(G& g, std::uint64_t lo, std::uint64_t hi) {
  if (hi <= lo) return lo;
  const std::uint64_t width = hi - lo;
  if (width == std::numeric_limits<std::uint64_t>::max()) return random_u64(g);
  return lo + uniform_below(g, width + 1);
}

/// A uniform duration in the closed interval [lo, hi] microseconds (both >= 0;
/// hi < lo gives lo). Exact: no floating point, no modulo bias.
template <std::uniform_random_bit_generator G>
std::chrono::microseconds uniform_duration(G& g, std::chrono::microseconds lo, std::chrono::microseconds hi) {
  if (lo.count() < 0) lo = std::chrono::microseconds{0};
  if (hi <= lo) return lo;
  return std::chrono::microseconds{static_cast<std::int64_t>(
      uniform_between(g, static_cast<std::uint64_t>(lo.count()), static_cast<std::uint64_t>(hi.count())))};
}

}  // namespace rto

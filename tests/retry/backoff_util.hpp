#pragma once
// Helpers shared by the retry library's tests: a generator whose outputs are
// known, and instants on the caller's clock.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <vector>

#include "rto/clock.hpp"

namespace rto_test {

/// An rto::Instant `ms` milliseconds after the epoch.
inline rto::Instant at_ms(long long ms) { return rto::Instant{std::chrono::milliseconds{ms}}; }

/// A std::uniform_random_bit_generator over the full 64-bit range that returns
/// the listed words in turn (cycling). One word is one rto::random_u64 draw, and
/// rto::uniform_below(g, n) then gives floor(x * n / 2^64), so:
///   x = kHalf     (2^63)      -> floor(n / 2)
///   x = kQuarter  (2^62)      -> floor(n / 4)
///   x = kTop      (2^64 - 1)  -> n - 1 (the largest value)
/// (none of these is rejected for the n used in the tests: the low word of x*n
/// is >= n, see each test's comment).
struct ScriptedGenerator {
  using result_type = std::uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  ScriptedGenerator(std::initializer_list<result_type> words) : words_(words) {}
  result_type operator()() {
    const result_type w = words_[next_ % words_.size()];
    ++next_;
    ++draws;
    return w;
  }
  std::size_t draws = 0;

 private:
  std::vector<result_type> words_;
  std::size_t next_ = 0;
};

inline constexpr std::uint64_t kHalf = std::uint64_t{1} << 63;
inline constexpr std::uint64_t kQuarter = std::uint64_t{1} << 62;
inline constexpr std::uint64_t kTop = std::numeric_limits<std::uint64_t>::max();

}  // namespace rto_test

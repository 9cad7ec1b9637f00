#pragma once
// Durations the capture cannot pin to a point: a closed interval [lo, hi] of
// microseconds, and a small exact ratio to scale one by. A wait read from a
// capture is an interval (where the capture point sits, which event armed the
// timer, the clock's granularity); a rule is a predicate over such intervals.

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace replay {

/// An exact ratio num / den (den > 0) of two integers, for scaling durations
/// without floating point: Ratio{9, 8} is "9/8 of".
struct Ratio {
  std::int64_t num = 1;
  std::int64_t den = 1;

  /// `d` scaled down (floor): d * num / den.
  constexpr std::chrono::microseconds floor_of(std::chrono::microseconds d) const {
    const std::int64_t p = d.count() * num;
    const std::int64_t q = p / den;
    return std::chrono::microseconds{(p % den != 0 && p < 0) ? q - 1 : q};
  }
  /// `d` scaled up (ceiling): d * num / den.
  constexpr std::chrono::microseconds ceil_of(std::chrono::microseconds d) const {
    const std::int64_t p = d.count() * num;
    const std::int64_t q = p / den;
    return std::chrono::microseconds{(p % den != 0 && p > 0) ? q + 1 : q};
  }
  friend constexpr bool operator==(Ratio, Ratio) = default;
};

/// A closed interval of durations. Empty when lo > hi.
struct Interval {
  std::chrono::microseconds lo{0};
  std::chrono::microseconds hi{0};

  static constexpr Interval point(std::chrono::microseconds d) { return {d, d}; }
  /// [lo, +inf): no upper bound is known.
  static constexpr Interval at_least(std::chrono::microseconds d) { return {d, std::chrono::microseconds::max()}; }

  constexpr bool empty() const { return lo > hi; }
  constexpr bool bounded() const { return hi != std::chrono::microseconds::max(); }
  constexpr bool contains(std::chrono::microseconds d) const { return lo <= d && d <= hi; }
  constexpr bool intersects(const Interval& o) const { return lo <= o.hi && o.lo <= hi; }
  constexpr std::chrono::microseconds width() const { return hi - lo; }

  /// Both ends moved by `d` (an unbounded end stays unbounded).
  constexpr Interval shifted(std::chrono::microseconds d) const {
    return {lo + d, bounded() ? hi + d : hi};
  }
  /// Widened by `below` under lo and `above` over hi.
  constexpr Interval widened(std::chrono::microseconds below, std::chrono::microseconds above) const {
    return {lo - below, bounded() ? hi + above : hi};
  }
  friend constexpr bool operator==(const Interval&, const Interval&) = default;
};

/// The smallest interval holding both.
constexpr Interval hull(const Interval& a, const Interval& b) {
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}
/// Their common part (empty when they do not meet).
constexpr Interval meet(const Interval& a, const Interval& b) {
  return {std::max(a.lo, b.lo), std::min(a.hi, b.hi)};
}

}  // namespace replay

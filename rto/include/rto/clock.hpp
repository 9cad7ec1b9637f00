#pragma once
// Time types of the rto module. The module never reads a clock: every event
// carries the caller's current time as an rto::Instant.

#include <chrono>
#include <cstdint>

namespace rto {

/// A monotonic clock the caller supplies (virtual time in a simulator,
/// std::chrono::steady_clock in a real stack, capture timestamps in a replay).
/// It has no now(): the module is told the time with every event.
/// Resolution 1 us; epoch arbitrary but fixed for one connection.
struct Clock {
  using rep = std::int64_t;
  using period = std::micro;
  using duration = std::chrono::microseconds;
  using time_point = std::chrono::time_point<Clock, duration>;
  static constexpr bool is_steady = true;
};

/// An absolute time on the caller's monotonic clock, in microseconds.
using Instant = Clock::time_point;

/// Converts a std::chrono::steady_clock reading (the clock a real stack should
/// time with; RFC 6298 needs a real elapsed time, never wall-clock time)
/// into an rto::Instant. Truncates to whole microseconds.
inline Instant from_steady(std::chrono::steady_clock::time_point t) {
  return Instant{std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch())};
}

}  // namespace rto

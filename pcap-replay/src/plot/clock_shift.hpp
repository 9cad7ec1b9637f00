#pragma once
// Moving a capture time by a wait, for the pictures: a wait may be unknown
// (unbounded) or, in a crafted file, too long for the capture clock; such a
// shift stays at the event itself (nothing is drawn before or after it),
// where the plain arithmetic would overflow.

#include <chrono>
#include <cstdint>

#include <replay/input/segment.hpp>

namespace replay {

/// t - d, or t when d in nanoseconds or the result leaves the clock's range.
inline CaptureTime before_by(CaptureTime t, std::chrono::microseconds d) {
  std::int64_t ns = 0, out = 0;
  if (__builtin_mul_overflow(d.count(), std::int64_t{1000}, &ns) ||
      __builtin_sub_overflow(t.time_since_epoch().count(), ns, &out))
    return t;
  return CaptureTime{std::chrono::nanoseconds{out}};
}

/// t + d, or t when d in nanoseconds or the result leaves the clock's range.
inline CaptureTime after_by(CaptureTime t, std::chrono::microseconds d) {
  std::int64_t ns = 0, out = 0;
  if (__builtin_mul_overflow(d.count(), std::int64_t{1000}, &ns) ||
      __builtin_add_overflow(t.time_since_epoch().count(), ns, &out))
    return t;
  return CaptureTime{std::chrono::nanoseconds{out}};
}

}  // namespace replay

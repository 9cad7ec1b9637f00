#pragma once
// Moving a capture time by a wait, for the pictures: a wait may be unknown
// (unbounded) or, in a crafted file, too long for the capture clock; such a
// shift stays at the event itself (nothing is drawn before or after it),
// where the plain arithmetic would overflow.

#include <chrono>
#include <cstdint>

#include <replay/input/segment.hpp>

namespace replay {

/// t moved by d later (later = true) or earlier, or t itself when d in
/// nanoseconds or the result leaves the clock's range.
inline CaptureTime shifted(CaptureTime t, std::chrono::microseconds d, bool later) {
  std::int64_t ns = 0, out = 0;
  const std::int64_t at = t.time_since_epoch().count();
  if (__builtin_mul_overflow(d.count(), std::int64_t{1000}, &ns) ||
      (later ? __builtin_add_overflow(at, ns, &out) : __builtin_sub_overflow(at, ns, &out)))
    return t;
  return CaptureTime{std::chrono::nanoseconds{out}};
}
/// t - d (see shifted).
inline CaptureTime before_by(CaptureTime t, std::chrono::microseconds d) { return shifted(t, d, false); }
/// t + d (see shifted).
inline CaptureTime after_by(CaptureTime t, std::chrono::microseconds d) { return shifted(t, d, true); }

}  // namespace replay

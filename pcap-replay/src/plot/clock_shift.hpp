#pragma once
// Moving a capture time by a wait, for the pictures: a wait may be unknown
// (unbounded) or, in a crafted file, too long for the capture clock; such a
// shift stays at the event itself (nothing is drawn before or after it),
// where the plain arithmetic would overflow.

#include <chrono>
#include <cstdint>

#include <replay/analysis/flow_report.hpp>
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

/// Where expiry `t`'s timer was armed, by the reading of its wait `d`
/// (t.wait.lo: the latest arm, t.wait.hi: the earliest): t.time less d; at
/// the expiry itself when its wait is unknown (the capture clock stepped
/// between the arm and the expiry: no capture time of the arm is known, so
/// nothing is drawn before the expiry).
inline CaptureTime armed_at(const TimeoutRecord& t, std::chrono::microseconds d) {
  return t.wait_unknown ? t.time : before_by(t.time, d);
}

}  // namespace replay

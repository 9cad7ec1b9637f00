#include "analysis/engine/lateness.hpp"

#include <algorithm>

#include "analysis/engine/judge_limits.hpp"

namespace replay::engine {

using std::chrono::microseconds;

namespace {
// Linux's timer wheel (kernel/time/timer.c): level n of the wheel has
// buckets of 8^n jiffies and holds timeouts from 63 * 8^(n-1) jiffies on,
// so a timer is rounded up by at most 8/63 of its timeout; one jiffy more
// for the tick it was armed in and one for usecs_to_jiffies' rounding up.
constexpr Ratio kWheelBucket{8, 63};
constexpr int kWheelJiffies = 2;
// A slop-adding stack's timer fires on its own tick: a little late, never
// the constant's worth (FreeBSD callouts, Darwin's TCP timer list).
constexpr Ratio kSlopTimerJitter{1, 32};
}  // namespace

Interval fire_window(const TimerLateness& l, microseconds rto) {
  const microseconds late = l.fraction.ceil_of(rto) + l.absolute;
  return {rto + l.additive.lo, l.additive.bounded() ? rto + late + l.additive.hi : microseconds::max()};
}

TimerLateness timer_jitter(const Options& o) {
  switch (o.profile->lateness) {
    case Lateness::linux_wheel:
      return {Reading::proportional_lateness, kWheelBucket, kWheelJiffies * std::max(o.config.tick, microseconds{1}),
              {}, false, std::nullopt};
    case Lateness::additive:
      return {Reading::proportional_lateness, kSlopTimerJitter, microseconds{0}, {}, false, std::nullopt};
    case Lateness::proportional:
    case Lateness::inferred:
      break;
  }
  return {Reading::proportional_lateness, Ratio{static_cast<std::int64_t>(o.slack_percent), 100}, microseconds{0}, {},
          false, std::nullopt};
}

std::vector<TimerLateness> lateness_models(const Options& o, bool syn) {
  TimerLateness own = timer_jitter(o);
  switch (o.profile->lateness) {
    case Lateness::linux_wheel:
    case Lateness::proportional:
      return {own};
    case Lateness::additive:
      if (syn) return {own};
      own.reading = Reading::additive_lateness;
      own.additive = Interval::point(o.profile->additive);
      return {own};
    case Lateness::inferred:
      if (syn) return {own};
      return {own,
              TimerLateness{Reading::additive_lateness, kSlopTimerJitter, microseconds{0},
                            Interval{microseconds{0}, limits::kMaxInferredSlop}, true, std::nullopt},
              TimerLateness{Reading::additive_lateness, kSlopTimerJitter, microseconds{0},
                            Interval{microseconds{0}, microseconds::max()}, true, limits::kMaxSlopOfBase}};
  }
  return {own};
}

}  // namespace replay::engine

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

std::vector<TimerLateness> lateness_models(const Options& o, bool syn) {
  const Ratio slack{static_cast<std::int64_t>(o.slack_percent), 100};
  TimerLateness proportional{Reading::proportional_lateness, slack, microseconds{0}, {}, false};
  switch (o.profile->lateness) {
    case Lateness::linux_wheel: {
      const microseconds jiffy = std::max(o.config.tick, microseconds{1});
      return {TimerLateness{Reading::proportional_lateness, kWheelBucket, kWheelJiffies * jiffy, {}, false}};
    }
    case Lateness::additive:
      if (syn) return {TimerLateness{Reading::proportional_lateness, kSlopTimerJitter, microseconds{0}, {}, false}};
      return {TimerLateness{Reading::additive_lateness, kSlopTimerJitter, microseconds{0},
                            Interval::point(o.profile->additive), false}};
    case Lateness::proportional:
      return {proportional};
    case Lateness::inferred:
      if (syn) return {proportional};
      return {proportional, TimerLateness{Reading::additive_lateness, kSlopTimerJitter, microseconds{0},
                                          Interval{microseconds{0}, limits::kMaxInferredSlop}, true}};
  }
  return {proportional};
}

}  // namespace replay::engine

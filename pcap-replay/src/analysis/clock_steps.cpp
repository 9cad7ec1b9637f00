// Where the model's clock was re-based after a step of the capture clock.
#include "analysis/clock_steps.hpp"

#include <algorithm>
#include <limits>

namespace replay {

namespace {
CaptureTime plus(CaptureTime t, std::chrono::nanoseconds d) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(t.time_since_epoch().count(), d.count(), &r))
    r = d.count() > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
  return CaptureTime{std::chrono::nanoseconds{r}};
}
}  // namespace

CaptureTime model_time(const Segment& s) { return s.rebase.count() == 0 ? s.time : plus(s.time, s.rebase); }

void ClockSteps::begin_stretch(const Segment& s) {
  rebase_ = s.rebase;
  // Nothing of the input before it: the stretch covers everything.
  CaptureTime from = latest_ ? plus(*latest_, std::chrono::nanoseconds{1}) : CaptureTime::min();
  if (!stretches_.empty()) from = std::max(from, stretches_.back().from);
  ModelStep m{from, s.rebase, s.frame, latest_ ? last_frame_ : 0, std::chrono::nanoseconds{0}};
  if (latest_ && s.time < last_capture_) {
    // Ordered int64 difference, in uint64 (no overflow), saturated.
    const std::uint64_t d = static_cast<std::uint64_t>(last_capture_.time_since_epoch().count()) -
                            static_cast<std::uint64_t>(s.time.time_since_epoch().count());
    m.back = std::chrono::nanoseconds{
        static_cast<std::int64_t>(std::min<std::uint64_t>(d, std::numeric_limits<std::int64_t>::max()))};
  }
  stretches_.push_back(m);
}

void ClockSteps::observe(const Segment& s, CaptureTime model) {
  if (s.rebase != rebase_) begin_stretch(s);
  if (!latest_ || model > *latest_) latest_ = model;
  last_capture_ = s.time;
  last_frame_ = s.frame;
}

const ModelStep* ClockSteps::between(CaptureTime a, CaptureTime b) const {
  if (stretches_.empty()) return nullptr;
  const CaptureTime lo = std::min(a, b), hi = std::max(a, b);
  // The first stretch beginning after lo: a step between the two if it begins by hi.
  const auto it = std::upper_bound(stretches_.begin(), stretches_.end(), lo,
                                   [](CaptureTime t, const ModelStep& s) { return t < s.from; });
  return it != stretches_.end() && it->from <= hi ? &*it : nullptr;
}

CaptureTime ClockSteps::capture_time(CaptureTime model) const {
  const auto it = std::upper_bound(stretches_.begin(), stretches_.end(), model,
                                   [](CaptureTime t, const ModelStep& s) { return t < s.from; });
  if (it == stretches_.begin()) return model;
  return plus(model, -std::prev(it)->rebase);
}

}  // namespace replay

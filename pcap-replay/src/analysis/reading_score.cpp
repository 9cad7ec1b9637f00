#include "analysis/reading_score.hpp"

#include <chrono>

namespace replay {

// How well a reading explains a sender: fewer departures first, then fewer
// settings and notes, then the closer predictions.
ReadingScore reading_score(const SenderReport& s) {
  std::uint64_t must = 0, should = 0, notes = 0;
  for (const auto& f : s.findings) {
    if (f.level == Level::must) ++must;
    else if (f.level == Level::should) ++should;
    else if (f.outcome == Outcome::cannot_tell || f.topic == Topic::setting) ++notes;
  }
  std::uint64_t off = 0;
  std::int64_t err = 0;
  for (const auto& t : s.timeouts) {
    if (!on_time(t.verdict)) ++off;
    // How far the wait lies from the prediction (0 when they meet), in ms.
    if (t.wait_unknown || !t.predicted.bounded()) continue;
    const auto d = t.wait.hi < t.predicted.lo ? t.predicted.lo - t.wait.hi
                   : t.wait.lo > t.predicted.hi ? t.wait.lo - t.predicted.hi
                                                : std::chrono::microseconds{0};
    err += d.count() / 1000;
  }
  return {must, should, notes, off, err};
}

}  // namespace replay

#include "analysis/host_activity.hpp"

#include <replay/analysis/thresholds.hpp>

namespace replay {

void HostActivity::observe(std::size_t file, std::uint64_t frame, CaptureTime t, bool held) {
  if (last_ && t - *last_ >= limits::kFlushSilence) {
    burst_start_ = t;  // the first packet after a silence opens a burst
    burst_held_ = false;
    burst_.clear();
  } else if (burst_start_ && t - *burst_start_ > limits::kFlushWindow) {
    burst_start_.reset();
  }
  last_ = t;
  if (!burst_start_) return;
  burst_.emplace_back(file, frame);
  if (held) burst_held_ = true;
  if (burst_held_) {
    flushed_.insert(burst_.begin(), burst_.end());
    burst_.clear();
  }
}

bool HostActivity::flushed(std::size_t file, std::uint64_t frame) const {
  return flushed_.count({file, frame}) > 0;
}

}  // namespace replay

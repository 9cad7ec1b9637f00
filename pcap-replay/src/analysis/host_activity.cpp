#include "analysis/host_activity.hpp"

#include <replay/analysis/thresholds.hpp>

namespace replay {

void HostActivity::observe(std::size_t file, std::uint64_t frame, CaptureTime t, HoldSign held) {
  if (last_ && t - *last_ >= limits::kFlushSilence) {
    burst_start_ = t;  // the first packet after a silence opens a burst
    burst_hold_.reset();
    burst_.clear();
  } else if (burst_start_ && t - *burst_start_ > limits::kFlushWindow) {
    burst_start_.reset();
  }
  last_ = t;
  if (!burst_start_) return;
  burst_.emplace_back(file, frame);
  if (held != HoldSign::none && !burst_hold_) burst_hold_ = Hold{frame, held};
  if (burst_hold_) {
    for (const auto& key : burst_) flushed_.emplace(key, *burst_hold_);
    burst_.clear();
  }
}

std::optional<HostActivity::Hold> HostActivity::flushed(std::size_t file, std::uint64_t frame) const {
  const auto it = flushed_.find({file, frame});
  if (it == flushed_.end()) return std::nullopt;
  return it->second;
}

}  // namespace replay

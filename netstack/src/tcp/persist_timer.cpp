#include "netstack/persist_timer.hpp"

#include <algorithm>

namespace netstack {

void PersistTimer::update(bool zero_window_stall, rto::Instant now, std::chrono::microseconds base_rto) {
  if (!zero_window_stall) {
    deadline_.reset();
    backoff_ = 0;
    return;
  }
  if (!deadline_) deadline_ = now + interval(base_rto);
}

void PersistTimer::on_probe_sent(rto::Instant now, std::chrono::microseconds base_rto) {
  ++backoff_;
  deadline_ = now + interval(base_rto);
}

std::chrono::microseconds PersistTimer::interval(std::chrono::microseconds base_rto) const {
  std::chrono::microseconds d = base_rto;
  for (unsigned i = 0; i < backoff_ && d < kMaxInterval; ++i) d *= 2;
  return std::min(d, kMaxInterval);
}

}  // namespace netstack

#include <replay/analysis/rtt_stats.hpp>

#include <algorithm>
#include <cmath>

namespace replay {

void RttStats::add(std::chrono::microseconds r) {
  if (samples == 0) {
    min = max = r;
  } else {
    min = std::min(min, r);
    max = std::max(max, r);
  }
  ++samples;
  const double v = static_cast<double>(r.count());
  sum_us += v;
  sum_sq_us += v * v;
}

std::optional<double> RttStats::mean_ms() const {
  if (samples == 0) return std::nullopt;
  return sum_us / static_cast<double>(samples) / 1000.0;
}

std::optional<double> RttStats::stdev_ms() const {
  if (samples == 0) return std::nullopt;
  if (samples == 1) return 0.0;
  const double n = static_cast<double>(samples);
  // sum (x - m)^2 = sum x^2 - n m^2; clamped at 0 against rounding.
  const double m = sum_us / n;
  const double ss = std::max(0.0, sum_sq_us - n * m * m);
  return std::sqrt(ss / (n - 1)) / 1000.0;
}

}  // namespace replay

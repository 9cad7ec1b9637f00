#pragma once
// Summary statistics of one sender's RTT samples, as tcptrace -l -r prints
// them per direction (samples, min, max, avg, stdev).

#include <chrono>
#include <cstdint>
#include <optional>

namespace replay {

/// Running count, extremes, sum and sum of squares of the RTT samples the
/// replayed estimator took (section 3 of RFC 6298: Karn's rule, and the RFC
/// 7323 timestamp echo for retransmitted data). Exact in microseconds.
struct RttStats {
  std::uint64_t samples = 0;                 ///< samples added
  std::chrono::microseconds min{0}, max{0};  ///< meaningful when samples > 0
  double sum_us = 0, sum_sq_us = 0;          ///< sum of the samples and of their squares, us and us^2

  /// Adds one sample (microseconds; a negative one is counted as given).
  void add(std::chrono::microseconds r);
  /// Mean of the samples in ms; nullopt without samples.
  std::optional<double> mean_ms() const;
  /// Sample standard deviation in ms, sqrt(sum (x - mean)^2 / (n - 1)), the
  /// n - 1 form tcptrace prints; 0 for one sample, nullopt without samples.
  std::optional<double> stdev_ms() const;
};

}  // namespace replay

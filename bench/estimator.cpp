// Google Benchmark of the estimators' per-sample path (rto::Estimator, RFC
// 6298 2.3, and rto::LinuxEstimator): on_rtt_sample() then rto() for every
// sample of a realistic pre-generated RTT stream, beside a textbook
// double-precision RFC 6298 estimator with the same interface (microseconds
// in, microseconds out).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "rto/estimator.hpp"
#include "rto/linux_estimator.hpp"

namespace {

using std::chrono::microseconds;

constexpr std::size_t kStream = 1 << 14;  // samples in the stream (a power of two)

// RTT samples of a WAN path: a 40 ms base plus queueing delay |N(0, 4 ms)|,
// a 1 % chance of a 50..250 ms spike (a loss recovered or a burst), and a slow
// drift of +-10 ms. Precomputed, so the generator is not timed.
const std::vector<microseconds>& rtt_stream() {
  static const std::vector<microseconds> s = [] {
    std::vector<microseconds> v(kStream);
    std::mt19937_64 rng(42);
    std::normal_distribution<double> queue(0.0, 4'000.0);
    for (std::size_t i = 0; i < kStream; ++i) {
      double us = 40'000.0 + std::abs(queue(rng)) + 10'000.0 * std::sin(static_cast<double>(i) / 700.0);
      if (rng() % 100 == 0) us += 50'000.0 + static_cast<double>(rng() % 200'000);
      v[i] = microseconds{static_cast<std::int64_t>(us)};
    }
    return v;
  }();
  return s;
}

// Baseline: RFC 6298 2.2-2.5 in double-precision seconds, as often written,
// given and giving microseconds like rto::Estimator.
class DoubleEstimator {
 public:
  bool on_rtt_sample(microseconds r_us) {
    const double r = static_cast<double>(r_us.count()) * 1e-6;
    if (!has_) {
      srtt_ = r;
      rttvar_ = r / 2;
      has_ = true;
    } else {
      rttvar_ = 0.75 * rttvar_ + 0.25 * std::abs(srtt_ - r);
      srtt_ = 0.875 * srtt_ + 0.125 * r;
    }
    rto_ = std::min(60.0, std::max(1.0, srtt_ + std::max(0.001, 4 * rttvar_)));
    return true;
  }
  microseconds rto() const { return microseconds{static_cast<std::int64_t>(std::ceil(rto_ * 1e6))}; }

 private:
  bool has_ = false;
  double srtt_ = 0, rttvar_ = 0, rto_ = 1.0;
};

template <class E>
void run_stream(benchmark::State& state, E& e) {
  const auto& s = rtt_stream();
  std::size_t i = 0;
  for (auto _ : state) {
    // A refused sample (none in this stream) would end the run: the result is
    // used as a caller uses it, by a branch.
    if (!e.on_rtt_sample(s[i++ & (kStream - 1)])) state.SkipWithError("a sample was refused");
    benchmark::DoNotOptimize(e.rto());
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Estimator_Rfc6298(benchmark::State& state) {
  rto::Estimator e;
  run_stream(state, e);
}
BENCHMARK(BM_Estimator_Rfc6298);

void BM_Estimator_Linux(benchmark::State& state) {
  rto::LinuxEstimator e;
  run_stream(state, e);
}
BENCHMARK(BM_Estimator_Linux);

void BM_Baseline_Double(benchmark::State& state) {
  DoubleEstimator e;
  run_stream(state, e);
}
BENCHMARK(BM_Baseline_Double);

}  // namespace

BENCHMARK_MAIN();

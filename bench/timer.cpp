// Google Benchmark of the rto hot path, each beside a baseline in the same run:
//   - Estimator::on_rtt_sample / rto() (integer fixed point) vs a textbook
//     double-precision RFC 6298 estimator;
//   - TimerWheel arm/cancel, rearm and advance over 1M connections vs a
//     std::multimap timer queue (the usual naive design) holding iterators.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "rto/estimator.hpp"
#include "rto/timer_wheel.hpp"

namespace {

using std::chrono::microseconds;

constexpr std::size_t kConnections = 1'000'000;

// RTT samples in us: 20..200 ms with jitter, precomputed so the RNG is not timed.
const std::vector<std::int64_t>& samples() {
  static const std::vector<std::int64_t> s = [] {
    std::vector<std::int64_t> v(4096);
    std::mt19937_64 rng(42);
    for (auto& x : v) x = 20'000 + static_cast<std::int64_t>(rng() % 180'000);
    return v;
  }();
  return s;
}

// Baseline: RFC 6298 2.2-2.5 in double precision seconds, as often written.
class DoubleEstimator {
 public:
  void on_rtt_sample(double r) {
    if (!has_) {
      srtt_ = r;
      rttvar_ = r / 2;
      has_ = true;
    } else {
      rttvar_ = 0.75 * rttvar_ + 0.25 * std::abs(srtt_ - r);
      srtt_ = 0.875 * srtt_ + 0.125 * r;
    }
    rto_ = std::min(60.0, std::max(1.0, srtt_ + std::max(0.001, 4 * rttvar_)));
  }
  double rto() const { return rto_; }

 private:
  bool has_ = false;
  double srtt_ = 0, rttvar_ = 0, rto_ = 1.0;
};

void BM_Estimator_OnRttSample(benchmark::State& state) {
  rto::Estimator e;
  const auto& s = samples();
  std::size_t i = 0;
  for (auto _ : state) {
    e.on_rtt_sample(microseconds{s[i++ & 4095]});
    benchmark::DoNotOptimize(e);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Estimator_OnRttSample);

void BM_EstimatorLinux_OnRttSample(benchmark::State& state) {
  rto::Estimator e(rto::Config::linux_default());
  const auto& s = samples();
  std::size_t i = 0;
  for (auto _ : state) {
    e.on_rtt_sample(microseconds{s[i++ & 4095]});
    benchmark::DoNotOptimize(e);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EstimatorLinux_OnRttSample);

void BM_Baseline_DoubleEstimator_OnRttSample(benchmark::State& state) {
  DoubleEstimator e;
  const auto& s = samples();
  std::size_t i = 0;
  for (auto _ : state) {
    e.on_rtt_sample(static_cast<double>(s[i++ & 4095]) * 1e-6);
    benchmark::DoNotOptimize(e);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Baseline_DoubleEstimator_OnRttSample);

void BM_Estimator_Rto(benchmark::State& state) {
  rto::Estimator e;
  e.on_rtt_sample(microseconds{100'000});
  for (auto _ : state) {
    benchmark::DoNotOptimize(e.rto());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_Estimator_Rto);

void BM_Baseline_DoubleEstimator_RtoAsMicroseconds(benchmark::State& state) {
  DoubleEstimator e;
  e.on_rtt_sample(0.1);
  for (auto _ : state) {
    benchmark::DoNotOptimize(static_cast<std::int64_t>(e.rto() * 1e6));
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_Baseline_DoubleEstimator_RtoAsMicroseconds);

// ---- timers for 1M connections ---------------------------------------------

// Deadlines of 1M connections: now + 200 ms .. 3 s (typical RTOs), per connection.
std::vector<std::int64_t> deadlines_us(std::size_t n, std::uint64_t seed) {
  std::vector<std::int64_t> v(n);
  std::mt19937_64 rng(seed);
  for (auto& x : v) x = 200'000 + static_cast<std::int64_t>(rng() % 2'800'000);
  return v;
}

const rto::Instant kStart{microseconds{0}};

// Rearm: the per-ACK operation of 5.3 (restart the timer of a connection that
// already has one pending), over 1M armed connections.
void BM_TimerWheel_Rearm_1M(benchmark::State& state) {
  rto::TimerWheel w(kStart);
  auto entries = std::make_unique<rto::TimerEntry[]>(kConnections);
  const auto d = deadlines_us(kConnections, 1);
  for (std::size_t i = 0; i < kConnections; ++i) w.arm(entries[i], kStart + microseconds{d[i]});
  std::size_t i = 0;
  std::mt19937 rng(7);
  for (auto _ : state) {
    const std::size_t c = rng() % kConnections;
    w.arm(entries[c], kStart + microseconds{d[i++ % kConnections] + 1});
  }
  state.SetItemsProcessed(state.iterations());
  benchmark::DoNotOptimize(w.size());
}
BENCHMARK(BM_TimerWheel_Rearm_1M);

void BM_Baseline_Multimap_Rearm_1M(benchmark::State& state) {
  std::multimap<std::int64_t, std::size_t> q;
  std::vector<std::multimap<std::int64_t, std::size_t>::iterator> handle(kConnections);
  const auto d = deadlines_us(kConnections, 1);
  for (std::size_t i = 0; i < kConnections; ++i) handle[i] = q.emplace(d[i], i);
  std::size_t i = 0;
  std::mt19937 rng(7);
  for (auto _ : state) {
    const std::size_t c = rng() % kConnections;
    q.erase(handle[c]);
    handle[c] = q.emplace(d[i++ % kConnections] + 1, c);
  }
  state.SetItemsProcessed(state.iterations());
  benchmark::DoNotOptimize(q.size());
}
BENCHMARK(BM_Baseline_Multimap_Rearm_1M);

// Arm then cancel (5.1 then 5.2) of a connection, beside 1M armed others.
void BM_TimerWheel_ArmCancel_1M(benchmark::State& state) {
  rto::TimerWheel w(kStart);
  auto entries = std::make_unique<rto::TimerEntry[]>(kConnections);
  const auto d = deadlines_us(kConnections, 2);
  for (std::size_t i = 0; i < kConnections; ++i) w.arm(entries[i], kStart + microseconds{d[i]});
  rto::TimerEntry extra;
  std::size_t i = 0;
  for (auto _ : state) {
    w.arm(extra, kStart + microseconds{d[i++ % kConnections]});
    w.cancel(extra);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TimerWheel_ArmCancel_1M);

void BM_Baseline_Multimap_ArmCancel_1M(benchmark::State& state) {
  std::multimap<std::int64_t, std::size_t> q;
  const auto d = deadlines_us(kConnections, 2);
  for (std::size_t i = 0; i < kConnections; ++i) q.emplace(d[i], i);
  std::size_t i = 0;
  for (auto _ : state) {
    auto it = q.emplace(d[i++ % kConnections], kConnections);
    q.erase(it);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Baseline_Multimap_ArmCancel_1M);

// Advance: 1M connections' timers all expire over 3 s of time advanced in 1 ms
// steps; each fired timer is counted. Items = timers fired.
void BM_TimerWheel_AdvanceFireAll_1M(benchmark::State& state) {
  const auto d = deadlines_us(kConnections, 3);
  auto entries = std::make_unique<rto::TimerEntry[]>(kConnections);
  std::size_t fired = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto w = std::make_unique<rto::TimerWheel>(kStart);
    for (std::size_t i = 0; i < kConnections; ++i) w->arm(entries[i], kStart + microseconds{d[i]});
    state.ResumeTiming();
    for (std::int64_t t = 1'000; t <= 3'000'000; t += 1'000)
      fired += w->advance(kStart + microseconds{t}, [](rto::TimerEntry&) {});
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(fired));
}
BENCHMARK(BM_TimerWheel_AdvanceFireAll_1M)->Unit(benchmark::kMillisecond);

void BM_Baseline_Multimap_AdvanceFireAll_1M(benchmark::State& state) {
  const auto d = deadlines_us(kConnections, 3);
  std::size_t fired = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::multimap<std::int64_t, std::size_t> q;
    for (std::size_t i = 0; i < kConnections; ++i) q.emplace(d[i], i);
    state.ResumeTiming();
    for (std::int64_t t = 1'000; t <= 3'000'000; t += 1'000) {
      while (!q.empty() && q.begin()->first <= t) {
        q.erase(q.begin());
        ++fired;
      }
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(fired));
}
BENCHMARK(BM_Baseline_Multimap_AdvanceFireAll_1M)->Unit(benchmark::kMillisecond);

// Steady churn, the RTO timer's real life: 1M connections each with a pending
// timer; every 1 ms of virtual time 10 000 of them get an ACK of new data
// (5.3: re-arm to now + 200 ms..3 s) and the queue is advanced, firing what is
// due (few timers, since ACKs keep pushing most deadlines out). Time per 1 ms
// step, over a fixed 300 ms of virtual time so both queues see the same work.
void BM_TimerWheel_Churn_1M(benchmark::State& state) {
  rto::TimerWheel w(kStart);
  auto entries = std::make_unique<rto::TimerEntry[]>(kConnections);
  const auto d = deadlines_us(kConnections, 4);
  for (std::size_t i = 0; i < kConnections; ++i) w.arm(entries[i], kStart + microseconds{d[i]});
  std::mt19937 rng(9);
  std::int64_t now = 0;
  std::size_t fired = 0, k = 0;
  for (auto _ : state) {
    now += 1'000;
    for (int a = 0; a < 10'000; ++a) {
      const std::size_t c = rng() % kConnections;
      w.arm(entries[c], kStart + microseconds{now + d[k++ % kConnections]});
    }
    fired += w.advance(kStart + microseconds{now}, [&](rto::TimerEntry& e) {
      w.arm(e, e.deadline() + microseconds{1'000'000});  // retransmit, back off, re-arm (5.6)
    });
  }
  state.counters["fired_per_step"] =
      benchmark::Counter(static_cast<double>(fired), benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_TimerWheel_Churn_1M)->Unit(benchmark::kMicrosecond)->Iterations(300);

void BM_Baseline_Multimap_Churn_1M(benchmark::State& state) {
  using Queue = std::multimap<std::int64_t, std::size_t>;
  Queue q;
  std::vector<Queue::iterator> handle(kConnections);
  const auto d = deadlines_us(kConnections, 4);
  for (std::size_t i = 0; i < kConnections; ++i) handle[i] = q.emplace(d[i], i);
  std::mt19937 rng(9);
  std::int64_t now = 0;
  std::size_t fired = 0, k = 0;
  for (auto _ : state) {
    now += 1'000;
    for (int a = 0; a < 10'000; ++a) {
      const std::size_t c = rng() % kConnections;
      q.erase(handle[c]);
      handle[c] = q.emplace(now + d[k++ % kConnections], c);
    }
    while (q.begin()->first <= now) {
      const auto [deadline, c] = *q.begin();
      q.erase(q.begin());
      handle[c] = q.emplace(deadline + 1'000'000, c);
      ++fired;
    }
  }
  state.counters["fired_per_step"] =
      benchmark::Counter(static_cast<double>(fired), benchmark::Counter::kAvgIterations);
}
BENCHMARK(BM_Baseline_Multimap_Churn_1M)->Unit(benchmark::kMicrosecond)->Iterations(300);

}  // namespace

BENCHMARK_MAIN();

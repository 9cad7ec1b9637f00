#pragma once
// The discrete-event core of backoff-sim: virtual time in milliseconds
// (double), a priority queue of events ordered by (time, insertion number) so
// that ties resolve the same way on every run, and a seeded random source
// with a fully specified normal draw.

#include <cmath>
#include <cstdint>
#include <queue>
#include <random>
#include <vector>

#include "rto/retry/uniform.hpp"

namespace backoff_sim {

/// SplitMix64: mixes a seed and indices into an independent 64-bit seed.
inline std::uint64_t mix(std::uint64_t a, std::uint64_t b = 0, std::uint64_t c = 0, std::uint64_t d = 0) {
  std::uint64_t z = a;
  for (std::uint64_t v : {b, c, d}) {
    z += 0x9e3779b97f4a7c15u + v;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
  }
  return z;
}

/// A seeded std::mt19937_64 with the two real-valued draws the models need,
/// defined here (not by the standard library's distributions, whose
/// algorithms differ between implementations).
class Random {
 public:
  explicit Random(std::uint64_t seed) : g_(seed) {}
  /// Uniform in (0, 1]: (top 53 bits + 1) / 2^53.
  double unit() { return static_cast<double>((rto::random_u64(g_) >> 11) + 1) * 0x1p-53; }
  /// Normal(mean, sd) by Box-Muller from two unit() draws (the cosine branch only).
  double normal(double mean, double sd) {
    const double u1 = unit(), u2 = unit();
    return mean + sd * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }
  /// The generator itself, for the library's integer draws (jitter).
  std::mt19937_64& engine() { return g_; }

 private:
  std::mt19937_64 g_;
};

/// A time-ordered event queue. Event is any struct; the queue adds the time
/// and a sequence number.
template <class Event>
class EventQueue {
 public:
  void push(double t, Event e) { heap_.push(Item{t, seq_++, e}); }
  bool empty() const { return heap_.empty(); }
  /// Removes the earliest event; sets `t` to its time.
  Event pop(double& t) {
    Item it = heap_.top();
    heap_.pop();
    t = it.t;
    return it.e;
  }
  std::uint64_t pushed() const { return seq_; }

 private:
  struct Item {
    double t;
    std::uint64_t seq;
    Event e;
    bool operator>(const Item& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap_;
  std::uint64_t seq_ = 0;
};

}  // namespace backoff_sim

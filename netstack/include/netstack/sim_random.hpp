#pragma once
// A seeded pseudo-random generator for the simulator whose output is the same
// on every platform and standard library: the generator (SplitMix64 seeding a
// xoshiro256**) and the mappings to ranges and probabilities are written here,
// not taken from <random>, whose distributions differ between libstdc++
// versions.

#include <array>
#include <cstdint>

namespace netstack {

/// Deterministic 64-bit generator (xoshiro256**, seeded through SplitMix64).
/// Two generators built with the same seed produce the same sequence.
class SimRandom {
 public:
  /// Seeds the state from `seed` (any value, 0 included).
  explicit SimRandom(std::uint64_t seed);

  /// Next raw 64-bit value.
  std::uint64_t next();

  /// Uniform integer in [0, n); n == 0 returns 0. Unbiased (rejection of the
  /// top partial range).
  std::uint64_t below(std::uint64_t n);

  /// True with probability `p` (clamped to [0, 1]), decided by comparing one
  /// draw against p * 2^64. p == 0 never draws true, p == 1 always does.
  bool chance(double p);

 private:
  std::array<std::uint64_t, 4> s_{};
};

}  // namespace netstack

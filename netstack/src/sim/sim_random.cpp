#include "netstack/sim_random.hpp"

namespace netstack {
namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  x += 0x9E3779B97F4A7C15ULL;
  std::uint64_t z = x;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

constexpr std::uint64_t rotl(std::uint64_t v, int k) { return (v << k) | (v >> (64 - k)); }

}  // namespace

SimRandom::SimRandom(std::uint64_t seed) {
  for (auto& word : s_) word = splitmix64(seed);
}

std::uint64_t SimRandom::next() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

std::uint64_t SimRandom::below(std::uint64_t n) {
  if (n == 0) return 0;
  // Reject draws in the last, partial copy of [0, n) so every residue is
  // equally likely.
  const std::uint64_t limit = UINT64_MAX - (UINT64_MAX % n);
  std::uint64_t v = next();
  while (v >= limit) v = next();
  return v % n;
}

bool SimRandom::chance(double p) {
  if (!(p > 0.0)) return false;
  if (p >= 1.0) return true;
  // p * 2^64 fits in a uint64 because p < 1.
  const auto threshold = static_cast<std::uint64_t>(p * 18446744073709551616.0);
  return next() < threshold;
}

}  // namespace netstack

#include <replay/analysis/options.hpp>

#include <stdexcept>

namespace replay {

Options Options::for_profile(const StackProfile& p) {
  Options o;
  o.profile = &p;
  o.config = p.config;
  return o;
}

Options Options::for_profile(std::string_view name) {
  if (name == "auto") {
    Options o = for_profile(*find_profile("linux"));
    o.auto_profile = true;
    return o;
  }
  const StackProfile* p = find_profile(name);
  if (!p) throw std::invalid_argument("unknown profile \"" + std::string(name) + "\" (known: " + profile_names() + ", auto)");
  return for_profile(*p);
}

Options Options::with_profile(const StackProfile& p) const {
  Options o = *this;
  o.profile = &p;
  o.config = p.config;
  if (user_min_rto) o.config.min_rto = config.min_rto;
  if (user_max_rto) o.config.max_rto = config.max_rto;
  if (user_syn_linear) o.config.syn_linear_timeouts = config.syn_linear_timeouts;
  if (user_granularity) o.config.granularity = config.granularity;
  return o;
}

std::chrono::microseconds Options::tolerance(std::chrono::microseconds predicted) const {
  return absolute_tolerance + predicted * slack_percent / 100;
}

}  // namespace replay

namespace replay {

std::uint32_t Options::shard_of(std::size_t id, std::uint32_t n) {
  // SplitMix64's finaliser: every bit of the id reaches every bit of the
  // hash, so ids k, k + n, k + 2n... do not share a shard.
  std::uint64_t z = static_cast<std::uint64_t>(id) + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<std::uint32_t>(z % n) + 1;
}

}  // namespace replay

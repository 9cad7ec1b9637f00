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

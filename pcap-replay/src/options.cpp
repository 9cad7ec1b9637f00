#include "options.hpp"

namespace replay {

std::string to_string(Profile p) { return p == Profile::linux_kernel ? "linux" : "rfc6298"; }

std::optional<Profile> parse_profile(const std::string& name) {
  if (name == "rfc6298" || name == "rfc") return Profile::rfc6298;
  if (name == "linux") return Profile::linux_kernel;
  return std::nullopt;
}

Options Options::for_profile(Profile p) {
  Options o;
  o.profile = p;
  if (p == Profile::linux_kernel) {
    o.config = rto::Config::linux_default();
    o.timer_wheel_lateness = true;
    o.rearm_from_oldest_send = true;
  } else {
    o.config = rto::Config::rfc6298();
  }
  return o;
}

std::chrono::microseconds Options::tolerance(std::chrono::microseconds predicted) const {
  return granularity + predicted * slack_percent / 100;
}

std::chrono::microseconds Options::lateness(std::chrono::microseconds rto) const {
  using std::chrono::milliseconds;
  if (!timer_wheel_lateness) return std::chrono::microseconds{0};
  // Linux timer wheel (kernel/time/timer.c, HZ=250): level granularity 1, 8,
  // 64, 512 jiffies for timeouts below 63, 504, 4032, 32256 jiffies.
  if (rto < milliseconds{252}) return milliseconds{4};
  if (rto < milliseconds{2016}) return milliseconds{32};
  if (rto < milliseconds{16128}) return milliseconds{256};
  return milliseconds{2048};
}

}  // namespace replay

#pragma once
// Analysis options: the profile the sender is checked against (RFC 6298 or
// the Linux kernel), the rto::Config it implies, and the tolerances.

#include <chrono>
#include <optional>
#include <string>

#include <rto/config.hpp>

namespace replay {

/// Which sender behaviour a capture is checked against.
enum class Profile {
  rfc6298,  ///< RFC 6298 as written: 1 s initial and floor, 60 s cap, plain doubling, 5.7.
  linux_kernel,  ///< Linux 6.x: rto_min 200 ms via RTTVAR, 120 s cap, timer-wheel lateness,
                 ///< TLP, linear SYN timeouts, 5.7 only without a handshake sample.
};

/// "rfc6298" or "linux".
std::string to_string(Profile p);
/// Parses "rfc6298" / "linux"; nullopt otherwise.
std::optional<Profile> parse_profile(const std::string& name);

/// Everything the analysis needs to know besides the capture.
struct Options {
  /// The behaviour checked against (--profile).
  Profile profile = Profile::rfc6298;
  /// Estimator configuration (rto::Config::rfc6298() or linux_default(), with
  /// --rto-min / --rto-max / --syn-linear applied).
  rto::Config config = rto::Config::rfc6298();
  /// Clock granularity tolerance (--granularity, default 1 ms): absolute part
  /// of every timing comparison.
  std::chrono::microseconds granularity{1000};
  /// Relative slack of every timing comparison, in percent of the predicted
  /// value (default 10 %). Kept below 50 % so that it can never hide a
  /// factor-of-two error (5.5).
  unsigned slack_percent = 10;
  /// Linux timer-wheel lateness: a timer fires up to one wheel bucket late
  /// (4 ms under 252 ms, 32 ms under 2.02 s, 256 ms under 16.1 s, 2048 ms
  /// under 129 s; i.e. up to 12.5 %), never early. Off for rfc6298.
  bool timer_wheel_lateness = false;
  /// Linux rearms the RTO from the send time of the oldest outstanding
  /// segment (tcp_rearm_rto with a pending TLP/RACK timer), so a timeout may
  /// come earlier than RTO after the last ACK of new data. Off for rfc6298.
  bool rearm_from_oldest_send = false;
  /// A connection that is idle this long and then starts with a SYN is a new
  /// connection (port reuse), even without FIN/RST.
  std::chrono::microseconds idle_split{std::chrono::seconds{300}};
  /// Filled by the CLI: a BPF expression (informational in the report).
  std::string filter;

  /// The defaults of a profile.
  static Options for_profile(Profile p);

  /// Tolerance around a predicted duration: granularity + slack_percent of it.
  std::chrono::microseconds tolerance(std::chrono::microseconds predicted) const;
  /// Largest lateness allowed after a predicted expiry: the Linux timer-wheel
  /// bucket of `rto` when timer_wheel_lateness, else 0.
  std::chrono::microseconds lateness(std::chrono::microseconds rto) const;
};

}  // namespace replay

#pragma once
// The persist timer (RFC 9293 3.8.6.1): window probes while the peer's
// window is zero and nothing is in flight to wake the sender.

#include <chrono>
#include <optional>

#include "rto/clock.hpp"

namespace netstack {

/// Deadline and backoff of the zero-window probes. Probes are not
/// retransmissions: they never back off the RTO (Linux tcp_probe_timer).
class PersistTimer {
 public:
  /// The longest wait between two probes (Linux TCP_RTO_MAX, 120 s there;
  /// here the RFC 6298 2.5 maximum of 60 s).
  static constexpr std::chrono::microseconds kMaxInterval{60'000'000};

  /// Arms the timer at `now` (first probe after `base_rto`) when
  /// `zero_window_stall` and it is not armed yet; otherwise, when there is no
  /// stall, disarms it and resets its backoff.
  void update(bool zero_window_stall, rto::Instant now, std::chrono::microseconds base_rto);
  /// True when armed and `now` is at or past the deadline.
  bool due(rto::Instant now) const { return deadline_ && now >= *deadline_; }
  /// A probe went out at `now`: doubles the wait and re-arms.
  void on_probe_sent(rto::Instant now, std::chrono::microseconds base_rto);
  /// Disarms (the connection ended); the backoff is kept.
  void stop() { deadline_.reset(); }
  /// The next probe's time; nullopt when disarmed.
  std::optional<rto::Instant> deadline() const { return deadline_; }
  /// The wait before the next probe: base_rto doubled once per probe already
  /// sent, at most kMaxInterval.
  std::chrono::microseconds interval(std::chrono::microseconds base_rto) const;

 private:
  std::optional<rto::Instant> deadline_;
  unsigned backoff_ = 0;
};

}  // namespace netstack

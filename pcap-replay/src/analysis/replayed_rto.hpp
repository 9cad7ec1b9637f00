#pragma once
// The RTO one timer model replays, as one object: rto::AnyEstimator (SRTT
// and RTTVAR of the profile's variant) and the RTO part of an
// rto::RetransmissionTimer (the backoff, the SYN's linear expiries, 5.7),
// wired as a sender wires them. The model keeps its own deadlines.

#include <chrono>
#include <climits>
#include <cstdint>
#include <optional>

#include <rto/any_estimator.hpp>
#include <rto/retransmission_timer.hpp>

namespace replay {

class ReplayedRto {
 public:
  /// RFC 6298's defaults.
  ReplayedRto() = default;
  /// The profile's estimator and timer rules; throws rto::ConfigError.
  explicit ReplayedRto(const rto::Config& config) : est_(config), rto_(config, kNoLimits) {}

  /// An RTT sample (2.2, 2.3); false when refused (negative or above 1 h).
  /// A sample ends the backoff (the note after 5.7).
  bool on_rtt_sample(std::chrono::microseconds r, std::uint32_t snd_una, std::uint32_t snd_nxt) {
    if (!est_.on_rtt_sample(r, snd_una, snd_nxt)) return false;
    rto_.on_rtt_sample(est_.rto());
    return true;
  }
  /// A data timer expiry: 5.5 (and the section 5 note when configured).
  void on_timeout() { apply(rto_.on_expiry(rto::Instant{})); }
  /// A SYN timer expiry: the profile's linear expiries, then 5.5.
  void on_syn_timeout() { apply(rto_.on_syn_expiry(rto::Instant{})); }
  /// 5.7 as the profile's variant applies it.
  void on_handshake_complete(bool syn_timed_out) { rto_.on_handshake_complete(syn_timed_out, est_.has_sample()); }

  /// The RTO in force (backoff included) and before backoff.
  std::chrono::microseconds rto() const { return rto_.rto(); }
  std::chrono::microseconds base_rto() const { return rto_.base_rto(); }
  std::optional<std::chrono::microseconds> srtt() const { return est_.srtt(); }
  std::optional<std::chrono::microseconds> rttvar() const { return est_.rttvar(); }
  unsigned backoff() const { return rto_.backoff(); }

 private:
  static constexpr rto::RetryLimits kNoLimits{UINT_MAX, UINT_MAX, std::chrono::microseconds{0}};
  void apply(rto::Expiry x) {
    if (x.forget_rtt) est_.forget();
  }
  rto::AnyEstimator est_;
  rto::RetransmissionTimer rto_{rto::Config::rfc6298(), kNoLimits};
};

}  // namespace replay

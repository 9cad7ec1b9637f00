#pragma once
// One reading of the sender's RTO before backoff, replayed under the profile:
// rto::AnyEstimator (SRTT and RTTVAR, by the profile's variant) and the RTO an
// rto::RetransmissionTimer holds before backoff (the 2.1 initial RTO, the
// estimator's latest, or 5.7's fallback), wired as a sender wires them. The
// backoff is the chain's (chain_judge.hpp): this timer never expires.

#include <chrono>
#include <cstdint>
#include <optional>

#include <rto/any_estimator.hpp>
#include <rto/config.hpp>
#include <rto/retransmission_timer.hpp>

namespace replay::engine {

// A sample writes the estimator alone (the flag and the estimator, 56
// bytes: one cache line where the holder places it at 8 bytes past a line's
// start or at one, as EstimatorReadings does): the timer takes the
// estimator's RTO only when it is read with the timer's rules (5.7 at the
// handshake), and base_rto() reads it from the estimator meanwhile. The
// same RTO as a timer told of every sample.
class ReplayedRto {
 public:
  /// The profile's estimator and timer rules; throws rto::ConfigError.
  explicit ReplayedRto(const rto::Config& config) : est_(config), timer_(config) {}

  /// An RTT sample (2.2, 2.3; Linux's RTT windows read SND.UNA and SND.NXT);
  /// false when refused (negative or above 1 h), which changes nothing. A
  /// sample's RTO becomes the one in force (the note after 5.7).
  [[nodiscard]] bool on_rtt_sample(std::chrono::microseconds r, std::uint32_t snd_una, std::uint32_t snd_nxt) {
    if (!est_.on_rtt_sample(r, snd_una, snd_nxt)) return false;
    rto_from_estimator_ = true;
    return true;
  }
  /// 5.7 as the profile's variant applies it (RFC 6298: after a SYN timeout,
  /// an RTO below 3 s becomes 3 s; Linux: 3 s when the handshake gave no sample).
  void on_handshake_complete(bool syn_timed_out) {
    if (rto_from_estimator_) {  // the samples' RTO, as the timer would hold it
      timer_.on_rtt_sample(est_.rto());
      rto_from_estimator_ = false;
    }
    timer_.on_handshake_complete(syn_timed_out, est_.has_sample());
  }

  /// The RTO before backoff.
  std::chrono::microseconds base_rto() const { return rto_from_estimator_ ? est_.rto() : timer_.base_rto(); }
  /// SRTT; nullopt before a sample.
  std::optional<std::chrono::microseconds> srtt() const { return est_.srtt(); }
  /// RTTVAR (Linux: mdev / 4, tcpi_rttvar); nullopt before a sample.
  std::optional<std::chrono::microseconds> rttvar() const { return est_.rttvar(); }
  bool has_sample() const { return est_.has_sample(); }

 private:
  bool rto_from_estimator_ = false;  // a sample came since the timer was last told: its RTO is est_.rto()
  rto::AnyEstimator est_;
  rto::RetransmissionTimer timer_;
};

}  // namespace replay::engine

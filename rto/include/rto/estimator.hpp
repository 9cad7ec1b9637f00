#pragma once
// The RTO estimator of RFC 6298 sections 2 and 5 (or the Linux kernel's
// variant): SRTT, RTTVAR, RTO and the exponential backoff.

#include <chrono>
#include <cstdint>
#include <optional>

#include "rto/config.hpp"
#include "rto/export.h"

namespace rto {

/// Computes the retransmission timeout from RTT samples (RFC 6298 sections 2-5).
///
/// Pure and clock-free: no allocation, syscalls or floating point. Samples and
/// the RTO are std::chrono::microseconds. Internally SRTT and RTTVAR are kept
/// in fixed point (2^-20 us units, int64) so they stay within 1 us of the exact
/// rational RFC values for any RTT of 0..1 h and any number of samples.
/// The RTO is rounded UP to a whole microsecond (never early), then floored
/// (2.4) and capped (2.5). Backoff (5.5) doubles it, saturating at the cap.
///
/// With Config::Variant::linux_kernel it mirrors tcp_rtt_estimator() and
/// __tcp_set_rto() of the Linux kernel instead (see estimator.cpp).
class RTO_API Estimator {
 public:
  /// Validates `config` (throws ConfigError) and starts with RTO = initial_rto (2.1).
  explicit Estimator(Config config = Config::rfc6298());

  /// Feeds one RTT measurement R (2.2 for the first, 2.3 afterwards), then
  /// recomputes the RTO, which collapses any backoff (note after 5.7).
  /// Returns false, leaving the state unchanged, when R is refused: negative
  /// (the clock stepped back) or above 1 hour.
  /// The caller must apply Karn's algorithm (section 3); see RttSampler.
  bool on_rtt_sample(std::chrono::microseconds r);
  /// The same, for the Linux variant's per-RTT-window tracking: a window ends
  /// when SND.UNA passes the SND.NXT recorded at the previous window end
  /// (modulo 2^32). The RFC 6298 variant ignores snd_una/snd_nxt. The one-argument
  /// form treats every sample as ending an RTT window.
  bool on_rtt_sample(std::chrono::microseconds r, std::uint32_t snd_una, std::uint32_t snd_nxt);

  /// The retransmission timer expired (5.5): RTO = min(2*RTO, max_rto), and the
  /// backoff count increments. With reset_after_backoffs = N > 0, the Nth
  /// consecutive backoff clears SRTT and RTTVAR (section 5 note) while keeping
  /// the backed-off RTO.
  void on_timeout();
  /// The timer of a SYN expired: as on_timeout() (5.5), except that the first
  /// config().syn_linear_timeouts expiries (Linux profile 4, RFC profile 0) keep
  /// the RTO and the backoff count (Linux tcp_syn_linear_timeouts).
  void on_syn_timeout();
  /// The three-way handshake completed; data transmission begins (5.7).
  /// RFC 6298: if `syn_timed_out` and the RTO before backoff (base_rto(): the 1 s
  /// of 2.1, or one computed from a handshake sample) is below syn_fallback_rto
  /// (3 s), the RTO becomes 3 s until the first RTT sample and the backoff ends
  /// (so after two lost SYNs, 1 s then 2 s, data starts with 3 s, not 4 s).
  /// SRTT and RTTVAR are NOT seeded (5.7 says only the RTO), so that sample is a first
  /// sample (2.2). A base RTO already >= 3 s keeps its backed-off value.
  /// Linux: the fallback applies only when no RTT sample was taken during the
  /// handshake (tcp_init_metrics), whatever `syn_timed_out` says.
  void on_handshake_complete(bool syn_timed_out);

  /// The current RTO, including backoff: min(base_rto() * 2^backoff, max_rto).
  std::chrono::microseconds rto() const { return std::chrono::microseconds{rto_us_}; }
  /// The RTO before backoff: initial_rto (2.1), the 5.7 fallback, or
  /// SRTT + max(G, K*RTTVAR) rounded up, floored (2.4) and capped (2.5).
  std::chrono::microseconds base_rto() const { return std::chrono::microseconds{base_rto_us_}; }
  /// SRTT rounded to the nearest microsecond; nullopt before the first sample.
  std::optional<std::chrono::microseconds> srtt() const;
  /// RTTVAR rounded to the nearest microsecond; nullopt before the first sample.
  /// Linux variant: mdev/4, i.e. what tcp_info's tcpi_rttvar reports.
  std::optional<std::chrono::microseconds> rttvar() const;
  /// Linux variant only: the kernel's rttvar_us (max-tracking variance floored at
  /// rto_min, the term added to SRTT). nullopt before the first sample or for RFC 6298.
  std::optional<std::chrono::microseconds> linux_rttvar() const;
  /// Number of doublings applied since the last sample (5.5); 0 when not backing off.
  unsigned backoff() const { return backoff_; }
  /// The validated configuration.
  const Config& config() const { return cfg_; }

  /// Fixed-point scale of the RFC 6298 variant's SRTT/RTTVAR: 2^20 units per us.
  static constexpr int kFracBits = 20;

 private:
  void recompute_base();
  void sample_rfc6298(std::int64_t r_us);
  void sample_linux(std::int64_t r_us, std::uint32_t snd_una, std::uint32_t snd_nxt, bool window_end);
  bool sample(std::int64_t r_us, std::uint32_t snd_una, std::uint32_t snd_nxt, bool window_end);
  void back_off();

  Config cfg_;
  bool has_sample_ = false;
  // RFC 6298: SRTT and RTTVAR in 2^-20 us. Linux: srtt_us (8*SRTT, us) in srtt_,
  // rttvar_us in rttvar_.
  std::int64_t srtt_ = 0;
  std::int64_t rttvar_ = 0;
  std::int64_t mdev_ = 0;      // Linux mdev_us (4*mean deviation), us
  std::int64_t mdev_max_ = 0;  // Linux mdev_max_us, us
  std::uint32_t rtt_seq_ = 0;  // Linux: SND.NXT at the start of the current RTT window
  std::int64_t base_rto_us_ = 0;  // RTO before backoff, us
  std::int64_t rto_us_ = 0;       // current RTO incl. backoff, us (<= max_rto)
  unsigned backoff_ = 0;
  unsigned consecutive_timeouts_ = 0;
  unsigned syn_timeouts_ = 0;
};

}  // namespace rto

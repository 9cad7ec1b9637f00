#pragma once
// The RTO estimator of RFC 6298 section 2: SRTT and RTTVAR smoothed from RTT
// samples, and the RTO they give. The backed-off RTO (5.5), the SYN rules and
// 5.7 live with the timer (rto/retransmission_timer.hpp); the Linux kernel's
// variant is a sibling type (rto/linux_estimator.hpp).

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "rto/clamped_rto.hpp"
#include "rto/config.hpp"
#include "rto/export.h"

namespace rto {

/// RFC 6298's estimator: NoSample, or Measured {SRTT, RTTVAR}. Pure and
/// clock-free: no allocation, syscalls or floating point. Its few constants
/// (initial RTO, floor, cap, G, tick) are copied in, so it is a plain value.
///
/// SRTT and RTTVAR are int64 fixed point, 2^-20 us units, rounded to nearest
/// at each step: within 1 us of the exact rational RFC values for any RTT of
/// 0..1 h over any number of samples. The RTO is SRTT + max(G, K*RTTVAR)
/// rounded UP to a whole microsecond (never early) and to the tick when one
/// is configured, then floored (2.4) and capped (2.5).
///
/// Size: 40 bytes (kBytes). The per-sample path (on_rtt_sample, rto()) is inline.
class RTO_API Estimator {
 public:
  /// RFC 6298 defaults (Config::rfc6298()): RTO 1 s until a sample (2.1).
  Estimator() noexcept : Estimator(Config::rfc6298(), Trusted{}) {}
  /// Validates `config` (throws ConfigError naming the field; also when its
  /// variant is not Config::Variant::rfc6298: that is LinuxEstimator's) and
  /// copies the constants it needs.
  explicit Estimator(const Config& config);

  /// Feeds one RTT measurement R: 2.2 for the first, 2.3 afterwards.
  /// Returns false, changing nothing, when R is refused: negative (the clock
  /// stepped back) or above kMaxSample. The caller applies Karn's algorithm
  /// (section 3, RttSampler) and gives the timer the new rto() (the note
  /// after 5.7: a sample ends the backoff; RetransmissionTimer::on_rtt_sample).
  [[nodiscard]] bool on_rtt_sample(std::chrono::microseconds r);
  /// Section 5 note: "a TCP implementation MAY clear SRTT and RTTVAR after
  /// backing off the timer multiple times"; the next sample is then a first
  /// one (2.2). The timer says when (Expiry::forget_rtt).
  void forget() noexcept { srtt_ = kNoSample; }

  /// The RTO before any backoff: initial_rto before a sample (2.1), else
  /// SRTT + max(G, 4 * RTTVAR) rounded up to a microsecond (and to the tick),
  /// floored (2.4) and capped (2.5).
  Rto rto() const;
  /// SRTT rounded to the nearest microsecond; nullopt before a sample (NoSample).
  std::optional<std::chrono::microseconds> srtt() const;
  /// RTTVAR rounded to the nearest microsecond; nullopt before a sample.
  std::optional<std::chrono::microseconds> rttvar() const;
  /// True once a sample was taken (and not forgotten): Measured.
  bool has_sample() const { return srtt_ != kNoSample; }

  /// The longest sample accepted: 1 hour.
  static constexpr std::chrono::microseconds kMaxSample{3'600'000'000};
  /// Fixed-point scale of SRTT and RTTVAR: 2^20 units per microsecond.
  static constexpr int kFracBits = 20;
  /// sizeof(Estimator): SRTT 8, RTTVAR 8, floor, cap, initial RTO, G, tick 5 * 4, padding 4.
  static constexpr std::size_t kBytes = 40;

 private:
  struct Trusted {};
  Estimator(const Config& config, Trusted) noexcept;
  /// SRTT of NoSample (every sample gives SRTT >= 0).
  static constexpr std::int64_t kNoSample = -1;
  /// 1 us in the fixed point.
  static constexpr std::int64_t kOne = std::int64_t{1} << kFracBits;
  /// RFC 6298 section 2: K = 4.
  static constexpr std::int64_t kK = 4;

  // SRTT and RTTVAR are kept apart by constants that the per-sample path only
  // reads: two adjacent fields stored together are merged by GCC's SLP
  // vectorizer into one 16-byte store, which waits for the later value, and
  // the next sample's loads then wait on it (a longer loop-carried chain).
  std::int64_t srtt_ = kNoSample;  // SRTT in 2^-20 us; kNoSample: no sample yet
  std::uint32_t floor_us_;         // 2.4 (min_rto, at least 1 us)
  std::uint32_t cap_us_;           // 2.5 (max_rto, <= 1 h)
  std::int64_t rttvar_ = 0;        // RTTVAR in 2^-20 us
  std::uint32_t initial_us_;       // 2.1 (initial_rto)
  std::uint32_t g_us_;             // G, clock granularity (section 2)
  std::uint32_t tick_us_;          // round the RTO up to a multiple (0 or 1: none)
};

inline bool Estimator::on_rtt_sample(std::chrono::microseconds r) {
  const std::int64_t r_us = r.count();
  // A negative elapsed time (the clock stepped back) or an absurd one is refused.
  if (static_cast<std::uint64_t>(r_us) > static_cast<std::uint64_t>(kMaxSample.count())) [[unlikely]]
    return false;
  const std::int64_t rf = r_us * kOne;  // <= 3.6e9 * 2^20 ~ 3.8e15, far below 2^63
  if (srtt_ == kNoSample) [[unlikely]] {
    // 2.2: "SRTT <- R, RTTVAR <- R/2" (exact in the fixed point). impl: RFC6298-2.2
    srtt_ = rf;
    rttvar_ = rf / 2;
    return true;
  }
  // 2.3: "RTTVAR <- (1 - beta) * RTTVAR + beta * |SRTT - R'|" with beta = 1/4,
  // using the OLD SRTT; then "SRTT <- (1 - alpha) * SRTT + alpha * R'" with
  // alpha = 1/8. Rounded to nearest. impl: RFC6298-2.3
  const std::int64_t err = srtt_ > rf ? srtt_ - rf : rf - srtt_;
  rttvar_ = (3 * rttvar_ + err + 2) >> 2;
  srtt_ = (7 * srtt_ + rf + 4) >> 3;
  return true;
}

inline Rto Estimator::rto() const {
  // 2.1: "Until a round-trip time (RTT) measurement has been made ... the
  // sender SHOULD set RTO <- 1 second" (initial_rto). impl: RFC6298-2.1
  if (srtt_ == kNoSample) return Rto::within(initial_us_, floor_us_, cap_us_);
  // "RTO <- SRTT + max (G, K*RTTVAR)", rounded UP to a whole microsecond so
  // the timer is never early. impl: RFC6298-2.2 RFC6298-2.3 RFC6298-4-clock
  const std::int64_t var = std::max(std::int64_t{g_us_} << kFracBits, kK * rttvar_);
  std::int64_t us = (srtt_ + var + kOne - 1) >> kFracBits;  // <= 5 h in us
  // 2.5: "A maximum value MAY be placed on RTO provided it is at least 60
  // seconds" (max_rto). Applied before the tick as well, so the rounding
  // works in 32 bits: ceil(min(x, cap)) capped is min(ceil(x), cap).
  // impl: RFC6298-2.5
  us = std::min<std::int64_t>(us, cap_us_);
  if (tick_us_ > 1) {
    const std::uint32_t x = static_cast<std::uint32_t>(us);
    const std::uint32_t q = x / tick_us_ + (x % tick_us_ != 0);
    us = std::min<std::int64_t>(std::int64_t{q} * tick_us_, cap_us_);
  }
  // 2.4: "Whenever RTO is computed, if it is less than 1 second, then the RTO
  // SHOULD be rounded up to 1 second" (min_rto). impl: RFC6298-2.4
  return Rto::within(us, floor_us_, cap_us_);
}

}  // namespace rto

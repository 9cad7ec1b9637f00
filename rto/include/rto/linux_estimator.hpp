#pragma once
// The Linux kernel's RTO estimator (tcp_rtt_estimator() and __tcp_set_rto()
// in net/ipv4/tcp_input.c), the sibling of RFC 6298's rto::Estimator: the
// same role and events, the kernel's arithmetic and fields.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "rto/clamped_rto.hpp"
#include "rto/config.hpp"
#include "rto/export.h"
#include "rto/seq.hpp"

namespace rto {

/// Linux's estimator, described from the kernel's documented behaviour, in
/// its own 32-bit fields and integer microseconds: srtt_us (8 * SRTT),
/// mdev_us (4 * mean deviation), mdev_max_us (the window's largest mdev) and
/// rttvar_us (the term added to SRTT, rising at once with mdev_max and
/// decaying by a quarter of the excess at each RTT window's end, never below
/// rto_min). RTO = SRTT + rttvar_us rounded up to the tick (the jiffy),
/// capped (TCP_RTO_MAX); rto_min acts through rttvar_us, not on the sum.
///
/// Exact for samples up to kMaxExactSampleUs (the largest SRTT whose 8 * SRTT
/// fits the kernel's 32-bit srtt_us); a longer accepted sample counts as that.
/// Size: 36 bytes (kBytes); the per-sample path is inline.
class RTO_API LinuxEstimator {
 public:
  /// The kernel's defaults (Config::linux_default()): rto_min 200 ms, 120 s
  /// cap, 4 ms tick; RTO 1 s until a sample (TCP_TIMEOUT_INIT).
  LinuxEstimator() noexcept : LinuxEstimator(Config::linux_default(), Trusted{}) {}
  /// Validates `config` (throws ConfigError naming the field; also when its
  /// variant is not Config::Variant::linux_kernel).
  explicit LinuxEstimator(const Config& config);

  /// Feeds one RTT sample (tcp_rtt_estimator()). The RTT window ends when
  /// SND.UNA passes the SND.NXT recorded at the previous window's end (modulo
  /// 2^32): `snd_una` and `snd_nxt` are the sender's after the ACK that gave
  /// the sample. Returns false, changing nothing, for a negative sample or
  /// one above kMaxSample.
  [[nodiscard]] bool on_rtt_sample(std::chrono::microseconds r, std::uint32_t snd_una, std::uint32_t snd_nxt) {
    return sample(r.count(), snd_una, snd_nxt, false);
  }
  /// The same, every sample ending an RTT window.
  [[nodiscard]] bool on_rtt_sample(std::chrono::microseconds r) { return sample(r.count(), 0, 0, true); }
  /// Back to no sample (srtt_us = 0): the next sample is a first one.
  void forget() noexcept { srtt8_ = 0; }

  /// The RTO before any backoff: initial_rto before a sample, else
  /// SRTT + rttvar_us rounded up to the tick, capped (__tcp_set_rto,
  /// tcp_bound_rto).
  Rto rto() const;
  /// SRTT (srtt_us / 8); nullopt before a sample.
  std::optional<std::chrono::microseconds> srtt() const;
  /// mdev_us / 4, what tcp_info's tcpi_rttvar reports; nullopt before a sample.
  std::optional<std::chrono::microseconds> rttvar() const;
  /// The kernel's rttvar_us (the term added to SRTT, >= rto_min); nullopt before a sample.
  std::optional<std::chrono::microseconds> linux_rttvar() const;
  /// True once a sample was taken (srtt_us != 0) and not forgotten.
  bool has_sample() const { return srtt8_ != 0; }

  /// The longest sample accepted: 1 hour.
  static constexpr std::chrono::microseconds kMaxSample{3'600'000'000};
  /// The longest sample held exactly: 8 * SRTT must fit the kernel's 32-bit
  /// srtt_us, so floor((2^32 - 1) / 8) = 536 870 911 us.
  static constexpr std::int64_t kMaxExactSampleUs = 536'870'911;
  /// sizeof(LinuxEstimator): nine 32-bit fields.
  static constexpr std::size_t kBytes = 36;

 private:
  struct Trusted {};
  LinuxEstimator(const Config& config, Trusted) noexcept;
  bool sample(std::int64_t r_us, std::uint32_t snd_una, std::uint32_t snd_nxt, bool window_end);
  void first_sample(std::int64_t r_us, std::uint32_t snd_nxt);

  // The four state fields are kept apart by constants (see Estimator: GCC's
  // SLP vectorizer would merge adjacent stores into one that waits for the last).
  std::uint32_t srtt8_ = 0;     // srtt_us: 8 * SRTT (<= 8 * kMaxExactSampleUs < 2^32); 0: no sample
  std::uint32_t rto_min_us_;    // rto_min: the floor of rttvar_us
  std::uint32_t mdev4_ = 0;     // mdev_us: 4 * mean deviation (< 2^31)
  std::uint32_t cap_us_;        // TCP_RTO_MAX (max_rto, <= 1 h)
  std::uint32_t mdev_max_ = 0;  // mdev_max_us: the window's largest mdev_us (or rto_min)
  std::uint32_t initial_us_;    // TCP_TIMEOUT_INIT (initial_rto)
  std::uint32_t rttvar_ = 0;    // rttvar_us: added to SRTT, >= rto_min
  std::uint32_t tick_us_;       // the jiffy (0 or 1: no rounding)
  std::uint32_t rtt_seq_ = 0;   // rtt_seq: SND.NXT at the start of the current RTT window
};

// tcp_rtt_estimator(), described: srtt_us holds 8*SRTT; mdev_us 4*mean
// deviation; mdev_max_us the largest mdev_us of the current RTT window;
// rttvar_us rises at once to mdev_max_us and, at the end of each window
// (SND.UNA passes the SND.NXT recorded at its start), decays by a quarter of
// its excess over mdev_max_us, after which mdev_max_us restarts at rto_min.
// Integer microseconds, truncating like the kernel.
inline bool LinuxEstimator::sample(std::int64_t r_us, std::uint32_t snd_una, std::uint32_t snd_nxt,
                                   bool window_end) {
  if (static_cast<std::uint64_t>(r_us) > static_cast<std::uint64_t>(kMaxSample.count())) [[unlikely]]
    return false;
  if (srtt8_ == 0) [[unlikely]] {
    first_sample(r_us, snd_nxt);
    return true;
  }
  // The 32-bit fields bound the sample; then, by induction, srtt8 <= 8 * that
  // < 2^32 and mdev4 <= 4 * that < 2^31 below.
  const std::int64_t r = std::min(r_us, kMaxExactSampleUs);
  const std::int64_t srtt8 = srtt8_;
  const std::int64_t mdev4 = mdev4_;
  const std::int64_t m = r - (srtt8 >> 3);  // this sample's error against SRTT
  // SRTT += err/8 (in 8*SRTT units); stays >= 1 (the kernel's max(1, .)):
  // srtt8 - srtt8/8 >= 1 for srtt8 >= 1, and r >= 0.
  srtt8_ = static_cast<std::uint32_t>(srtt8 + m);
  // A sample below SRTT moves the mean deviation only when |err| exceeds
  // mdev, and then with gain 1/32 instead of 1/4 (the extra /8). With a
  // mask and a select, not a branch: the sign of the error is a coin toss,
  // which a branch would mispredict half the time. Both steps are formed and
  // one is taken (a shift by a count made from d's sign waits longer).
  const std::int64_t below = m >> 63;                           // -1: below SRTT, 0: not
  const std::int64_t d = ((m ^ below) - below) - (mdev4 >> 2);  // |err| - mdev
  const bool shrink = (below & ~(d >> 63)) != 0;                // below and |err| > mdev: /8
  const std::int64_t mdev4_new = mdev4 + (shrink ? d >> 3 : d);  // mdev = 3/4 mdev + 1/4 |err|
  mdev4_ = static_cast<std::uint32_t>(mdev4_new);
  // mdev_max follows the window's largest mdev; rttvar rises to it at once
  // (rttvar >= mdev_max always holds, so the max is the kernel's
  // "if (mdev > mdev_max)" branch).
  const std::int64_t mdev_max = std::max<std::int64_t>(mdev_max_, mdev4_new);
  std::int64_t rttvar = std::max<std::int64_t>(rttvar_, mdev_max);
  std::int64_t mdev_max_next = mdev_max;
  if (window_end || seq_gt(snd_una, rtt_seq_)) {
    rttvar -= (rttvar - mdev_max) >> 2;
    rtt_seq_ = snd_nxt;
    mdev_max_next = rto_min_us_;
  }
  mdev_max_ = static_cast<std::uint32_t>(mdev_max_next);
  rttvar_ = static_cast<std::uint32_t>(rttvar);
  return true;
}

inline Rto LinuxEstimator::rto() const {
  if (srtt8_ == 0) return Rto::within(initial_us_, rto_min_us_, cap_us_);
  // __tcp_set_rto(): SRTT + rttvar_us, in jiffies (rounded up to the tick);
  // tcp_bound_rto(): at most TCP_RTO_MAX. Capped before the rounding too, so
  // it works in 32 bits (ceil(min(x, cap)) capped is min(ceil(x), cap)).
  std::int64_t us = std::min<std::int64_t>(std::int64_t{srtt8_ >> 3} + rttvar_, cap_us_);
  if (tick_us_ > 1) {
    const std::uint32_t x = static_cast<std::uint32_t>(us);
    const std::uint32_t q = x / tick_us_ + (x % tick_us_ != 0);
    us = std::min<std::int64_t>(std::int64_t{q} * tick_us_, cap_us_);
  }
  // Already an Rto's value: rttvar_us >= mdev_max_us >= rto_min (the
  // window's maximum starts at rto_min), so the sum and its rounding up are
  // never below rto_min, and it was capped above.
  return Rto{static_cast<std::uint32_t>(us), cap_us_};
}

}  // namespace rto

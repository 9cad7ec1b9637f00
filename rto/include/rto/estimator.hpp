#pragma once
// The RTO estimator of RFC 6298 sections 2 and 5 (or the Linux kernel's
// variant): SRTT, RTTVAR, RTO and the exponential backoff.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstddef>
#include <optional>

#include "rto/config.hpp"
#include "rto/export.h"
#include "rto/profile.hpp"
#include "rto/seq.hpp"

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
/// __tcp_set_rto() of the Linux kernel instead (sample_linux below), in the
/// kernel's own 32-bit fields (tcp_sock's srtt_us, mdev_us, mdev_max_us,
/// rttvar_us): exact for samples up to kLinuxMaxSampleUs (536.870911 s, the
/// largest SRTT whose 8*SRTT fits 32 bits); a longer sample (up to the 1 h
/// accepted) is saturated to that bound.
///
/// Size: 40 bytes (kBytes). The configuration is not copied: the estimator
/// points at a Profile (shared by every connection with the same Config),
/// which must outlive it; Estimator(const Config&) takes a Profile::shared()
/// one, which lives until the process exits. The RTOs are held in 32-bit
/// microseconds (every RTO is <= max_rto <= 1 h < 2^32 us), the backoff and
/// SYN-timeout counts in 16 bits (saturating at Config::kMaxCount).
/// Before the first sample, and after a section-5 reset, there is no SRTT (a
/// sentinel in the state, so "no sample" cannot be confused with a zero SRTT).
/// The per-sample path (on_rtt_sample, rto()) is inline and branch-light.
class RTO_API Estimator {
 public:
  /// RFC 6298 defaults (Profile::rfc6298()): RTO = 1 s (2.1). No lookup, no lock.
  Estimator() noexcept : Estimator(Profile::rfc6298()) {}
  /// Shares `profile` (already validated; nothing is copied). `profile` must
  /// outlive this estimator and its copies. Starts with RTO = initial_rto (2.1).
  explicit Estimator(const Profile& profile) noexcept;
  /// Validates `config` (throws ConfigError) and uses Profile::shared(config),
  /// which lives until the process exits: the convenient path for a caller
  /// with one configuration, at the same 40 bytes per estimator.
  /// Starts with RTO = initial_rto (2.1).
  explicit Estimator(const Config& config) : Estimator(Profile::shared(config)) {}

  /// Feeds one RTT measurement R (2.2 for the first, 2.3 afterwards), then
  /// recomputes the RTO, which collapses any backoff (note after 5.7).
  /// Returns false, leaving the state unchanged, when R is refused: negative
  /// (the clock stepped back) or above 1 hour.
  /// The caller must apply Karn's algorithm (section 3); see RttSampler.
  bool on_rtt_sample(std::chrono::microseconds r) { return sample(r.count(), 0, 0, true); }
  /// The same, for the Linux variant's per-RTT-window tracking: a window ends
  /// when SND.UNA passes the SND.NXT recorded at the previous window end
  /// (modulo 2^32). The RFC 6298 variant ignores snd_una/snd_nxt. The one-argument
  /// form treats every sample as ending an RTT window.
  bool on_rtt_sample(std::chrono::microseconds r, std::uint32_t snd_una, std::uint32_t snd_nxt) {
    return sample(r.count(), snd_una, snd_nxt, false);
  }

  /// The retransmission timer expired (5.5): RTO = min(2*RTO, max_rto), and the
  /// backoff count increments (saturating at Config::kMaxCount). With
  /// reset_after_backoffs = N > 0, the Nth consecutive backoff clears SRTT and
  /// RTTVAR (section 5 note) while keeping the backed-off RTO.
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
  /// Number of doublings applied since the last sample (5.5); 0 when not
  /// backing off. Saturates at Config::kMaxCount (65 535).
  unsigned backoff() const { return backoff_; }
  /// The validated configuration (the Profile's).
  const Config& config() const { return p_->config(); }
  /// The Profile this estimator points at.
  const Profile& profile() const { return *p_; }

  /// Fixed-point scale of the RFC 6298 variant's SRTT/RTTVAR: 2^20 units per us.
  static constexpr int kFracBits = 20;
  /// The longest sample the Linux variant holds exactly (us): 8 * SRTT must fit
  /// the kernel's 32-bit srtt_us, so floor((2^32 - 1) / 8) = 536 870 911 us. A
  /// longer accepted sample counts as this one.
  static constexpr std::int64_t kLinuxMaxSampleUs = 536'870'911;
  /// sizeof(Estimator) on a 64-bit target: Profile pointer 8, SRTT/RTTVAR 16
  /// (or the Linux four 32-bit terms), rtt_seq 4, base and current RTO 4 + 4,
  /// backoff and SYN-timeout counts 2 + 2.
  static constexpr std::size_t kBytes = 40;

 private:
  /// RFC 6298 state: SRTT and RTTVAR in 2^-kFracBits us; srtt < 0: no sample.
  struct RfcState {
    std::int64_t srtt;
    std::int64_t rttvar;
  };
  /// Linux tcp_sock state, in the kernel's units (all us) and widths.
  /// srtt8 == 0: no sample (as the kernel's srtt_us == 0).
  struct LinuxState {
    std::uint32_t srtt8;     // srtt_us: 8 * SRTT (<= 8 * kLinuxMaxSampleUs < 2^32)
    std::uint32_t mdev4;     // mdev_us: 4 * mean deviation (<= 4 * kLinuxMaxSampleUs < 2^31)
    std::uint32_t mdev_max;  // mdev_max_us: the largest mdev4 of the window (or rto_min <= 1 h)
    std::uint32_t rttvar;    // rttvar_us: the term added to SRTT, >= rto_min (<= max(2^31, 1 h))
  };
  /// The variant's state; which member is in use is the Profile's variant.
  union State {
    RfcState rfc;
    LinuxState lin;
  };
  /// Refused samples: above 1 hour (or negative, checked apart).
  static constexpr std::int64_t kMaxSampleUs = 3'600'000'000;
  /// 1 us in the RFC 6298 fixed point.
  static constexpr std::int64_t kOne = std::int64_t{1} << kFracBits;
  /// RFC 6298 section 2: K = 4.
  static constexpr std::int64_t kK = 4;
  /// The counters' ceiling (16 bits).
  static constexpr std::uint16_t kCountMax = Config::kMaxCount;

  bool sample(std::int64_t r_us, std::uint32_t snd_una, std::uint32_t snd_nxt, bool window_end);
  std::int64_t rfc_rto(const RfcState& s) const;
  void first_sample(std::int64_t r_us, std::uint32_t snd_nxt);
  void sample_linux(std::int64_t r_us, std::uint32_t snd_una, std::uint32_t snd_nxt, bool window_end);
  std::int64_t linux_rto() const;
  void back_off();
  void clear_state();
  // Ends a group of stores to adjacent state fields, so that GCC's basic-block
  // (SLP) vectorizer does not merge them into one 16-byte store: that store
  // waits for the last value computed (rttvar), and the next sample's loads of
  // SRTT and mdev then wait on it through memory, a longer loop-carried chain
  // (bench-estimator: Linux 10.7 -> 5.2 ns, RFC 3.3 -> 3.0 ns, built with
  // -fno-tree-slp-vectorize to measure). An empty asm taking the field as a
  // memory operand; it emits no instruction.
  template <class T>
  static void end_store(T& field) {
    __asm__("" : "+m"(field));
  }
  bool has_sample() const {
    return p_->variant_ == Config::Variant::rfc6298 ? s_.rfc.srtt >= 0 : s_.lin.srtt8 != 0;
  }
  // Rounds a non-negative duration up to a multiple of the configured tick
  // (0: none): q = floor(x / tick) for x = us + tick - 1 as one multiply by the
  // Profile's m = ceil(2^(64+s) / tick) and a shift (Profile::tick_shift_ = s,
  // 2^s < tick <= 2^(s+1)). Exact for every x < 2^63: m * x / 2^(64+s) =
  // x / tick + e * x / 2^(64+s) with 0 <= e < 1, and frac(x / tick) <=
  // (tick - 1) / tick, so the floor is right while e * x / 2^(64+s) < 1 / tick,
  // which holds for x < 2^(64+s) / tick, and that is >= 2^63. Here x <=
  // 2 h in us (< 2^33).
  std::int64_t round_up_to_tick(std::int64_t us) const {
    const std::int64_t t = p_->tick_us_;
    if (t <= 1) return us;
    __extension__ typedef unsigned __int128 U128;
    const auto ut = static_cast<std::uint64_t>(t);
    const std::uint64_t x = static_cast<std::uint64_t>(us) + (ut - 1);
    const auto hi = static_cast<std::uint64_t>((static_cast<U128>(x) * p_->tick_recip_) >> 64);
    return static_cast<std::int64_t>((hi >> p_->tick_shift_) * ut);
  }

  const Profile* p_;
  State s_;
  std::uint32_t rtt_seq_ = 0;       // Linux: SND.NXT at the start of the current RTT window
  std::uint32_t base_rto_us_ = 0;   // RTO before backoff, us (<= max_rto <= 1 h)
  std::uint32_t rto_us_ = 0;        // current RTO incl. backoff, us (<= max_rto)
  std::uint16_t backoff_ = 0;       // consecutive doublings since the last sample (5.5)
  std::uint16_t syn_timeouts_ = 0;  // SYN timer expiries (the linear ones are not backoffs)
};

// RFC 6298 section 2 (2.3 update, RTO formula, 2.4 floor, 2.5 cap) inline: the
// per-ACK path. Integer fixed point, rounded to nearest; no division unless a
// tick is configured.
inline std::int64_t Estimator::rfc_rto(const RfcState& s) const {
  // RTO <- SRTT + max(G, K*RTTVAR), rounded UP to a whole microsecond so the
  // timer is never early. impl: RFC6298-2.2 RFC6298-2.3 RFC6298-4-clock
  const std::int64_t var_term = std::max(p_->granularity_fx_, kK * s.rttvar);
  const std::int64_t raw = s.srtt + var_term;  // <= 5 h in 2^-20 us ~ 1.9e16
  std::int64_t us = round_up_to_tick((raw + kOne - 1) >> kFracBits);
  // 2.4: "Whenever RTO is computed, if it is less than 1 second, then the RTO
  // SHOULD be rounded up to 1 second" (min_rto). impl: RFC6298-2.4
  us = std::max(us, p_->min_rto_us_);
  // 2.5: "A maximum value MAY be placed on RTO provided it is at least 60
  // seconds." impl: RFC6298-2.5
  return std::min(us, p_->max_rto_us_);
}

inline bool Estimator::sample(std::int64_t r_us, std::uint32_t snd_una, std::uint32_t snd_nxt,
                              bool window_end) {
  // A negative elapsed time (the clock stepped back) or an absurd one is refused.
  if (static_cast<std::uint64_t>(r_us) > static_cast<std::uint64_t>(kMaxSampleUs)) [[unlikely]]
    return false;
  if (p_->variant_ == Config::Variant::rfc6298) [[likely]] {
    RfcState& s = s_.rfc;
    if (s.srtt < 0) [[unlikely]] {
      first_sample(r_us, snd_nxt);  // 2.2
    } else {
      // 2.3: RTTVAR <- (1 - beta) * RTTVAR + beta * |SRTT - R'| with beta = 1/4,
      //      using the OLD SRTT ...  impl: RFC6298-2.3
      const std::int64_t r = r_us * kOne;  // <= 3.6e9 * 2^20 ~ 3.8e15, far below 2^63
      const std::int64_t err = s.srtt > r ? s.srtt - r : r - s.srtt;
      s.rttvar = (3 * s.rttvar + err + 2) >> 2;
      end_store(s.rttvar);
      // ... then SRTT <- (1 - alpha) * SRTT + alpha * R' with alpha = 1/8.
      s.srtt = (7 * s.srtt + r + 4) >> 3;
      base_rto_us_ = static_cast<std::uint32_t>(rfc_rto(s));  // <= max_rto <= 1 h
    }
  } else if (s_.lin.srtt8 == 0) [[unlikely]] {
    first_sample(r_us, snd_nxt);
  } else {
    sample_linux(r_us, snd_una, snd_nxt, window_end);
    base_rto_us_ = static_cast<std::uint32_t>(linux_rto());  // <= max_rto <= 1 h
  }
  // Note after 5.7: a new RTT sample recomputes RTO from SRTT/RTTVAR, which
  // collapses the exponential backoff of 5.5. impl: RFC6298-5-collapse
  rto_us_ = base_rto_us_;
  backoff_ = 0;
  return true;
}

// Linux tcp_rtt_estimator(), described: srtt_us holds 8*SRTT; mdev_us holds 4*mean
// deviation; mdev_max_us is the largest mdev_us seen in the current RTT window;
// rttvar_us (the term added to SRTT) rises at once to mdev_max_us, and at the end
// of each RTT window (SND.UNA passes the SND.NXT recorded at its start) decays by a
// quarter of its excess over mdev_max_us, after which mdev_max_us restarts at
// rto_min. Integer arithmetic in us, truncating like the kernel.
inline void Estimator::sample_linux(std::int64_t r_us, std::uint32_t snd_una, std::uint32_t snd_nxt,
                                    bool window_end) {
  LinuxState& s = s_.lin;
  // The kernel's 32-bit fields bound the sample (kLinuxMaxSampleUs); then, by
  // induction, srtt8 <= 8 * that < 2^32 and mdev4 <= 4 * that < 2^31 below.
  const std::int64_t r = std::min(r_us, kLinuxMaxSampleUs);
  const std::int64_t srtt8 = s.srtt8;
  const std::int64_t mdev4 = s.mdev4;
  std::int64_t m = r - (srtt8 >> 3);  // error of this sample against SRTT
  // SRTT += err/8 (in 8*SRTT units). It stays >= 1 (the kernel's max(1, .)):
  // srtt8 - srtt8/8 >= 1 for srtt8 >= 1, and r >= 0.
  s.srtt8 = static_cast<std::uint32_t>(srtt8 + m);
  end_store(s.srtt8);
  // Sample below SRTT: the mean deviation only grows if |err| exceeds mdev,
  // and then with gain 1/32 instead of 1/4 (the extra /8). In masks, not
  // conditions, so no compiler makes a branch of it (the sign of the error
  // is a coin toss: a branch on it mispredicts half the time).
  const std::int64_t below = m >> 63;                   // -1: sample below SRTT, 0: not
  std::int64_t d = ((m ^ below) - below) - (mdev4 >> 2);  // |err| - mdev
  d >>= (below & ~(d >> 63)) & 3;                       // below and |err| > mdev: /8 (d = 0: no matter)
  const std::int64_t mdev4_new = mdev4 + d;  // mdev = 3/4 mdev + 1/4 |err| (in 4*mdev units)
  s.mdev4 = static_cast<std::uint32_t>(mdev4_new);
  end_store(s.mdev4);
  // mdev_max tracks the window's largest mdev; rttvar rises to it at once.
  // (rttvar >= mdev_max always holds, so the max is a no-op when mdev_max
  // did not rise, as in the kernel's "if (mdev > mdev_max)" branch.)
  const std::int64_t mdev_max = std::max<std::int64_t>(s.mdev_max, mdev4_new);
  std::int64_t rttvar = std::max<std::int64_t>(s.rttvar, mdev_max);
  std::int64_t mdev_max_next = mdev_max;
  // The window ends when SND.UNA passes rtt_seq (modulo 2^32): rttvar decays
  // by a quarter of its excess over mdev_max (0 when equal), mdev_max restarts.
  if (window_end || seq_gt(snd_una, rtt_seq_)) {
    rttvar -= (rttvar - mdev_max) >> 2;
    rtt_seq_ = snd_nxt;
    mdev_max_next = p_->min_rto_us_;
  }
  s.mdev_max = static_cast<std::uint32_t>(mdev_max_next);
  end_store(s.mdev_max);
  s.rttvar = static_cast<std::uint32_t>(rttvar);
}

// __tcp_set_rto(): RTO = SRTT + rttvar, in jiffies (rounded up to the tick);
// tcp_bound_rto(): capped at TCP_RTO_MAX. No separate floor: rto_min acts
// through rttvar >= rto_min.
inline std::int64_t Estimator::linux_rto() const {
  const LinuxState& s = s_.lin;
  return std::min(round_up_to_tick(std::int64_t{s.srtt8 >> 3} + s.rttvar), p_->max_rto_us_);
}

}  // namespace rto

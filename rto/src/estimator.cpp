// rto::Estimator: RFC 6298 sections 2 and 5 (5.5, 5.7, the section 5 note),
// and a Linux-kernel variant written from the kernel's documented behaviour.

#include "rto/estimator.hpp"

#include <algorithm>
#include <climits>

#include "rto/seq.hpp"

namespace rto {

namespace {

using std::chrono::microseconds;

constexpr std::int64_t kMaxSampleUs = 3'600'000'000;  // 1 hour
constexpr std::int64_t kOne = std::int64_t{1} << Estimator::kFracBits;  // 1 us in fixed point
constexpr std::int64_t kK = 4;  // RFC 6298 section 2: K = 4

// Rounds a non-negative duration up to a multiple of `tick` (tick 0 = no rounding).
std::int64_t round_up_to(std::int64_t us, std::int64_t tick) {
  if (tick <= 0) return us;
  return (us + tick - 1) / tick * tick;
}

// Divides a non-negative fixed-point value by 2^shift, rounding to nearest.
constexpr std::int64_t shr_round(std::int64_t v, int shift) {
  return (v + (std::int64_t{1} << (shift - 1))) >> shift;
}

}  // namespace

Estimator::Estimator(Config config) : cfg_(config) {
  cfg_.validate();
  // 2.1: "Until a round-trip time (RTT) measurement has been made ... the sender
  // SHOULD set RTO <- 1 second" (the configured initial_rto).
  base_rto_us_ = cfg_.initial_rto.count();
  rto_us_ = base_rto_us_;
}

bool Estimator::on_rtt_sample(microseconds r) { return sample(r.count(), 0, 0, true); }

bool Estimator::on_rtt_sample(microseconds r, std::uint32_t snd_una, std::uint32_t snd_nxt) {
  return sample(r.count(), snd_una, snd_nxt, false);
}

bool Estimator::sample(std::int64_t r_us, std::uint32_t snd_una, std::uint32_t snd_nxt,
                       bool window_end) {
  // A negative elapsed time (clock stepped back, B05) or an absurd one is refused.
  if (r_us < 0 || r_us > kMaxSampleUs) return false;
  if (cfg_.variant == Config::Variant::linux_kernel) {
    sample_linux(r_us, snd_una, snd_nxt, window_end);
  } else {
    sample_rfc6298(r_us);
  }
  has_sample_ = true;
  recompute_base();
  // Note after 5.7: a new RTT sample recomputes RTO from SRTT/RTTVAR, which
  // collapses the exponential backoff of 5.5.
  rto_us_ = base_rto_us_;
  backoff_ = 0;
  consecutive_timeouts_ = 0;
  return true;
}

void Estimator::sample_rfc6298(std::int64_t r_us) {
  const std::int64_t r = r_us * kOne;  // <= 3.6e9 * 2^20 ~ 3.8e15, far below 2^63
  if (!has_sample_) {
    // 2.2: SRTT <- R, RTTVAR <- R/2 (exact in fixed point).
    srtt_ = r;
    rttvar_ = r / 2;
    return;
  }
  // 2.3: RTTVAR <- (1 - beta) * RTTVAR + beta * |SRTT - R'| with beta = 1/4,
  //      using the OLD SRTT (B01) ...
  const std::int64_t err = srtt_ > r ? srtt_ - r : r - srtt_;
  rttvar_ = shr_round(3 * rttvar_ + err, 2);
  // ... then SRTT <- (1 - alpha) * SRTT + alpha * R' with alpha = 1/8.
  srtt_ = shr_round(7 * srtt_ + r, 3);
}

// Linux tcp_rtt_estimator(), described: srtt_us holds 8*SRTT; mdev_us holds 4*mean
// deviation; mdev_max_us is the largest mdev_us seen in the current RTT window;
// rttvar_us (the term added to SRTT) rises at once to mdev_max_us, and at the end
// of each RTT window (SND.UNA passes the SND.NXT recorded at its start) decays by a
// quarter of its excess over mdev_max_us, after which mdev_max_us restarts at
// rto_min. Integer arithmetic in us, truncating like the kernel.
void Estimator::sample_linux(std::int64_t r_us, std::uint32_t snd_una, std::uint32_t snd_nxt,
                             bool window_end) {
  const std::int64_t rto_min = cfg_.min_rto.count();
  std::int64_t m = r_us;
  if (!has_sample_) {
    // First sample: SRTT = R, mdev = 2R (so RTO starts near 3R), rttvar floored at rto_min.
    srtt_ = m << 3;
    mdev_ = m << 1;
    rttvar_ = std::max(mdev_, rto_min);
    mdev_max_ = rttvar_;
    rtt_seq_ = snd_nxt;
    srtt_ = std::max<std::int64_t>(1, srtt_);
    return;
  }
  m -= srtt_ >> 3;  // error of this sample against SRTT
  srtt_ += m;       // SRTT += err/8 (in 8*SRTT units)
  if (m < 0) {
    // Sample below SRTT: the mean deviation only grows if |err| exceeds mdev,
    // and then with gain 1/32 instead of 1/4 (the extra /8).
    m = -m;
    m -= mdev_ >> 2;
    if (m > 0) m >>= 3;
  } else {
    m -= mdev_ >> 2;
  }
  mdev_ += m;  // mdev = 3/4 mdev + 1/4 |err| (in 4*mdev units)
  if (mdev_ > mdev_max_) {
    mdev_max_ = mdev_;
    if (mdev_max_ > rttvar_) rttvar_ = mdev_max_;  // rises immediately
  }
  const bool window_over = window_end || seq_gt(snd_una, rtt_seq_);
  if (window_over) {
    if (mdev_max_ < rttvar_) rttvar_ -= (rttvar_ - mdev_max_) >> 2;  // decays by 1/4 of the gap
    rtt_seq_ = snd_nxt;
    mdev_max_ = rto_min;
  }
  srtt_ = std::max<std::int64_t>(1, srtt_);
}

void Estimator::recompute_base() {
  const std::int64_t cap = cfg_.max_rto.count();
  if (!has_sample_) return;
  std::int64_t rto_us;
  if (cfg_.variant == Config::Variant::linux_kernel) {
    // __tcp_set_rto(): RTO = SRTT + rttvar, in jiffies (rounded up to the tick);
    // tcp_bound_rto(): capped at TCP_RTO_MAX. No separate floor: rto_min acts
    // through rttvar >= rto_min.
    rto_us = round_up_to((srtt_ >> 3) + rttvar_, cfg_.tick.count());
  } else {
    // Section 2 (2.2, 2.3): RTO <- SRTT + max(G, K*RTTVAR), rounded UP to a whole
    // microsecond so the timer is never early.
    const std::int64_t var_term = std::max(cfg_.granularity.count() * kOne, kK * rttvar_);
    const std::int64_t raw = srtt_ + var_term;  // <= 5 h in 2^-20 us ~ 1.9e16
    rto_us = round_up_to((raw + kOne - 1) >> kFracBits, cfg_.tick.count());
    // 2.4: "Whenever RTO is computed, if it is less than 1 second, then the RTO
    // SHOULD be rounded up to 1 second" (min_rto).
    rto_us = std::max(rto_us, cfg_.min_rto.count());
  }
  // 2.5: "A maximum value MAY be placed on RTO provided it is at least 60 seconds."
  base_rto_us_ = std::min(rto_us, cap);
}

void Estimator::back_off() {
  // 5.5: "The host MUST set RTO <- RTO * 2 ("back off the timer")", with the
  // 2.5 maximum applied. rto_us_ <= max_rto <= 1 h, so 2*rto_us_ cannot overflow,
  // however many backoffs happen (B13).
  rto_us_ = std::min(rto_us_ * 2, cfg_.max_rto.count());
  if (backoff_ < UINT_MAX) ++backoff_;
  if (consecutive_timeouts_ < UINT_MAX) ++consecutive_timeouts_;
  // Section 5 note: after several backoffs SRTT/RTTVAR MAY be cleared so the next
  // sample re-initialises them as in 2.2. The backed-off RTO stays in force.
  if (cfg_.reset_after_backoffs != 0 && consecutive_timeouts_ == cfg_.reset_after_backoffs &&
      has_sample_) {
    has_sample_ = false;
    srtt_ = rttvar_ = mdev_ = mdev_max_ = 0;
  }
}

void Estimator::on_timeout() { back_off(); }

void Estimator::on_syn_timeout() {
  // Linux tcp_syn_linear_timeouts: the first N SYN retransmission timeouts keep
  // the RTO (a departure from 5.5, off in the RFC profile).
  if (syn_timeouts_ < cfg_.syn_linear_timeouts) {
    ++syn_timeouts_;
    return;
  }
  if (syn_timeouts_ < UINT_MAX) ++syn_timeouts_;
  back_off();  // 5.5
}

void Estimator::on_handshake_complete(bool syn_timed_out) {
  const std::int64_t fallback = cfg_.syn_fallback_rto.count();
  if (cfg_.variant == Config::Variant::linux_kernel) {
    // tcp_init_metrics(): with no RTT sample from the handshake, RTO = 3 s
    // (the kernel also sets its variance terms to 3 s, but SRTT stays 0, so the
    // next sample is a first sample and overwrites them).
    if (!has_sample_) {
      base_rto_us_ = fallback;
      rto_us_ = fallback;
      backoff_ = 0;
    }
    return;
  }
  // 5.7: "if the timer expires awaiting the ACK of a SYN segment and the TCP
  // implementation is using an RTO less than 3 seconds, the RTO MUST be
  // re-initialized to 3 seconds when data transmission begins". "Using an RTO
  // less than 3 seconds" is the RTO the implementation uses before backoff (the
  // 1 s of 2.1, or one computed from a handshake sample): after two lost SYNs the
  // backed-off 4 s is re-initialized to 3 s as well, and the backoff ends.
  // Only the RTO: SRTT and RTTVAR are not seeded (B15); the next sample is used
  // as usual.
  if (syn_timed_out && base_rto_us_ < fallback) {
    base_rto_us_ = fallback;
    rto_us_ = fallback;
    backoff_ = 0;
    consecutive_timeouts_ = 0;
  }
}

std::optional<microseconds> Estimator::srtt() const {
  if (!has_sample_) return std::nullopt;
  if (cfg_.variant == Config::Variant::linux_kernel) return microseconds{srtt_ >> 3};
  return microseconds{shr_round(srtt_, kFracBits)};
}

std::optional<microseconds> Estimator::rttvar() const {
  if (!has_sample_) return std::nullopt;
  if (cfg_.variant == Config::Variant::linux_kernel) return microseconds{mdev_ >> 2};
  return microseconds{shr_round(rttvar_, kFracBits)};
}

std::optional<microseconds> Estimator::linux_rttvar() const {
  if (!has_sample_ || cfg_.variant != Config::Variant::linux_kernel) return std::nullopt;
  return microseconds{rttvar_};
}

}  // namespace rto

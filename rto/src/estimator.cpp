// rto::Estimator: RFC 6298 sections 2 and 5 (5.5, 5.7, the section 5 note),
// and a Linux-kernel variant written from the kernel's documented behaviour.
// The per-sample path is inline in estimator.hpp; here are the first sample,
// backoff, the handshake fallback and the read-outs.

#include "rto/estimator.hpp"

#include <algorithm>

namespace rto {

namespace {

using std::chrono::microseconds;

// Divides a non-negative fixed-point value by 2^shift, rounding to nearest.
constexpr std::int64_t shr_round(std::int64_t v, int shift) {
  return (v + (std::int64_t{1} << (shift - 1))) >> shift;
}

}  // namespace

static_assert(sizeof(Estimator) == Estimator::kBytes, "Estimator layout changed: update kBytes");

Estimator::Estimator(const Profile& profile) noexcept : p_(&profile) {
  clear_state();
  // 2.1: "Until a round-trip time (RTT) measurement has been made ... the sender
  // SHOULD set RTO <- 1 second" (the configured initial_rto). impl: RFC6298-2.1
  base_rto_us_ = static_cast<std::uint32_t>(profile.cfg_.initial_rto.count());  // <= 1 h < 2^32
  rto_us_ = base_rto_us_;
}

void Estimator::clear_state() {
  if (p_->variant_ == Config::Variant::rfc6298)
    s_.rfc = RfcState{-1, 0};
  else
    s_.lin = LinuxState{0, 0, 0, 0};
}

void Estimator::first_sample(std::int64_t r_us, std::uint32_t snd_nxt) {
  if (p_->variant_ == Config::Variant::linux_kernel) {
    // First sample: SRTT = R, mdev = 2R (so RTO starts near 3R), rttvar floored at rto_min.
    const std::int64_t r = std::min(r_us, kLinuxMaxSampleUs);  // the 32-bit fields' bound
    LinuxState s{};
    s.srtt8 = static_cast<std::uint32_t>(std::max<std::int64_t>(1, r << 3));
    s.mdev4 = static_cast<std::uint32_t>(r << 1);
    s.rttvar = static_cast<std::uint32_t>(std::max<std::int64_t>(s.mdev4, p_->min_rto_us_));
    s.mdev_max = s.rttvar;
    s_.lin = s;
    rtt_seq_ = snd_nxt;
    base_rto_us_ = static_cast<std::uint32_t>(linux_rto());
    return;
  }
  // 2.2: SRTT <- R, RTTVAR <- R/2 (exact in fixed point). impl: RFC6298-2.2
  const std::int64_t r = r_us * kOne;
  s_.rfc = RfcState{r, r / 2};
  base_rto_us_ = static_cast<std::uint32_t>(rfc_rto(s_.rfc));
}

void Estimator::back_off() {
  // 5.5: "The host MUST set RTO <- RTO * 2 ("back off the timer")", with the
  // 2.5 maximum applied. rto_us_ <= max_rto <= 1 h, so 2*rto_us_ cannot overflow
  // (computed in 64 bits), however many backoffs happen (B13). impl: RFC6298-5.5
  rto_us_ = static_cast<std::uint32_t>(std::min(std::int64_t{rto_us_} * 2, p_->max_rto_us_));
  if (backoff_ < kCountMax) ++backoff_;
  // Section 5 note: after several backoffs SRTT/RTTVAR MAY be cleared so the next
  // sample re-initialises them as in 2.2. The backed-off RTO stays in force.
  // backoff_ counts the consecutive backoffs: a sample or the 5.7 fallback
  // clears it. reset_after_backoffs <= kMaxCount, so the count reaches it.
  // impl: RFC6298-5-reset
  const unsigned reset = p_->cfg_.reset_after_backoffs;
  if (reset != 0 && backoff_ == reset) clear_state();
}

void Estimator::on_timeout() { back_off(); }

void Estimator::on_syn_timeout() {
  // Linux tcp_syn_linear_timeouts: the first N SYN retransmission timeouts keep
  // the RTO (a departure from 5.5, off in the RFC profile).
  if (syn_timeouts_ < p_->cfg_.syn_linear_timeouts) {  // <= kMaxCount: the count reaches it
    ++syn_timeouts_;
    return;
  }
  if (syn_timeouts_ < kCountMax) ++syn_timeouts_;
  back_off();  // 5.5
}

void Estimator::on_handshake_complete(bool syn_timed_out) {
  const auto fallback = static_cast<std::uint32_t>(p_->cfg_.syn_fallback_rto.count());  // <= 1 h
  if (p_->variant_ == Config::Variant::linux_kernel) {
    // tcp_init_metrics(): with no RTT sample from the handshake, RTO = 3 s
    // (the kernel also sets its variance terms to 3 s, but SRTT stays 0, so the
    // next sample is a first sample and overwrites them).
    if (!has_sample()) {
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
  // as usual. impl: RFC6298-5.7
  if (syn_timed_out && base_rto_us_ < fallback) {
    base_rto_us_ = fallback;
    rto_us_ = fallback;
    backoff_ = 0;
  }
}

std::optional<microseconds> Estimator::srtt() const {
  if (!has_sample()) return std::nullopt;
  if (p_->variant_ == Config::Variant::linux_kernel) return microseconds{s_.lin.srtt8 >> 3};
  return microseconds{shr_round(s_.rfc.srtt, kFracBits)};
}

std::optional<microseconds> Estimator::rttvar() const {
  if (!has_sample()) return std::nullopt;
  if (p_->variant_ == Config::Variant::linux_kernel) return microseconds{s_.lin.mdev4 >> 2};
  return microseconds{shr_round(s_.rfc.rttvar, kFracBits)};
}

std::optional<microseconds> Estimator::linux_rttvar() const {
  if (p_->variant_ != Config::Variant::linux_kernel || !has_sample()) return std::nullopt;
  return microseconds{s_.lin.rttvar};
}

}  // namespace rto

// rto::Estimator: RFC 6298 sections 2 and 5 (5.5, 5.7, the section 5 note),
// and a Linux-kernel variant written from the kernel's documented behaviour.
// The per-sample path is inline in estimator.hpp; here are the first sample,
// backoff, the handshake fallback and the read-outs.

#include "rto/estimator.hpp"

#include <climits>

namespace rto {

namespace {

using std::chrono::microseconds;

// Divides a non-negative fixed-point value by 2^shift, rounding to nearest.
constexpr std::int64_t shr_round(std::int64_t v, int shift) {
  return (v + (std::int64_t{1} << (shift - 1))) >> shift;
}

}  // namespace

Estimator::Estimator(Config config) : cfg_(config) {
  cfg_.validate();
  if (cfg_.tick.count() > 0)
    tick_recip_ = UINT64_MAX / static_cast<std::uint64_t>(cfg_.tick.count());
  // 2.1: "Until a round-trip time (RTT) measurement has been made ... the sender
  // SHOULD set RTO <- 1 second" (the configured initial_rto). impl: RFC6298-2.1
  base_rto_us_ = cfg_.initial_rto.count();
  rto_us_ = base_rto_us_;
}

void Estimator::first_sample(std::int64_t r_us, std::uint32_t snd_nxt) {
  if (cfg_.variant == Config::Variant::linux_kernel) {
    // First sample: SRTT = R, mdev = 2R (so RTO starts near 3R), rttvar floored at rto_min.
    LinuxState s{};
    s.srtt8 = std::max<std::int64_t>(1, r_us << 3);
    s.mdev4 = r_us << 1;
    s.rttvar = std::max(s.mdev4, cfg_.min_rto.count());
    s.mdev_max = s.rttvar;
    s.rtt_seq = snd_nxt;
    state_ = s;
    base_rto_us_ = linux_rto(s);
    return;
  }
  // 2.2: SRTT <- R, RTTVAR <- R/2 (exact in fixed point). impl: RFC6298-2.2
  const std::int64_t r = r_us * kOne;
  const RfcState s{r, r / 2};
  state_ = s;
  base_rto_us_ = rfc_rto(s);
}

void Estimator::back_off() {
  // 5.5: "The host MUST set RTO <- RTO * 2 ("back off the timer")", with the
  // 2.5 maximum applied. rto_us_ <= max_rto <= 1 h, so 2*rto_us_ cannot overflow,
  // however many backoffs happen (B13). impl: RFC6298-5.5
  rto_us_ = std::min(rto_us_ * 2, cfg_.max_rto.count());
  if (backoff_ < UINT_MAX) ++backoff_;
  // Section 5 note: after several backoffs SRTT/RTTVAR MAY be cleared so the next
  // sample re-initialises them as in 2.2. The backed-off RTO stays in force.
  // backoff_ counts the consecutive backoffs: a sample or the 5.7 fallback
  // clears it. impl: RFC6298-5-reset
  if (cfg_.reset_after_backoffs != 0 && backoff_ == cfg_.reset_after_backoffs) state_ = std::monostate{};
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
  if (const auto* l = std::get_if<LinuxState>(&state_)) return microseconds{l->srtt8 >> 3};
  if (const auto* s = std::get_if<RfcState>(&state_)) return microseconds{shr_round(s->srtt, kFracBits)};
  return std::nullopt;
}

std::optional<microseconds> Estimator::rttvar() const {
  if (const auto* l = std::get_if<LinuxState>(&state_)) return microseconds{l->mdev4 >> 2};
  if (const auto* s = std::get_if<RfcState>(&state_)) return microseconds{shr_round(s->rttvar, kFracBits)};
  return std::nullopt;
}

std::optional<microseconds> Estimator::linux_rttvar() const {
  if (const auto* l = std::get_if<LinuxState>(&state_)) return microseconds{l->rttvar};
  return std::nullopt;
}

}  // namespace rto

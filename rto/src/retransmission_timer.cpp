// rto::RetransmissionTimer: RFC 6298 section 5 (5.1-5.7) on absolute
// deadlines, the backoff of 5.5, Linux's linear SYN expiries, and RFC 1122 R2.

#include "rto/retransmission_timer.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace rto {

using std::chrono::microseconds;

static_assert(sizeof(RetransmissionTimer) == RetransmissionTimer::kBytes,
              "RetransmissionTimer layout changed: update kBytes");

namespace {

// `from` + `d` (d > 0), saturating at the end of the clock.
Instant later(Instant from, microseconds d) {
  std::int64_t at;
  if (__builtin_add_overflow(from.time_since_epoch().count(), d.count(), &at)) return Instant::max();
  return Instant{microseconds{at}};
}

std::uint16_t count16(unsigned n) { return static_cast<std::uint16_t>(std::min<unsigned>(n, Config::kMaxCount)); }

}  // namespace

RetransmissionTimer::RetransmissionTimer(const Config& profile, const RetryLimits& limits)
    : RetransmissionTimer((profile.validate(), profile), limits, Trusted{}) {}

RetransmissionTimer::RetransmissionTimer(const Config& c, const RetryLimits& limits, Trusted) noexcept
    : max_retry_time_(limits.max_retry_time),
      // 2.1: "Until a round-trip time (RTT) measurement has been made ... the
      // sender SHOULD set RTO <- 1 second" (initial_rto). impl: RFC6298-2.1
      base_(Rto::clamped(c.initial_rto, c.min_rto, c.max_rto)),
      fallback_us_(static_cast<std::uint32_t>(Rto::clamped(c.syn_fallback_rto, c.min_rto, c.max_rto).get().count())),
      max_backoffs_(limits.max_backoffs),
      max_syn_backoffs_(limits.max_syn_backoffs),
      syn_linear_(count16(c.syn_linear_timeouts)),
      reset_after_(count16(c.reset_after_backoffs)),
      linux_fallback_(c.variant == Config::Variant::linux_kernel) {}

void RetransmissionTimer::restart(Instant from, Rto rto) { deadline_ = later(from, rto.get()); }

void RetransmissionTimer::restart(Instant from) { restart(from, rto()); }

void RetransmissionTimer::on_progress() {
  retries_ = 0;
  give_up_at_ = kStopped;
}

void RetransmissionTimer::on_data_sent(Instant now) {
  // 5.1: "Every time a packet containing data is sent (including a
  // retransmission), if the timer is not running, start it running so that it
  // will expire after RTO seconds (for the current value of RTO)". A running
  // timer is not moved. impl: RFC6298-5.1
  if (!running()) restart(now);
}

void RetransmissionTimer::on_all_acked() {
  // 5.2: "When all outstanding data has been acknowledged, turn off the
  // retransmission timer." impl: RFC6298-5.2
  stop();
  on_progress();
}

void RetransmissionTimer::on_new_data_acked(Instant now) {
  // 5.3: "When an ACK is received that acknowledges new data, restart the
  // retransmission timer so that it will expire after RTO seconds (for the
  // current value of RTO)." impl: RFC6298-5.3
  restart(now);
  on_progress();
}

RetryVerdict RetransmissionTimer::check_limits(Instant now, bool syn) {
  // RFC 1122 4.2.3.5 (R2): give up after max_syn_backoffs / max_backoffs
  // expiries in a row, or max_retry_time after the first of them.
  // impl: RFC1122-4.2.3.5
  if (max_retry_time_ > microseconds::zero()) {
    if (give_up_at_ == kStopped) give_up_at_ = later(now, max_retry_time_);
    if (now >= give_up_at_) return RetryVerdict::TimeLimit;
  }
  if (retries_ >= (syn ? max_syn_backoffs_ : max_backoffs_)) return RetryVerdict::BackoffLimit;
  if (retries_ < std::numeric_limits<std::uint32_t>::max()) ++retries_;
  return RetryVerdict::Retransmit;
}

bool RetransmissionTimer::back_off() {
  // 5.5: "The host MUST set RTO <- RTO * 2 ("back off the timer")", with the
  // 2.5 maximum applied: rto() doubles base_rto() per backoff, saturating at
  // the cap without overflow however many come. impl: RFC6298-5.5
  if (backoff_ < Config::kMaxCount) ++backoff_;
  // Section 5 note: after several backoffs SRTT/RTTVAR MAY be cleared so the
  // next sample re-initialises them as in 2.2; the backed-off RTO stays.
  // reset_after_backoffs <= kMaxCount, so the count reaches it.
  // impl: RFC6298-5-reset
  return reset_after_ != 0 && backoff_ == reset_after_;
}

Expiry RetransmissionTimer::on_expiry(Instant now) {
  const RetryVerdict v = check_limits(now, false);
  if (v != RetryVerdict::Retransmit) {
    stop();
    return {v, false};
  }
  // 5.4: the caller retransmits the earliest segment not yet acknowledged.
  // 5.5: back off. impl: RFC6298-5.4
  const bool forget = back_off();
  // 5.6: "Start the retransmission timer, such that it expires after RTO
  // seconds (for the value of RTO after the doubling operation outlined in
  // 5.5)." impl: RFC6298-5.6
  restart(now);
  return {RetryVerdict::Retransmit, forget};
}

Expiry RetransmissionTimer::on_syn_expiry(Instant now) {
  const RetryVerdict v = check_limits(now, true);
  if (v != RetryVerdict::Retransmit) {
    stop();
    return {v, false};
  }
  bool forget = false;
  // Linux tcp_syn_linear_timeouts: the first N SYN expiries keep the RTO (a
  // departure from 5.5; none in the RFC 6298 profile).
  if (syn_timeouts_ < syn_linear_) {
    ++syn_timeouts_;
  } else {
    if (syn_timeouts_ < Config::kMaxCount) ++syn_timeouts_;
    forget = back_off();  // 5.5
  }
  restart(now);  // 5.6
  return {RetryVerdict::Retransmit, forget};
}

void RetransmissionTimer::on_handshake_complete(bool syn_timed_out, bool rtt_sampled) {
  const bool fall_back =
      linux_fallback_
          // tcp_init_metrics(): with no RTT sample from the handshake, RTO = 3 s
          // (TCP_TIMEOUT_FALLBACK) when data begins.
          ? !rtt_sampled
          // 5.7: "if the timer expires awaiting the ACK of a SYN segment and the
          // TCP implementation is using an RTO less than 3 seconds, the RTO MUST
          // be re-initialized to 3 seconds when data transmission begins".
          // "Using an RTO less than 3 seconds" is the RTO before backoff (the 1 s
          // of 2.1, or one computed from a handshake sample): after two lost
          // SYNs the backed-off 4 s is re-initialized to 3 s as well.
          // impl: RFC6298-5.7
          : syn_timed_out && base_.get().count() < std::int64_t{fallback_us_};
  if (!fall_back) return;
  base_ = Rto::clamped(microseconds{fallback_us_}, microseconds{fallback_us_}, base_.cap());
  backoff_ = 0;
}

}  // namespace rto

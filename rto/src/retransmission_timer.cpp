// rto::RetransmissionTimer: RFC 6298 section 5 (5.1-5.6) on absolute deadlines.

#include "rto/retransmission_timer.hpp"

#include <algorithm>
#include <cstdint>

namespace rto {

using std::chrono::microseconds;

static_assert(sizeof(RetransmissionTimer) == RetransmissionTimer::kBytes,
              "RetransmissionTimer layout changed: update kBytes");

void RetransmissionTimer::start(Instant now, microseconds rto) {
  // Saturate instead of overflowing for a `now` near either end of the clock;
  // Instant::min() marks a stopped timer, so a running one starts at min + 1 us.
  std::int64_t at;
  if (__builtin_add_overflow(now.time_since_epoch().count(), rto.count(), &at))
    at = rto.count() > 0 ? Instant::max().time_since_epoch().count() : Instant::min().time_since_epoch().count();
  deadline_ = std::max(Instant{microseconds{at}}, kStopped + microseconds{1});
}

void RetransmissionTimer::on_data_sent(Instant now, microseconds rto) {
  // 5.1: "Every time a packet containing data is sent (including a
  // retransmission), if the timer is not running, start it running so that it
  // will expire after RTO seconds". A running timer is not moved. impl: RFC6298-5.1
  if (!running()) start(now, rto);
}

void RetransmissionTimer::on_all_acked() {
  // 5.2: "When all outstanding data has been acknowledged, turn off the
  // retransmission timer." impl: RFC6298-5.2
  stop();
}

void RetransmissionTimer::on_new_data_acked(Instant now, microseconds rto) {
  // 5.3: "When an ACK is received that acknowledges new data, restart the
  // retransmission timer so that it will expire after RTO seconds". impl: RFC6298-5.3
  start(now, rto);
}

bool RetransmissionTimer::expired(Instant now) const { return running() && now >= deadline_; }

void RetransmissionTimer::on_expiry(Instant now, Estimator& estimator) {
  // 5.4: the caller retransmits the earliest segment not yet acknowledged.
  // impl: RFC6298-5.4 (the event) RFC6298-5.5 (the doubling, in the estimator)
  // 5.5: RTO <- RTO * 2, capped (Estimator::on_timeout counts the backoff).
  estimator.on_timeout();
  // 5.6: "Start the retransmission timer, such that it expires after RTO seconds
  // (for the value of RTO after the doubling operation outlined in 5.5)." (B09)
  // impl: RFC6298-5.6
  start(now, estimator.rto());
}

void RetransmissionTimer::on_syn_expiry(Instant now, Estimator& estimator) {
  // 5.4-5.6 for the SYN; the estimator may apply Linux's linear SYN timeouts.
  estimator.on_syn_timeout();
  start(now, estimator.rto());
}

void RetransmissionTimer::restart(Instant now, microseconds rto) { start(now, rto); }

void RetransmissionTimer::stop() { deadline_ = kStopped; }

Instant RetransmissionTimer::deadline() const { return running() ? deadline_ : Instant::max(); }

}  // namespace rto

#pragma once
// The retransmission timer of RFC 6298 section 5 (rules 5.1-5.7) as events on
// absolute deadlines.

#include <chrono>
#include <cstddef>

#include "rto/clock.hpp"
#include "rto/estimator.hpp"
#include "rto/export.h"

namespace rto {

/// One connection's retransmission timer (RFC 6298 section 5). It holds an
/// absolute deadline on the caller's monotonic clock (rto::Instant, us); it never
/// reads a clock, starts a thread or allocates. The caller polls expired(now) or
/// registers deadline() with a TimerWheel.
///
/// Size: 8 bytes (kBytes), the deadline alone: a stopped timer holds
/// Instant::min(), which no running timer holds (a start that would give
/// Instant::min() gives Instant::min() + 1 us instead; a start beyond the
/// clock's end saturates at Instant::max() and is running).
class RTO_API RetransmissionTimer {
 public:
  /// A segment containing data was sent at `now` (5.1): if the timer is not
  /// running, start it to expire after `rto`. A running timer is left alone
  /// (sending more data or a fast retransmit does not move it).
  void on_data_sent(Instant now, std::chrono::microseconds rto);
  /// All outstanding data has been acknowledged (5.2): stop the timer.
  void on_all_acked();
  /// An ACK acknowledging new data arrived at `now` and data is still
  /// outstanding (5.3): restart the timer to expire after `rto` (the current RTO,
  /// after any new sample). Duplicate ACKs must not call this (they acknowledge no new data).
  void on_new_data_acked(Instant now, std::chrono::microseconds rto);
  /// True when the timer is running and `now` >= deadline (never early).
  bool expired(Instant now) const;
  /// Handles an expiry at `now` (5.4-5.6): the caller retransmits the earliest
  /// unacknowledged segment (5.4); this backs off the estimator (5.5,
  /// Estimator::on_timeout) and restarts the timer with the new RTO (5.6).
  void on_expiry(Instant now, Estimator& estimator);
  /// As on_expiry, for the timer of an unacknowledged SYN
  /// (Estimator::on_syn_timeout; 5.7 is applied later by on_handshake_complete).
  void on_syn_expiry(Instant now, Estimator& estimator);
  /// Restarts the timer at `now` to expire after `rto`, for a re-arm event a
  /// stack adds to section 5 (Linux: a tail-loss probe re-arms a full RTO in
  /// tcp_send_loss_probe; a retransmission of the head in
  /// tcp_xmit_retransmit_queue). `now` may be in the past (Linux counts the
  /// deadline from the head segment's send time, tcp_rearm_rto).
  void restart(Instant now, std::chrono::microseconds rto);
  /// Stops the timer (e.g. connection closed). Same as on_all_acked().
  void stop();
  /// The absolute expiry time; Instant::max() when not running.
  Instant deadline() const;
  /// True while the timer is running.
  bool running() const { return deadline_ != kStopped; }

  /// sizeof(RetransmissionTimer): one Instant.
  static constexpr std::size_t kBytes = 8;

 private:
  /// The deadline of a stopped timer.
  static constexpr Instant kStopped = Instant::min();
  void start(Instant now, std::chrono::microseconds rto);
  Instant deadline_ = kStopped;
};

}  // namespace rto

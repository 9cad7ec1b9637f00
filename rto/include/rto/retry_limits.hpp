#pragma once
// When a connection stops retransmitting and gives up: RFC 1122 4.2.3.5's
// R2 threshold, counted as retransmission timer expiries in a row for one
// segment and as time since the first of them, beside RetransmissionTimer.

#include <chrono>
#include <optional>

#include "rto/clock.hpp"
#include "rto/export.h"

namespace rto {

/// Linux's tcp_retries2 default: 15 expiries in a row for a data segment.
inline constexpr unsigned kDefaultMaxDataBackoffs = 15;
/// Linux's tcp_syn_retries default: 6 expiries in a row for the SYN.
inline constexpr unsigned kDefaultMaxSynBackoffs = 6;

/// The R2 thresholds of one connection (RFC 1122 4.2.3.5).
struct RetryLimits {
  /// Give up at the expiry that finds this many backoffs in a row already
  /// done for a data segment (each earlier expiry retransmitted it).
  unsigned max_backoffs = kDefaultMaxDataBackoffs;
  /// The same for the SYN (RFC 1122 4.2.3.5: R2 for a SYN at least 3 minutes).
  unsigned max_syn_backoffs = kDefaultMaxSynBackoffs;
  /// Give up at an expiry this long or longer after the first expiry since
  /// the last progress; zero = no time limit.
  std::chrono::microseconds max_retry_time{0};
};

/// What an expiry allows (RetryCounter::on_expiry).
enum class RetryVerdict {
  Retransmit,    ///< within the limits: back off and retransmit
  BackoffLimit,  ///< max_backoffs / max_syn_backoffs reached: give up
  TimeLimit,     ///< max_retry_time reached: give up (checked before the count)
};

/// Counts one connection's retransmission timer expiries against its
/// RetryLimits. It reads no clock: each expiry carries the time.
class RTO_API RetryCounter {
 public:
  /// The timer expired at `now`, for the SYN when `syn`. Starts the time
  /// limit's clock at the first expiry since progress, then returns
  /// TimeLimit when `now` is max_retry_time or more after it, BackoffLimit
  /// when the count of backoffs in a row has reached the limit, otherwise
  /// counts this backoff and returns Retransmit.
  RetryVerdict on_expiry(Instant now, bool syn, const RetryLimits& limits);
  /// The peer acknowledged new data (or the SYN): the count and the time
  /// limit's clock start again.
  void on_progress();
  /// Backoffs in a row since the last progress.
  unsigned consecutive() const { return consecutive_; }

 private:
  unsigned consecutive_ = 0;
  std::optional<Instant> since_;
};

}  // namespace rto

#include "rto/retry_limits.hpp"

namespace rto {

// impl: RFC1122-4.2.3.5 (R2: give up after max_syn_backoffs / max_backoffs expiries or max_retry_time)
RetryVerdict RetryCounter::on_expiry(Instant now, bool syn, const RetryLimits& limits) {
  if (!since_) since_ = now;
  if (limits.max_retry_time.count() > 0 && now - *since_ >= limits.max_retry_time) return RetryVerdict::TimeLimit;
  if (consecutive_ >= (syn ? limits.max_syn_backoffs : limits.max_backoffs)) return RetryVerdict::BackoffLimit;
  ++consecutive_;
  return RetryVerdict::Retransmit;
}

void RetryCounter::on_progress() {
  consecutive_ = 0;
  since_.reset();
}

}  // namespace rto

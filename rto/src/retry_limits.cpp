#include "rto/retry_limits.hpp"

namespace rto {

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

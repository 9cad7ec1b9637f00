// Per-connection memory of the rto state a TCP sender keeps: the
// estimator, the RTT sampler, the retransmission timer and a wheel entry.
// Each bound derived from the members (x86-64: 8-byte pointers, int64 and
// Instants; 4-byte enums, unsigned and uint32_t; 2-byte uint16_t).

#include <doctest/doctest.h>

#include <cstddef>

#include "rto/any_estimator.hpp"
#include "rto/clamped_rto.hpp"
#include "rto/config.hpp"
#include "rto/estimator.hpp"
#include "rto/linux_estimator.hpp"
#include "rto/retransmission_timer.hpp"
#include "rto/rtt_sampler.hpp"
#include "rto/timer_wheel.hpp"

namespace {
// Rto: the timeout and its cap, 2 * 4 = 8.
constexpr std::size_t kRtoBytes = 8;
// Estimator (RFC 6298): SRTT and RTTVAR 2 * 8; floor, cap, initial RTO, G and
// tick 5 * 4 = 20; padding to 8-byte alignment 4 = 40.
constexpr std::size_t kEstimatorBytes = 40;
// LinuxEstimator: srtt_us, mdev_us, mdev_max_us, rttvar_us, rtt_seq and the
// four constants (rto_min, cap, initial RTO, tick), 9 * 4 = 36.
constexpr std::size_t kLinuxEstimatorBytes = 36;
// AnyEstimator: the larger of the two 40, the variant's index and padding 8 = 48.
constexpr std::size_t kAnyEstimatorBytes = 48;
// RttSampler: timed_at 8; ts_offset, timed_seq, timed_end 3 * 4; the 30-bit
// tick and a flag 4 = 24 (SND.UNA and SND.MAX are the sender's, passed in).
constexpr std::size_t kSamplerBytes = 24;
// RetransmissionTimer: deadline, R2's give-up time and time limit 3 * 8; the
// RTO before backoff (an Rto) 8; the 5.7 fallback, R2's two limits and count
// 4 * 4; backoff, SYN expiries, linear SYN expiries, section 5 reset 4 * 2;
// the 5.7 rule 1; padding 7 = 64: one cache line.
constexpr std::size_t kTimerBytes = 64;
// TimerEntry: next, pprev, wheel, deadline 4 * 8; the slack below the deadline
// and `user` 2 * 4 = 40.
constexpr std::size_t kEntryBytes = 40;
}  // namespace

TEST_CASE("Per-connection rto state: Estimator 40, LinuxEstimator 36, RttSampler 24, RetransmissionTimer 64, TimerEntry 40 bytes") {
  // Config: variant 4 + 4 padding, five durations 40, two unsigned 8, tick 8 =
  // 64; a value the estimator and the timer copy their few constants from.
  CHECK(sizeof(rto::Config) == 64u);
  CHECK(sizeof(rto::Rto) == kRtoBytes);
  CHECK(sizeof(rto::Estimator) <= kEstimatorBytes);
  CHECK(sizeof(rto::LinuxEstimator) <= kLinuxEstimatorBytes);
  CHECK(sizeof(rto::AnyEstimator) <= kAnyEstimatorBytes);
  CHECK(sizeof(rto::RttSampler) <= kSamplerBytes);
  CHECK(sizeof(rto::RetransmissionTimer) <= kTimerBytes);
  CHECK(sizeof(rto::TimerEntry) <= kEntryBytes);
  // A sender with the RFC 6298 estimator: 40 + 24 + 64 + 40 = 168 bytes. The
  // timer holds what a sender kept beside it before (the backoff, the SYN and
  // R2 counts, the retry limits), so the state is no larger than estimator,
  // sampler, timer, retry counter, retry limits and entry were
  // (40 + 32 + 8 + 24 + 16 + 40 = 160) by more than the R2 time limit's 8.
  const std::size_t total = sizeof(rto::Estimator) + sizeof(rto::RttSampler) +
                            sizeof(rto::RetransmissionTimer) + sizeof(rto::TimerEntry);
  CHECK(total <= kEstimatorBytes + kSamplerBytes + kTimerBytes + kEntryBytes);
  CHECK(kEstimatorBytes + kSamplerBytes + kTimerBytes + kEntryBytes == 168u);
}

// Per-connection memory of the rto state a TCP sender keeps (issue 8): the
// estimator, the RTT sampler, the retransmission timer and a wheel entry.
// Each size derived from the members (x86-64: 8-byte pointers, int64 and
// chrono durations; 4-byte enums and unsigned).

#include <doctest/doctest.h>

#include "rto/config.hpp"
#include "rto/estimator.hpp"
#include "rto/retransmission_timer.hpp"
#include "rto/rtt_sampler.hpp"
#include "rto/timer_wheel.hpp"

TEST_CASE("Per-connection rto state: Config 64, Estimator 144, RttSampler 40, RetransmissionTimer 16, TimerEntry 48 bytes") {
  // Config: variant 4 + 4 padding, five durations 40, two unsigned 8, tick 8 = 64.
  CHECK(sizeof(rto::Config) == 64u);
  // Estimator: Config 64; variant of {monostate, RfcState 16, LinuxState
  // 4*8 + 4 = 36 -> 40} + index 1 -> 48; tick reciprocal 8; base and current
  // RTO 16; backoff and SYN-timeout counts 8 = 144.
  CHECK(sizeof(rto::Estimator) == 144u);
  // RttSampler: ts_tick 8, ts_offset 4, two bools 2 (+2 padding), four
  // sequence numbers 16, timed_at 8 = 40.
  CHECK(sizeof(rto::RttSampler) == 40u);
  // RetransmissionTimer: bool 1 (+7 padding), deadline 8 = 16.
  CHECK(sizeof(rto::RetransmissionTimer) == 16u);
  // TimerEntry: next, pprev, wheel, deadline, keep_after, user: 6 * 8 = 48.
  CHECK(sizeof(rto::TimerEntry) == 48u);
  // Together 248 bytes, above the 96 the issue aims for: the Config copy (64)
  // and the 64-bit fields are most of it (see bench/README.md).
  CHECK(sizeof(rto::Estimator) + sizeof(rto::RttSampler) + sizeof(rto::RetransmissionTimer) +
            sizeof(rto::TimerEntry) ==
        248u);
}

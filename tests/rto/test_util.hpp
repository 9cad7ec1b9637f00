#pragma once
// Helpers shared by the rto tests: literal durations and instants, and the
// estimator and timer wired as a sender wires them.

#include <doctest/doctest.h>

#include <chrono>
#include <climits>

#include "rto/clock.hpp"
#include "rto/retransmission_timer.hpp"

namespace rto_test {

using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::seconds;

/// An rto::Instant `ms` milliseconds after the epoch.
inline rto::Instant at_ms(long long ms) { return rto::Instant{milliseconds{ms}}; }
/// An rto::Instant `us` microseconds after the epoch.
inline rto::Instant at_us(long long us) { return rto::Instant{microseconds{us}}; }

/// R2 limits nothing reaches: a test of the backoff alone never gives up.
inline constexpr rto::RetryLimits kNoRetryLimits{UINT_MAX, UINT_MAX, microseconds{0}};

/// A timer expiry at `now` (5.5, 5.6) that must be allowed (R2); returns it.
inline rto::Expiry expire(rto::RetransmissionTimer& t, rto::Instant now = rto::Instant{}) {
  const rto::Expiry x = t.on_expiry(now);
  REQUIRE(x.verdict == rto::RetryVerdict::Retransmit);
  return x;
}

/// The same, with the section 5 note applied to the estimator as a sender does.
template <class E>
void expire(E& e, rto::RetransmissionTimer& t, rto::Instant now = rto::Instant{}) {
  if (expire(t, now).forget_rtt) e.forget();
}

/// A SYN timer expiry at `now`, allowed, with the section 5 note applied.
template <class E>
void syn_expire(E& e, rto::RetransmissionTimer& t, rto::Instant now = rto::Instant{}) {
  const rto::Expiry x = t.on_syn_expiry(now);
  REQUIRE(x.verdict == rto::RetryVerdict::Retransmit);
  if (x.forget_rtt) e.forget();
}

/// An RTT sample as a sender takes it: the estimator smooths it (2.2, 2.3)
/// and the timer takes its new RTO (the note after 5.7). False: refused.
template <class E>
bool sample(E& e, rto::RetransmissionTimer& t, microseconds r) {
  if (!e.on_rtt_sample(r)) return false;
  t.on_rtt_sample(e.rto());
  return true;
}

}  // namespace rto_test

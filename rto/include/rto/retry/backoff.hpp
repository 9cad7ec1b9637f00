#pragma once
// Retry backoff for clients of remote services: capped exponential backoff with
// a rational multiplier, the jitter variants of Brooker's "Exponential Backoff
// And Jitter" (AWS Architecture Blog, 2015), gRPC's connection backoff
// (grpc/doc/connection-backoff.md), attempt limits and a total deadline.
//
// Pure and clock-free like the rest of the module: no allocation, no floating
// point, no clock reads; the caller supplies the random generator and, where
// it matters, the elapsed time or the current rto::Instant.

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <stdexcept>

#include "rto/clock.hpp"
#include "rto/retry/uniform.hpp"
#include "rto/retry/export.h"

namespace rto {

namespace detail {
/// t + d, d >= 0, held at Instant::max() instead of overflowing (a caller's
/// clock near the end of its range).
inline Instant saturating_add(Instant t, std::chrono::microseconds d) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(t.time_since_epoch().count(), d.count(), &out)) return Instant::max();
  return Instant{std::chrono::microseconds{out}};
}
/// b - a for b >= a, held at microseconds::max() instead of overflowing.
inline std::chrono::microseconds saturating_since(Instant b, Instant a) {
  std::int64_t out = 0;
  if (__builtin_sub_overflow(b.time_since_epoch().count(), a.time_since_epoch().count(), &out))
    return std::chrono::microseconds::max();
  return std::chrono::microseconds{out};
}
}  // namespace detail

/// Thrown by BackoffPolicy::validate() (and so by Backoff's and
/// ConnectionBackoff's constructors). what() names the field, e.g.
/// "rto::BackoffPolicy.cap: 500000 us is below base (1000000 us)".
class RTO_RETRY_API BackoffPolicyError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// How a wait is drawn from the ceiling c(n) = min(cap, base * multiplier^n).
enum class Jitter {
  none,          ///< c(n) exactly ("exponential" in Brooker's post).
  full,          ///< U[0, c(n)] ("full jitter").
  equal,         ///< U[floor(c(n)/2), c(n)], i.e. c/2 + U(0, c/2) ("equal jitter").
  decorrelated,  ///< min(cap, U[base, prev * multiplier]), prev starting at base ("decorrelated jitter", multiplier 3).
  proportional,  ///< U[c(n) - j, c(n) + j], j = floor(c(n) * jitter_permille / 1000) (gRPC's +-20 %; may exceed cap by j).
};

/// How a wait the server asked for (HTTP Retry-After, gRPC pushback) meets
/// the cap of the backoff's own waits.
enum class ServerDelay {
  /// Wait what the server asked, even beyond the cap, as long as the wait
  /// ends by the deadline; give up otherwise (there is no point retrying
  /// before the server said it would be ready). gRPC honours pushback exactly
  /// (gRFC A6). With no deadline, any wait the server asks is honoured.
  honour,
  /// Wait min(server's wait, cap): retry earlier than asked rather than
  /// wait longer than the cap (still subject to the deadline).
  clamp_to_cap,
};

/// The parameters of a backoff: base, multiplier, cap, jitter, attempt limit
/// and total deadline. Durations are microseconds. Build one with a named
/// constructor and adjust fields (or use the with_* helpers); Backoff validates it.
///
/// The ceiling for the wait after the failure of attempt n+1 (n = failures
/// before it, counting from 0) is c(0) = base, c(n+1) = min(cap, ceil(c(n) * num / den))
/// in whole microseconds: exact for integer multipliers (x2 gives min(cap, base*2^n)),
/// rounded up by under 1 us per step for fractional ones (x1.6), so a multiplier
/// above 1 always grows even from 1 us. It saturates at cap and never
/// overflows for any n (validate() bounds cap * num below 2^63).
struct RTO_RETRY_API BackoffPolicy {
  /// c(0): the ceiling of the first wait (after the first failure). >= 1 us.
  std::chrono::microseconds base{1'000'000};
  /// Multiplier num/den applied per failure (2/1 doubles; gRPC's 1.6 is 8/5).
  /// 1 <= den <= num <= 65536.
  std::uint32_t multiplier_num = 2;
  std::uint32_t multiplier_den = 1;
  /// Upper bound on c(n) (and on decorrelated waits). base <= cap <= 366 days.
  std::chrono::microseconds cap{60'000'000};
  /// How the wait is drawn from c(n).
  Jitter jitter = Jitter::none;
  /// Jitter::proportional only: the +- spread in thousandths of c(n) (gRPC: 200). 0..1000.
  std::uint32_t jitter_permille = 0;
  /// Total attempts allowed, the first included (5 = the first try and 4
  /// retries, so at most 4 waits). 0 = no limit.
  unsigned max_attempts = 0;
  /// The caller's total time budget, counted from the start of the first
  /// attempt: a wait that would end after it is not returned (the backoff
  /// gives up instead). A wait ending exactly at the deadline is allowed.
  /// nullopt = no deadline. 0 < deadline <= 366 days.
  std::optional<std::chrono::microseconds> deadline;
  /// gRPC MIN_CONNECT_TIMEOUT: the least time an attempt is given to complete
  /// (ConnectionBackoff::attempt_deadline). 0 = none. Unused by Backoff.
  std::chrono::microseconds min_connect_timeout{0};
  /// How a server's requested wait meets `cap` (Backoff::next_delay_instead).
  ServerDelay server_delay = ServerDelay::honour;

  /// min(cap, base * 2^n), no jitter (Brooker's "exponential").
  static BackoffPolicy exponential(std::chrono::microseconds base, std::chrono::microseconds cap);
  /// U[0, min(cap, base * 2^n)] (Brooker's "full jitter").
  static BackoffPolicy full_jitter(std::chrono::microseconds base, std::chrono::microseconds cap);
  /// c/2 + U(0, c/2) with c = min(cap, base * 2^n) (Brooker's "equal jitter").
  static BackoffPolicy equal_jitter(std::chrono::microseconds base, std::chrono::microseconds cap);
  /// min(cap, U[base, 3 * previous wait]), the first previous wait being base
  /// (Brooker's "decorrelated jitter"); n does not enter.
  static BackoffPolicy decorrelated_jitter(std::chrono::microseconds base, std::chrono::microseconds cap);
  /// gRPC connection backoff (grpc/doc/connection-backoff.md): INITIAL_BACKOFF
  /// 1 s, MULTIPLIER 1.6 (8/5), MAX_BACKOFF 120 s, JITTER 0.2 (+-200 permille),
  /// MIN_CONNECT_TIMEOUT 20 s; no attempt limit or deadline (gRPC retries a
  /// connection for ever). Use it with ConnectionBackoff for the spec's exact
  /// timing; with Backoff, waits are counted from each failure.
  static BackoffPolicy grpc_connection();

  /// Google Cloud Storage Python client defaults (cloud.google.com/storage/docs/retry-strategy):
  /// initial 1 s, x2, maximum 60 s, deadline 120 s; full jitter.
  static BackoffPolicy gcs_python();
  /// Google Cloud Storage C++ client defaults: initial 1 s, x2, maximum 5 min,
  /// deadline 15 min (LimitedTimeRetryPolicy); full jitter.
  static BackoffPolicy gcs_cpp();
  /// gcloud storage / gsutil: truncated binary exponential backoff, 1 s doubling
  /// to at most 32 s, at most 32 retries (33 attempts); full jitter.
  static BackoffPolicy gcloud();
  /// A gRPC retry policy (gRFC A6 "retryPolicy"): the n-th retry after
  /// U[0, min(initialBackoff * backoffMultiplier^(n-1), maxBackoff)] (full
  /// jitter), the multiplier as num/den (1.3 = 13/10), at most maxAttempts
  /// attempts counting the first, which A6 limits to 5 on the client (a
  /// larger value is treated as 5); server pushback honoured exactly.
  static BackoffPolicy grpc_retry(std::chrono::microseconds initial_backoff, std::chrono::microseconds max_backoff,
                                  std::uint32_t multiplier_num, std::uint32_t multiplier_den, unsigned max_attempts);

  /// A copy with max_attempts = n (0 = no limit).
  BackoffPolicy with_max_attempts(unsigned n) const;
  /// A copy with the total deadline d.
  BackoffPolicy with_deadline(std::chrono::microseconds d) const;
  /// A copy with the multiplier num/den.
  BackoffPolicy with_multiplier(std::uint32_t num, std::uint32_t den) const;
  /// A copy with server_delay = d.
  BackoffPolicy with_server_delay(ServerDelay d) const;

  /// The ceiling c(n) defined above, for any n (O(min(n, steps to reach cap))).
  /// Requires a valid policy.
  std::chrono::microseconds ceiling(unsigned n) const;
  /// One step of the ceiling: min(cap, ceil(c * num / den)). c in [0, cap].
  std::chrono::microseconds grow(std::chrono::microseconds c) const;

  /// Checks every field against the bounds documented on it; throws
  /// BackoffPolicyError naming the first offending field.
  void validate() const;
};

/// Why a Backoff stopped giving waits.
enum class GiveUp {
  none,      ///< it has not given up.
  attempts,  ///< max_attempts attempts have failed.
  deadline,  ///< the next wait would have ended after the deadline.
};

/// The backoff state of one operation: call next_delay() after each failed
/// attempt, reset() after a success.
///
/// Elapsed time for the deadline: next_delay(g, elapsed) takes the time since
/// the first attempt started, measured by the caller on its own clock (the
/// honest form: it counts the attempts' own durations). next_delay(g) uses the
/// sum of the waits it has returned since reset(), i.e. it assumes attempts
/// take no time (right for a simulator, optimistic for a real client).
class RTO_RETRY_API Backoff {
 public:
  /// Validates `policy` (throws BackoffPolicyError).
  explicit Backoff(BackoffPolicy policy);

  /// An attempt failed: the wait before the next one, or nullopt to give up
  /// (max_attempts attempts have failed, or the wait would end after the
  /// deadline counted on waited()). Once it has given up it keeps returning
  /// nullopt until reset().
  template <std::uniform_random_bit_generator G>
  std::optional<std::chrono::microseconds> next_delay(G& g) {
    return next_delay(g, waited_);
  }
  /// The same with the caller's elapsed time since the first attempt started
  /// (>= 0): gives up when elapsed + wait > deadline.
  template <std::uniform_random_bit_generator G>
  std::optional<std::chrono::microseconds> next_delay(G& g, std::chrono::microseconds elapsed) {
    if (!count_failure()) return std::nullopt;
    return admit(draw(g), elapsed);
  }
  /// An attempt failed and the server said how long to wait (Retry-After of a
  /// 503 or 429, a gRPC pushback): the attempt is counted and the backoff
  /// state advances as in next_delay (the jitter draw is made and discarded,
  /// so generators stay in step), but the wait is the server's:
  /// ServerDelay::honour waits server_wait whatever the cap,
  /// ServerDelay::clamp_to_cap min(server_wait, cap); either is subject to the
  /// same attempt limit and deadline (a wait ending after the deadline gives
  /// up, GiveUp::deadline). A negative server_wait counts as 0.
  template <std::uniform_random_bit_generator G>
  std::optional<std::chrono::microseconds> next_delay_instead(G& g, std::chrono::microseconds elapsed,
                                                              std::chrono::microseconds server_wait) {
    if (!count_failure()) return std::nullopt;
    (void)draw(g);
    if (server_wait < std::chrono::microseconds::zero()) server_wait = std::chrono::microseconds::zero();
    if (policy_.server_delay == ServerDelay::clamp_to_cap && server_wait > policy_.cap) server_wait = policy_.cap;
    return admit(server_wait, elapsed);
  }

  /// The next wait is drawn from c(0) = base again, without resetting the
  /// count of failures or the time waited: gRFC A6, after a retry the
  /// server's pushback timed, "retry delay will reset to initial backoff".
  void restart_ceiling();

  /// The operation succeeded (gRPC: the connection was accepted): back to n = 0,
  /// nothing waited, decorrelated's previous wait = base.
  void reset();

  /// Failures counted since reset(): the n of the next wait's ceiling.
  unsigned attempt() const { return failures_; }
  /// Sum of the waits returned since reset() (saturating at microseconds::max()).
  std::chrono::microseconds waited() const { return waited_; }
  /// The ceiling c(attempt()) the next wait is drawn from (Jitter::decorrelated:
  /// min(cap, ceil(previous * num / den)), its upper bound).
  std::chrono::microseconds current_ceiling() const;
  /// Why it gave up, or GiveUp::none.
  GiveUp gave_up() const { return gave_up_; }
  const BackoffPolicy& policy() const { return policy_; }

 private:
  bool count_failure();
  std::optional<std::chrono::microseconds> admit(std::chrono::microseconds wait, std::chrono::microseconds elapsed);
  template <std::uniform_random_bit_generator G>
  std::chrono::microseconds draw(G& g) {
    using std::chrono::microseconds;
    const microseconds c = ceiling_;
    microseconds d{0};
    switch (policy_.jitter) {
      case Jitter::none: d = c; break;
      case Jitter::full: d = uniform_duration(g, microseconds{0}, c); break;
      case Jitter::equal: d = uniform_duration(g, c / 2, c); break;
      case Jitter::decorrelated:
        d = uniform_duration(g, policy_.base, grow_unclamped(previous_));
        if (d > policy_.cap) d = policy_.cap;
        previous_ = d;
        break;
      case Jitter::proportional: {
        const microseconds j{c.count() * policy_.jitter_permille / 1000};
        d = uniform_duration(g, c - j, c + j);
        break;
      }
    }
    ceiling_ = policy_.grow(ceiling_);
    return d;
  }
  std::chrono::microseconds grow_unclamped(std::chrono::microseconds c) const;

  BackoffPolicy policy_;
  unsigned failures_ = 0;
  std::chrono::microseconds ceiling_;
  std::chrono::microseconds previous_;
  std::chrono::microseconds waited_{0};
  GiveUp gave_up_ = GiveUp::none;
};

/// gRPC connection backoff exactly as grpc/doc/connection-backoff.md describes
/// it, on the caller's monotonic clock (rto::Instant).
///
/// The spec backs off the *start times* of connection attempts: the first
/// attempt starts at t0 with a backoff deadline of t0 + INITIAL_BACKOFF; each
/// attempt may run until max(backoff deadline, start + MIN_CONNECT_TIMEOUT);
/// when it fails, the next attempt starts at the backoff deadline (at once if
/// that has passed), the backoff grows to min(backoff * MULTIPLIER, MAX_BACKOFF),
/// and the new backoff deadline is that start + backoff + U[-JITTER * backoff,
/// +JITTER * backoff]. The first interval has no jitter, so clients started
/// together retry together once, then disperse by +-20 % of each backoff.
/// reset() when the connection is accepted (gRPC: SETTINGS frame received).
class RTO_RETRY_API ConnectionBackoff {
 public:
  /// Validates `policy` (throws BackoffPolicyError). Uses base, multiplier,
  /// cap, jitter_permille (Jitter::proportional spread; other jitters = 0),
  /// min_connect_timeout, max_attempts and deadline (counted from the first start).
  explicit ConnectionBackoff(BackoffPolicy policy = BackoffPolicy::grpc_connection());

  /// An attempt starts at `now`: returns the time by which it must complete,
  /// max(backoff deadline, now + MIN_CONNECT_TIMEOUT). The first call after
  /// construction or reset() sets the backoff deadline to now + INITIAL_BACKOFF.
  Instant attempt_deadline(Instant now);

  /// The attempt failed at `now`: returns when the next attempt should start
  /// (max(now, backoff deadline)), and draws the backoff deadline after it; or
  /// nullopt when max_attempts attempts have failed or that start would be
  /// after the policy's deadline (counted from the first attempt's start).
  template <std::uniform_random_bit_generator G>
  std::optional<Instant> on_failure(Instant now, G& g) {
    if (!started_) attempt_deadline(now);
    if (failures_ != ~0u) ++failures_;
    if (policy_.max_attempts != 0 && failures_ >= policy_.max_attempts) return std::nullopt;
    const Instant start = now > backoff_deadline_ ? now : backoff_deadline_;
    if (policy_.deadline && detail::saturating_since(start, first_start_) > *policy_.deadline) return std::nullopt;
    backoff_ = policy_.grow(backoff_);
    const std::chrono::microseconds j{backoff_.count() * spread_permille() / 1000};
    backoff_deadline_ = detail::saturating_add(start, uniform_duration(g, backoff_ - j, backoff_ + j));
    return start;
  }

  /// The connection was accepted: the next attempt starts a fresh schedule.
  void reset();

  /// Failed attempts since reset().
  unsigned attempt() const { return failures_; }
  /// The current backoff (INITIAL_BACKOFF, then x MULTIPLIER per failure, capped).
  std::chrono::microseconds current_backoff() const { return backoff_; }
  /// The current backoff deadline (valid after attempt_deadline()).
  Instant backoff_deadline() const { return backoff_deadline_; }
  const BackoffPolicy& policy() const { return policy_; }

 private:
  std::uint32_t spread_permille() const;

  BackoffPolicy policy_;
  bool started_ = false;
  unsigned failures_ = 0;
  std::chrono::microseconds backoff_;
  Instant first_start_{};
  Instant backoff_deadline_{};
};

}  // namespace rto

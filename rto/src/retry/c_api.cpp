// The C API of rto/retry/retry.h over rto::Backoff and rto::ConnectionBackoff:
// each C state is a fixed-size struct of private bytes holding the C++ object
// (placement new); integer microseconds in, rto_retry_status out; no
// exception crosses the boundary.

#include "rto/retry/retry.h"

#include <chrono>
#include <cstdint>
#include <exception>
#include <limits>
#include <new>
#include <optional>
#include <type_traits>

#include "rto/retry/backoff.hpp"
#include "../c_state.hpp"

namespace {

using std::chrono::microseconds;

using rto::c_state::copy_message;
using rto::c_state::fits;
using rto::c_state::impl;

static_assert(fits<rto_backoff, rto::Backoff>, "raise RTO_BACKOFF_BYTES (an ABI change)");
static_assert(fits<rto_connection_backoff, rto::ConnectionBackoff>, "raise RTO_CONNECTION_BACKOFF_BYTES (an ABI change)");
static_assert(std::is_trivially_destructible_v<rto::Backoff> && std::is_trivially_destructible_v<rto::ConnectionBackoff>,
              "the backoffs hold no resource (retry.h promises their memory may be reused)");

// The caller's rto_random as a std::uniform_random_bit_generator of 64 bits.
// Called only when the caller gave one (the entry points check first).
struct CallerRandom {
  using result_type = std::uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  const rto_random* random;
  result_type operator()() { return random->next(random->context); }
};

bool has_generator(const rto_random* random) { return random != nullptr && random->next != nullptr; }

// Whether a wait of this policy is a random draw (so needs the caller's generator).
bool draws_randomly(const rto::BackoffPolicy& p) {
  switch (p.jitter) {
    case rto::Jitter::none: return false;
    case rto::Jitter::proportional: return p.jitter_permille != 0;
    default: return true;
  }
}

rto::BackoffPolicy to_cpp(const rto_backoff_policy& c) {
  rto::BackoffPolicy p;
  p.base = microseconds{c.base_us};
  p.multiplier_num = c.multiplier_num;
  p.multiplier_den = c.multiplier_den;
  p.cap = microseconds{c.cap_us};
  // An unknown enum number is passed through: BackoffPolicy::validate() refuses it.
  p.jitter = static_cast<rto::Jitter>(c.jitter);
  p.jitter_permille = c.jitter_permille;
  p.max_attempts = c.max_attempts;
  if (c.deadline_us != 0) p.deadline = microseconds{c.deadline_us};
  p.min_connect_timeout = microseconds{c.min_connect_timeout_us};
  p.server_delay = static_cast<rto::ServerDelay>(c.server_delay);
  return p;
}

rto_backoff_policy to_c(const rto::BackoffPolicy& p) {
  rto_backoff_policy c{};
  c.base_us = p.base.count();
  c.multiplier_num = p.multiplier_num;
  c.multiplier_den = p.multiplier_den;
  c.cap_us = p.cap.count();
  c.jitter = static_cast<rto_jitter>(p.jitter);
  c.jitter_permille = p.jitter_permille;
  c.max_attempts = p.max_attempts;
  c.deadline_us = p.deadline ? p.deadline->count() : 0;
  c.min_connect_timeout_us = p.min_connect_timeout.count();
  c.server_delay = static_cast<rto_server_delay>(p.server_delay);
  return c;
}

template <class F>
rto_retry_status guarded(F&& f) noexcept {
  try {
    return f();
  } catch (const rto::BackoffPolicyError&) {
    return RTO_RETRY_ERR_INVALID_POLICY;
  } catch (...) {
    return RTO_RETRY_ERR_INTERNAL;
  }
}

rto_retry_status write_policy(rto_backoff_policy* out, const rto::BackoffPolicy& p) {
  if (out == nullptr) return RTO_RETRY_ERR_NULL;
  *out = to_c(p);
  return RTO_RETRY_OK;
}

// A wait or its absence as the two out-parameters.
void write_wait(std::optional<microseconds> wait, bool* retry, int64_t* wait_us) {
  *retry = wait.has_value();
  *wait_us = wait ? wait->count() : 0;
}

}  // namespace

extern "C" {

const char* rto_retry_status_string(rto_retry_status status) {
  switch (status) {
    case RTO_RETRY_OK: return "success";
    case RTO_RETRY_ERR_NULL: return "a required pointer argument was NULL";
    case RTO_RETRY_ERR_INVALID_ARGUMENT: return "a time argument was out of range";
    case RTO_RETRY_ERR_INVALID_POLICY: return "the backoff policy is not valid";
    case RTO_RETRY_ERR_INTERNAL: return "internal error";
  }
  return "unknown status";
}

rto_retry_status rto_backoff_policy_exponential(int64_t base_us, int64_t cap_us, rto_backoff_policy* out) {
  return write_policy(out, rto::BackoffPolicy::exponential(microseconds{base_us}, microseconds{cap_us}));
}
rto_retry_status rto_backoff_policy_full_jitter(int64_t base_us, int64_t cap_us, rto_backoff_policy* out) {
  return write_policy(out, rto::BackoffPolicy::full_jitter(microseconds{base_us}, microseconds{cap_us}));
}
rto_retry_status rto_backoff_policy_equal_jitter(int64_t base_us, int64_t cap_us, rto_backoff_policy* out) {
  return write_policy(out, rto::BackoffPolicy::equal_jitter(microseconds{base_us}, microseconds{cap_us}));
}
rto_retry_status rto_backoff_policy_decorrelated_jitter(int64_t base_us, int64_t cap_us, rto_backoff_policy* out) {
  return write_policy(out, rto::BackoffPolicy::decorrelated_jitter(microseconds{base_us}, microseconds{cap_us}));
}
rto_retry_status rto_backoff_policy_grpc_connection(rto_backoff_policy* out) {
  return write_policy(out, rto::BackoffPolicy::grpc_connection());
}
rto_retry_status rto_backoff_policy_grpc_retry(int64_t initial_backoff_us, int64_t max_backoff_us,
                                              uint32_t multiplier_num, uint32_t multiplier_den, unsigned max_attempts,
                                              rto_backoff_policy* out) {
  return write_policy(out, rto::BackoffPolicy::grpc_retry(microseconds{initial_backoff_us},
                                                          microseconds{max_backoff_us}, multiplier_num,
                                                          multiplier_den, max_attempts));
}

rto_retry_status rto_backoff_policy_validate(const rto_backoff_policy* policy, char* message, size_t message_size) {
  if (policy == nullptr) return RTO_RETRY_ERR_NULL;
  try {
    to_cpp(*policy).validate();
    return RTO_RETRY_OK;
  } catch (const rto::BackoffPolicyError& e) {
    copy_message(e.what(), message, message_size);
    return RTO_RETRY_ERR_INVALID_POLICY;
  } catch (...) {
    return RTO_RETRY_ERR_INTERNAL;
  }
}

rto_retry_status rto_backoff_policy_ceiling_us(const rto_backoff_policy* policy, unsigned n, int64_t* out_us) {
  if (policy == nullptr || out_us == nullptr) return RTO_RETRY_ERR_NULL;
  return guarded([&] {
    const rto::BackoffPolicy p = to_cpp(*policy);
    p.validate();
    *out_us = p.ceiling(n).count();
    return RTO_RETRY_OK;
  });
}

// ---- backoff ----

rto_retry_status rto_backoff_init(rto_backoff* backoff, const rto_backoff_policy* policy) {
  if (backoff == nullptr || policy == nullptr) return RTO_RETRY_ERR_NULL;
  return guarded([&] {
    new (backoff->private_.bytes_) rto::Backoff(to_cpp(*policy));
    return RTO_RETRY_OK;
  });
}

namespace {

// The checks both next-delay calls share; RTO_RETRY_OK when the call may go on.
rto_retry_status check_next_delay(const rto_backoff* backoff, const rto_random* random, int64_t elapsed_us,
                                  const bool* retry, const int64_t* wait_us) {
  if (backoff == nullptr || retry == nullptr || wait_us == nullptr) return RTO_RETRY_ERR_NULL;
  if (draws_randomly(impl<rto::Backoff>(backoff).policy()) && !has_generator(random)) return RTO_RETRY_ERR_NULL;
  if (elapsed_us < 0 && elapsed_us != RTO_BACKOFF_ELAPSED_WAITED) return RTO_RETRY_ERR_INVALID_ARGUMENT;
  return RTO_RETRY_OK;
}

}  // namespace

rto_retry_status rto_backoff_next_delay(rto_backoff* backoff, const rto_random* random, int64_t elapsed_us,
                                       bool* retry, int64_t* wait_us) {
  if (const rto_retry_status s = check_next_delay(backoff, random, elapsed_us, retry, wait_us); s != RTO_RETRY_OK)
    return s;
  CallerRandom g{random};
  rto::Backoff& b = impl<rto::Backoff>(backoff);
  write_wait(elapsed_us == RTO_BACKOFF_ELAPSED_WAITED ? b.next_delay(g) : b.next_delay(g, microseconds{elapsed_us}),
             retry, wait_us);
  return RTO_RETRY_OK;
}

rto_retry_status rto_backoff_next_delay_instead(rto_backoff* backoff, const rto_random* random, int64_t elapsed_us,
                                               int64_t server_wait_us, bool* retry, int64_t* wait_us) {
  if (const rto_retry_status s = check_next_delay(backoff, random, elapsed_us, retry, wait_us); s != RTO_RETRY_OK)
    return s;
  CallerRandom g{random};
  rto::Backoff& b = impl<rto::Backoff>(backoff);
  const microseconds elapsed = elapsed_us == RTO_BACKOFF_ELAPSED_WAITED ? b.waited() : microseconds{elapsed_us};
  write_wait(b.next_delay_instead(g, elapsed, microseconds{server_wait_us}), retry, wait_us);
  return RTO_RETRY_OK;
}

rto_retry_status rto_backoff_restart_ceiling(rto_backoff* backoff) {
  if (backoff == nullptr) return RTO_RETRY_ERR_NULL;
  impl<rto::Backoff>(backoff).restart_ceiling();
  return RTO_RETRY_OK;
}

rto_retry_status rto_backoff_reset(rto_backoff* backoff) {
  if (backoff == nullptr) return RTO_RETRY_ERR_NULL;
  impl<rto::Backoff>(backoff).reset();
  return RTO_RETRY_OK;
}

rto_retry_status rto_backoff_attempt(const rto_backoff* backoff, unsigned* out) {
  if (backoff == nullptr || out == nullptr) return RTO_RETRY_ERR_NULL;
  *out = impl<rto::Backoff>(backoff).attempt();
  return RTO_RETRY_OK;
}

rto_retry_status rto_backoff_waited_us(const rto_backoff* backoff, int64_t* out_us) {
  if (backoff == nullptr || out_us == nullptr) return RTO_RETRY_ERR_NULL;
  *out_us = impl<rto::Backoff>(backoff).waited().count();
  return RTO_RETRY_OK;
}

rto_retry_status rto_backoff_current_ceiling_us(const rto_backoff* backoff, int64_t* out_us) {
  if (backoff == nullptr || out_us == nullptr) return RTO_RETRY_ERR_NULL;
  *out_us = impl<rto::Backoff>(backoff).current_ceiling().count();
  return RTO_RETRY_OK;
}

rto_retry_status rto_backoff_gave_up(const rto_backoff* backoff, rto_give_up* out) {
  if (backoff == nullptr || out == nullptr) return RTO_RETRY_ERR_NULL;
  switch (impl<rto::Backoff>(backoff).gave_up()) {
    case rto::GiveUp::none: *out = RTO_GIVE_UP_NONE; break;
    case rto::GiveUp::attempts: *out = RTO_GIVE_UP_ATTEMPTS; break;
    case rto::GiveUp::deadline: *out = RTO_GIVE_UP_DEADLINE; break;
  }
  return RTO_RETRY_OK;
}

// ---- connection backoff ----

rto_retry_status rto_connection_backoff_init(rto_connection_backoff* backoff, const rto_backoff_policy* policy) {
  if (backoff == nullptr) return RTO_RETRY_ERR_NULL;
  return guarded([&] {
    new (backoff->private_.bytes_)
        rto::ConnectionBackoff(policy != nullptr ? to_cpp(*policy) : rto::BackoffPolicy::grpc_connection());
    return RTO_RETRY_OK;
  });
}

rto_retry_status rto_connection_backoff_attempt_deadline(rto_connection_backoff* backoff, int64_t now_us,
                                                        int64_t* deadline_us) {
  if (backoff == nullptr || deadline_us == nullptr) return RTO_RETRY_ERR_NULL;
  const rto::Instant d = impl<rto::ConnectionBackoff>(backoff).attempt_deadline(rto::Instant{microseconds{now_us}});
  *deadline_us = d.time_since_epoch().count();
  return RTO_RETRY_OK;
}

rto_retry_status rto_connection_backoff_on_failure(rto_connection_backoff* backoff, int64_t now_us,
                                                  const rto_random* random, bool* retry, int64_t* next_start_us) {
  if (backoff == nullptr || retry == nullptr || next_start_us == nullptr) return RTO_RETRY_ERR_NULL;
  rto::ConnectionBackoff& b = impl<rto::ConnectionBackoff>(backoff);
  // ConnectionBackoff spreads by jitter_permille under proportional jitter only.
  const bool spreads = b.policy().jitter == rto::Jitter::proportional && b.policy().jitter_permille != 0;
  if (spreads && !has_generator(random)) return RTO_RETRY_ERR_NULL;
  CallerRandom g{random};
  const std::optional<rto::Instant> start = b.on_failure(rto::Instant{microseconds{now_us}}, g);
  *retry = start.has_value();
  *next_start_us = start ? start->time_since_epoch().count() : 0;
  return RTO_RETRY_OK;
}

rto_retry_status rto_connection_backoff_reset(rto_connection_backoff* backoff) {
  if (backoff == nullptr) return RTO_RETRY_ERR_NULL;
  impl<rto::ConnectionBackoff>(backoff).reset();
  return RTO_RETRY_OK;
}

rto_retry_status rto_connection_backoff_current_us(const rto_connection_backoff* backoff, int64_t* out_us) {
  if (backoff == nullptr || out_us == nullptr) return RTO_RETRY_ERR_NULL;
  *out_us = impl<rto::ConnectionBackoff>(backoff).current_backoff().count();
  return RTO_RETRY_OK;
}

}  // extern "C"

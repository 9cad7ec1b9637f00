// rto::BackoffPolicy presets and validation, rto::Backoff and
// rto::ConnectionBackoff state (the random draws are inline in backoff.hpp).

#include "rto/retry/backoff.hpp"

#include <string>

namespace rto {

namespace {

using std::chrono::microseconds;

// 366 days: cap * 65536 < 2^63 (3.16e13 us * 6.6e4 = 2.1e18 < 9.2e18), and
// 3 * cap for decorrelated jitter is far from overflow.
constexpr microseconds kMaxDuration{366LL * 24 * 3600 * 1'000'000};
constexpr std::uint32_t kMaxMultiplierTerm = 65536;
// gRFC A6 "Limits on Retries and Hedges": the client's own limit on maxAttempts.
constexpr unsigned kGrpcMaxAttempts = 5;

[[noreturn]] void fail(const std::string& field, const std::string& why) {
  throw BackoffPolicyError("rto::BackoffPolicy." + field + ": " + why);
}

std::string us(microseconds d) { return std::to_string(d.count()) + " us"; }

BackoffPolicy doubling(microseconds base, microseconds cap, Jitter jitter) {
  BackoffPolicy p;
  p.base = base;
  p.cap = cap;
  p.multiplier_num = 2;
  p.multiplier_den = 1;
  p.jitter = jitter;
  return p;
}

}  // namespace

BackoffPolicy BackoffPolicy::exponential(microseconds base, microseconds cap) {
  return doubling(base, cap, Jitter::none);
}
BackoffPolicy BackoffPolicy::full_jitter(microseconds base, microseconds cap) {
  return doubling(base, cap, Jitter::full);
}
BackoffPolicy BackoffPolicy::equal_jitter(microseconds base, microseconds cap) {
  return doubling(base, cap, Jitter::equal);
}
BackoffPolicy BackoffPolicy::decorrelated_jitter(microseconds base, microseconds cap) {
  BackoffPolicy p = doubling(base, cap, Jitter::decorrelated);
  p.multiplier_num = 3;  // U[base, 3 * previous]
  return p;
}

BackoffPolicy BackoffPolicy::grpc_connection() {
  BackoffPolicy p;
  p.base = std::chrono::seconds{1};                  // INITIAL_BACKOFF
  p.multiplier_num = 8;                              // MULTIPLIER 1.6 = 8/5
  p.multiplier_den = 5;
  p.cap = std::chrono::seconds{120};                 // MAX_BACKOFF
  p.jitter = Jitter::proportional;
  p.jitter_permille = 200;                           // JITTER 0.2
  p.min_connect_timeout = std::chrono::seconds{20};  // MIN_CONNECT_TIMEOUT
  return p;
}

BackoffPolicy BackoffPolicy::gcs_python() {
  return doubling(std::chrono::seconds{1}, std::chrono::seconds{60}, Jitter::full)
      .with_deadline(std::chrono::seconds{120});
}
BackoffPolicy BackoffPolicy::gcs_cpp() {
  return doubling(std::chrono::seconds{1}, std::chrono::minutes{5}, Jitter::full)
      .with_deadline(std::chrono::minutes{15});
}
BackoffPolicy BackoffPolicy::gcloud() {
  return doubling(std::chrono::seconds{1}, std::chrono::seconds{32}, Jitter::full).with_max_attempts(33);
}

BackoffPolicy BackoffPolicy::grpc_retry(microseconds initial_backoff, microseconds max_backoff,
                                      std::uint32_t multiplier_num, std::uint32_t multiplier_den,
                                      unsigned max_attempts) {
  BackoffPolicy p = doubling(initial_backoff, max_backoff, Jitter::full).with_multiplier(multiplier_num, multiplier_den);
  p.max_attempts = max_attempts < kGrpcMaxAttempts ? max_attempts : kGrpcMaxAttempts;
  p.server_delay = ServerDelay::honour;
  return p;
}

BackoffPolicy BackoffPolicy::with_max_attempts(unsigned n) const {
  BackoffPolicy p = *this;
  p.max_attempts = n;
  return p;
}
BackoffPolicy BackoffPolicy::with_deadline(microseconds d) const {
  BackoffPolicy p = *this;
  p.deadline = d;
  return p;
}
BackoffPolicy BackoffPolicy::with_multiplier(std::uint32_t num, std::uint32_t den) const {
  BackoffPolicy p = *this;
  p.multiplier_num = num;
  p.multiplier_den = den;
  return p;
}
BackoffPolicy BackoffPolicy::with_server_delay(ServerDelay d) const {
  BackoffPolicy p = *this;
  p.server_delay = d;
  return p;
}

microseconds BackoffPolicy::grow(microseconds c) const {
  // ceil(c * num / den); c <= cap <= 366 d and num <= 65536 keep the product < 2^63.
  const std::int64_t num = multiplier_num, den = multiplier_den;
  const microseconds next{(c.count() * num + den - 1) / den};
  return next > cap ? cap : next;
}

microseconds BackoffPolicy::ceiling(unsigned n) const {
  microseconds c = base > cap ? cap : base;
  for (unsigned i = 0; i < n && c < cap; ++i) {
    const microseconds next = grow(c);
    if (next == c) break;  // multiplier 1: constant
    c = next;
  }
  return c;
}

void BackoffPolicy::validate() const {
  if (base < microseconds{1}) fail("base", us(base) + " must be at least 1 us");
  if (cap > kMaxDuration) fail("cap", us(cap) + " is above 366 days (the supported range)");
  if (cap < base) fail("cap", us(cap) + " is below base (" + us(base) + ")");
  if (multiplier_den == 0 || multiplier_den > kMaxMultiplierTerm)
    fail("multiplier_den", std::to_string(multiplier_den) + " must be in 1..65536");
  if (multiplier_num < multiplier_den || multiplier_num > kMaxMultiplierTerm)
    fail("multiplier_num", std::to_string(multiplier_num) + " must be in multiplier_den (" +
                               std::to_string(multiplier_den) + ")..65536: a multiplier below 1 would shrink");
  if (static_cast<unsigned>(jitter) > static_cast<unsigned>(Jitter::proportional))
    fail("jitter", std::to_string(static_cast<int>(jitter)) + " is not a Jitter");
  if (static_cast<unsigned>(server_delay) > static_cast<unsigned>(ServerDelay::clamp_to_cap))
    fail("server_delay", std::to_string(static_cast<int>(server_delay)) + " is not a ServerDelay");
  if (jitter_permille > 1000) fail("jitter_permille", std::to_string(jitter_permille) + " must be in 0..1000");
  if (deadline && (*deadline <= microseconds::zero() || *deadline > kMaxDuration))
    fail("deadline", us(*deadline) + " must be in (0, 366 days]");
  if (min_connect_timeout < microseconds::zero() || min_connect_timeout > kMaxDuration)
    fail("min_connect_timeout", us(min_connect_timeout) + " must be in [0, 366 days]");
}

// ---- Backoff -------------------------------------------------------------

Backoff::Backoff(BackoffPolicy policy) : policy_(policy) {
  policy_.validate();
  reset();
}

void Backoff::reset() {
  failures_ = 0;
  restart_ceiling();
  waited_ = microseconds{0};
  gave_up_ = GiveUp::none;
}

void Backoff::restart_ceiling() {
  ceiling_ = policy_.base;
  previous_ = policy_.base;
}

microseconds Backoff::grow_unclamped(microseconds c) const {
  const std::int64_t num = policy_.multiplier_num, den = policy_.multiplier_den;
  return microseconds{(c.count() * num + den - 1) / den};
}

microseconds Backoff::current_ceiling() const {
  if (policy_.jitter == Jitter::decorrelated) {
    const microseconds hi = grow_unclamped(previous_);
    return hi > policy_.cap ? policy_.cap : hi;
  }
  return ceiling_;
}

bool Backoff::count_failure() {
  if (gave_up_ != GiveUp::none) return false;
  if (failures_ != ~0u) ++failures_;
  if (policy_.max_attempts != 0 && failures_ >= policy_.max_attempts) {
    gave_up_ = GiveUp::attempts;
    return false;
  }
  return true;
}

std::optional<microseconds> Backoff::admit(microseconds wait, microseconds elapsed) {
  if (elapsed < microseconds::zero()) elapsed = microseconds::zero();
  if (policy_.deadline && (elapsed > *policy_.deadline || wait > *policy_.deadline - elapsed)) {
    gave_up_ = GiveUp::deadline;
    return std::nullopt;
  }
  // An honoured server wait may be as long as microseconds hold: saturate.
  waited_ = wait > microseconds::max() - waited_ ? microseconds::max() : waited_ + wait;
  return wait;
}

// ---- ConnectionBackoff ---------------------------------------------------

ConnectionBackoff::ConnectionBackoff(BackoffPolicy policy) : policy_(policy) {
  policy_.validate();
  reset();
}

void ConnectionBackoff::reset() {
  started_ = false;
  failures_ = 0;
  backoff_ = policy_.base;
}

std::uint32_t ConnectionBackoff::spread_permille() const {
  return policy_.jitter == Jitter::proportional ? policy_.jitter_permille : 0;
}

Instant ConnectionBackoff::attempt_deadline(Instant now) {
  if (!started_) {
    started_ = true;
    first_start_ = now;
    backoff_deadline_ = detail::saturating_add(now, policy_.base);  // current_deadline = now + INITIAL_BACKOFF
  }
  const Instant floor = detail::saturating_add(now, policy_.min_connect_timeout);
  return backoff_deadline_ > floor ? backoff_deadline_ : floor;
}

}  // namespace rto

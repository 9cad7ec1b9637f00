// An HTTP GET with retries (rto/retry): refused or reset connections,
// timeouts and 408/429/5xx answers are retried with full jitter, at most 5
// attempts within 30 s; a 503 or 429 with Retry-After waits what the server
// asked, even beyond the 10 s cap, if that ends within the 30 s; a quota
// shared by the client's calls bounds the retries. r.last is the final
// response, r.attempts the calls made.
#pragma once
#include <chrono>
#include <optional>
#include <random>
#include <rto/retry/retry.hpp>
#include <string>

// What your HTTP client returns for one attempt.
struct Response {
  int status = 0;                                      // 0 when there was no response
  std::optional<rto::TransportError> transport_error;  // refused, reset, timeout...
  std::string retry_after;                             // the Retry-After field, "" if none
};

inline rto::AttemptOutcome classify(const Response& r) {
  if (r.transport_error) return rto::AttemptOutcome::failed(*r.transport_error);
  const auto now = std::chrono::system_clock::now();  // for an HTTP-date Retry-After
  return rto::AttemptOutcome::http(r.status, rto::parse_retry_after(r.retry_after, now));
}

// send() makes one attempt; rng is e.g. a std::mt19937_64; a program leaves
// `sleeper` at rto::SteadySleeper (a test passes a virtual clock).
template <class Send, std::uniform_random_bit_generator G, class Sleeper = rto::SteadySleeper>
rto::RetryResult<Response> get_with_retries(Send send, bool idempotent, rto::RetryBudget& quota, G& rng,
                                            Sleeper sleeper = {}) {
  using namespace std::chrono_literals;
  rto::RetryPolicy policy;
  policy.backoff = rto::BackoffPolicy::full_jitter(100ms, 10s).with_max_attempts(5).with_deadline(30s);
  policy.idempotency = idempotent ? rto::Idempotency::idempotent : rto::Idempotency::non_idempotent;
  policy.budget = &quota;  // e.g. one rto::AwsRetryQuota per client
  return rto::retry(send, policy, rng, classify, sleeper);
}

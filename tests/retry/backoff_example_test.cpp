// The retry example of README.md ("Retrying calls to a remote service"),
// compiled and run against a fake server on a virtual clock.

#include <doctest/doctest.h>

#include <chrono>
#include <optional>
#include <random>
#include <string>

#include "rto/retry/retry.hpp"

namespace {

using namespace std::chrono_literals;

struct Response {
  int status = 0;
  std::optional<rto::TransportError> transport_error;
  std::string retry_after;  // the Retry-After field, "" if none
};

// A fake server: a reset, then 503 with "Retry-After: 2", then 200. The
// virtual clock advances 50 ms per call and by each wait.
struct FakeClient {
  int calls = 0;
  std::chrono::microseconds clock{0};
  Response send() {
    clock += 50ms;
    switch (calls++) {
      case 0: return {0, rto::TransportError::connection_reset, ""};
      case 1: return {503, std::nullopt, "2"};
      default: return {200, std::nullopt, ""};
    }
  }
  void sleep_for(std::chrono::microseconds d) { clock += d; }
  std::chrono::microseconds elapsed() const { return clock; }
};

// ---- as in README.md --------------------------------------------------------
rto::AwsRetryQuota quota;  // one per client, shared by all its calls

template <class Client>
Response call_with_retries(Client& client, bool idempotent, std::mt19937_64& rng) {
  rto::Retrier retry(rto::BackoffPolicy::full_jitter(100ms, 10s).with_max_attempts(5).with_deadline(30s),
                     idempotent ? rto::Idempotency::idempotent : rto::Idempotency::non_idempotent, &quota);
  for (;;) {
    Response r = client.send();
    const auto outcome =
        r.transport_error ? rto::AttemptOutcome::failed(*r.transport_error)
                          : rto::AttemptOutcome::http(
                                r.status, rto::parse_retry_after(r.retry_after, std::chrono::system_clock::now()));
    const rto::RetryDecision d = retry.on_attempt(outcome, rng, client.elapsed());
    if (d.action != rto::RetryDecision::Action::retry) return r;  // done, or give up with the last failure
    client.sleep_for(d.wait);
  }
}
// -----------------------------------------------------------------------------

}  // namespace

TEST_CASE("README retry example: a reset, a 503 with Retry-After 2, then 200") {
  std::mt19937_64 rng(42);
  FakeClient c;
  const Response r = call_with_retries(c, true, rng);
  CHECK(r.status == 200);
  CHECK(c.calls == 3);
  // 3 calls of 50 ms, a full-jitter wait in [0, 100 ms] after the reset, the server's 2 s after the 503.
  CHECK(c.clock >= 150ms + 2s);
  CHECK(c.clock <= 150ms + 100ms + 2s);
  // Two retries from the quota (5 each), the second refunded by the success: 500 - 10 + 5.
  CHECK(quota.tokens() == 495u);
  FakeClient post;
  CHECK(call_with_retries(post, false, rng).transport_error == rto::TransportError::connection_reset);
  CHECK(post.calls == 1);  // not idempotent: no retry
}

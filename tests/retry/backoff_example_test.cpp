// The retry example of README.md ("Retrying calls to a remote service"),
// tests/install/retry-consumer/get_with_retries.hpp, run against a fake
// server on a virtual clock with a generator whose draws are known.

#include <doctest/doctest.h>

#include <chrono>
#include <vector>

#include "backoff_util.hpp"
#include "install/retry-consumer/get_with_retries.hpp"

namespace {

using namespace std::chrono_literals;
using std::chrono::microseconds;

// A fake server: a reset, then 503 with "Retry-After: 12", then 200. Each
// call takes 50 ms of virtual time.
struct FakeServer {
  int calls = 0;
  microseconds* clock;
  Response operator()() {
    *clock += 50ms;
    switch (calls++) {
      case 0: return {0, rto::TransportError::connection_reset, ""};
      case 1: return {503, std::nullopt, "12"};
      default: return {200, std::nullopt, ""};
    }
  }
};

struct VirtualSleeper {
  microseconds* clock;
  std::vector<microseconds>* sleeps;
  rto::Instant now() const { return rto::Instant{*clock}; }
  void sleep_for(microseconds d) const {
    sleeps->push_back(d);
    *clock += d;
  }
};

}  // namespace

TEST_CASE("README retry example: a reset, a 503 with Retry-After 12 s beyond the 10 s cap, then 200") {
  microseconds clock{0};
  std::vector<microseconds> sleeps;
  rto::AwsRetryQuota quota;
  rto_test::ScriptedGenerator rng{rto_test::kHalf};  // U[0, n] gives floor((n + 1) / 2)
  FakeServer server{0, &clock};
  const auto r = get_with_retries(std::ref(server), true, quota, rng, VirtualSleeper{&clock, &sleeps});
  CHECK(r.ok());
  CHECK(r.last.status == 200);
  CHECK(r.attempts == 3u);
  REQUIRE(sleeps.size() == 2u);
  CHECK(sleeps[0] == microseconds{50'000});  // U[0, 100 ms] after the reset: floor(100 001 / 2)
  CHECK(sleeps[1] == 12s);                   // the server's 12 s, honoured beyond the 10 s cap
  CHECK(r.waited == 12s + 50ms);
  // Two retries from the quota (5 each), the second refunded by the success: 500 - 10 + 5.
  CHECK(quota.tokens() == 495u);

  FakeServer post{0, &clock};
  const auto p = get_with_retries(std::ref(post), false, quota, rng, VirtualSleeper{&clock, &sleeps});
  CHECK(p.last.transport_error == rto::TransportError::connection_reset);
  CHECK(p.attempts == 1u);  // not idempotent: no retry
  CHECK(p.decision.reason == rto::RetryDecision::Reason::not_idempotent);
}

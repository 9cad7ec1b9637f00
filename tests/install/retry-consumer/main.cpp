// Consumer of the installed retry library alone (pkg-config rto-retry, or
// CMake rto::retry / rto::retry_static), built at C++23: it links
// librto_retry and nothing of the TCP timer's librto, runs the README's
// example (get_with_retries.hpp) on a virtual clock, and checks waits
// derived by hand.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <functional>
#if __has_include(<expected>)
#include <expected>
#endif
#include <optional>
#include <string>
#include <rto/retry/retry.hpp>
#include <vector>

#include "get_with_retries.hpp"

static_assert(__cplusplus > 202002L, "the rto-retry package downgraded this C++23 consumer");

namespace {

int failures = 0;

void check(bool ok, const char* what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAIL", what);
  if (!ok) ++failures;
}

// Returns 2^63 for every draw: rto::uniform_below(g, n) then gives floor(n / 2).
struct HalfGenerator {
  using result_type = std::uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }
  result_type operator()() { return result_type{1} << 63; }
};

// A server that resets the first connection, answers the second with 503
// and "Retry-After: 12", and the third with 200; a clock that only moves
// when the client sleeps.
struct FakeServer {
  int calls = 0;
  Response operator()() {
    switch (calls++) {
      case 0: return {0, rto::TransportError::connection_reset, ""};
      case 1: return {503, std::nullopt, "12"};
      default: return {200, std::nullopt, ""};
    }
  }
};
struct VirtualSleeper {
  std::chrono::microseconds* clock;
  rto::Instant now() const { return rto::Instant{*clock}; }
  void sleep_for(std::chrono::microseconds d) const { *clock += d; }
};

}  // namespace

int main() {
  using namespace std::chrono_literals;
  HalfGenerator g;

  // Full jitter, base 1 s: the first wait is U[0, 1 s], span 1 000 001 us: floor(1 000 001 / 2).
  rto::Backoff b(rto::BackoffPolicy::full_jitter(1s, 30s));
  const auto d = b.next_delay(g);
  check(d && *d == std::chrono::microseconds{500'000}, "full jitter: the first wait is 500 000 us");

  // A 503 with "Retry-After: 7" waits the server's 7 s.
  rto::Retrier r(rto::BackoffPolicy::full_jitter(1s, 30s).with_max_attempts(3));
  const auto after = rto::parse_retry_after("7", std::chrono::system_clock::now());
  const auto r1 = r.on_attempt(rto::AttemptOutcome::http(503, after), g);
  check(r1.action == rto::RetryDecision::Action::retry && r1.wait == 7s, "503 with Retry-After 7: wait 7 s");

  // The README example: a reset (wait U[0, 100 ms] -> 50 000 us), a 503 with
  // Retry-After 12 (12 s, beyond the 10 s cap), then 200.
  std::chrono::microseconds clock{0};
  rto::AwsRetryQuota quota;
  FakeServer server;
  const auto got = get_with_retries(std::ref(server), true, quota, g, VirtualSleeper{&clock});
  check(got.ok() && got.last.status == 200 && got.attempts == 3, "README example: 200 at the third attempt");
  check(clock == std::chrono::microseconds{12'050'000}, "README example: waited 50 ms + 12 s");
  check(std::string(rto::to_string(got.decision.reason)) == "success", "to_string(Reason::success)");

#if defined(__cpp_lib_expected)
  // C++23: rto::retry takes a std::expected as it takes an rto::Result.
  // An UNAVAILABLE then a value; exponential 10 ms: one 10 ms wait.
  std::chrono::microseconds clock2{0};
  int calls = 0;
  using Expected = std::expected<int, rto::GrpcStatus>;
  rto::RetryPolicy policy;
  policy.backoff = rto::BackoffPolicy::exponential(10ms, 1s);
  const auto e = rto::retry(
      [&]() -> Expected {
        if (calls++ == 0) return std::unexpected(rto::GrpcStatus::unavailable);
        return 7;
      },
      policy, g, [](rto::GrpcStatus s) { return rto::AttemptOutcome::grpc(s); }, VirtualSleeper{&clock2});
  check(e.ok() && e.last.value() == 7 && e.attempts == 2 && clock2 == 10ms, "std::expected: UNAVAILABLE, 10 ms, then 7");
#else
  std::printf("note: this standard library has no std::expected; not tried\n");
#endif

  bool caught = false;
  try {
    rto::Backoff bad(rto::BackoffPolicy::exponential(2s, 1s));
  } catch (const rto::BackoffPolicyError&) {  // thrown inside librto_retry.so, caught here
    caught = true;
  }
  check(caught, "a cap below the base throws rto::BackoffPolicyError across the library boundary");

  std::printf("%s\n", failures == 0 ? "retry consumer: all checks passed" : "retry consumer: FAILED");
  return failures == 0 ? 0 : 1;
}

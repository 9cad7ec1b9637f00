// The retry library's headers in a program built with -fno-exceptions
// (rto/retry/call.hpp says it stays usable so): rto::retry with an
// rto::Result, three UNAVAILABLE answers, max 3 attempts, exponential 1 ms:
// waits 1 ms and 2 ms, then it gives up with the last error.

#include <chrono>
#include <cstdio>
#include <random>
#include <rto/retry/retry.hpp>

namespace {

struct VirtualSleeper {
  std::chrono::microseconds* clock;
  rto::Instant now() const { return rto::Instant{*clock}; }
  void sleep_for(std::chrono::microseconds d) const { *clock += d; }
};

}  // namespace

int main() {
  using namespace std::chrono_literals;
  std::mt19937_64 rng(1);  // no jitter: never drawn from
  rto::RetryPolicy policy;
  policy.backoff = rto::BackoffPolicy::exponential(1ms, 1s).with_max_attempts(3);
  std::chrono::microseconds clock{0};
  using Reply = rto::Result<int, rto::GrpcStatus>;
  const auto r = rto::retry([] { return Reply::failure(rto::GrpcStatus::unavailable); }, policy, rng,
                            [](rto::GrpcStatus s) { return rto::AttemptOutcome::grpc(s); }, VirtualSleeper{&clock});
  const bool ok = !r.ok() && r.attempts == 3 && r.last.error() == rto::GrpcStatus::unavailable &&
                  r.decision.reason == rto::RetryDecision::Reason::attempts && clock == 3ms;
  std::printf("%s: -fno-exceptions: %u attempts, waited %lld us, %s\n", ok ? "ok" : "FAIL", r.attempts,
              static_cast<long long>(clock.count()), rto::to_string(r.decision.reason));
  return ok ? 0 : 1;
}

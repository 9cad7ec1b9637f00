// pkg-config consumer of the installed rto (c++ -std=c++23 $(pkg-config --cflags
// --libs rto)): the C++ API and the C API from C++, against librto.so.

#include <rto/rto.h>

#include <chrono>
#include <cstdio>
#include <rto/rto.hpp>

// rto.pc must not carry a -std flag: one placed after ours would lower C++23
// to C++20 (GCC 12 reports C++23 as 202100L, above C++20's 202002L).
static_assert(__cplusplus > 202002L, "rto.pc downgraded this C++23 consumer");

namespace {

int failures = 0;

void check(bool ok, const char* what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAIL", what);
  if (!ok) ++failures;
}

}  // namespace

int main() {
  using std::chrono::milliseconds;
  // Linux variant, first sample R = 100 ms: SRTT = 100 ms, mdev = 2R = 200 ms,
  // rttvar_us = max(mdev, rto_min 200 ms) = 200 ms, RTO = 100 + 200 = 300 ms,
  // already a multiple of the 4 ms jiffy; tcpi_rttvar = mdev / 4 = 50 ms.
  rto::LinuxEstimator lin(rto::Config::linux_default());
  check(lin.on_rtt_sample(milliseconds{100}), "Linux first sample accepted");
  check(lin.rto() == milliseconds{300}, "Linux RTO 300 ms");
  check(lin.linux_rttvar() == milliseconds{200}, "Linux rttvar_us 200 ms");
  check(lin.rttvar() == milliseconds{50}, "Linux tcpi_rttvar 50 ms");

  // RFC 6298, R = 100 ms: 100 + max(1, 4 * 50) = 300 ms, floored to 1 s (2.4).
  rto_estimator* est = nullptr;
  std::int64_t rto_us = 0;
  check(rto_estimator_new(nullptr, &est) == RTO_OK, "C API from C++: estimator");
  check(rto_estimator_on_rtt_sample(est, 100000) == RTO_OK, "C API: sample 100 ms");
  check(rto_estimator_rto_us(est, &rto_us) == RTO_OK && rto_us == 1000000, "C API: RTO floored to 1 s");
  rto_estimator_free(est);

  bool caught = false;
  try {
    rto::Config c = rto::Config::rfc6298();
    c.granularity = milliseconds{0};
    c.validate();
  } catch (const rto::ConfigError&) {
    caught = true;
  }
  check(caught, "a zero G throws rto::ConfigError out of librto.so");

  std::printf("%s\n", failures == 0 ? "pkg-config consumer: all checks passed" : "pkg-config consumer: FAILED");
  return failures == 0 ? 0 : 1;
}

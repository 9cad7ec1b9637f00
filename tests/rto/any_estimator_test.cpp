// rto::AnyEstimator: the estimator Config::variant names, giving exactly what
// rto::Estimator or rto::LinuxEstimator gives for the same samples.

#include <doctest/doctest.h>

#include <cstdint>
#include <random>

#include "rto/any_estimator.hpp"

using rto::AnyEstimator;
using rto::Config;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::seconds;

TEST_CASE("AnyEstimator holds the variant's estimator and gives its values, sample for sample") {
  std::mt19937_64 rng(23);
  for (const Config& c : {Config::rfc6298(), Config::linux_default()}) {
    AnyEstimator any(c);
    CHECK(any.variant() == c.variant);
    rto::Estimator rfc;
    rto::LinuxEstimator lin;
    const bool linux = c.variant == Config::Variant::linux_kernel;
    CHECK((any.linux_kernel() != nullptr) == linux);
    CHECK((any.rfc6298() != nullptr) == !linux);
    std::uint32_t una = 0, nxt = 1000;
    for (int i = 0; i < 2000; ++i) {
      const microseconds r{static_cast<std::int64_t>(rng() % 2'000'000)};
      una += 500;
      nxt += 1000;
      REQUIRE(any.on_rtt_sample(r, una, nxt));
      if (linux) REQUIRE(lin.on_rtt_sample(r, una, nxt));
      else REQUIRE(rfc.on_rtt_sample(r));  // RFC 6298 has no RTT windows
      CHECK(any.rto() == (linux ? lin.rto() : rfc.rto()));
      CHECK(any.srtt() == (linux ? lin.srtt() : rfc.srtt()));
      CHECK(any.rttvar() == (linux ? lin.rttvar() : rfc.rttvar()));
      CHECK(any.linux_rttvar() == (linux ? lin.linux_rttvar() : std::nullopt));
    }
  }
}

TEST_CASE("AnyEstimator: defaults are RFC 6298's; refusals, forget() and a bad Config pass through") {
  AnyEstimator e;
  CHECK(e.variant() == Config::Variant::rfc6298);
  CHECK(e.rto() == seconds{1});  // 2.1
  CHECK_FALSE(e.on_rtt_sample(microseconds{-1}));
  CHECK_FALSE(e.has_sample());
  REQUIRE(e.on_rtt_sample(milliseconds{2000}));
  CHECK(e.rto() == milliseconds{6000});  // 2.2: 2000 + 4 * 1000
  e.forget();
  CHECK_FALSE(e.srtt().has_value());
  CHECK(e.rto() == seconds{1});
  Config bad = Config::linux_default();
  bad.min_rto = microseconds{0};
  CHECK_THROWS_AS(AnyEstimator{bad}, rto::ConfigError);
  // The Linux one-argument form ends an RTT window every sample: 40 ms then
  // 40 ms give RTO 240 ms (rttvar decays to mdev_max = 200 ms).
  AnyEstimator lin(Config::linux_default());
  REQUIRE(lin.on_rtt_sample(milliseconds{40}));
  REQUIRE(lin.on_rtt_sample(milliseconds{40}));
  CHECK(lin.rto() == milliseconds{240});
}

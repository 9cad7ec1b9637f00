// The bounds of the compact per-connection state: the constants each
// estimator copies from its Config, the Linux variant's 32-bit fields, the
// timer's 16-bit counters, the sampler's 30-bit tick and the timer's stopped
// deadline, each tested at its boundary. Expected values are computed by hand
// in the comments.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "rto/config.hpp"
#include "rto/estimator.hpp"
#include "rto/linux_estimator.hpp"
#include "rto/retransmission_timer.hpp"
#include "rto/rtt_sampler.hpp"
#include "test_util.hpp"

using rto::Config;
using rto::ConfigError;
using rto::Estimator;
using rto::Instant;
using rto::LinuxEstimator;
using rto::RetransmissionTimer;
using rto::Rto;
using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::seconds;

TEST_CASE("A profile is a value: an estimator copies its constants, so the Config may go; a bad Config throws") {
  Estimator e = [] {
    Config c = Config::rfc6298();
    c.min_rto = milliseconds{1500};
    c.initial_rto = seconds{2};
    return Estimator(c);  // c ends here
  }();
  CHECK(e.rto() == seconds{2});  // 2.1 with initial_rto 2 s
  REQUIRE(e.on_rtt_sample(milliseconds{100}));
  CHECK(e.rto() == milliseconds{1500});  // 100 + 4*50 = 300 ms, floored at min_rto 1.5 s (2.4)
  const Estimator copy = e;  // a plain value: copies keep the constants
  CHECK(copy.rto() == milliseconds{1500});
  Config bad = Config::rfc6298();
  bad.max_rto = seconds{30};  // 2.5: below 60 s
  CHECK_THROWS_AS(Estimator{bad}, ConfigError);
  CHECK_THROWS_AS(RetransmissionTimer{bad}, ConfigError);
  bad.variant = Config::Variant::linux_kernel;  // the Linux variant accepts a 30 s cap
  CHECK_NOTHROW(LinuxEstimator{bad});
  // Each estimator refuses the other's variant, naming the field.
  try {
    Estimator wrong(Config::linux_default());
    FAIL("Estimator accepted the Linux variant");
  } catch (const ConfigError& err) {
    CHECK(std::string(err.what()).find("rto::Config.variant") == 0);
  }
  CHECK_THROWS_AS(LinuxEstimator{Config::rfc6298()}, ConfigError);
}

TEST_CASE("Linux 32-bit fields: a sample of kMaxExactSampleUs is exact, a longer one saturates to it") {
  // kMaxExactSampleUs = floor((2^32 - 1) / 8) = 536 870 911 us: 8 * SRTT = 4 294 967 288 < 2^32.
  CHECK(LinuxEstimator::kMaxExactSampleUs == 536'870'911);
  const microseconds r{536'870'911};
  LinuxEstimator at, above, hour;
  REQUIRE(at.on_rtt_sample(r));
  REQUIRE(above.on_rtt_sample(r + microseconds{1}));
  REQUIRE(hour.on_rtt_sample(hours{1}));  // still accepted (<= 1 h), counted as r
  for (const LinuxEstimator* e : {&at, &above, &hour}) {
    // First sample: srtt = R; mdev4 = 2R = 1 073 741 822, so rttvar() = mdev4 >> 2 =
    // 268 435 455 (2R/4 = 268 435 455.5, truncated); rttvar_us = max(2R, 200 ms) = 2R;
    // RTO = R + 2R = 1.6 s, above TCP_RTO_MAX: 120 s.
    CHECK(e->srtt() == r);
    CHECK(e->rttvar() == microseconds{268'435'455});
    CHECK(e->linux_rttvar() == microseconds{1'073'741'822});
    CHECK(e->rto() == seconds{120});
  }
  // A second sample equal to SRTT: m = 0 - mdev4/4 = -268 435 455 (not "below"),
  // mdev4 = 1 073 741 822 - 268 435 455 = 805 306 367 (rttvar() = 201 326 591);
  // mdev_max = max(2R, mdev4) = 2R, rttvar_us stays 2R (no excess to decay).
  REQUIRE(at.on_rtt_sample(r));
  REQUIRE(hour.on_rtt_sample(hours{1}));
  for (const LinuxEstimator* e : {&at, &hour}) {
    CHECK(e->srtt() == r);
    CHECK(e->rttvar() == microseconds{201'326'591});
    CHECK(e->linux_rttvar() == microseconds{1'073'741'822});
  }
  // The RFC 6298 variant keeps the whole 0..1 h range exactly (2^-20 us fixed point).
  Config c = Config::rfc6298();
  c.max_rto = hours{1};
  Estimator rfc(c);
  REQUIRE(rfc.on_rtt_sample(hours{1}));
  CHECK(rfc.srtt() == hours{1});
}

TEST_CASE("Config: syn_linear_timeouts and reset_after_backoffs up to kMaxCount = 65535, not above") {
  CHECK(Config::kMaxCount == 65'535u);
  Config c = Config::linux_default();
  c.syn_linear_timeouts = 65'535;
  c.reset_after_backoffs = 65'535;
  CHECK_NOTHROW(c.validate());
  c.syn_linear_timeouts = 65'536;
  try {
    c.validate();
    FAIL("65536 linear SYN timeouts accepted");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("syn_linear_timeouts") != std::string::npos);
  }
  c.syn_linear_timeouts = 4;
  c.reset_after_backoffs = 65'536;
  try {
    c.validate();
    FAIL("reset after 65536 backoffs accepted");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("reset_after_backoffs") != std::string::npos);
  }
}

TEST_CASE("RFC6298-5.5 the backoff count saturates at 65535; the RTO stays at the cap") {
  Estimator e;
  RetransmissionTimer t(Config::rfc6298(), rto_test::kNoRetryLimits);
  // initial 1 s, cap 60 s: 1, 2, 4, ..., 32, then 60 s from the 6th doubling
  for (int i = 0; i < 65'535; ++i) rto_test::expire(e, t);
  CHECK(t.backoff() == 65'535u);
  CHECK(t.rto() == seconds{60});
  rto_test::expire(e, t);
  CHECK(t.backoff() == 65'535u);
  CHECK(t.rto() == seconds{60});
  // A sample still collapses it (note after 5.7): R = 100 ms -> RTO = max(1 s, 100 + 4*50 ms) = 1 s.
  REQUIRE(rto_test::sample(e, t, milliseconds{100}));
  CHECK(t.backoff() == 0u);
  CHECK(t.rto() == seconds{1});
}

TEST_CASE("RFC6298-5-reset at the 65535th backoff: the 16-bit count reaches the largest allowed N") {
  Config c = Config::rfc6298();
  c.reset_after_backoffs = 65'535;
  Estimator e(c);
  RetransmissionTimer t(c, rto_test::kNoRetryLimits);
  REQUIRE(rto_test::sample(e, t, milliseconds{100}));
  for (int i = 0; i < 65'534; ++i) rto_test::expire(e, t);
  CHECK(e.srtt().has_value());  // 65534 backoffs: not yet
  rto_test::expire(e, t);
  CHECK_FALSE(e.srtt().has_value());  // the 65535th clears SRTT/RTTVAR
  CHECK(t.rto() == seconds{60});      // the backed-off RTO stays
}

TEST_CASE("RetransmissionTimer: a start at the ends of the clock stays running") {
  using rto_test::at_ms;
  rto::RetransmissionTimer t;
  CHECK_FALSE(t.running());
  CHECK(t.deadline() == Instant::max());
  // Instant::min() marks "stopped": the shortest start from it lands 1 us later.
  t.restart(Instant::min(), Rto::clamped(microseconds{0}, Rto::kMin, Rto::kMax));
  CHECK(t.running());
  CHECK(t.deadline() == Instant::min() + microseconds{1});
  CHECK_FALSE(t.expired(Instant::min()));
  CHECK(t.expired(Instant::min() + microseconds{1}));
  // Past the end of the clock: saturates at Instant::max(), running, never expired before it.
  t.restart(Instant::max() - microseconds{5}, Rto::clamped(seconds{1}, Rto::kMin, Rto::kMax));
  CHECK(t.running());
  CHECK(t.deadline() == Instant::max());
  CHECK_FALSE(t.expired(Instant::max() - microseconds{1}));
  t.stop();
  CHECK_FALSE(t.running());
  CHECK(t.deadline() == Instant::max());
  CHECK_FALSE(t.expired(Instant::max()));
  t.on_rtt_sample(Rto::clamped(milliseconds{250}, Rto::kMin, Rto::kMax));
  t.on_data_sent(at_ms(100));  // 5.1
  CHECK(t.deadline() == at_ms(350));
}

TEST_CASE("RttSampler: the TS tick is kept up to kMaxTsTick = 2^30 - 1 us and clamped above") {
  CHECK(rto::RttSampler::kMaxTsTick == microseconds{1'073'741'823});
  CHECK(rto::RttSampler(rto::RttSampler::kMaxTsTick).ts_tick() == microseconds{1'073'741'823});
  CHECK(rto::RttSampler(rto::RttSampler::kMaxTsTick + microseconds{1}).ts_tick() == microseconds{1'073'741'823});
  CHECK(rto::RttSampler(hours{2}).ts_tick() == microseconds{1'073'741'823});
  CHECK(rto::RttSampler(microseconds{0}).ts_tick() == milliseconds{1});   // non-positive: 1 ms
  CHECK(rto::RttSampler(microseconds{-5}).ts_tick() == milliseconds{1});
  CHECK(rto::RttSampler(seconds{1}).ts_tick() == seconds{1});              // RFC 7323's slowest clock
  // A 1 s tick: a TSecr 3 ticks back gives R = 3 s.
  rto::RttSampler s(seconds{1});
  s.on_send(1000, 100, 1000, rto_test::at_ms(0));
  const std::uint32_t tsecr = s.tsval(rto_test::at_ms(0));
  auto r = s.on_ack_ts(1100, tsecr, 1000, 1100, rto_test::at_ms(3'500));  // floor(3.5) - 0 = 3 ticks
  REQUIRE(r.has_value());
  CHECK(*r == seconds{3});
}

TEST_CASE("Linux tick rounding is exact: RTO = ceil(rto_min / tick) * tick for every tick shape") {
  // Linux variant, first sample R = 0: SRTT 0, rttvar_us = max(2R, rto_min) = rto_min, so
  // the RTO is rto_min rounded up to the tick, capped at 1 h; the truth is integer
  // division, (m + t - 1) / t * t.
  const std::int64_t hour = 3'600'000'000;
  const std::int64_t ticks[] = {2, 3, 7, 1'000, 4'000, 4'096, 10'000, 999'983, 1'000'000,
                                (std::int64_t{1} << 31) - 1, std::int64_t{1} << 31, (std::int64_t{1} << 31) + 1,
                                3'000'000'007, hour};
  for (const std::int64_t t : ticks) {
    std::vector<std::int64_t> mins;
    for (std::int64_t k : {std::int64_t{1}, std::int64_t{2}, std::int64_t{3}, std::int64_t{900}, hour / t, hour / t + 1})
      for (std::int64_t off : {-1, 0, 1}) {
        const std::int64_t m = k * t + off;
        if (m >= 1 && m <= hour) mins.push_back(m);
      }
    mins.push_back(1);
    mins.push_back(hour);
    for (const std::int64_t m : mins) {
      Config c = Config::linux_default();
      c.tick = microseconds{t};
      c.min_rto = microseconds{m};
      c.initial_rto = c.max_rto = c.syn_fallback_rto = microseconds{hour};
      LinuxEstimator e(c);
      REQUIRE(e.on_rtt_sample(microseconds{0}));
      const std::int64_t truth = std::min((m + t - 1) / t * t, hour);
      CAPTURE(t);
      CAPTURE(m);
      CHECK(e.rto() == microseconds{truth});
    }
  }
}

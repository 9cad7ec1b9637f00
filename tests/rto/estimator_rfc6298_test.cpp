// rto::Estimator, RFC 6298 profile: every rule of section 2 with hand-computed
// values, with the timer's 5.5 backoff and section 5 notes wired as a sender
// wires them (rto::RetransmissionTimer), extremes, and a long random sequence
// checked against an exact-rational model written here.

#include <doctest/doctest.h>

#include <cstdint>
#include <random>

#include "rto/estimator.hpp"
#include "rto/retransmission_timer.hpp"
#include "test_util.hpp"

using rto::Config;
using rto::Estimator;
using rto::RetransmissionTimer;
using rto_test::expire;
using rto_test::sample;
using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::seconds;

TEST_CASE("RFC6298-2.1 before any sample RTO is the initial 1 s and SRTT/RTTVAR are unset") {
  Estimator e;
  RetransmissionTimer t;
  CHECK(e.rto() == seconds{1});
  CHECK(t.rto() == seconds{1});
  CHECK(t.base_rto() == seconds{1});
  CHECK_FALSE(e.srtt().has_value());
  CHECK_FALSE(e.rttvar().has_value());
  CHECK(t.backoff() == 0u);
}

TEST_CASE("RFC6298-2.1 RFC6298-5.5 with 5.5: backoff applies before the first sample (1 s -> 2 s -> 4 s)") {
  RetransmissionTimer t;
  expire(t);
  CHECK(t.rto() == seconds{2});
  CHECK(t.backoff() == 1u);
  expire(t);
  CHECK(t.rto() == seconds{4});
  CHECK(t.base_rto() == seconds{1});
}

TEST_CASE("RFC6298-2.2 first sample: SRTT = R, RTTVAR = R/2, RTO = SRTT + max(G, 4 RTTVAR) (B02)") {
  Estimator e;
  REQUIRE(e.on_rtt_sample(milliseconds{2000}));
  // SRTT = 2000, RTTVAR = 1000, RTO = 2000 + max(1, 4*1000) = 6000 ms.
  CHECK(e.srtt() == milliseconds{2000});
  CHECK(e.rttvar() == milliseconds{1000});
  CHECK(e.rto() == milliseconds{6000});
}

TEST_CASE("RFC6298-2.2 first sample of 100 ms: RTTVAR 50 (asserted, since the 2.4 floor hides raw 300) (B02)") {
  Estimator e;
  REQUIRE(e.on_rtt_sample(milliseconds{100}));
  CHECK(e.srtt() == milliseconds{100});
  CHECK(e.rttvar() == milliseconds{50});  // a faulty R (not R/2) would give 100
  CHECK(e.rto() == milliseconds{1000});   // raw 100 + 200 = 300 -> 2.4 floor 1000
}

TEST_CASE("RFC6298-2.3 later samples use the old SRTT in RTTVAR: 1000 then 3000 ms give RTO 4750 ms (B01)") {
  Estimator e;
  REQUIRE(e.on_rtt_sample(milliseconds{1000}));
  // SRTT 1000, RTTVAR 500, RTO 1000 + 2000 = 3000.
  CHECK(e.rto() == milliseconds{3000});
  REQUIRE(e.on_rtt_sample(milliseconds{3000}));
  // RTTVAR = 3/4*500 + 1/4*|1000 - 3000| = 375 + 500 = 875
  // SRTT   = 7/8*1000 + 1/8*3000 = 875 + 375 = 1250
  // RTO    = 1250 + 4*875 = 4750 ms (the faulty order gives 812.5 and 4500).
  CHECK(e.rttvar() == milliseconds{875});
  CHECK(e.srtt() == milliseconds{1250});
  CHECK(e.rto() == milliseconds{4750});
}

TEST_CASE("RFC6298-2.3 100 ms then 300 ms: SRTT 125, RTTVAR 87.5, RTO 1 s (B01 small-RTT variant)") {
  Estimator e;
  REQUIRE(e.on_rtt_sample(milliseconds{100}));
  REQUIRE(e.on_rtt_sample(milliseconds{300}));
  // RTTVAR = 3/4*50 + 1/4*|100 - 300| = 37.5 + 50 = 87.5 ms (faulty order: 81.25)
  // SRTT   = 7/8*100 + 1/8*300 = 87.5 + 37.5 = 125 ms
  // raw    = 125 + 4*87.5 = 475 ms -> 2.4 floor: 1000 ms
  CHECK(e.srtt() == milliseconds{125});
  CHECK(e.rttvar() == microseconds{87'500});
  CHECK(e.rto() == milliseconds{1000});
}

TEST_CASE("RFC6298-2.3 a table of steps: constant 2000 ms samples converge RTTVAR by 3/4 per step") {
  Estimator e;
  // RTTVAR after sample n: 1000 * (3/4)^(n-1); SRTT stays 2000.
  // RTO = 2000 + 4*RTTVAR: 6000, 5000, 4250, 3687.5, 3265.625, 2949.21875 -> ceil us.
  const long long expected_rto_us[] = {6'000'000, 5'000'000, 4'250'000, 3'687'500, 3'265'625, 2'949'219};
  for (long long want : expected_rto_us) {
    REQUIRE(e.on_rtt_sample(milliseconds{2000}));
    CHECK(e.srtt() == milliseconds{2000});
    CHECK(e.rto() == microseconds{want});
  }
}

TEST_CASE("RFC6298-2.3 RTO is rounded UP to a whole microsecond (never early)") {
  Config c = Config::rfc6298();
  c.min_rto = microseconds{0};
  c.granularity = microseconds{1};
  Estimator e(c);
  REQUIRE(e.on_rtt_sample(microseconds{1}));
  // SRTT 1, RTTVAR 0.5, RTO = 1 + max(1, 2) = 3 us.
  CHECK(e.rto() == microseconds{3});
  REQUIRE(e.on_rtt_sample(microseconds{2}));
  // RTTVAR = 3/4*0.5 + 1/4*|1 - 2| = 0.625; SRTT = 7/8 + 2/8 = 1.125
  // RTO = 1.125 + 4*0.625 = 3.625 us -> rounded up to 4 us.
  CHECK(e.rto() == microseconds{4});
  CHECK(e.srtt() == microseconds{1});    // 1.125 to the nearest us
  CHECK(e.rttvar() == microseconds{1});  // 0.625 to the nearest us
}

TEST_CASE("RFC6298-2.3 RFC6298-4-clock G: RTO = SRTT + max(G, K*RTTVAR) takes G when K*RTTVAR is smaller") {
  Config c = Config::rfc6298();
  c.min_rto = microseconds{0};
  c.granularity = milliseconds{10};
  Estimator e(c);
  REQUIRE(e.on_rtt_sample(milliseconds{1}));
  // SRTT 1 ms, RTTVAR 0.5 ms, K*RTTVAR = 2 ms < G = 10 ms: RTO = 1 + 10 = 11 ms.
  CHECK(e.rto() == milliseconds{11});
}

TEST_CASE("RFC6298-2.4 RTO below 1 s is rounded up to 1 s; above it is left alone") {
  Estimator e;
  REQUIRE(e.on_rtt_sample(milliseconds{200}));  // raw 200 + 400 = 600 -> 1000
  CHECK(e.rto() == milliseconds{1000});
  Estimator f;
  REQUIRE(f.on_rtt_sample(milliseconds{400}));  // raw 400 + 800 = 1200 -> 1200
  CHECK(f.rto() == milliseconds{1200});
}

TEST_CASE("RFC6298-2.5 RTO is capped at 60 s: a 30 s sample gives raw 90 s -> 60 s") {
  Estimator e;
  RetransmissionTimer t;
  sample(e, t, seconds{30});  // SRTT 30, RTTVAR 15, raw 30 + 60 = 90 s
  CHECK(t.base_rto() == seconds{60});
  CHECK(t.rto() == seconds{60});
  CHECK(e.rto() == seconds{60});
  CHECK(e.srtt() == seconds{30});
}

TEST_CASE("RFC6298-5.5 RFC6298-5-collapse expiry doubles RTO and counts backoff; a fresh sample collapses it (note after 5.7)") {
  Estimator e;
  RetransmissionTimer t;
  sample(e, t, milliseconds{1000});  // RTO 3000
  expire(t);
  CHECK(t.rto() == milliseconds{6000});
  CHECK(t.backoff() == 1u);
  expire(t);
  CHECK(t.rto() == milliseconds{12000});
  CHECK(t.backoff() == 2u);
  CHECK(t.base_rto() == milliseconds{3000});
  sample(e, t, milliseconds{1000});
  // RTTVAR = 3/4*500 + 0 = 375, SRTT 1000, RTO = 1000 + 1500 = 2500 ms, backoff 0.
  CHECK(t.backoff() == 0u);
  CHECK(t.rto() == milliseconds{2500});
}

TEST_CASE("RFC6298-5.5 RFC6298-2.5 100 backoffs saturate at the 60 s cap without overflow (B13 extreme)") {
  RetransmissionTimer t(Config::rfc6298(), rto_test::kNoRetryLimits);
  for (int i = 0; i < 100; ++i) expire(t);
  CHECK(t.rto() == seconds{60});
  CHECK(t.backoff() == 100u);
  Config c = Config::rfc6298();
  c.max_rto = hours{1};
  RetransmissionTimer big(c, rto_test::kNoRetryLimits);
  for (int i = 0; i < 200; ++i) {
    expire(big);
    CHECK(big.rto() > microseconds{0});
  }
  CHECK(big.rto() == hours{1});
}

TEST_CASE("RFC6298-5-reset Section 5 note: reset_after_backoffs clears SRTT/RTTVAR; the next sample is a 2.2 first sample") {
  Config c = Config::rfc6298();
  c.reset_after_backoffs = 3;
  Estimator e(c);
  RetransmissionTimer t(c);
  sample(e, t, milliseconds{2000});  // SRTT 2000, RTTVAR 1000, RTO 6000
  expire(e, t);                      // 12 s
  expire(e, t);                      // 24 s
  CHECK(e.srtt() == milliseconds{2000});
  CHECK(t.on_expiry(rto::Instant{}).forget_rtt);  // 48 s, third backoff: clear SRTT/RTTVAR, RTO kept
  e.forget();
  CHECK_FALSE(e.srtt().has_value());
  CHECK_FALSE(e.rttvar().has_value());
  CHECK(t.rto() == seconds{48});
  CHECK(t.backoff() == 3u);
  sample(e, t, milliseconds{400});
  // 2.2 again: SRTT 400, RTTVAR 200, RTO 400 + 800 = 1200 ms (a 2.3 update would
  // give RTTVAR 3/4*1000 + 1/4*1600 = 1150 instead).
  CHECK(e.srtt() == milliseconds{400});
  CHECK(e.rttvar() == milliseconds{200});
  CHECK(t.rto() == milliseconds{1200});
}

TEST_CASE("RFC6298-5-reset Section 5 note: reset_after_backoffs is off by default") {
  Estimator e;
  RetransmissionTimer t(Config::rfc6298(), rto_test::kNoRetryLimits);
  sample(e, t, milliseconds{2000});
  for (int i = 0; i < 10; ++i) expire(e, t);
  CHECK(e.srtt() == milliseconds{2000});
}

TEST_CASE("Extremes: RTT 0 gives SRTT 0, RTTVAR 0, raw = G = 1 ms, RTO 1 s (B06 b)") {
  Estimator e;
  for (int i = 0; i < 3; ++i) REQUIRE(e.on_rtt_sample(microseconds{0}));
  CHECK(e.srtt() == microseconds{0});
  CHECK(e.rttvar() == microseconds{0});
  CHECK(e.rto() == seconds{1});
  Config c = Config::rfc6298();
  c.min_rto = microseconds{0};
  Estimator nofloor(c);
  REQUIRE(nofloor.on_rtt_sample(microseconds{0}));
  CHECK(nofloor.rto() == milliseconds{1});  // never a zero-length timer
}

TEST_CASE("Extremes: RTT 1 us and RTT 1 h") {
  Estimator e;
  REQUIRE(e.on_rtt_sample(microseconds{1}));
  CHECK(e.srtt() == microseconds{1});
  CHECK(e.rto() == seconds{1});
  Estimator h;
  REQUIRE(h.on_rtt_sample(hours{1}));
  CHECK(h.srtt() == hours{1});
  CHECK(h.rttvar() == std::chrono::minutes{30});
  CHECK(h.rto() == seconds{60});  // 1 h + 2 h, capped
  // Alternating 0 and 1 h for a while stays within bounds.
  for (int i = 0; i < 1000; ++i) REQUIRE(h.on_rtt_sample(i % 2 ? hours{1} : hours{0}));
  CHECK(*h.srtt() >= microseconds{0});
  CHECK(*h.srtt() <= hours{1});
  CHECK(h.rto() == seconds{60});
}

TEST_CASE("Impossible samples are refused and leave the state unchanged (negative: B05 c; > 1 h)") {
  Estimator e;
  REQUIRE(e.on_rtt_sample(milliseconds{100}));
  const auto srtt = e.srtt();
  const auto rttvar = e.rttvar();
  const auto rto = e.rto();
  CHECK_FALSE(e.on_rtt_sample(milliseconds{-1900}));
  CHECK_FALSE(e.on_rtt_sample(microseconds{-1}));
  CHECK_FALSE(e.on_rtt_sample(hours{1} + microseconds{1}));
  CHECK(e.srtt() == srtt);
  CHECK(e.rttvar() == rttvar);
  CHECK(e.rto() == rto);
  // A refused sample does not collapse a backoff either (a sender gives the
  // timer the estimator's RTO only for an accepted one).
  RetransmissionTimer t;
  expire(t);
  CHECK_FALSE(sample(e, t, microseconds{-5}));
  CHECK(t.backoff() == 1u);
  Estimator fresh;
  CHECK_FALSE(fresh.on_rtt_sample(microseconds{-1}));
  CHECK_FALSE(fresh.srtt().has_value());
}

TEST_CASE("B04 whole durations: 1250 ms gives RTO 3750 ms and 1250.4 ms stays 1250.4 ms") {
  Estimator e;
  REQUIRE(e.on_rtt_sample(std::chrono::duration_cast<microseconds>(std::chrono::duration<long long, std::milli>{1250})));
  CHECK(e.srtt() == milliseconds{1250});
  CHECK(e.rttvar() == milliseconds{625});
  CHECK(e.rto() == milliseconds{3750});  // 1250 + 2500
  Estimator f;
  REQUIRE(f.on_rtt_sample(milliseconds{2000}));
  CHECK(f.rto() == milliseconds{6000});
  Estimator g;
  REQUIRE(g.on_rtt_sample(microseconds{1'250'400}));
  CHECK(g.srtt() == microseconds{1'250'400});
  CHECK(g.rttvar() == microseconds{625'200});
  CHECK(g.rto() == microseconds{3'751'200});  // 1250.4 + 2500.8
}

TEST_CASE("B06 a: three 5 ms samples give RTTVAR 1.40625 ms, raw 10.625 ms, RTO 1 s (B06 b)") {
  Estimator e;
  for (int i = 0; i < 3; ++i) REQUIRE(e.on_rtt_sample(milliseconds{5}));
  // RTTVAR 2.5 -> 1.875 -> 1.40625 (|SRTT - R| = 0); SRTT 5.
  CHECK(e.srtt() == milliseconds{5});
  CHECK(e.rttvar() == microseconds{1406});  // 1406.25 to the nearest us
  CHECK(e.rto() == seconds{1});
  Config c = Config::rfc6298();
  c.min_rto = microseconds{0};
  Estimator raw(c);
  for (int i = 0; i < 3; ++i) REQUIRE(raw.on_rtt_sample(milliseconds{5}));
  CHECK(raw.rto() == microseconds{10'625});  // 5 + 4*1.40625
}

namespace {

// Exact-rational model of RFC 6298 2.2/2.3: values in units of 2^-90 us in a
// 128-bit integer. Each sample adds 3 fractional bits to SRTT and 2 to RTTVAR, so
// the first 30 samples are exact; afterwards the truncation error stays below
// 8 * 2^-90 us (it decays by 7/8 per step), far below what the checks resolve.
__extension__ typedef __int128 i128;
constexpr int kModelBits = 90;
constexpr i128 kModelOne = static_cast<i128>(1) << kModelBits;

struct RationalModel {
  bool has = false;
  i128 srtt = 0;
  i128 rttvar = 0;
  void sample(std::int64_t r_us) {
    const i128 r = static_cast<i128>(r_us) * kModelOne;
    if (!has) {
      srtt = r;
      rttvar = r / 2;
      has = true;
      return;
    }
    const i128 err = srtt > r ? srtt - r : r - srtt;
    rttvar = (3 * rttvar + err) / 4;
    srtt = (7 * srtt + r) / 8;
  }
  // ceil(SRTT + max(G, 4*RTTVAR)) in us, then floor and cap.
  std::int64_t rto_us(std::int64_t g_us, std::int64_t min_us, std::int64_t max_us) const {
    const i128 var = 4 * rttvar > static_cast<i128>(g_us) * kModelOne ? 4 * rttvar
                                                                        : static_cast<i128>(g_us) * kModelOne;
    const i128 raw = srtt + var;
    std::int64_t us = static_cast<std::int64_t>((raw + kModelOne - 1) / kModelOne);
    if (us < min_us) us = min_us;
    if (us > max_us) us = max_us;
    return us;
  }
};

i128 abs128(i128 v) { return v < 0 ? -v : v; }

}  // namespace

TEST_CASE("RFC6298-2.2 RFC6298-2.3 a 200000-sample random sequence stays within 1 us of the exact rational values") {
  Config c = Config::rfc6298();
  c.min_rto = microseconds{0};   // no floor, so the RTO comparison is not hidden
  c.max_rto = hours{1};
  Estimator e(c);
  RationalModel m;
  std::mt19937_64 rng(6298);
  std::int64_t worst_srtt = 0, worst_rttvar = 0;  // in 2^-90 us
  for (int i = 0; i < 200'000; ++i) {
    // Mix of scales: microseconds, LAN, WAN, satellite, and up to 1 hour.
    std::int64_t r;
    switch (rng() % 5) {
      case 0: r = static_cast<std::int64_t>(rng() % 1'000); break;
      case 1: r = static_cast<std::int64_t>(rng() % 100'000); break;
      case 2: r = static_cast<std::int64_t>(rng() % 1'000'000); break;
      case 3: r = static_cast<std::int64_t>(rng() % 10'000'000); break;
      default: r = static_cast<std::int64_t>(rng() % 3'600'000'001); break;
    }
    REQUIRE(e.on_rtt_sample(microseconds{r}));
    m.sample(r);
    const i128 ds = abs128(static_cast<i128>(e.srtt()->count()) * kModelOne - m.srtt);
    const i128 dv = abs128(static_cast<i128>(e.rttvar()->count()) * kModelOne - m.rttvar);
    // srtt()/rttvar() are rounded to the nearest us: within 1/2 us + fixed-point error.
    REQUIRE(ds <= kModelOne);
    REQUIRE(dv <= kModelOne);
    if (static_cast<std::int64_t>(ds >> 60) > worst_srtt) worst_srtt = static_cast<std::int64_t>(ds >> 60);
    if (static_cast<std::int64_t>(dv >> 60) > worst_rttvar) worst_rttvar = static_cast<std::int64_t>(dv >> 60);
    const std::int64_t want = m.rto_us(1'000, 0, 3'600'000'000);
    const std::int64_t got = e.rto().get().count();
    REQUIRE(got >= want - 1);
    REQUIRE(got <= want + 1);
  }
  // The rounding to whole us is at most 1/2 us: (2^90 / 2) >> 60 = 2^29.
  CHECK(worst_srtt <= (std::int64_t{1} << 29) + (std::int64_t{1} << 14));
  CHECK(worst_rttvar <= (std::int64_t{1} << 29) + (std::int64_t{1} << 14));
}

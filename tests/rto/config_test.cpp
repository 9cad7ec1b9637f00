// rto::Config: the two profiles and validate() (RFC 6298 2.1, 2.4, 2.5, 5.7).

#include <doctest/doctest.h>

#include <string>

#include "rto/config.hpp"
#include "rto/estimator.hpp"
#include "rto/linux_estimator.hpp"
#include "rto/retransmission_timer.hpp"
#include "test_util.hpp"

using rto::Config;
using rto::ConfigError;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::seconds;

namespace {
// Returns the ConfigError message of c.validate(), or "" if it passes.
std::string error_of(const Config& c) {
  try {
    c.validate();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("Config::rfc6298 defaults: 2.1 initial 1 s, 2.4 floor 1 s, 2.5 cap 60 s, G 1 ms, 5.7 3 s") {
  const Config c = Config::rfc6298();
  CHECK(c.variant == Config::Variant::rfc6298);
  CHECK(c.initial_rto == seconds{1});
  CHECK(c.min_rto == seconds{1});
  CHECK(c.max_rto == seconds{60});
  CHECK(c.granularity == milliseconds{1});
  CHECK(c.syn_fallback_rto == seconds{3});
  CHECK(c.syn_linear_timeouts == 0u);
  CHECK(c.reset_after_backoffs == 0u);
  CHECK(c.tick == microseconds{0});
  CHECK(error_of(c).empty());
}

TEST_CASE("Config::linux_default mirrors the kernel: rto_min 200 ms, TCP_RTO_MAX 120 s, 4 linear SYN timeouts, 4 ms jiffy") {
  const Config c = Config::linux_default();
  CHECK(c.variant == Config::Variant::linux_kernel);
  CHECK(c.initial_rto == seconds{1});
  CHECK(c.min_rto == milliseconds{200});
  CHECK(c.max_rto == seconds{120});
  CHECK(c.syn_fallback_rto == seconds{3});
  CHECK(c.syn_linear_timeouts == 4u);
  CHECK(c.tick == milliseconds{4});
  CHECK(error_of(c).empty());
}

TEST_CASE("RFC6298-2.5 Config: the RFC profile refuses a cap under 60 s, naming max_rto") {
  Config c = Config::rfc6298();
  c.max_rto = seconds{59};
  CHECK(error_of(c).find("max_rto") != std::string::npos);
  CHECK(error_of(c).find("2.5") != std::string::npos);
  c.max_rto = seconds{60};  // exactly 60 s is allowed
  CHECK(error_of(c).empty());
  CHECK_THROWS_AS(rto::Estimator(Config{.max_rto = seconds{30}}), ConfigError);
}

TEST_CASE("Config 2.4/2.5: a floor above the cap is refused, naming min_rto") {
  Config c = Config::rfc6298();
  c.min_rto = seconds{61};
  CHECK(error_of(c).find("min_rto") != std::string::npos);
  Config l = Config::linux_default();
  l.min_rto = seconds{121};
  CHECK(error_of(l).find("min_rto") != std::string::npos);
}

TEST_CASE("Config: negative values are refused in both variants, naming the field") {
  for (Config c : {Config::rfc6298(), Config::linux_default()}) {
    Config a = c;
    a.initial_rto = microseconds{-1};
    CHECK(error_of(a).find("initial_rto") != std::string::npos);
    Config b = c;
    b.min_rto = microseconds{-5};
    CHECK(error_of(b).find("min_rto") != std::string::npos);
    Config d = c;
    d.granularity = microseconds{-1};
    CHECK(error_of(d).find("granularity") != std::string::npos);
    Config e = c;
    e.tick = microseconds{-4};
    CHECK(error_of(e).find("tick") != std::string::npos);
    Config f = c;
    f.syn_fallback_rto = microseconds{-3};
    CHECK(error_of(f).find("syn_fallback_rto") != std::string::npos);
    Config g = c;
    g.max_rto = microseconds{-1};
    CHECK(error_of(g).find("max_rto") != std::string::npos);
  }
}

TEST_CASE("RFC6298-2.1 Config: a zero initial RTO is refused; so is an initial RTO above the cap") {
  Config c = Config::rfc6298();
  c.initial_rto = microseconds{0};
  CHECK(error_of(c).find("initial_rto") != std::string::npos);
  c.initial_rto = seconds{61};
  CHECK(error_of(c).find("initial_rto") != std::string::npos);
}

TEST_CASE("RFC6298-4-clock Config: the RFC profile needs G > 0; the Linux profile documents its own bounds") {
  Config c = Config::rfc6298();
  c.granularity = microseconds{0};
  CHECK(error_of(c).find("granularity") != std::string::npos);
  // Linux: floor below 1 s and G = 0 accepted; cap 120 s; but a cap below 60 s too.
  Config l = Config::linux_default();
  l.min_rto = milliseconds{5};
  l.max_rto = seconds{10};
  CHECK(error_of(l).empty());
  // Durations beyond one hour are refused (overflow headroom).
  Config big = Config::rfc6298();
  big.max_rto = seconds{3601};
  CHECK(error_of(big).find("max_rto") != std::string::npos);
}

TEST_CASE("Config: a lower floor (e.g. Linux's 200 ms) in the RFC profile is an explicit setting (B06)") {
  Config c = Config::rfc6298();
  c.min_rto = milliseconds{200};
  CHECK(error_of(c).empty());
  rto::Estimator e(c);
  REQUIRE(e.on_rtt_sample(milliseconds{5}));  // raw 5 + max(1, 10) = 15 ms, floored at 200 ms
  CHECK(e.rto() == milliseconds{200});
}

// With min_rto = 5 s the 1 s initial RTO (2.1) and the 3 s 5.7
// fallback were accepted, below the floor. Boundary: equal to the floor passes.
TEST_CASE("RFC6298-2.4 Config: an initial RTO or 5.7 fallback below min_rto is refused, naming the field") {
  for (Config base : {Config::rfc6298(), Config::linux_default()}) {
    Config c = base;
    c.min_rto = seconds{5};
    c.initial_rto = microseconds{4'999'999};  // 1 us below the floor
    c.syn_fallback_rto = seconds{5};
    CHECK(error_of(c).find("rto::Config.initial_rto: 4999999 us is below min_rto") == 0);
    c.initial_rto = seconds{5};  // at the floor: allowed
    CHECK(error_of(c).empty());
    c.syn_fallback_rto = microseconds{4'999'999};
    CHECK(error_of(c).find("rto::Config.syn_fallback_rto: 4999999 us is below min_rto") == 0);
    c.syn_fallback_rto = seconds{5};
    CHECK(error_of(c).empty());
    // The defaults' own values stay valid: initial 1 s >= 1 s (RFC) or 200 ms (Linux).
    CHECK(error_of(base).empty());
  }
}

// The Linux variant accepted min_rto = 0, so a 0 us RTT gave RTO 0.
TEST_CASE("Config: the Linux variant refuses min_rto = 0 and accepts 1 us") {
  Config l = Config::linux_default();
  l.min_rto = microseconds{0};
  CHECK(error_of(l).find("rto::Config.min_rto: 0 us must be positive") == 0);
  l.min_rto = microseconds{1};
  CHECK(error_of(l).empty());
  // With the 1 us floor and tick 0, a 0 us sample: srtt 0 + rttvar max(0, 1) = 1 us,
  // which backs off to 2 us (5.5).
  l.tick = microseconds{0};
  rto::LinuxEstimator e(l);
  rto::RetransmissionTimer t(l);
  REQUIRE(rto_test::sample(e, t, microseconds{0}));
  CHECK(e.rto() == microseconds{1});
  rto_test::expire(e, t);
  CHECK(t.rto() == microseconds{2});
  // The RFC variant keeps accepting min_rto = 0: G > 0 keeps its RTO positive.
  Config r = Config::rfc6298();
  r.min_rto = microseconds{0};
  CHECK(error_of(r).empty());
}

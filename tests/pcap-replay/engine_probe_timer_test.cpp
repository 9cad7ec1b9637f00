// The loss-probe timer as the engine reads it (analysis/engine/causes.cpp):
// Linux 6.x tcp_schedule_loss_probe computes PTO = 2 SRTT + TCP_TIMEOUT_MIN_US
// (2 ms), or + rto_min (200 ms) with one segment in flight, and rounds the
// sum up to jiffies (usecs_to_jiffies; 4 ms at HZ 250); it fires no later
// than the RTO left, and is re-armed at every transmission of new data.
// Each boundary below is the value a changed constant would move.

#include <doctest/doctest.h>

#include <chrono>

#include <replay/analysis/options.hpp>

#include "analysis/engine/causes.hpp"

namespace {

using replay::engine::explain;
using replay::engine::fits_probe;
using replay::engine::Observation;
using replay::engine::probe_timeout;
using std::chrono::microseconds;
using std::chrono::milliseconds;

const replay::Options& linux_options() {
  static const replay::Options o = replay::Options::for_profile("linux");
  return o;
}

// A probe's occasion under Linux: SACK, the Open state, the highest segment
// of a flight of several, SRTT 10 ms, nothing since the ACK that armed it.
Observation linux_probe_occasion(microseconds since) {
  const replay::Options& o = linux_options();
  Observation x;
  x.sack_negotiated = true;
  x.is_highest = true;
  x.srtt = milliseconds{10};
  x.since_arm = since;
  x.since_new_data = since;
  x.absolute_tolerance = o.absolute_tolerance;  // 1 ms
  x.slack_percent = o.slack_percent;
  x.jitter = replay::engine::timer_jitter(o);
  x.tick = o.config.tick;  // 4 ms
  return x;
}

}  // namespace

TEST_CASE("PTO: 2 SRTT plus the allowance, rounded up to the tick") {
  const replay::ProbeRule& linux_rule = linux_options().profile->probe;
  const microseconds tick{4'000};
  // Several segments in flight: 2 x 10 + 2 = 22 ms, up to the tick: 24 ms.
  CHECK(probe_timeout(linux_rule, milliseconds{10}, false, tick) == milliseconds{24});
  // 2 x 11 + 2 = 24 ms is on a tick already: stays 24 ms.
  CHECK(probe_timeout(linux_rule, milliseconds{11}, false, tick) == milliseconds{24});
  // One segment in flight: 2 x 10 + 200 = 220 ms (on a tick); 2 x 10.5 + 200 = 221 -> 224 ms.
  CHECK(probe_timeout(linux_rule, milliseconds{10}, true, tick) == milliseconds{220});
  CHECK(probe_timeout(linux_rule, microseconds{10'500}, true, tick) == milliseconds{224});
  // No tick: the sum itself.
  CHECK(probe_timeout(linux_rule, milliseconds{10}, false, microseconds{0}) == milliseconds{22});
}

TEST_CASE("Linux probe: from the PTO less the granularity to its latest firing") {
  const replay::StackProfile& linux_profile = *linux_options().profile;
  REQUIRE(linux_profile.probe.exact);
  // PTO 24 ms (above); tolerance the granularity only (1 ms): from 23 ms.
  // A 2 ms allowance of 0 (PTO 20 ms) or no rounding (22 ms) would admit 22.9 ms.
  CHECK_FALSE(fits_probe(linux_probe_occasion(microseconds{22'900}), linux_profile));
  CHECK(fits_probe(linux_probe_occasion(microseconds{23'000}), linux_profile));
  // Latest: the wheel's lateness on 24 ms, ceil(24000 x 8/63) = 3048 us plus
  // 2 jiffies (8 ms): 35.048 ms, plus the 1 ms granularity: 36.048 ms.
  CHECK(fits_probe(linux_probe_occasion(microseconds{36'048}), linux_profile));
  CHECK_FALSE(fits_probe(linux_probe_occasion(microseconds{36'049}), linux_profile));
}

TEST_CASE("Linux probe: re-armed by new data; clamped to the RTO left; not after an expiry") {
  const replay::StackProfile& linux_profile = *linux_options().profile;
  // 30 ms after the ACK but 22.9 ms after the last new data: the timer was
  // re-armed then (tcp_write_xmit), so it is 0.1 ms too soon.
  Observation x = linux_probe_occasion(microseconds{30'000});
  x.since_new_data = microseconds{22'900};
  CHECK_FALSE(fits_probe(x, linux_profile));
  x.since_new_data = microseconds{23'000};
  CHECK(fits_probe(x, linux_profile));
  // The RTO has 20 ms left at the arm: the probe fires at 20 ms (never
  // after the RTO), so from 19 ms.
  Observation c = linux_probe_occasion(microseconds{19'000});
  c.rto_left = milliseconds{20};
  CHECK(fits_probe(c, linux_profile));
  c.since_arm = c.since_new_data = microseconds{18'900};
  CHECK_FALSE(fits_probe(c, linux_profile));
  // After an expiry of the chain, or a probe since the ACK: no probe.
  Observation e = linux_probe_occasion(microseconds{24'000});
  e.timeouts_in_chain = 1;
  CHECK_FALSE(fits_probe(e, linux_profile));
  e = linux_probe_occasion(microseconds{24'000});
  e.probe_since_ack = true;
  CHECK_FALSE(fits_probe(e, linux_profile));
  // Without SACK, Linux sends none (tcp_schedule_loss_probe: tcp_is_sack).
  e = linux_probe_occasion(microseconds{24'000});
  e.sack_negotiated = false;
  CHECK_FALSE(fits_probe(e, linux_profile));
}

TEST_CASE("RFC 8985 probe (no exact stack timer): anything from the bare 2 SRTT on") {
  const replay::Options o = replay::Options::for_profile("rfc6298");
  const replay::StackProfile& p = *o.profile;
  REQUIRE_FALSE(p.probe.exact);
  Observation x = linux_probe_occasion(microseconds{0});
  x.tick = o.config.tick;
  x.jitter = replay::engine::timer_jitter(o);
  x.slack_percent = o.slack_percent;
  // 2 SRTT = 20 ms; tolerance 1 ms + 10 % of max(fire, PTO = 20 + 8 = 28 ms)
  // = 3.8 ms: from 16.2 ms.
  x.since_arm = x.since_new_data = microseconds{16'200};
  CHECK(fits_probe(x, p));
  x.since_arm = x.since_new_data = microseconds{16'100};
  CHECK_FALSE(fits_probe(x, p));
}

TEST_CASE("a repeat sooner than any timer after what armed it: a probe only where its timer is known") {
  // Less than kMinTimerWait (5 ms) after the arm: Linux's exact PTO may be
  // that short (SRTT 1 ms: 2 + 2 = 4 ms), nothing else of the sender's is.
  const replay::StackProfile& linux_profile = *linux_options().profile;
  // Armed by new data 4 ms earlier, the peer last heard 50 ms ago (sooner,
  // the repeat would be the ACK clock's).
  Observation x = linux_probe_occasion(microseconds{4'000});
  x.srtt = milliseconds{1};
  x.is_head = true;
  x.since_peer = milliseconds{50};
  CHECK(explain(x, linux_profile).kind == replay::SendKind::tlp);
  x.since_arm = x.since_new_data = microseconds{2'900};  // PTO 4 ms less 1 ms: 3 ms
  CHECK(explain(x, linux_profile).kind == replay::SendKind::unclassified);
  CHECK(explain(x, linux_profile).cause == replay::engine::Cause::no_quiet_period);
}

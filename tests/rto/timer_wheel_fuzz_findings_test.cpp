// rto::TimerWheel cases found by the libFuzzer harness (tests/fuzz/timer_wheel.cpp;
// the inputs are in tests/fuzz/corpus/timer_wheel/regress-*): a wheel started
// before the epoch measured a deadline more than 2^63 us after its start
// saturated, so the entry could fire early; and an advance() by more than a
// whole turn of the wheel (64^6 ticks) over entries parked beyond the horizon
// re-parked them once per turn (a jump to Instant::max() with a 7 us tick:
// ~2 * 10^7 turns, a hang).

#include <doctest/doctest.h>

#include <limits>
#include <vector>

#include "rto/timer_wheel.hpp"

using rto::Instant;
using rto::TimerEntry;
using rto::TimerWheel;
using std::chrono::microseconds;

TEST_CASE("fuzz finding: a deadline more than 2^63 us after a start before the epoch does not fire early") {
  // start = -4 027 220 736 us, tick 7 us, deadline Instant::max() = 2^63 - 1 us.
  const Instant start{microseconds{-4'027'220'736}};
  TimerWheel w(start, microseconds{7});
  TimerEntry e;
  w.arm(e, Instant::max());
  int fired = 0;
  auto count = [&](TimerEntry&) { ++fired; };
  // now = start + (2^63 - 1) us = Instant::max() - 4 027 220 736 us: 4027 s before the deadline.
  const Instant before = start + microseconds{std::numeric_limits<std::int64_t>::max()};
  REQUIRE(before < Instant::max());
  CHECK(w.advance(before, count) == 0u);
  CHECK(fired == 0);
  CHECK(e.armed());
  // (max - start) / 7 = (2^63 - 1) / 7 + 4 027 220 736 / 7 = 1 317 624 576 693 539 401
  // + 575 317 248 ticks exactly: the deadline is on the grid, reached at Instant::max().
  CHECK(w.advance(Instant::max(), count) == 1u);
  CHECK(fired == 1);
  CHECK_FALSE(e.armed());
  CHECK(w.size() == 0u);
}

TEST_CASE("fuzz finding: a jump to Instant::max() over parked entries fires them all, in deadline order, none early") {
  // 1 us tick: the wheel's horizon is 64^6 us (about 19 h); these deadlines are
  // beyond it, so parked in the top level, and the jump spans 2^61 ticks.
  TimerWheel w(Instant{}, microseconds{1});
  TimerEntry a, b, c, near;
  a.user = 1;
  b.user = 2;
  c.user = 3;
  near.user = 4;
  w.arm(c, Instant{microseconds{std::int64_t{1} << 60}});  // 2^60 ticks: < 2^61, so it fires
  w.arm(a, Instant{microseconds{std::int64_t{1} << 40}});  // 12.7 days
  w.arm(b, Instant{microseconds{std::int64_t{1} << 41}});
  w.arm(near, Instant{microseconds{100}});  // level 1 (>= 64 ticks): fired before anything is parked again
  std::vector<std::uint64_t> order;
  std::vector<Instant> when;
  auto rec = [&](TimerEntry& e) {
    order.push_back(e.user);
    when.push_back(e.deadline());
  };
  CHECK(w.advance(Instant::max(), rec) == 4u);
  CHECK(order == std::vector<std::uint64_t>{4, 1, 2, 3});
  CHECK(w.size() == 0u);
  CHECK(w.now() == Instant::max());
}

TEST_CASE("fuzz finding: after a jump past a whole turn the wheel keeps its tick grid") {
  // 1 ms tick; an entry 3 turns ahead (3 * 64^6 ms + 1 us) and one re-armed from
  // its callback 1 ms later: each fires at the first advance reaching its
  // deadline rounded up to the grid (3 * 64^6 ms + 1 ms, then + 2 ms).
  TimerWheel w(Instant{}, std::chrono::milliseconds{1});
  const std::int64_t turn_us = (std::int64_t{1} << 36) * 1000;  // 64^6 ticks of 1000 us
  TimerEntry e;
  w.arm(e, Instant{microseconds{3 * turn_us + 1}});
  int fired = 0;
  auto rearm = [&](TimerEntry& x) {
    ++fired;
    if (fired == 1) w.arm(x, Instant{microseconds{3 * turn_us + 1001}});
  };
  CHECK(w.advance(Instant{microseconds{3 * turn_us + 999}}, rearm) == 0u);  // the tick ends at + 1000 us
  CHECK(w.advance(Instant{microseconds{3 * turn_us + 1000}}, rearm) == 1u);
  CHECK(w.advance(Instant{microseconds{3 * turn_us + 1999}}, rearm) == 0u);
  CHECK(w.advance(Instant{microseconds{3 * turn_us + 2000}}, rearm) == 1u);
  CHECK(fired == 2);
  CHECK_FALSE(e.armed());
}

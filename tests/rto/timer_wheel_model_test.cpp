// rto::TimerWheel against an ordered model (std::multimap of deadlines) under a
// random mix of arm, re-arm later (the per-ACK restart of RFC 6298 5.3, which
// the wheel leaves in place), re-arm earlier, cancel and advance: the wheel
// fires exactly the entries whose deadline, rounded up to the tick grid, the
// new `now` reached and that were not due at the previous advance; so never
// early and at most one tick late. Also the entry's size.

#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <random>
#include <set>
#include <vector>

#include "rto/timer_wheel.hpp"
#include "test_util.hpp"

using rto::Instant;
using rto::TimerEntry;
using rto::TimerWheel;
using rto_test::at_ms;
using std::chrono::microseconds;
using std::chrono::milliseconds;

namespace {

struct Model {
  std::multimap<Instant, int> by_deadline;                   // armed entries, ordered
  std::vector<std::multimap<Instant, int>::iterator> where;  // per entry; end() = not armed
};

// One random run: kN entries, `steps` rounds of operations then an advance.
void model_run(microseconds tick, std::uint64_t seed, int steps) {
  const Instant start = at_ms(777);
  TimerWheel w(start, tick);
  constexpr int kN = 500;
  auto entries = std::make_unique<TimerEntry[]>(kN);
  Model m;
  m.where.assign(kN, m.by_deadline.end());
  std::mt19937_64 rng(seed);
  // The deadline rounded up to the grid start + k*tick (ceil), computed apart
  // from the wheel with plain division.
  auto rounded = [&](Instant d) {
    const auto rel = (d - start).count();
    const auto t = tick.count();
    if (rel <= 0) return start;
    return start + microseconds{(rel / t + (rel % t != 0)) * t};
  };
  std::vector<int> set_at_step(kN, -1);
  int step = 0;
  auto set = [&](int i, Instant d) {
    set_at_step[i] = step;
    if (m.where[i] != m.by_deadline.end()) m.by_deadline.erase(m.where[i]);
    m.where[i] = m.by_deadline.emplace(d, i);
    w.arm(entries[i], d);
  };
  for (int i = 0; i < kN; ++i) entries[i].user = static_cast<std::uint32_t>(i);
  Instant now = start;
  long long fired_total = 0, later_rearms = 0, earlier_rearms = 0;
  for (step = 0; step < steps; ++step) {
    const int ops = 1 + static_cast<int>(rng() % 12);
    for (int k = 0; k < ops; ++k) {
      const int i = static_cast<int>(rng() % kN);
      const bool armed = m.where[i] != m.by_deadline.end();
      const unsigned what = static_cast<unsigned>(rng() % 10);
      // RTO-like spans (200 ms..3 s), short ones inside a few ticks, long ones.
      auto span = [&]() -> std::int64_t {
        switch (rng() % 5) {
          case 0: return static_cast<std::int64_t>(rng() % (5 * tick.count() + 1));
          case 1: return 200'000 + static_cast<std::int64_t>(rng() % 2'800'000);
          case 2: return static_cast<std::int64_t>(rng() % 200'000'000);
          case 3: return -static_cast<std::int64_t>(rng() % (3 * tick.count() + 1));
          default: return static_cast<std::int64_t>(rng() % 5'000);
        }
      };
      if (!armed || what < 3) {
        set(i, now + microseconds{span()});
      } else if (what < 7) {  // re-arm later: the common per-ACK case
        const Instant old = m.where[i]->first;
        set(i, old + microseconds{1 + static_cast<std::int64_t>(rng() % 300'000)});
        ++later_rearms;
      } else if (what < 9) {  // re-arm earlier (not before now - 3 ticks)
        const Instant old = m.where[i]->first;
        const Instant lo = now - 3 * tick;
        if (old > lo) {
          set(i, lo + microseconds{static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>((old - lo).count()))});
          ++earlier_rearms;
        }
      } else {
        m.by_deadline.erase(m.where[i]);
        m.where[i] = m.by_deadline.end();
        w.cancel(entries[i]);
        REQUIRE_FALSE(entries[i].armed());
      }
    }
    // Mostly small steps (sub-tick to a few ticks), sometimes seconds.
    const std::int64_t dt = rng() % 8 == 0 ? static_cast<std::int64_t>(rng() % 5'000'000)
                                           : static_cast<std::int64_t>(rng() % (3 * tick.count() + 1));
    const Instant prev = now;
    now += microseconds{dt};
    // The model's due entries: a prefix of the ordered map (rounding is monotone).
    std::set<int> want;
    for (auto it = m.by_deadline.begin(); it != m.by_deadline.end() && rounded(it->first) <= now;) {
      want.insert(it->second);
      m.where[it->second] = m.by_deadline.end();
      it = m.by_deadline.erase(it);
    }
    std::set<int> got;
    Instant last_rounded = Instant::min();
    w.advance(now, [&](TimerEntry& e) {
      const int i = static_cast<int>(e.user);
      CHECK_FALSE(e.armed());
      // Never early; and not already due at the previous advance unless set
      // since (so at most one tick late, with the rounding).
      REQUIRE(e.deadline() <= now);
      REQUIRE((rounded(e.deadline()) > prev || set_at_step[i] == step));
      // Those due at ticks after `prev` come in tick order (overdue ones, set
      // since prev with a tick already processed, come first in any order).
      if (rounded(e.deadline()) > prev) {
        REQUIRE(rounded(e.deadline()) >= last_rounded);
        last_rounded = rounded(e.deadline());
      }
      got.insert(i);
    });
    REQUIRE(got == want);
    REQUIRE(w.size() == m.by_deadline.size());
    fired_total += static_cast<long long>(got.size());
  }
  // The run exercised what it claims to (6000 steps of 6.5 operations on average,
  // ~40 % of them later re-arms of an armed entry: these floors are far below).
  CHECK(fired_total > 2000);
  CHECK(later_rearms > 3000);
  CHECK(earlier_rearms > 1000);
}

}  // namespace

TEST_CASE("RFC6298-5.3 TimerWheel re-arm later/earlier, cancel, advance vs an ordered model: 1 ms tick") {
  model_run(milliseconds{1}, 11, 6000);
}

TEST_CASE("RFC6298-5.3 TimerWheel re-arm later/earlier, cancel, advance vs an ordered model: 1 us tick") {
  model_run(microseconds{1}, 12, 6000);
}

TEST_CASE("RFC6298-5.3 TimerWheel re-arm later/earlier, cancel, advance vs an ordered model: 3 us tick") {
  model_run(microseconds{3}, 13, 6000);
}

TEST_CASE("RFC6298-5.3 TimerWheel re-arm later/earlier, cancel, advance vs an ordered model: 4 ms tick") {
  model_run(milliseconds{4}, 14, 6000);
}

// A re-arm later inside the wheel leaves the entry in its slot; at that slot's
// tick it is placed again, not fired. 1 ms tick from 0: armed at 5 ms (slot of
// tick 5), moved to 70 ms (tick 70, a level-1 distance from tick 6).
TEST_CASE("TimerWheel a deadline moved later is not fired at its old tick, and fires at its new one") {
  TimerWheel w(at_ms(0));
  TimerEntry e;
  w.arm(e, at_ms(5));
  w.arm(e, at_ms(70));
  int n = 0;
  auto f = [&](TimerEntry&) { ++n; };
  CHECK(w.advance(at_ms(5), f) == 0u);
  CHECK(e.armed());
  CHECK(w.advance(rto_test::at_us(69'999), f) == 0u);
  CHECK(w.advance(at_ms(70), f) == 1u);
  CHECK(n == 1);
}

// An already-passed deadline inside the tick in progress fires at the
// end of that tick, not at the next advance. 1 ms tick from 0; advance to
// 10.5 ms (ticks <= 10 processed); arm at 10.2 ms, rounded up to 11 ms.
TEST_CASE("TimerWheel a passed deadline inside the tick in progress fires when that tick ends") {
  TimerWheel w(at_ms(0));
  TimerEntry e;
  int n = 0;
  auto f = [&](TimerEntry&) { ++n; };
  w.advance(rto_test::at_us(10'500), f);
  w.arm(e, rto_test::at_us(10'200));
  CHECK(w.advance(rto_test::at_us(10'999), f) == 0u);  // deadline passed, tick 11 not reached
  CHECK(w.advance(at_ms(11), f) == 1u);                // 800 us late, < 1 tick
  // A deadline whose tick is already processed (<= 11 ms) fires at the next advance.
  w.arm(e, rto_test::at_us(10'900));
  CHECK(w.advance(at_ms(11), f) == 1u);
  CHECK(n == 2);
}

// 4 members of 8 bytes (next, pprev, wheel, deadline) + 32-bit slack and user = 40.
TEST_CASE("TimerEntry is 40 bytes: within one 64-byte cache line") {
  CHECK(sizeof(TimerEntry) == 40u);
  CHECK(rto::kEntryBytes == 40u);
}

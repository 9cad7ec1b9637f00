// rto::TimerWheel: ordering, cancel, rearm, far deadlines, re-arming from the
// callback, and a never-early random sweep against a std::multimap model.

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
using rto_test::at_us;
using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::milliseconds;

TEST_CASE("TimerWheel fires in deadline order across levels, each at the first advance at or after its deadline") {
  TimerWheel w(at_ms(0));
  TimerEntry a, b, c, d;
  a.user = 1;
  b.user = 2;
  c.user = 3;
  d.user = 4;
  w.arm(c, at_ms(70'000));  // level 2 (>= 64*64 ticks)
  w.arm(a, at_ms(5));       // level 0
  w.arm(d, at_ms(300'000));
  w.arm(b, at_ms(100));     // level 1
  CHECK(w.size() == 4u);
  std::vector<std::uint64_t> order;
  auto rec = [&](TimerEntry& e) { order.push_back(e.user); };
  CHECK(w.advance(at_us(4'999), rec) == 0u);  // 1 us early: nothing
  CHECK(w.advance(at_ms(5), rec) == 1u);
  CHECK(w.advance(at_ms(99), rec) == 0u);
  CHECK(w.advance(at_ms(100), rec) == 1u);
  CHECK(w.advance(at_ms(69'999), rec) == 0u);
  CHECK(w.advance(at_ms(400'000), rec) == 2u);
  CHECK(order == std::vector<std::uint64_t>{1, 2, 3, 4});
  CHECK(w.size() == 0u);
  CHECK_FALSE(a.armed());
}

TEST_CASE("TimerWheel rounds a deadline inside a tick UP: never early") {
  TimerWheel w(at_ms(0));  // 1 ms tick
  TimerEntry e;
  w.arm(e, at_us(10'300));
  int fired = 0;
  auto f = [&](TimerEntry&) { ++fired; };
  w.advance(at_us(10'299), f);
  CHECK(fired == 0);
  w.advance(at_us(10'300), f);  // deadline reached, but its tick (11 ms) is not: waits
  w.advance(at_us(10'999), f);
  CHECK(fired == 0);
  w.advance(at_ms(11), f);  // at most one tick late
  CHECK(fired == 1);
}

TEST_CASE("TimerWheel cancel and rearm") {
  TimerWheel w(at_ms(0));
  TimerEntry a, b;
  w.arm(a, at_ms(10));
  w.arm(b, at_ms(20));
  w.cancel(a);
  w.cancel(a);  // no effect the second time
  CHECK_FALSE(a.armed());
  w.arm(b, at_ms(5));  // rearm earlier
  CHECK(w.size() == 1u);
  int fired = 0;
  auto f = [&](TimerEntry& e) {
    CHECK(&e == &b);
    ++fired;
  };
  w.advance(at_ms(5), f);
  CHECK(fired == 1);
  w.arm(a, at_ms(30));
  w.arm(a, at_ms(5000));  // rearm later
  w.advance(at_ms(100), f);
  CHECK(fired == 1);
  CHECK(a.armed());
  CHECK(a.deadline() == at_ms(5000));
}

TEST_CASE("TimerWheel past deadlines fire at the next advance") {
  TimerWheel w(at_ms(1000));
  TimerEntry a, b;
  w.arm(a, at_ms(10));  // before the wheel's start
  w.advance(at_ms(2000), [](TimerEntry&) {});
  w.arm(b, at_ms(1500));  // already passed
  int n = 0;
  CHECK(w.advance(at_ms(2000), [&](TimerEntry&) { ++n; }) == 1u);
  CHECK(n == 1);
}

TEST_CASE("TimerWheel far deadlines: 3 years at a 1 ms tick (beyond the 64^6-tick horizon)") {
  TimerWheel w(at_ms(0));
  TimerEntry far, near;
  const Instant far_deadline = Instant{hours{24 * 365 * 3}};
  w.arm(far, far_deadline);
  w.arm(near, at_ms(1));
  int n = 0;
  auto f = [&](TimerEntry&) { ++n; };
  w.advance(at_ms(1), f);
  CHECK(n == 1);
  w.advance(far_deadline - microseconds{1}, f);
  CHECK(n == 1);
  w.advance(far_deadline, f);
  CHECK(n == 2);
}

TEST_CASE("TimerWheel a callback may re-arm its own entry (periodic timer) and cancel others") {
  TimerWheel w(at_ms(0));
  TimerEntry periodic, victim;
  w.arm(periodic, at_ms(10));
  w.arm(victim, at_ms(10));
  int fires = 0;
  auto f = [&](TimerEntry& e) {
    ++fires;
    if (&e == &periodic) {
      w.cancel(victim);
      w.arm(periodic, e.deadline() + milliseconds{10});
    }
  };
  w.advance(at_ms(55), f);
  // periodic fires at 10 (cancelling victim if still pending), 20, 30, 40, 50.
  CHECK(fires >= 5);
  CHECK(fires <= 6);
  CHECK(periodic.armed());
  CHECK(periodic.deadline() == at_ms(60));
  CHECK_FALSE(victim.armed());
}

TEST_CASE("TimerWheel entry destructor cancels; wheel destructor detaches") {
  TimerWheel w(at_ms(0));
  {
    TimerEntry tmp;
    w.arm(tmp, at_ms(10));
    CHECK(w.size() == 1u);
  }
  CHECK(w.size() == 0u);
  TimerEntry survivor;
  {
    TimerWheel w2(at_ms(0));
    w2.arm(survivor, at_ms(10));
  }
  CHECK_FALSE(survivor.armed());
}

namespace {

// Random sweep: every operation applied to the wheel and to a reference model
// (std::multimap from the tick-rounded deadline to the entry index). After each
// advance the wheel must have fired exactly the model's due entries, and never
// one whose deadline is after `now`.
void sweep(std::chrono::microseconds tick, std::uint64_t seed, int steps) {
  const Instant start = at_ms(12'345);
  TimerWheel w(start, tick);
  constexpr int kN = 2000;
  auto entries = std::make_unique<TimerEntry[]>(kN);
  std::map<int, Instant> model_deadline;  // index -> deadline (armed entries)
  std::mt19937_64 rng(seed);
  Instant now = start;
  auto rounded = [&](Instant d) {  // ceil to the tick grid from start
    const auto rel = (d - start).count();
    const auto t = tick.count();
    const auto k = rel <= 0 ? rel / t : rel / t + (rel % t != 0);
    return start + microseconds{k * t};
  };
  for (int i = 0; i < kN; ++i) entries[i].user = static_cast<std::uint32_t>(i);
  long long total_fired = 0;
  for (int step = 0; step < steps; ++step) {
    const int ops = static_cast<int>(rng() % 20);
    for (int k = 0; k < ops; ++k) {
      const int i = static_cast<int>(rng() % kN);
      const unsigned what = static_cast<unsigned>(rng() % 10);
      if (what < 7) {
        // Deadlines at all scales: past, sub-tick, ms, s, min, hours, days.
        std::int64_t span;
        switch (rng() % 7) {
          case 0: span = -static_cast<std::int64_t>(rng() % 5'000); break;
          case 1: span = static_cast<std::int64_t>(rng() % 2'000); break;
          case 2: span = static_cast<std::int64_t>(rng() % 300'000); break;
          case 3: span = static_cast<std::int64_t>(rng() % 70'000'000); break;
          case 4: span = static_cast<std::int64_t>(rng() % 5'000'000'000); break;
          case 5: span = static_cast<std::int64_t>(rng() % 400'000'000'000); break;
          default: span = static_cast<std::int64_t>(rng() % 4'000'000); break;
        }
        const Instant d = now + microseconds{span};
        w.arm(entries[i], d);
        model_deadline[i] = d;
      } else {
        w.cancel(entries[i]);
        model_deadline.erase(i);
      }
    }
    // Advance by a random amount at a random scale.
    std::int64_t step_us;
    switch (rng() % 4) {
      case 0: step_us = static_cast<std::int64_t>(rng() % 3'000); break;
      case 1: step_us = static_cast<std::int64_t>(rng() % 200'000); break;
      case 2: step_us = static_cast<std::int64_t>(rng() % 20'000'000); break;
      default: step_us = static_cast<std::int64_t>(rng() % 2'000'000'000); break;
    }
    now += microseconds{step_us};
    std::multimap<Instant, int> due_model;
    for (const auto& [i, d] : model_deadline)
      if (rounded(d) <= now) due_model.emplace(rounded(d), i);
    std::set<int> fired;
    bool early = false;
    w.advance(now, [&](TimerEntry& e) {
      if (e.deadline() > now) early = true;
      fired.insert(static_cast<int>(e.user));
    });
    REQUIRE_FALSE(early);
    std::set<int> want;
    for (const auto& [d, i] : due_model) want.insert(i);
    REQUIRE(fired == want);
    for (int i : fired) {
      REQUIRE_FALSE(entries[i].armed());
      model_deadline.erase(i);
    }
    REQUIRE(w.size() == model_deadline.size());
    total_fired += static_cast<long long>(fired.size());
  }
  CHECK(total_fired > 1000);
}

}  // namespace

TEST_CASE("TimerWheel never early: random sweep vs a std::multimap model, 1 ms tick") {
  sweep(milliseconds{1}, 1, 8000);
}

TEST_CASE("TimerWheel never early: random sweep vs a std::multimap model, 1 us tick (exact deadlines)") {
  sweep(microseconds{1}, 2, 8000);
}

TEST_CASE("TimerWheel never early: random sweep vs a std::multimap model, 4 ms tick") {
  sweep(milliseconds{4}, 3, 8000);
}

TEST_CASE("TimerWheel extreme deadlines (Instant::min/max, negative start) neither overflow nor fire early") {
  TimerWheel w(Instant{microseconds{-5'000'000}});
  TimerEntry never, past;
  w.arm(never, Instant::max());
  w.arm(past, Instant::min());
  int fired = 0;
  w.advance(Instant{hours{1}}, [&](TimerEntry& e) {
    CHECK(&e == &past);
    ++fired;
  });
  CHECK(fired == 1);
  CHECK(never.armed());
}

// A stopped RetransmissionTimer reports Instant::max(); arming a wheel with it
// must mean "never": advancing even to Instant::max() fires nothing and returns
// at once (before, the parked entry was re-placed at every top-level turn,
// about 2^31 times on the way to Instant::max()).
TEST_CASE("TimerWheel an entry armed at Instant::max() never fires, stays cancellable, and re-arms normally") {
  TimerWheel w(Instant{});
  TimerEntry stopped;
  w.arm(stopped, Instant::max());
  CHECK(w.size() == 1);
  int fired = 0;
  CHECK(w.advance(Instant::max() - hours{1}, [&](TimerEntry&) { ++fired; }) == 0);
  CHECK(fired == 0);
  CHECK(stopped.armed());
  w.cancel(stopped);
  CHECK_FALSE(stopped.armed());
  CHECK(w.size() == 0);
  // Re-armed with a real deadline (after the wheel's time moved far ahead) it fires at once.
  w.arm(stopped, Instant{milliseconds{5}});
  CHECK(w.advance(Instant::max() - hours{1}, [&](TimerEntry&) { ++fired; }) == 1);
  CHECK(fired == 1);
}

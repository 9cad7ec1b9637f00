// rto::TimerWheel::next_deadline(): a lower bound on when advance() fires the
// earliest armed entry (its deadline rounded up to the tick), exact when that
// entry waits in the finest level as armed, never later, and always after
// now() so a loop driven by it never spins; an event loop that sleeps until it
// fires every entry at exactly its rounded deadline.

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>

#include "rto/timer_wheel.hpp"
#include "test_util.hpp"

using rto::Instant;
using rto::TimerEntry;
using rto::TimerWheel;
using rto_test::at_ms;
using rto_test::at_us;
using std::chrono::microseconds;
using std::chrono::milliseconds;

namespace {
// The time advance() fires an entry armed at `d` (1 ms ticks from 0): d rounded up to the tick.
Instant rounded_ms(Instant d) {
  const auto us = d.time_since_epoch().count();
  return at_us((us + 999) / 1000 * 1000);
}
}  // namespace

TEST_CASE("next_deadline: none when nothing is armed; the rounded deadline of a single entry; now() when one is due") {
  TimerWheel w(at_ms(0));
  CHECK_FALSE(w.next_deadline().has_value());
  TimerEntry e;
  w.arm(e, at_us(1500));  // tick 2: fires at 2 ms
  CHECK(w.next_deadline() == at_ms(2));
  CHECK(w.advance(at_ms(1), [](TimerEntry&) {}) == 0);
  CHECK(w.next_deadline() == at_ms(2));
  CHECK(w.advance(at_ms(2), [](TimerEntry&) {}) == 1);
  CHECK_FALSE(w.next_deadline().has_value());
  w.arm(e, at_us(500));  // a tick already processed: due at the next advance
  CHECK(w.next_deadline() == w.now());
  w.cancel(e);
  CHECK_FALSE(w.next_deadline().has_value());
}

TEST_CASE("next_deadline: an entry that never fires gives none, though it is armed; one beyond the horizon its parking slot") {
  // 1 us ticks: Instant::max() is 2^63 ticks away, past the 2^61 of "never".
  TimerWheel w(at_ms(0), microseconds{1});
  TimerEntry never;
  w.arm(never, Instant::max());
  CHECK(w.size() == 1u);
  CHECK_FALSE(w.next_deadline().has_value());
  TimerEntry soon;
  w.arm(soon, at_ms(7));  // 7000 ticks: level 2 (4096 .. 262143), its slot examined at tick 4096
  CHECK(w.next_deadline() == at_us(4096));
  // 1 ms ticks: Instant::max() is 9.2e15 ticks away, beyond the 64^6 = 2^36-tick
  // horizon: parked in the top level at tick 1 + 2^36 - 1 = 2^36, whose slot
  // starts there: examined (and the entry parked again) at 2^36 ms = 68 719 476 736 ms
  // (about 2.2 years).
  TimerWheel m(at_ms(0));
  TimerEntry far;
  m.arm(far, Instant::max());
  CHECK(m.next_deadline() == at_ms(68'719'476'736));
}

TEST_CASE("next_deadline: an entry re-armed to never counts until the wheel files it away; one due but re-armed later gives its own tick") {
  TimerWheel w(at_us(0), microseconds{1});
  TimerEntry e;
  w.arm(e, at_us(148));          // level 1 (64 .. 4095 ticks): its slot is examined at tick 128
  w.arm(e, Instant::max());      // later: only stored
  CHECK(w.next_deadline() == at_us(128));
  CHECK(w.advance(at_us(128), [](TimerEntry&) {}) == 0);  // filed away as "never"
  CHECK_FALSE(w.next_deadline().has_value());
  CHECK(w.size() == 1u);
  // Armed at a tick already processed (due at the next advance), then re-armed
  // later while it waits there: the bound is its new tick, not now().
  TimerEntry d;
  w.arm(d, at_us(100));  // tick 100 < 129: due
  CHECK(w.next_deadline() == w.now());
  w.arm(d, at_us(500));  // later: stays in the due list, lazily
  CHECK(w.next_deadline() == at_us(500));
  CHECK(w.advance(at_us(499), [](TimerEntry&) {}) == 0);
  CHECK(w.advance(at_us(500), [](TimerEntry&) {}) == 1);
}

TEST_CASE("next_deadline with a 1 us tick is a lower bound on the deadline itself") {
  TimerWheel w(at_us(0), microseconds{1});
  TimerEntry e;
  w.arm(e, at_us(123'457));
  const auto d = w.next_deadline();
  REQUIRE(d.has_value());
  CHECK(*d <= at_us(123'457));
  CHECK(*d > w.now());
}

TEST_CASE("next_deadline is a lower bound after a lazy re-arm: waking at it fires nothing, the next one is later") {
  TimerWheel w(at_ms(0));
  TimerEntry e;
  w.arm(e, at_ms(10));
  CHECK(w.next_deadline() == at_ms(10));
  w.arm(e, at_ms(30));  // later: only stored, the entry stays in tick 10's slot
  const Instant first = *w.next_deadline();
  CHECK(first <= at_ms(30));
  CHECK(first == at_ms(10));  // the slot still examined at 10 ms
  CHECK(w.advance(first, [](TimerEntry&) {}) == 0);  // re-filed, not fired
  CHECK(w.next_deadline() == at_ms(30));
  CHECK(w.advance(at_ms(30), [](TimerEntry&) {}) == 1);
}

TEST_CASE("next_deadline: an entry in a coarse level gives the cascade ticks, each later than now(), then its own") {
  TimerWheel w(at_ms(0));
  TimerEntry e;
  w.arm(e, at_ms(300'001));  // level 3 (64^3 ticks = 262 s): cascaded down before it fires
  int wakes = 0;
  Instant fired_at = Instant::max();
  for (std::optional<Instant> d = w.next_deadline(); d; d = w.next_deadline()) {
    REQUIRE(*d > w.now());           // never a time already reached: no spinning
    REQUIRE(*d <= at_ms(300'001));   // never later than the entry fires
    REQUIRE(++wakes <= 6);           // at most one wake per level
    w.advance(*d, [&](TimerEntry&) { fired_at = w.now(); });
  }
  CHECK(fired_at == at_ms(300'001));
  CHECK(wakes >= 2);  // at least one cascade before the firing
}

TEST_CASE("next_deadline drives an event loop: random arms, re-arms and cancels fire exactly at their rounded deadlines") {
  std::mt19937_64 rng(26);
  constexpr std::size_t kEntries = 400;
  TimerWheel w(at_ms(0));
  std::array<std::unique_ptr<TimerEntry>, kEntries> entries;
  for (std::size_t k = 0; k < kEntries; ++k) {
    entries[k] = std::make_unique<TimerEntry>();
    entries[k]->user = static_cast<std::uint32_t>(k);
  }
  std::map<std::uint32_t, Instant> armed;  // the model: entry -> deadline
  auto random_deadline = [&] {
    // Mostly RTO-like (200 ms .. 3 s), sometimes far (coarse levels), sometimes now-ish.
    const auto base = w.now().time_since_epoch().count();
    switch (rng() % 6) {
      case 0: return at_us(base + static_cast<std::int64_t>(rng() % 5'000));
      case 1: return at_us(base + static_cast<std::int64_t>(rng() % 600'000'000));
      default: return at_us(base + 200'000 + static_cast<std::int64_t>(rng() % 2'800'000));
    }
  };
  std::size_t fired_total = 0;
  for (int step = 0; step < 3000; ++step) {
    // A few events between two wakes: arm, re-arm later or earlier, cancel.
    for (int k = 0; k < 4; ++k) {
      const auto i = static_cast<std::uint32_t>(rng() % kEntries);
      if (rng() % 5 == 0) {
        w.cancel(*entries[i]);
        armed.erase(i);
      } else {
        const Instant d = random_deadline();
        w.arm(*entries[i], d);
        armed[i] = d;
      }
    }
    const std::optional<Instant> next = w.next_deadline();
    if (armed.empty()) {
      CHECK_FALSE(next.has_value());
      continue;
    }
    REQUIRE(next.has_value());
    Instant earliest = Instant::max();
    for (const auto& [i, d] : armed) earliest = std::min(earliest, rounded_ms(d));
    REQUIRE(*next <= earliest);  // never later than the first firing
    REQUIRE(*next > w.now());
    w.advance(*next, [&](TimerEntry& e) {
      REQUIRE(armed.count(e.user) == 1u);
      CHECK(rounded_ms(armed[e.user]) == *next);  // fired exactly at its rounded deadline
      armed.erase(e.user);
      ++fired_total;
    });
    for (const auto& [i, d] : armed) REQUIRE(rounded_ms(d) > *next);  // nothing due left behind
  }
  CHECK(fired_total > 100);
}

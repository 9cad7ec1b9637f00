// rto::TimerWheel re-arms around the point below which an entry must move: an
// entry sits in a list examined at tick T, so a new deadline after
// keep_after = start + (T-1)*tick may stay there, one at or before it must
// move (else it would fire at T, late). The entry keeps keep_after as a 32-bit
// distance below its deadline (clamped to rto::kMaxSlack us); these tests
// re-arm exactly at and 1 us after keep_after, with the distance below,
// exactly at and above kMaxSlack, and check each firing tick.
// All wheels here: 1 ms tick from 0, so tick k ends at k ms.

#include <doctest/doctest.h>

#include "rto/timer_wheel.hpp"
#include "test_util.hpp"

using rto::Instant;
using rto::TimerEntry;
using rto::TimerWheel;
using rto_test::at_ms;
using rto_test::at_us;
using std::chrono::microseconds;

namespace {

// Advances to just before `ms` and to `ms`: how many fired at each.
struct Fires {
  std::size_t before, at;
};
Fires fires_around(TimerWheel& w, long long ms) {
  auto none = [](TimerEntry&) {};
  const std::size_t before = w.advance(at_us(ms * 1000 - 1), none);
  return {before, w.advance(at_ms(ms), none)};
}

// 100.5 ms: tick 101, 100 ticks from tick 1 = level 1 (64-tick slots), slot
// 101 >> 6 = 1, examined at tick 64: keep_after = 63 ms, distance 37.5 ms.
constexpr long long kLevel1DeadlineUs = 100'500;
constexpr long long kLevel1KeepAfterMs = 63;

// Level 4 (64^4 = 16 777 216-tick slots): 88 886 079 ms is in slot
// 88 886 079 >> 24 = 5, examined at tick 5 << 24 = 83 886 080:
// keep_after = 83 886 079 ms.
constexpr long long kLevel4KeepAfterMs = 83'886'079;
constexpr long long kLevel4KeepAfterUs = kLevel4KeepAfterMs * 1000;

constexpr long long kMaxSlackUs = static_cast<long long>(rto::kMaxSlack);  // 4 294 967 295

}  // namespace

TEST_CASE("TimerWheel re-arm to exactly keep_after moves the entry; 1 us later it may stay (level 1)") {
  SUBCASE("to keep_after: fires at its own tick 63, not at the slot's tick 64") {
    TimerWheel w(at_ms(0));
    TimerEntry e;
    w.arm(e, at_us(kLevel1DeadlineUs));
    w.arm(e, at_ms(kLevel1KeepAfterMs));
    const Fires f = fires_around(w, kLevel1KeepAfterMs);
    CHECK(f.before == 0u);
    CHECK(f.at == 1u);
  }
  SUBCASE("to keep_after + 1 us: tick 64, fires at 64 ms, not before") {
    TimerWheel w(at_ms(0));
    TimerEntry e;
    w.arm(e, at_us(kLevel1DeadlineUs));
    w.arm(e, at_us(kLevel1KeepAfterMs * 1000 + 1));
    const Fires f = fires_around(w, kLevel1KeepAfterMs + 1);
    CHECK(f.before == 0u);
    CHECK(f.at == 1u);
  }
}

TEST_CASE("TimerWheel lazy re-arms earlier and later keep the entry's keep_after where it is") {
  TimerWheel w(at_ms(0));
  TimerEntry e;
  w.arm(e, at_us(kLevel1DeadlineUs));
  SUBCASE("100.5 -> 80 ms (stays, distance 37.5 - 20.5 = 17 ms) -> 63 ms = keep_after: fires at 63 ms") {
    w.arm(e, at_ms(80));
  }
  SUBCASE("100.5 -> 120 ms (stays, distance 37.5 + 19.5 = 57 ms) -> 63 ms = keep_after: fires at 63 ms") {
    w.arm(e, at_ms(120));
  }
  w.arm(e, at_ms(kLevel1KeepAfterMs));
  const Fires f = fires_around(w, kLevel1KeepAfterMs);
  CHECK(f.before == 0u);
  CHECK(f.at == 1u);
  CHECK(e.deadline() == at_ms(kLevel1KeepAfterMs));
}

TEST_CASE("TimerWheel a lazy re-arm earlier then later, then to just after keep_after: fires at the slot's tick") {
  // 100.5 -> 70 -> 110 ms -> 63.001 ms (tick 64, distance 1 us): stays, fires
  // at 64 ms.
  TimerWheel w(at_ms(0));
  TimerEntry e;
  w.arm(e, at_us(kLevel1DeadlineUs));
  w.arm(e, at_ms(70));
  w.arm(e, at_ms(110));
  w.arm(e, at_us(kLevel1KeepAfterMs * 1000 + 1));
  const Fires f = fires_around(w, kLevel1KeepAfterMs + 1);
  CHECK(f.before == 0u);
  CHECK(f.at == 1u);
}

TEST_CASE("TimerWheel re-arm at keep_after with the distance exactly kMaxSlack (stored unclamped)") {
  // Deadline keep_after + kMaxSlack = 83 886 079 000 + 4 294 967 295 us
  // = 88 181 046 295 us: tick 88 181 047, still level 4 slot 5.
  TimerWheel w(at_ms(0));
  TimerEntry e;
  w.arm(e, at_us(kLevel4KeepAfterUs + kMaxSlackUs));
  w.arm(e, at_ms(kLevel4KeepAfterMs));
  const Fires f = fires_around(w, kLevel4KeepAfterMs);
  CHECK(f.before == 0u);
  CHECK(f.at == 1u);
}

TEST_CASE("TimerWheel re-arm with the distance above kMaxSlack (clamped): never early, never late") {
  // Deadline keep_after + kMaxSlack + 1 us: the stored distance is clamped to
  // kMaxSlack, so keep_after looks 1 us later than it is.
  SUBCASE("to keep_after: fires at tick 83 886 079") {
    TimerWheel w(at_ms(0));
    TimerEntry e;
    w.arm(e, at_us(kLevel4KeepAfterUs + kMaxSlackUs + 1));
    w.arm(e, at_ms(kLevel4KeepAfterMs));
    const Fires f = fires_around(w, kLevel4KeepAfterMs);
    CHECK(f.before == 0u);
    CHECK(f.at == 1u);
  }
  SUBCASE("to keep_after + 1 us (moved though it could stay): fires at tick 83 886 080") {
    TimerWheel w(at_ms(0));
    TimerEntry e;
    w.arm(e, at_us(kLevel4KeepAfterUs + kMaxSlackUs + 1));
    w.arm(e, at_us(kLevel4KeepAfterUs + 1));
    const Fires f = fires_around(w, kLevel4KeepAfterMs + 1);
    CHECK(f.before == 0u);
    CHECK(f.at == 1u);
  }
  SUBCASE("5000 s above keep_after, moved down by exactly kMaxSlack and by kMaxSlack - 1 us") {
    // 88 886 079 000 us - 4 294 967 295 = 84 591 111 705 us: tick 84 591 112;
    // 1 us later (84 591 111 706 us) is the same tick.
    for (long long extra : {0LL, 1LL}) {
      TimerWheel w(at_ms(0));
      TimerEntry e;
      const long long d = kLevel4KeepAfterUs + 5'000'000'000LL;
      w.arm(e, at_us(d));
      w.arm(e, at_us(d - kMaxSlackUs + extra));
      const Fires f = fires_around(w, 84'591'112);
      CHECK(f.before == 0u);
      CHECK(f.at == 1u);
    }
  }
}

TEST_CASE("TimerWheel an entry in the due list re-armed far earlier or far later") {
  // Ticks <= 10 processed; armed at 5 ms it is due at the next advance.
  TimerWheel w(at_ms(0));
  TimerEntry e;
  auto none = [](TimerEntry&) {};
  w.advance(at_ms(10), none);
  w.arm(e, at_ms(5));
  SUBCASE("earlier by more than kMaxSlack (before the start): still fires at the next advance") {
    w.arm(e, at_us(5'000 - kMaxSlackUs - 1));
    CHECK(w.advance(at_ms(10), none) == 1u);
  }
  SUBCASE("later, to 20 ms: not fired at the next advance, fires at 20 ms") {
    w.arm(e, at_ms(20));
    CHECK(w.advance(at_ms(10), none) == 0u);
    const Fires f = fires_around(w, 20);
    CHECK(f.before == 0u);
    CHECK(f.at == 1u);
  }
}

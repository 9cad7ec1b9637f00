// Fuzz harness: rto::TimerWheel (timer_wheel.hpp) under a random stream of
// arm, re-arm, cancel, destroy and advance events on a handful of entries,
// with a random start, tick width and deadlines (before the start, far ahead,
// Instant::max()), and callbacks that re-arm or cancel entries while the wheel
// fires. The harness keeps its own record of which entries are armed and with
// which deadline. Invariants:
//  - never early: an entry fires only when advance()'s `now` is at or past its
//    deadline, and it is disarmed when its callback runs;
//  - a cancelled (or destroyed, or never armed) entry never fires, and an
//    armed one fires at most once;
//  - never more than a tick late: after advance(now) returns, every entry that
//    was armed before the call with a deadline whose tick-grid round-up
//    (start + ceil((d - start) / tick) * tick) is <= now has fired; a deadline
//    before the start is due at the first advance; a deadline 2^61 ticks or
//    more after the start never fires;
//  - advance() returns the number of callbacks it made, size() counts the
//    armed entries, armed() agrees with the record, and now() is the latest
//    `now` given (an earlier one is treated as it);
//  - next_deadline() is a time whenever an armed entry will fire; it is
//    never later than the time any armed entry fires (its rounded deadline),
//    it is now() when an entry is already due and later than now() when none
//    is; an advance to it (one op in two of one kind) keeps every invariant
//    above.
#include <rto/timer_wheel.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <memory>

#include "common/byte_source.hpp"
#include "common/memory_file.hpp"

namespace {

using std::chrono::microseconds;
using rto::Instant;
__extension__ typedef __int128 I128;  // the harness's overflow-free arithmetic

constexpr std::size_t kEntries = 24;
constexpr std::size_t kMaxOps = 512;
constexpr std::int64_t kFarTicks = std::int64_t{1} << 61;  // timer_wheel.hpp: at or beyond, never fires

using Input = fuzz::ByteSource;

// t + us, saturating at Instant::min() / Instant::max() (the harness's own
// arithmetic must not overflow; the wheel's is what is under test).
Instant plus(Instant t, I128 us) {
  const I128 v = static_cast<I128>(t.time_since_epoch().count()) + us;
  if (v > std::numeric_limits<std::int64_t>::max()) return Instant::max();
  if (v < std::numeric_limits<std::int64_t>::min()) return Instant::min();
  return Instant{microseconds{static_cast<std::int64_t>(v)}};
}

struct Record {
  bool armed = false;
  Instant deadline{};
  bool armed_during_advance = false;  // armed from a callback of the advance() in progress
};

struct Harness {
  Input in;
  Instant start;
  microseconds tick;
  rto::TimerWheel wheel;
  std::array<std::unique_ptr<rto::TimerEntry>, kEntries> entries;
  std::array<Record, kEntries> rec{};
  std::size_t armed_count = 0;
  bool in_advance = false;
  Instant advancing_to{};

  Harness(Input i, Instant s, microseconds t) : in(i), start(s), tick(t), wheel(s, t) {
    for (std::size_t k = 0; k < kEntries; ++k) {
      entries[k] = std::make_unique<rto::TimerEntry>();
      entries[k]->user = k;
    }
  }
  ~Harness() {
    for (auto& e : entries) e.reset();  // entries go before the wheel
  }

  // A deadline relative to the wheel's time: passed, within a few ticks, far,
  // before the start, at the never-fires bound, or Instant::max().
  Instant deadline() {
    const Instant now = wheel.now();
    const std::int64_t t = tick.count();
    switch (in.u8() % 10) {
      case 0: return plus(now, -I128{in.u8()});
      case 1: return plus(now, in.u8());
      case 2: return plus(now, I128{in.u32() % 65536} * t / 16);
      case 3: return plus(now, I128{in.u32()} * t);  // up to 2^32 ticks
      case 4: return plus(start, -I128{in.u32()});
      case 5: return Instant::max();
      case 6:  // around the never-fires bound
        return plus(start, I128{kFarTicks} * t + in.u8() - 128);
      case 7: return plus(now, I128{in.u8()} * t);  // whole ticks after now
      default: return plus(now, in.u32() % 100'000);
    }
  }

  // start + ceil((d - start) / tick) * tick as a tick count; < 0 becomes 0
  // (due at once); kFarTicks or more: never.
  std::int64_t due_tick(Instant d) const {
    if (d <= start) return 0;
    const I128 diff = static_cast<I128>(d.time_since_epoch().count()) - start.time_since_epoch().count();
    const I128 t = tick.count();
    const I128 ticks = (diff + t - 1) / t;
    return ticks >= kFarTicks ? kFarTicks : static_cast<std::int64_t>(ticks);
  }
  // Whether the rounded deadline of `d` is reached at `now`.
  bool due_by(Instant d, Instant now) const {
    const std::int64_t k = due_tick(d);
    if (k >= kFarTicks) return false;
    const I128 at = static_cast<I128>(start.time_since_epoch().count()) + static_cast<I128>(k) * tick.count();
    return at <= now.time_since_epoch().count();
  }

  void arm(std::size_t k, Instant d) {
    if (!entries[k]) entries[k] = std::make_unique<rto::TimerEntry>(), entries[k]->user = k;
    if (!rec[k].armed) ++armed_count;
    rec[k] = {true, d, in_advance};
    wheel.arm(*entries[k], d);
  }
  void cancel(std::size_t k) {
    if (entries[k]) wheel.cancel(*entries[k]);
    if (rec[k].armed) --armed_count;
    rec[k].armed = false;
  }
  void destroy(std::size_t k) {
    if (rec[k].armed) --armed_count;
    rec[k].armed = false;
    entries[k].reset();  // its destructor cancels it
  }

  void on_fire(rto::TimerEntry& e) {
    const std::size_t k = e.user;
    fuzz::check(k < kEntries && entries[k].get() == &e, "a fired entry is one of ours, still alive");
    fuzz::check(rec[k].armed, "a cancelled or never-armed entry never fires (and an armed one at most once)");
    fuzz::check(!e.armed(), "an entry is disarmed before its callback runs");
    fuzz::check(rec[k].deadline <= advancing_to, "never early: a deadline fires only once now reaches it");
    fuzz::check(due_tick(rec[k].deadline) < kFarTicks, "a deadline 2^61 ticks or more ahead never fires");
    rec[k].armed = false;
    --armed_count;
    // The callback may re-arm this entry or arm/cancel another one.
    const std::uint8_t what = in.u8();
    if (what % 4 == 1) arm(k, deadline());
    if (what % 4 == 2) arm(in.u8() % kEntries, deadline());
    if (what % 4 == 3) cancel(in.u8() % kEntries);
  }

  void advance(Instant now) {
    const Instant effective = std::max(now, wheel.now());
    in_advance = true;
    advancing_to = effective;
    for (Record& r : rec) r.armed_during_advance = false;
    std::size_t calls = 0;
    const std::size_t fired = wheel.advance(now, [&](rto::TimerEntry& e) {
      ++calls;
      on_fire(e);
    });
    in_advance = false;
    fuzz::check(fired == calls, "advance() returns how many fired");
    fuzz::check(wheel.now() == effective, "now() is the latest time given");
    for (std::size_t k = 0; k < kEntries; ++k) {
      if (!rec[k].armed || rec[k].armed_during_advance) continue;
      fuzz::check(!due_by(rec[k].deadline, effective), "an entry fires by its deadline rounded up to the tick (at most a tick late)");
    }
  }

  void check_next_deadline() const {
    const auto next = wheel.next_deadline();
    bool any = false, due = false;
    for (std::size_t k = 0; k < kEntries; ++k) {
      if (!rec[k].armed) continue;
      const std::int64_t ticks = due_tick(rec[k].deadline);
      if (ticks >= kFarTicks) continue;  // never fires
      any = true;
      const I128 at = static_cast<I128>(start.time_since_epoch().count()) + static_cast<I128>(ticks) * tick.count();
      if (at <= wheel.now().time_since_epoch().count()) {
        due = true;
      } else if (next) {
        fuzz::check(static_cast<I128>(next->time_since_epoch().count()) <= at,
                    "next_deadline() is never later than an armed entry's rounded deadline");
      }
    }
    // None only when nothing will fire (a value may remain for entries
    // re-armed to "never" after they were filed, until their tick: the bound
    // checks above and below keep that a lower bound that moves on).
    if (any) fuzz::check(next.has_value(), "next_deadline() is a time whenever an armed entry will fire");
    if (!next) return;
    if (due) fuzz::check(*next == wheel.now(), "next_deadline() is now() while an entry is due");
    else fuzz::check(*next > wheel.now() || wheel.now() == Instant::max(), "next_deadline() is later than now() when none is due");
  }

  void check_state() const {
    check_next_deadline();
    fuzz::check(wheel.size() == armed_count, "size() counts the armed entries");
    for (std::size_t k = 0; k < kEntries; ++k) {
      if (!entries[k]) continue;
      fuzz::check(entries[k]->armed() == rec[k].armed, "armed() agrees with what was armed, fired and cancelled");
      if (rec[k].armed) fuzz::check(entries[k]->deadline() == rec[k].deadline, "deadline() is the one last armed");
    }
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in{data, size};
  static constexpr std::array<std::int64_t, 8> kTicks = {1, 1000, 7, 250, 4000, 1'000'003, 0, -5};  // 0, -5: become 1 us
  const std::int64_t tick_in = kTicks[in.u8() % kTicks.size()];
  const microseconds tick{tick_in <= 0 ? 1 : tick_in};
  Instant start{};
  switch (in.u8() % 4) {
    case 0: break;
    case 1: start = plus(Instant{}, I128{in.u32()} * 1000); break;
    case 2: start = plus(Instant{}, -I128{in.u32()}); break;
    case 3: start = plus(Instant::max(), -(I128{in.u32()} << 20)); break;
  }
  Harness h(in, start, tick);
  // The wheel is built with the input's tick (a non-positive one must act as 1 us).
  if (tick_in <= 0) {
    rto::TimerWheel w(start, microseconds{tick_in});
    fuzz::check(w.tick() == microseconds{1}, "a non-positive tick becomes 1 us");
  }
  fuzz::check(h.wheel.tick() == tick && h.wheel.now() == start, "the wheel starts at its start with its tick");
  for (std::size_t op = 0; op < kMaxOps && h.in.n > 0; ++op) {
    const std::uint8_t what = h.in.u8();
    const std::size_t k = h.in.u8() % kEntries;
    switch (what % 8) {
      case 0: case 1: h.arm(k, h.deadline()); break;
      case 2: h.cancel(k); break;
      case 3: h.destroy(k); break;
      case 4: {
        const std::uint8_t b = h.in.u8();
        const auto next = h.wheel.next_deadline();
        if ((b & 0x80) != 0 && next) h.advance(*next);  // an event loop that sleeps until next_deadline()
        else h.advance(plus(h.wheel.now(), b & 0x7f));
        break;
      }
      case 5: h.advance(plus(h.wheel.now(), I128{h.in.u32() % 4096} * tick.count())); break;
      case 6: h.advance(plus(h.wheel.now(), -I128{h.in.u8()})); break;  // backwards: treated as now()
      case 7: h.advance(h.deadline()); break;  // to a deadline-like time, maybe far ahead
    }
    h.check_state();
  }
  return 0;
}

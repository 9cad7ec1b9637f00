#pragma once
// A hierarchical timing wheel for many connections' timers: intrusive entries
// owned by the caller, O(1) arm/cancel/rearm, no allocation, never early.

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "rto/clock.hpp"
#include "rto/export.h"

namespace rto {

class TimerWheel;

/// A timer the caller embeds in its own object (e.g. a connection). It links
/// itself into a TimerWheel without any allocation. Not copyable or movable
/// while it may be armed; its destructor cancels it. `user` is free for the
/// caller (an index or a pointer to the owner).
class RTO_API TimerEntry {
 public:
  TimerEntry() = default;
  TimerEntry(const TimerEntry&) = delete;
  TimerEntry& operator=(const TimerEntry&) = delete;
  ~TimerEntry();

  /// True while armed in a wheel.
  bool armed() const { return wheel_ != nullptr; }
  /// The deadline it was armed with (us); meaningful only when armed().
  Instant deadline() const { return deadline_; }

  /// Free for the caller: identifies the owner in the advance() callback.
  std::uint64_t user = 0;

 private:
  friend class TimerWheel;
  TimerEntry* next_ = nullptr;
  TimerEntry** pprev_ = nullptr;  // the pointer that points at this entry
  TimerWheel* wheel_ = nullptr;
  Instant deadline_{};
  std::int64_t expiry_tick_ = 0;  // ceil((deadline - start) / tick)
  std::uint8_t level_ = 0;        // kLevels = the due list
  std::uint8_t slot_ = 0;
};

/// A hierarchical timing wheel (6 levels of 64 slots; with a 1 ms tick it spans
/// 64^6 ms, about 2.2 years; farther deadlines are parked in the top level and
/// re-placed as it turns). Deadlines are rto::Instant (us); the wheel rounds each
/// deadline UP to the tick grid (start + k*tick), and an entry fires at the first
/// advance() whose `now` reaches that rounded deadline: never early, and less than
/// one tick late (with 1 ms ticks: at most 999 us after its deadline).
///
/// arm/cancel/re-arm are O(1). advance is O(entries fired + entries cascaded to a
/// finer level + non-empty slots visited); empty stretches of time are skipped
/// with per-level occupancy bitmaps. Within the horizon an entry is cascaded at
/// most once per level.
/// Not thread-safe. Entries must be cancelled (or destroyed) before the wheel.
class RTO_API TimerWheel {
 public:
  /// Number of wheel levels; level L has slots 64^L ticks wide.
  static constexpr unsigned kLevels = 6;
  /// log2 of the slots per level.
  static constexpr unsigned kSlotBits = 6;
  /// Slots per level (64).
  static constexpr unsigned kSlots = 1u << kSlotBits;

  /// `start`: the time the wheel begins at (deadlines before it are due at once).
  /// `tick`: the slot width of level 0 (default 1 ms; a non-positive tick becomes 1 us).
  explicit TimerWheel(Instant start, std::chrono::microseconds tick = std::chrono::milliseconds{1});
  TimerWheel(const TimerWheel&) = delete;
  TimerWheel& operator=(const TimerWheel&) = delete;
  ~TimerWheel();

  /// Arms `e` to fire at `deadline`; if already armed (in this wheel) it is
  /// re-armed (moved). A deadline already passed fires at the next advance().
  /// A deadline 2^61 ticks or more after the start (e.g. Instant::max(), what a
  /// stopped RetransmissionTimer reports) never fires but stays armed (counted
  /// in size(), cancellable) until re-armed or cancelled.
  void arm(TimerEntry& e, Instant deadline);
  /// Disarms `e`; no effect if not armed.
  void cancel(TimerEntry& e);

  /// Moves the wheel's time to `now` (a `now` earlier than a previous one is
  /// treated as that one) and calls `on_fire(TimerEntry&)` for every entry whose
  /// deadline <= now. An entry is disarmed before its callback runs, so the
  /// callback may re-arm it or arm/cancel others; an entry armed from a callback
  /// with a deadline <= now fires at the next advance(). The callback must not
  /// call advance() or destroy the wheel. Returns how many fired.
  template <class F>
  std::size_t advance(Instant now, F&& on_fire);

  /// Number of armed entries.
  std::size_t size() const { return size_; }
  /// The tick width.
  std::chrono::microseconds tick() const { return tick_; }
  /// The latest `now` given to advance() (or the start).
  Instant now() const { return now_; }

 private:
  std::int64_t tick_of(Instant deadline) const;  // ceil((deadline - start_) / tick_)
  std::int64_t target_tick(Instant now) const;   // floor((now - start_) / tick_)
  // Ticks beyond this are treated as "never" (still parked, re-placed as the wheel turns).
  static constexpr std::int64_t kFarTick = std::int64_t{1} << 61;
  void place(TimerEntry& e);
  void link(TimerEntry& e, unsigned level, unsigned slot);
  void unlink(TimerEntry& e);
  void cascade(unsigned level);
  void cascade_at(std::int64_t t);
  std::int64_t next_event_tick(std::int64_t t) const;
  TimerEntry* take_slot(unsigned level, unsigned slot);
  TimerEntry* take_due();

  Instant start_;
  std::chrono::microseconds tick_;
  Instant now_;
  std::int64_t next_tick_ = 1;  // every tick < next_tick_ has been processed
  std::size_t size_ = 0;
  std::array<std::array<TimerEntry*, kSlots>, kLevels> slots_{};
  std::array<std::uint64_t, kLevels> occupied_{};  // bit s set = slot s non-empty
  TimerEntry* due_ = nullptr;                      // deadline already passed when armed
  TimerEntry* never_ = nullptr;                    // deadline at or beyond kFarTick: never fires
};

template <class F>
std::size_t TimerWheel::advance(Instant now, F&& on_fire) {
  if (now < now_) now = now_;
  now_ = now;
  std::size_t fired = 0;
  auto fire_list = [&](TimerEntry* list) {
    while (list != nullptr) {
      TimerEntry* e = list;
      list = e->next_;
      if (list != nullptr) list->pprev_ = &list;
      e->next_ = nullptr;
      e->pprev_ = nullptr;
      if (e->deadline_ > now_) {  // defensive: never early (cannot happen by construction)
        e->wheel_ = nullptr;
        --size_;
        arm(*e, e->deadline_);
        continue;
      }
      e->wheel_ = nullptr;
      --size_;
      ++fired;
      on_fire(*e);
    }
  };
  fire_list(take_due());
  const std::int64_t target = target_tick(now);  // floor: the last tick fully reached
  while (next_tick_ <= target) {
    // Jump straight to the next tick at which a slot is non-empty: empty
    // stretches (the common case with sparse timers) cost nothing.
    const std::int64_t t = next_event_tick(next_tick_);
    if (t > target) {
      next_tick_ = target + 1;
      break;
    }
    next_tick_ = t;
    cascade_at(t);  // bring coarser slots that start at t down, highest level first
    next_tick_ = t + 1;
    fire_list(take_slot(0, static_cast<unsigned>(t & (kSlots - 1))));
  }
  return fired;
}

}  // namespace rto

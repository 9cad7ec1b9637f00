#pragma once
// A hierarchical timing wheel for many connections' timers: intrusive entries
// owned by the caller, O(1) arm/cancel/rearm, no allocation, never early.

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "rto/clock.hpp"
#include "rto/export.h"

namespace rto {

class TimerWheel;

/// A timer the caller embeds in its own object (e.g. a connection). It links
/// itself into a TimerWheel without any allocation. Not copyable or movable
/// while it may be armed; its destructor cancels it. `user` (32 bits) is free
/// for the caller, e.g. the owner's index in its table of connections (an owner
/// that needs a pointer finds itself from the entry's address instead).
/// 40 bytes (see kEntryBytes): well within one 64-byte cache line.
class RTO_API TimerEntry {
 public:
  TimerEntry() = default;
  TimerEntry(const TimerEntry&) = delete;
  TimerEntry& operator=(const TimerEntry&) = delete;
  ~TimerEntry();

  /// True while armed in a wheel.
  bool armed() const { return wheel_ != nullptr; }
  /// The deadline it was armed with (us, exactly as given to arm(): not
  /// rounded to the tick); meaningful only when armed().
  Instant deadline() const { return deadline_; }

 private:
  friend class TimerWheel;
  TimerEntry* next_ = nullptr;
  TimerEntry** pprev_ = nullptr;  // the pointer that points at this entry
  TimerWheel* wheel_ = nullptr;
  Instant deadline_{};
  // The list the entry sits in is examined at tick T (its slot's first tick);
  // any deadline after the list's keep_after = start + (T-1)*tick still has its
  // tick at or after T, so a re-arm to such a deadline leaves the entry where it
  // is (the entry is re-placed when T comes). The entry keeps its own
  // keep_after as a distance below the deadline: slack_ = deadline_ -
  // keep_after (us), at most the distance to the list's keep_after: clamped to
  // kMaxSlack (the due list, examined at the next advance, and lists examined
  // more than kMaxSlack us before the deadline). A smaller slack only sends
  // more re-arms to the slow path (moving the entry), never one that must move
  // to the fast path.
  // (Which list the entry is in, needed only to clear an occupancy bit, is
  // found from pprev_ when the entry is a list head: no level/slot fields.)
  std::uint32_t slack_ = 0;

 public:
  /// Free for the caller: identifies the owner in the advance() callback.
  std::uint32_t user = 0;
};

/// The largest slack_ a TimerEntry stores (us; about 71.6 minutes).
inline constexpr std::uint64_t kMaxSlack = 0xffffffffu;

/// sizeof(TimerEntry): three pointers and the deadline, 8 bytes each, then the
/// 32-bit slack and the 32-bit `user`: 4 * 8 + 2 * 4 = 40.
inline constexpr std::size_t kEntryBytes = 40;
static_assert(sizeof(TimerEntry) == kEntryBytes, "TimerEntry layout changed: update kEntryBytes");
static_assert(sizeof(TimerEntry) <= 64, "a TimerEntry must fit one cache line");

/// A hierarchical timing wheel (6 levels of 64 slots; with a 1 ms tick it spans
/// 64^6 ms, about 2.2 years; farther deadlines are parked in the top level and
/// re-placed as it turns). Deadlines are rto::Instant (us); the wheel rounds each
/// deadline UP to the tick grid (start + k*tick), and an entry fires at the first
/// advance() whose `now` reaches that rounded deadline: never early, and less than
/// one tick late (with 1 ms ticks: at most 999 us after its deadline).
///
/// arm/cancel are O(1). A re-arm that moves a deadline later, within or beyond
/// the tick range its slot is examined at, only stores the deadline: the entry
/// stays where it is and is re-placed when its slot comes due (as the Linux,
/// Seastar and gVisor timer wheels do for TCP's per-ACK restarts, RFC 6298 5.3),
/// so the ACK-driven re-arm touches the entry alone, with no division. A re-arm
/// to an earlier tick than the slot's moves the entry (O(1)). Tick arithmetic
/// uses a reciprocal of the tick precomputed at construction (no 64-bit divide).
/// advance is O(entries fired + entries re-placed or cascaded to a finer level +
/// non-empty slots visited); empty stretches of time are skipped with per-level
/// occupancy bitmaps; each slot's lanes (kLanes lists) are walked once,
/// round-robin, fetching each lane's next entry ahead.
/// Not thread-safe. Entries must be cancelled (or destroyed) before the wheel.
class RTO_API TimerWheel {
 public:
  /// Number of wheel levels; level L has slots 64^L ticks wide.
  static constexpr unsigned kLevels = 6;
  /// log2 of the slots per level.
  static constexpr unsigned kSlotBits = 6;
  /// Slots per level (64).
  static constexpr unsigned kSlots = 1u << kSlotBits;
  /// Lists per slot: entries placed in a slot are spread over kLanes lists in
  /// turn, so that a cascade or a firing walks kLanes lists interleaved and
  /// keeps that many cache misses in flight instead of chasing one list's
  /// pointers one miss at a time.
  static constexpr unsigned kLanes = 8;

  /// `start`: the time the wheel begins at (deadlines before it are due at once).
  /// `tick`: the slot width of level 0 (default 1 ms; a non-positive tick becomes 1 us).
  explicit TimerWheel(Instant start, std::chrono::microseconds tick = std::chrono::milliseconds{1});
  TimerWheel(const TimerWheel&) = delete;
  TimerWheel& operator=(const TimerWheel&) = delete;
  ~TimerWheel();

  /// Arms `e` to fire at `deadline`; if already armed (in this wheel) it is
  /// re-armed (a later deadline is only stored; an earlier one moves the entry).
  /// The entry fires at the first advance() whose `now` reaches the deadline
  /// rounded up to the tick grid. So a deadline whose tick the wheel has already
  /// processed (deadline <= start + k*tick for the last k advance() reached)
  /// fires at the next advance(); a deadline already passed but inside the tick
  /// still in progress (possible with ticks above 1 us) fires once advance()
  /// reaches the end of that tick, at most one tick after the deadline.
  /// A deadline 2^61 ticks or more after the start (e.g. Instant::max(), what a
  /// stopped RetransmissionTimer reports) never fires but stays armed (counted
  /// in size(), cancellable) until re-armed or cancelled.
  void arm(TimerEntry& e, Instant deadline) {
    // The per-ACK path (RFC 6298 5.3), inline: a deadline whose tick is not
    // before the tick the entry's list is examined at needs no move.
    // The entry's keep_after is deadline_ - slack_ (never below the list's own
    // keep_after, so the subtraction cannot overflow). A deadline after it may
    // stay; the new slack (deadline - keep_after, in (0, 2^64) so exact in
    // unsigned arithmetic) is stored clamped to kMaxSlack, which keeps
    // keep_after where it was or (clamped) raises it.
    if (e.wheel_ == this) {
      const std::int64_t keep_after = e.deadline_.time_since_epoch().count() - std::int64_t{e.slack_};
      const std::int64_t d = deadline.time_since_epoch().count();
      if (d > keep_after) {
        const std::uint64_t slack = static_cast<std::uint64_t>(d) - static_cast<std::uint64_t>(keep_after);
        e.slack_ = static_cast<std::uint32_t>(slack < kMaxSlack ? slack : kMaxSlack);
        e.deadline_ = deadline;
        return;
      }
    }
    arm_slow(e, deadline);
  }
  /// Disarms `e`; no effect if not armed (in this wheel).
  void cancel(TimerEntry& e);

  /// Moves the wheel's time to `now` (a `now` earlier than a previous one is
  /// treated as that one) and calls `on_fire(TimerEntry&)` for every entry whose
  /// deadline rounded up to the tick grid is <= now (so whose deadline <= now).
  /// An entry is disarmed before its callback runs, so the callback may re-arm
  /// it or arm/cancel others; an entry armed from a callback with a deadline
  /// <= now fires at the next advance(). The callback must not call advance()
  /// or destroy the wheel. Returns how many fired.
  template <class F>
  std::size_t advance(Instant now, F&& on_fire);

  /// When an event loop should next call advance(): the time of the next
  /// tick at which the wheel has work, or nullopt when it has none (none
  /// armed, or only deadlines 2^61 ticks or more away, which never fire; an
  /// entry re-armed to such a deadline after it was filed still counts until
  /// the tick at which the wheel files it away).
  ///
  /// A lower bound: never later than the time advance() fires the earliest
  /// armed entry (its deadline rounded up to the tick grid; with a 1 us tick,
  /// the deadline itself), so a loop that sleeps until it and then calls
  /// advance() fires every entry as advance() promises (never early, less
  /// than one tick late). It is exact when that entry waits in the finest
  /// level with its deadline as armed; otherwise the tick is one where a
  /// coarser slot moves down or a slot holds only entries re-armed later
  /// (they are re-filed then), advance() fires nothing, and next_deadline()
  /// then returns a later tick: always later than now(), so the loop never
  /// spins. Entries already due (armed at a tick advance() has passed) give
  /// now(). O(kLevels) from the per-level occupancy bitmaps, plus the
  /// entries armed at a tick already passed and not yet fired (the due list,
  /// usually empty): no entry in a slot is read.
  std::optional<Instant> next_deadline() const;
  /// Number of armed entries.
  std::size_t size() const { return size_; }
  /// The tick width.
  std::chrono::microseconds tick() const { return tick_; }
  /// The latest `now` given to advance() (or the start).
  Instant now() const { return now_; }

 private:
  // Ticks at or beyond this are treated as "never" (kept aside, never cascaded).
  static constexpr std::int64_t kFarTick = std::int64_t{1} << 61;
  std::int64_t div_tick(std::uint64_t us) const;  // floor(us / tick) by the reciprocal
  std::int64_t tick_of(Instant deadline) const;   // ceil((deadline - start_) / tick_)
  std::int64_t target_tick(Instant now) const;    // floor((now - start_) / tick_)
  Instant tick_time(std::int64_t t) const;        // start_ + t*tick_, saturating
  void arm_slow(TimerEntry& e, Instant deadline);
  void place(TimerEntry& e);
  void link(TimerEntry& e, TimerEntry** head, Instant keep_after);
  void unlink(TimerEntry& e);
  void cascade(unsigned level);
  void cascade_at(std::int64_t t);
  std::int64_t next_event_tick(std::int64_t t) const;
  bool skip_far(std::int64_t t, std::int64_t target);  // a jump of more than a turn over parked entries only
  void recover_walking();  // entries left in walking_ by a callback that threw: due now

  Instant start_;
  std::chrono::microseconds tick_;
  std::uint64_t recip_;  // floor((2^64 - 1) / tick) for div_tick
  Instant now_;
  std::int64_t next_tick_ = 1;  // every tick < next_tick_ has been processed
  std::size_t size_ = 0;
  using Lanes = std::array<TimerEntry*, kLanes>;  // a slot's lists
  std::array<std::array<Lanes, kSlots>, kLevels> slots_{};
  unsigned next_lane_ = 0;  // the lane the next entry placed in a slot goes to
  std::array<std::uint64_t, kLevels> occupied_{};  // bit s set = slot s non-empty
  TimerEntry* due_ = nullptr;                      // tick already processed when armed
  TimerEntry* never_ = nullptr;                    // deadline at or beyond kFarTick: never fires
  Lanes walking_{};  // the lists advance() is firing (detached from their slot)
};

template <class F>
std::size_t TimerWheel::advance(Instant now, F&& on_fire) {
  if (now < now_) now = now_;
  now_ = now;
  std::size_t fired = 0;
  // Walks `*head` once, popping each entry: an entry whose deadline is within
  // `limit` (the end of the tick being processed) fires; one re-armed later
  // since it was placed is placed again. The callback may cancel entries still
  // in the list (popping keeps their pprev_ valid) or arm into other lists.
  auto run_list = [&](TimerEntry** heads, unsigned lanes, Instant limit) {
    // Detach the lists first (into walking_): entries placed again may land in
    // this same slot. The lanes are walked round-robin, each one's next entry
    // prefetched, so their cache misses overlap.
    for (unsigned k = 0; k < lanes; ++k) {
      TimerEntry* h = heads[k];
      heads[k] = nullptr;
      walking_[k] = h;
      if (h != nullptr) {
        h->pprev_ = &walking_[k];
        __builtin_prefetch(h->next_);
      }
    }
    bool any = true;
    while (any) {
      any = false;
      for (unsigned k = 0; k < lanes; ++k) {
        TimerEntry* e = walking_[k];
        if (e == nullptr) continue;
        any = true;
        TimerEntry* next = e->next_;
        if (next != nullptr) {
          __builtin_prefetch(next->next_);  // the lane's entry after next, used lanes pops later
          next->pprev_ = &walking_[k];
        }
        walking_[k] = next;
        e->next_ = nullptr;
        e->pprev_ = nullptr;
        if (e->deadline_ > limit) {  // re-armed later in place: its tick is still ahead
          place(*e);
          continue;
        }
        e->wheel_ = nullptr;
        --size_;
        ++fired;
        on_fire(*e);
      }
    }
  };
  recover_walking();
  const std::int64_t target = target_tick(now);  // floor: the last tick fully reached
  if (due_ != nullptr) run_list(&due_, 1, tick_time(next_tick_ - 1));
  while (next_tick_ <= target) {
    // Jump straight to the next tick at which a slot is non-empty: empty
    // stretches (the common case with sparse timers) cost nothing.
    const std::int64_t t = next_event_tick(next_tick_);
    if (t > target) {
      next_tick_ = target + 1;
      break;
    }
    // A jump of more than a whole turn (64^6 ticks): see skip_far.
    if (target - t >= (std::int64_t{1} << (kSlotBits * kLevels)) && skip_far(t, target)) continue;
    next_tick_ = t;
    cascade_at(t);  // bring coarser slots that start at t down, highest level first
    next_tick_ = t + 1;
    const unsigned slot = static_cast<unsigned>(t & (kSlots - 1));
    occupied_[0] &= ~(std::uint64_t{1} << slot);  // set again by whatever lands here
    run_list(slots_[0][slot].data(), kLanes, tick_time(t));
  }
  return fired;
}

}  // namespace rto

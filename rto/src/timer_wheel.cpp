// rto::TimerWheel: a hierarchical timing wheel with caller-owned intrusive
// entries (the cascading design of the classic BSD/Linux timer wheels, written
// afresh: 6 levels of 64 slots, deadlines rounded up to the tick, re-arms to a
// later deadline left in place until their slot comes due).

#include "rto/timer_wheel.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>

namespace rto {

namespace {

__extension__ typedef unsigned __int128 U128;

// Distance from the wheel's start in us, exact: callers pass t >= start, and
// the difference of two int64 values of which the first is the larger always
// fits in uint64 (computed modulo 2^64). (Saturating it at int64 max, as
// before, dated a deadline more than 2^63 us after a start before the epoch
// too early, so that it could fire before its time.)
std::uint64_t since(Instant t, Instant start) {
  return static_cast<std::uint64_t>(t.time_since_epoch().count()) -
         static_cast<std::uint64_t>(start.time_since_epoch().count());
}

}  // namespace

TimerEntry::~TimerEntry() {
  if (wheel_ != nullptr) wheel_->cancel(*this);
}

TimerWheel::TimerWheel(Instant start, std::chrono::microseconds tick)
    : start_(start),
      tick_(tick > std::chrono::microseconds::zero() ? tick : std::chrono::microseconds{1}),
      recip_(std::numeric_limits<std::uint64_t>::max() / static_cast<std::uint64_t>(tick_.count())),
      now_(start) {}

TimerWheel::~TimerWheel() {
  // Detach whatever is still armed so the entries' destructors do not touch us.
  auto detach = [](TimerEntry* e) {
    while (e != nullptr) {
      TimerEntry* next = e->next_;
      e->next_ = nullptr;
      e->pprev_ = nullptr;
      e->wheel_ = nullptr;
      e = next;
    }
  };
  for (auto& level : slots_)
    for (auto& lanes : level)
      for (TimerEntry* head : lanes) detach(head);
  detach(due_);
  detach(never_);
  for (TimerEntry* head : walking_) detach(head);
}

std::int64_t TimerWheel::div_tick(std::uint64_t us) const {
  // q = floor(us * floor((2^64-1)/tick) / 2^64) is floor(us/tick) or up to two
  // less (the reciprocal is short by < 1 and 2^64-1 by 1); correct upwards.
  const std::uint64_t t = static_cast<std::uint64_t>(tick_.count());
  std::uint64_t q = static_cast<std::uint64_t>((static_cast<U128>(us) * recip_) >> 64);
  q += (us - q * t >= t);  // without branches (data-dependent)
  q += (us - q * t >= t);
  // With a 1 us tick q may pass int64 max; anything from kFarTick on is "never".
  return q < static_cast<std::uint64_t>(kFarTick) ? static_cast<std::int64_t>(q) : kFarTick;
}

std::int64_t TimerWheel::tick_of(Instant deadline) const {
  // ceil((deadline - start) / tick): the first tick boundary at or after the
  // deadline, so firing when that tick is reached is never early.
  if (deadline <= start_) return 0;  // tick 0 counts as processed: due at once
  const std::uint64_t us = since(deadline, start_);
  const std::int64_t q = div_tick(us);
  if (q >= kFarTick) return kFarTick;
  const std::int64_t k = q + (us - static_cast<std::uint64_t>(q) * static_cast<std::uint64_t>(tick_.count()) != 0);
  return k < kFarTick ? k : kFarTick;
}

std::int64_t TimerWheel::target_tick(Instant now) const {
  // now >= start_ (advance never goes back before the start).
  const std::int64_t k = div_tick(since(now, start_));
  return k < kFarTick ? k : kFarTick;
}

Instant TimerWheel::tick_time(std::int64_t t) const {
  std::int64_t us, at;
  if (__builtin_mul_overflow(t, tick_.count(), &us) ||
      __builtin_add_overflow(start_.time_since_epoch().count(), us, &at))
    return Instant::max();
  return Instant{std::chrono::microseconds{at}};
}

void TimerWheel::link(TimerEntry& e, TimerEntry** head, Instant keep_after) {
  // slack = deadline - keep_after, clamped to [0, kMaxSlack] (the due list's
  // Instant::min() overflows: kMaxSlack). It is negative only for the never
  // list when start + (kFarTick-1)*tick saturates at Instant::max(); 0 there
  // keeps re-arms to later deadlines in place, which is right, since every
  // deadline later than a "never" one is "never" too.
  const std::uint64_t slack =
      keep_after < e.deadline_ ? static_cast<std::uint64_t>(e.deadline_.time_since_epoch().count()) -
                                     static_cast<std::uint64_t>(keep_after.time_since_epoch().count())
                               : 0;  // exact: the distance is in (0, 2^64)
  e.slack_ = static_cast<std::uint32_t>(slack < kMaxSlack ? slack : kMaxSlack);
  e.next_ = *head;
  if (e.next_ != nullptr) e.next_->pprev_ = &e.next_;
  e.pprev_ = head;
  *head = &e;
}

void TimerWheel::unlink(TimerEntry& e) {
  TimerEntry** pp = e.pprev_;
  if (pp != nullptr) *pp = e.next_;
  if (e.next_ != nullptr) {
    e.next_->pprev_ = pp;
  } else if (pp != nullptr && *pp == nullptr) {
    // The list is now empty; if it is a wheel slot, clear its occupancy bit.
    // The slot is found from the head's address (no level/slot in the entry).
    const auto at = reinterpret_cast<std::uintptr_t>(pp);
    const auto first = reinterpret_cast<std::uintptr_t>(&slots_[0][0]);
    if (at >= first && at < first + sizeof(slots_)) {
      const std::size_t group = (at - first) / sizeof(Lanes);  // level * kSlots + slot
      const Lanes& lanes = slots_[group / kSlots][group % kSlots];
      bool empty = true;
      for (TimerEntry* head : lanes) empty = empty && head == nullptr;
      if (empty) occupied_[group / kSlots] &= ~(std::uint64_t{1} << (group % kSlots));
    }
  }
  e.next_ = nullptr;
  e.pprev_ = nullptr;
}

void TimerWheel::place(TimerEntry& e) {
  const std::int64_t expiry = tick_of(e.deadline_);
  if (expiry >= kFarTick) {  // Instant::max() or as far: "never", kept aside, never cascaded
    link(e, &never_, tick_time(kFarTick - 1));
    return;
  }
  if (expiry < next_tick_) {  // its tick has already been processed: due now
    link(e, &due_, Instant::min());
    return;
  }
  const std::int64_t delta = expiry - next_tick_;
  for (unsigned level = 0; level < kLevels; ++level) {
    const unsigned shift = kSlotBits * level;
    if (delta < (std::int64_t{1} << (shift + kSlotBits))) {
      // Level L's slot holding `expiry` is examined at the first tick of its
      // 64^L-tick range (cascaded there, or fired at level 0).
      const unsigned slot = static_cast<unsigned>((expiry >> shift) & (kSlots - 1));
      const std::int64_t examined = (expiry >> shift) << shift;
      occupied_[level] |= std::uint64_t{1} << slot;
      const unsigned lane = next_lane_++ & (kLanes - 1);
      link(e, &slots_[level][slot][lane], tick_time(examined - 1));
      return;
    }
  }
  // Beyond the horizon: park in the top level at the farthest slot; it is
  // re-placed (closer each time) when that slot cascades.
  const unsigned top = kLevels - 1;
  const unsigned shift = kSlotBits * top;
  const std::int64_t parked = next_tick_ + (std::int64_t{1} << (kSlotBits * kLevels)) - 1;
  const unsigned slot = static_cast<unsigned>((parked >> shift) & (kSlots - 1));
  occupied_[top] |= std::uint64_t{1} << slot;
  link(e, &slots_[top][slot][next_lane_++ & (kLanes - 1)], tick_time(((parked >> shift) << shift) - 1));
}

void TimerWheel::arm_slow(TimerEntry& e, Instant deadline) {
  if (e.wheel_ != nullptr) {
    if (e.wheel_ != this) {
      e.wheel_->cancel(e);
    } else {
      unlink(e);  // an earlier tick than its list is examined at: move it
      --size_;
    }
  }
  e.wheel_ = this;
  e.deadline_ = deadline;
  ++size_;
  place(e);
}

void TimerWheel::cancel(TimerEntry& e) {
  if (e.wheel_ != this) return;
  unlink(e);
  e.wheel_ = nullptr;
  --size_;
}

void TimerWheel::recover_walking() {
  for (TimerEntry*& head : walking_) {
    while (TimerEntry* e = head) {
      unlink(*e);
      link(*e, &due_, Instant::min());
    }
  }
}

void TimerWheel::cascade(unsigned level) {
  const unsigned slot =
      static_cast<unsigned>((next_tick_ >> (kSlotBits * level)) & (kSlots - 1));
  // Detach every lane of the slot, then walk the lanes round-robin: the next
  // entry of each lane is prefetched kLanes - 1 placements before it is used,
  // so the lanes' cache misses overlap. The entries land in finer levels (or
  // the due/never lists, or another top-level slot when parked): never here.
  Lanes cur = slots_[level][slot];
  slots_[level][slot] = Lanes{};
  occupied_[level] &= ~(std::uint64_t{1} << slot);
  for (TimerEntry* e : cur)
    if (e != nullptr) __builtin_prefetch(e);
  bool any = true;
  while (any) {
    any = false;
    for (TimerEntry*& lane : cur) {
      TimerEntry* e = lane;
      if (e == nullptr) continue;
      any = true;
      lane = e->next_;
      if (lane != nullptr) __builtin_prefetch(lane);
      e->next_ = nullptr;
      e->pprev_ = nullptr;
      place(*e);
    }
  }
}

void TimerWheel::cascade_at(std::int64_t t) {
  // Level L's slot is due when t is a multiple of 64^L; cascade the highest first
  // so that entries moving down land in slots cascaded right after.
  unsigned top = 0;
  while (top + 1 < kLevels && (t & ((std::int64_t{1} << (kSlotBits * (top + 1))) - 1)) == 0) ++top;
  for (unsigned level = top; level >= 1; --level) cascade(level);
}

bool TimerWheel::skip_far(std::int64_t t, std::int64_t target) {
  // Only for a jump of more than one full turn of the wheel with nothing left
  // below the top level: then every armed entry in a slot sits in the top
  // level, and ticks up to the earliest of their expiries hold nothing to do
  // but re-park the entries beyond the horizon once per turn (64^6 ticks),
  // which a jump to Instant::max() would do ~10^7 times per entry. Instead,
  // move the wheel's time straight to that earliest expiry (or past the
  // target) and place the entries again from there: O(entries in the top
  // level) per skip, and each skip ends the advance or fires an entry.
  constexpr std::int64_t kTurn = std::int64_t{1} << (kSlotBits * kLevels);
  if (target - t < kTurn) return false;
  for (unsigned level = 0; level + 1 < kLevels; ++level)
    if (occupied_[level] != 0) return false;
  std::int64_t first = target + 1;
  TimerEntry* chain = nullptr;  // the top level's entries, linked through next_
  for (Lanes& lanes : slots_[kLevels - 1]) {
    for (TimerEntry*& head : lanes) {
      while (TimerEntry* e = head) {
        head = e->next_;
        const std::int64_t expiry = tick_of(e->deadline_);
        if (expiry < first) first = expiry;
        e->pprev_ = nullptr;
        e->next_ = chain;
        chain = e;
      }
    }
  }
  occupied_[kLevels - 1] = 0;
  // Every top-level entry expires at or after t (its slot's tick, or beyond
  // the horizon when parked), so no tick skipped here had anything due.
  if (first > next_tick_) next_tick_ = first;
  while (TimerEntry* e = chain) {
    chain = e->next_;
    e->next_ = nullptr;
    place(*e);
  }
  return true;
}

std::optional<Instant> TimerWheel::next_deadline() const {
  // Entries being walked by an advance() whose callback asks: that advance()
  // handles them.
  for (const TimerEntry* head : walking_)
    if (head != nullptr) return now_;
  // Every entry in a slot is examined (fired at level 0, moved down from a
  // coarser level) at or before its deadline's tick, and nothing fires but at
  // such an examination: the earliest tick at which a non-empty slot is
  // examined is the bound. Ticks before next_tick_ are processed, so it is
  // later than now_. The `never_` list holds no entry that will fire.
  std::int64_t t = next_event_tick(next_tick_);
  // The due list: an entry whose tick is processed fires at the next
  // advance(), whatever its time. One re-armed later while it waited there
  // (the lazy re-arm leaves it in place) is filed by that advance() and
  // fires at its own tick, which is then the bound (none for "never").
  for (const TimerEntry* e = due_; e != nullptr; e = e->next_) {
    const std::int64_t k = tick_of(e->deadline_);
    if (k >= kFarTick) continue;  // as place() files it: never
    if (k < next_tick_) return now_;
    t = std::min(t, k);
  }
  if (t == INT64_MAX) return std::nullopt;
  return tick_time(t);
}

std::int64_t TimerWheel::next_event_tick(std::int64_t t) const {
  // The earliest tick >= t at which some non-empty slot is processed (level 0) or
  // cascaded (levels >= 1). Level L slot s is handled at ticks that are
  // multiples of 64^L with digit L equal to s.
  std::int64_t best = INT64_MAX;
  for (unsigned level = 0; level < kLevels; ++level) {
    const std::uint64_t occ = occupied_[level];
    if (occ == 0) continue;
    const unsigned shift = kSlotBits * level;
    const std::int64_t block = t >> shift;  // index of t's block at this level
    const unsigned idx = static_cast<unsigned>(block & (kSlots - 1));
    const bool aligned = (t & ((std::int64_t{1} << shift) - 1)) == 0;
    const unsigned first = aligned ? idx : idx + 1;  // first slot still ahead in this turn
    const std::uint64_t ahead = first < kSlots ? occ >> first : 0;
    std::int64_t candidate;
    if (ahead != 0) {
      candidate = (block + (first - idx) + std::countr_zero(ahead)) << shift;
    } else {  // only slots of the next turn of this level
      const std::int64_t next_turn = (block | static_cast<std::int64_t>(kSlots - 1)) + 1;
      candidate = (next_turn + std::countr_zero(occ)) << shift;
    }
    if (candidate < best) best = candidate;
  }
  return best;
}

}  // namespace rto

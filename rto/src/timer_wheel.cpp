// rto::TimerWheel: a hierarchical timing wheel with caller-owned intrusive
// entries (the cascading design of the classic BSD/Linux timer wheels, written
// afresh: 6 levels of 64 slots, deadlines rounded up to the tick).

#include "rto/timer_wheel.hpp"

#include <bit>
#include <cstdint>

namespace rto {

TimerEntry::~TimerEntry() {
  if (wheel_ != nullptr) wheel_->cancel(*this);
}

TimerWheel::TimerWheel(Instant start, std::chrono::microseconds tick)
    : start_(start),
      tick_(tick > std::chrono::microseconds::zero() ? tick : std::chrono::microseconds{1}),
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
    for (TimerEntry* head : level) detach(head);
  detach(due_);
  detach(never_);
}

std::int64_t TimerWheel::tick_of(Instant deadline) const {
  // ceil((deadline - start) / tick): the first tick boundary at or after the
  // deadline, so firing when that tick is reached is never early.
  if (deadline <= start_) return 0;  // tick 0 counts as processed: due at once
  const std::int64_t d = deadline.time_since_epoch().count();
  const std::int64_t s = start_.time_since_epoch().count();
  if (s < 0 && d > INT64_MAX + s) return kFarTick;  // the difference would overflow
  const std::int64_t us = d - s;
  const std::int64_t t = tick_.count();
  const std::int64_t k = us / t + (us % t != 0 ? 1 : 0);
  return k < kFarTick ? k : kFarTick;
}

std::int64_t TimerWheel::target_tick(Instant now) const {
  // now >= start_ (advance never goes back before the start).
  const std::int64_t n = now.time_since_epoch().count();
  const std::int64_t s = start_.time_since_epoch().count();
  if (s < 0 && n > INT64_MAX + s) return kFarTick;
  const std::int64_t k = (n - s) / tick_.count();
  return k < kFarTick ? k : kFarTick;
}

void TimerWheel::link(TimerEntry& e, unsigned level, unsigned slot) {
  TimerEntry** head = level < kLevels ? &slots_[level][slot] : (level == kLevels ? &due_ : &never_);
  e.level_ = static_cast<std::uint8_t>(level);
  e.slot_ = static_cast<std::uint8_t>(slot);
  e.next_ = *head;
  if (e.next_ != nullptr) e.next_->pprev_ = &e.next_;
  e.pprev_ = head;
  *head = &e;
  if (level < kLevels) occupied_[level] |= std::uint64_t{1} << slot;
}

void TimerWheel::unlink(TimerEntry& e) {
  if (e.pprev_ != nullptr) *e.pprev_ = e.next_;
  if (e.next_ != nullptr) e.next_->pprev_ = e.pprev_;
  if (e.level_ < kLevels && slots_[e.level_][e.slot_] == nullptr)
    occupied_[e.level_] &= ~(std::uint64_t{1} << e.slot_);
  e.next_ = nullptr;
  e.pprev_ = nullptr;
}

void TimerWheel::place(TimerEntry& e) {
  const std::int64_t expiry = e.expiry_tick_;
  if (expiry >= kFarTick) {  // Instant::max() or as far: "never", kept aside, never cascaded
    link(e, kLevels + 1, 0);
    return;
  }
  if (expiry < next_tick_) {  // its tick has already been processed: due now
    link(e, kLevels, 0);
    return;
  }
  const std::int64_t delta = expiry - next_tick_;
  for (unsigned level = 0; level < kLevels; ++level) {
    const unsigned shift = kSlotBits * (level + 1);
    if (delta < (std::int64_t{1} << shift)) {
      link(e, level, static_cast<unsigned>((expiry >> (kSlotBits * level)) & (kSlots - 1)));
      return;
    }
  }
  // Beyond the horizon: park in the top level at the farthest slot; it is
  // re-placed (closer each time) when that slot cascades.
  const unsigned top = kLevels - 1;
  const std::int64_t parked = next_tick_ + (std::int64_t{1} << (kSlotBits * kLevels)) - 1;
  link(e, top, static_cast<unsigned>((parked >> (kSlotBits * top)) & (kSlots - 1)));
}

void TimerWheel::arm(TimerEntry& e, Instant deadline) {
  if (e.wheel_ != nullptr) {
    if (e.wheel_ != this) {
      e.wheel_->cancel(e);
    } else {
      unlink(e);
      --size_;
    }
  }
  e.wheel_ = this;
  e.deadline_ = deadline;
  e.expiry_tick_ = tick_of(deadline);
  ++size_;
  place(e);
}

void TimerWheel::cancel(TimerEntry& e) {
  if (e.wheel_ != this) return;
  unlink(e);
  e.wheel_ = nullptr;
  --size_;
}

TimerEntry* TimerWheel::take_slot(unsigned level, unsigned slot) {
  TimerEntry* list = slots_[level][slot];
  slots_[level][slot] = nullptr;
  occupied_[level] &= ~(std::uint64_t{1} << slot);
  return list;
}

TimerEntry* TimerWheel::take_due() {
  TimerEntry* list = due_;
  due_ = nullptr;
  return list;
}

void TimerWheel::cascade(unsigned level) {
  const unsigned slot =
      static_cast<unsigned>((next_tick_ >> (kSlotBits * level)) & (kSlots - 1));
  TimerEntry* list = take_slot(level, slot);
  while (list != nullptr) {
    TimerEntry* e = list;
    list = e->next_;
    e->next_ = nullptr;
    e->pprev_ = nullptr;
    place(*e);
  }
}

void TimerWheel::cascade_at(std::int64_t t) {
  // Level L's slot is due when t is a multiple of 64^L; cascade the highest first
  // so that entries moving down land in slots cascaded right after.
  unsigned top = 0;
  while (top + 1 < kLevels && (t & ((std::int64_t{1} << (kSlotBits * (top + 1))) - 1)) == 0) ++top;
  for (unsigned level = top; level >= 1; --level) cascade(level);
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

#pragma once
// A double-ended queue on one circular buffer whose capacity is a power of
// two: push at the back, pop at the front (O(1), nothing moves), random
// access, and no allocation while it has never held anything. The
// per-connection queues use it instead of std::deque, whose empty instance
// already allocates about 600 bytes (libstdc++), which dominated the memory
// of captures with millions of short connections. A queue kept at a bounded
// length (the newest N) cycles through the same slots: each push writes one
// slot, where a vector compacted now and then would copy the whole queue.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <type_traits>
#include <utility>

namespace replay {

/// The queue; iterators are invalidated by every modification. T must be
/// default-constructible and copy- or move-assignable.
template <class T>
class RingDeque {
  template <bool Const>
  class Iter {
    using Ring = std::conditional_t<Const, const RingDeque, RingDeque>;

   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = std::conditional_t<Const, const T*, T*>;
    using reference = std::conditional_t<Const, const T&, T&>;

    Iter() = default;
    Iter(Ring* r, std::size_t i) : r_(r), i_(i) {}
    operator Iter<true>() const { return Iter<true>(r_, i_); }  // NOLINT: as std containers convert

    reference operator*() const { return (*r_)[i_]; }
    pointer operator->() const { return &(*r_)[i_]; }
    reference operator[](difference_type n) const { return (*r_)[i_ + static_cast<std::size_t>(n)]; }
    Iter& operator++() { ++i_; return *this; }
    Iter operator++(int) { Iter t = *this; ++i_; return t; }
    Iter& operator--() { --i_; return *this; }
    Iter operator--(int) { Iter t = *this; --i_; return t; }
    Iter& operator+=(difference_type n) { i_ += static_cast<std::size_t>(n); return *this; }
    Iter& operator-=(difference_type n) { i_ -= static_cast<std::size_t>(n); return *this; }
    friend Iter operator+(Iter a, difference_type n) { return a += n; }
    friend Iter operator+(difference_type n, Iter a) { return a += n; }
    friend Iter operator-(Iter a, difference_type n) { return a -= n; }
    friend difference_type operator-(const Iter& a, const Iter& b) {
      return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
    }
    friend bool operator==(const Iter& a, const Iter& b) { return a.i_ == b.i_; }
    friend auto operator<=>(const Iter& a, const Iter& b) { return a.i_ <=> b.i_; }
    /// The position from the front.
    std::size_t index() const { return i_; }

   private:
    Ring* r_ = nullptr;
    std::size_t i_ = 0;
  };

 public:
  using iterator = Iter<false>;
  using const_iterator = Iter<true>;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;

  RingDeque() = default;
  RingDeque(const RingDeque& o) { *this = o; }
  RingDeque(RingDeque&& o) noexcept { swap(o); }
  RingDeque& operator=(const RingDeque& o) {
    if (this == &o) return *this;
    clear();
    for (const T& x : o) push_back(x);
    return *this;
  }
  RingDeque& operator=(RingDeque&& o) noexcept {
    RingDeque t(std::move(o));
    swap(t);
    return *this;
  }
  void swap(RingDeque& o) noexcept {
    std::swap(slots_, o.slots_);
    std::swap(mask_, o.mask_);
    std::swap(capacity_, o.capacity_);
    std::swap(head_, o.head_);
    std::swap(size_, o.size_);
  }

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  /// Slots allocated (0 until the first push).
  std::size_t capacity() const { return capacity_; }
  T& front() { return slots_[head_]; }
  const T& front() const { return slots_[head_]; }
  T& back() { return (*this)[size_ - 1]; }
  const T& back() const { return (*this)[size_ - 1]; }
  T& operator[](std::size_t i) { return slots_[(head_ + i) & mask_]; }
  const T& operator[](std::size_t i) const { return slots_[(head_ + i) & mask_]; }

  iterator begin() { return iterator(this, 0); }
  iterator end() { return iterator(this, size_); }
  const_iterator begin() const { return const_iterator(this, 0); }
  const_iterator end() const { return const_iterator(this, size_); }
  reverse_iterator rbegin() { return reverse_iterator(end()); }
  reverse_iterator rend() { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }

  void push_back(const T& x) { emplace_back(x); }
  template <class... A>
  void emplace_back(A&&... a) {
    if (size_ == capacity_) {
      // The arguments may be (or refer into) an element: built before
      // grow() frees the old slots.
      T x(std::forward<A>(a)...);
      grow();
      (*this)[size_] = std::move(x);  // the new slots hold default-constructed elements
      ++size_;
      return;
    }
    T& slot = (*this)[size_];
    if constexpr (std::is_trivially_destructible_v<T>)
      std::construct_at(&slot, std::forward<A>(a)...);  // in place: the slot holds no live object to assign to
    else
      slot = T(std::forward<A>(a)...);
    ++size_;
  }
  /// Removes the first element; the queue must not be empty.
  void pop_front() {
    release(slots_[head_]);
    head_ = (head_ + 1) & mask_;
    if (--size_ == 0) head_ = 0;  // the next push in slot 0: a queue that empties reuses one line
  }
  /// Removes the last element; the queue must not be empty.
  void pop_back() {
    release(back());
    if (--size_ == 0) head_ = 0;
  }
  /// Inserts `x` before `pos`; returns an iterator to it.
  /// The shorter side moves, as in erase().
  iterator insert(const_iterator pos, const T& x) {
    const std::size_t at = pos.index();
    T copy = x;  // `x` may be an element that the shift moves
    if (at < size_ / 2) {
      if (size_ == capacity_) grow();
      head_ = (head_ + mask_) & mask_;  // one slot before the front (it holds no element)
      ++size_;
      for (std::size_t i = 0; i < at; ++i) (*this)[i] = std::move((*this)[i + 1]);
      (*this)[at] = std::move(copy);
      return iterator(this, at);
    }
    emplace_back(std::move(copy));
    for (std::size_t i = size_ - 1; i > at; --i) std::swap((*this)[i], (*this)[i - 1]);
    return iterator(this, at);
  }
  /// Erases the element at `pos`; returns an iterator to the next one. The
  /// shorter side moves: an element near the front costs as little as one
  /// near the back.
  iterator erase(const_iterator pos) {
    const std::size_t at = pos.index();
    if (at < size_ / 2) {
      for (std::size_t i = at; i > 0; --i) (*this)[i] = std::move((*this)[i - 1]);
      pop_front();  // the next element is now at index `at`
    } else {
      for (std::size_t i = at; i + 1 < size_; ++i) (*this)[i] = std::move((*this)[i + 1]);
      pop_back();
    }
    return iterator(this, at);
  }
  /// Removes every element (the slots stay allocated).
  void clear() {
    while (size_ > 0) pop_back();
  }

 private:
  // The first allocation's slots (then doubled): few queues hold fewer.
  static constexpr std::size_t kFirstCapacity = 4;

  // What a removed element owns is freed now, not when its slot is reused.
  static void release(T& x) {
    if constexpr (!std::is_trivially_destructible_v<T>) x = T{};
  }

  void grow() {
    const std::size_t cap = capacity_ ? 2 * std::size_t{capacity_} : kFirstCapacity;
    auto bigger = std::make_unique<T[]>(cap);
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = std::move((*this)[i]);
    slots_ = std::move(bigger);
    mask_ = static_cast<std::uint32_t>(cap - 1);
    capacity_ = static_cast<std::uint32_t>(cap);
    head_ = 0;
  }

  // 24 bytes: the engine keeps five queues per sender beside its hottest
  // fields. A queue of 2^32 elements would not fit in memory anyway.
  std::unique_ptr<T[]> slots_;
  std::uint32_t mask_ = 0;      // capacity_ - 1
  std::uint32_t capacity_ = 0;  // slots allocated (0 before the first push)
  std::uint32_t head_ = 0;  // slot of the front
  std::uint32_t size_ = 0;
};

}  // namespace replay

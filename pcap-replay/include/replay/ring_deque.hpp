#pragma once
// A double-ended queue on one std::vector: push at the back, pop at the front
// (amortised O(1): the consumed front is compacted away once it is half the
// storage), random-access iterators, and no allocation while empty. The
// per-connection queues use it instead of std::deque, whose empty instance
// already allocates about 600 bytes (libstdc++), which dominated the memory
// of captures with millions of short connections.

#include <cstddef>
#include <iterator>
#include <utility>
#include <vector>

namespace replay {

/// The queue; iterators are invalidated by every modification.
template <class T>
class RingDeque {
 public:
  using iterator = typename std::vector<T>::iterator;
  using const_iterator = typename std::vector<T>::const_iterator;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;

  bool empty() const { return head_ == items_.size(); }
  std::size_t size() const { return items_.size() - head_; }
  T& front() { return items_[head_]; }
  const T& front() const { return items_[head_]; }
  T& back() { return items_.back(); }
  const T& back() const { return items_.back(); }
  T& operator[](std::size_t i) { return items_[head_ + i]; }
  const T& operator[](std::size_t i) const { return items_[head_ + i]; }

  iterator begin() { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
  iterator end() { return items_.end(); }
  const_iterator begin() const { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
  const_iterator end() const { return items_.end(); }
  reverse_iterator rbegin() { return reverse_iterator(end()); }
  reverse_iterator rend() { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }

  void push_back(const T& x) { items_.push_back(x); }
  template <class... A>
  void emplace_back(A&&... a) { items_.emplace_back(std::forward<A>(a)...); }
  /// Removes the first element; the queue must not be empty.
  void pop_front() {
    ++head_;
    if (head_ == items_.size()) {
      items_.clear();
      head_ = 0;
    } else if (head_ >= kCompactMin && head_ * 2 >= items_.size()) {
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }
  /// Inserts `x` before `pos`; returns an iterator to it.
  iterator insert(const_iterator pos, const T& x) { return items_.insert(pos, x); }
  /// Erases the element at `pos`; returns an iterator to the next one.
  iterator erase(const_iterator pos) { return items_.erase(pos); }
  void clear() {
    items_.clear();
    head_ = 0;
  }

 private:
  // Below this many consumed elements the front is not compacted (a short
  // queue's pops cost nothing either way).
  static constexpr std::size_t kCompactMin = 16;
  std::vector<T> items_;
  std::size_t head_ = 0;
};

}  // namespace replay

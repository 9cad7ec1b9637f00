#pragma once
// A queue whose elements never move while they are in it (push at the back,
// pop at the front), indexed with a shift and a mask: the elements live in
// chunks of 2^kChunkBits. It holds the analyzer's connection records, which
// the flow table and the analysis index several times per segment; with
// std::deque (libstdc++ chunks of 512 bytes, three records) each index took
// a division and several branches.

#include <cstddef>
#include <memory>
#include <new>
#include <utility>

#include <replay/analysis/ring_deque.hpp>

namespace replay {

/// The queue. References to an element stay valid until it is popped.
/// Not copyable. A new queue holds no chunk; one emptied keeps the chunk its
/// last element was in (reused from its start by the next push).
template <class T, unsigned kChunkBits = 6>
class StableQueue {
 public:
  /// Elements per chunk.
  static constexpr std::size_t kChunk = std::size_t{1} << kChunkBits;

  StableQueue() = default;
  StableQueue(const StableQueue&) = delete;
  StableQueue& operator=(const StableQueue&) = delete;
  ~StableQueue() {
    while (!empty()) pop_front();
  }

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  /// Element `i` from the front (i < size()).
  T& operator[](std::size_t i) { return *slot(first_ + i); }
  const T& operator[](std::size_t i) const { return *const_cast<StableQueue*>(this)->slot(first_ + i); }
  T& front() { return (*this)[0]; }
  const T& front() const { return (*this)[0]; }

  void push_back(T&& x) {
    const std::size_t k = first_ + size_;
    if ((k >> kChunkBits) == chunks_.size()) {
      std::unique_ptr<Chunk> c(new Chunk);  // not value-initialised: no zeroing
      chunks_.emplace_back(std::move(c));   // owned before the ring can throw
    }
    ::new (static_cast<void*>(raw(k))) T(std::move(x));
    ++size_;
  }
  /// Removes the front element; the queue must not be empty. A chunk is
  /// freed as soon as its last element is popped.
  void pop_front() {
    std::destroy_at(slot(first_));
    ++first_;
    --size_;
    if (first_ == kChunk) {
      chunks_.front().reset();
      chunks_.pop_front();
      first_ = 0;
    } else if (size_ == 0) {
      first_ = 0;  // the chunk is reused from its start
    }
  }

 private:
  static constexpr std::size_t kMask = kChunk - 1;
  struct Chunk {
    alignas(T) unsigned char bytes[kChunk * sizeof(T)];
  };
  // Position k counts from the first chunk's start.
  unsigned char* raw(std::size_t k) { return chunks_[k >> kChunkBits]->bytes + (k & kMask) * sizeof(T); }
  T* slot(std::size_t k) { return std::launder(reinterpret_cast<T*>(raw(k))); }

  RingDeque<std::unique_ptr<Chunk>> chunks_;
  std::size_t first_ = 0;  // position of the front element in chunks_.front()
  std::size_t size_ = 0;
};

}  // namespace replay

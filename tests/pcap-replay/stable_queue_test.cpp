// StableQueue (pcap-replay/src/analysis/stable_queue.hpp): the same contents
// as a std::deque through random pushes and pops, across chunk boundaries;
// an element's address does not change while it is in the queue; every
// element pushed is destroyed exactly once (popped or with the queue); a
// chunk is freed once its last element is popped.
#include <doctest/doctest.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <vector>

#include "analysis/stable_queue.hpp"
#include "heap_counter.hpp"

namespace {
// A move-only element that counts its live instances.
struct Item {
  static inline int live = 0;
  std::unique_ptr<std::uint64_t> v;
  explicit Item(std::uint64_t x) : v(std::make_unique<std::uint64_t>(x)) { ++live; }
  Item(Item&& o) noexcept : v(std::move(o.v)) { ++live; }
  Item& operator=(Item&&) = delete;
  ~Item() { --live; }
};
}  // namespace

TEST_CASE("StableQueue: the contents of a std::deque through random pushes and pops; addresses stay") {
  constexpr unsigned kBits = 3;  // chunks of 8: many boundaries in a short run
  {
    replay::StableQueue<Item, kBits> q;
    std::deque<std::uint64_t> model;
    std::deque<const Item*> where;  // the address each element had when pushed
    std::mt19937_64 rng(12345);
    std::uint64_t next = 0;
    for (int step = 0; step < 20000; ++step) {
      // Bias towards pushes in the first half, pops in the second, so the
      // queue grows past several chunks, then empties (and is refilled).
      const bool push = model.empty() || (rng() % 100) < (step < 10000 ? 60u : 40u);
      if (push) {
        q.push_back(Item(next));
        model.push_back(next);
        where.push_back(&q[q.size() - 1]);
        ++next;
      } else {
        REQUIRE(*q.front().v == model.front());
        q.pop_front();
        model.pop_front();
        where.pop_front();
      }
      REQUIRE(q.size() == model.size());
      REQUIRE(q.empty() == model.empty());
      if (step % 97 == 0) {
        for (std::size_t i = 0; i < model.size(); ++i) {
          REQUIRE(*q[i].v == model[i]);
          REQUIRE(&q[i] == where[i]);
        }
      }
    }
    CHECK(Item::live == static_cast<int>(model.size()));
  }
  CHECK(Item::live == 0);  // the rest destroyed with the queue
}

TEST_CASE("StableQueue: a chunk is freed when its last element is popped") {
  constexpr unsigned kBits = 2;  // chunks of 4 elements, 32 bytes
  replay::StableQueue<std::uint64_t, kBits> q;
  for (std::uint64_t i = 0; i < 8; ++i) q.push_back(std::uint64_t{i});  // two chunks
  const std::int64_t before = replaytest::heap_in_use();
  for (int i = 0; i < 3; ++i) q.pop_front();
  CHECK(replaytest::heap_in_use() == before);  // the first chunk still holds element 3
  q.pop_front();
  // Its last element gone: the chunk (4 * 8 = 32 bytes at least) is freed.
  CHECK(replaytest::heap_in_use() <= before - 32);
  CHECK(q.front() == 4u);
  CHECK(q.size() == 4u);
}

// RingDeque (pcap-replay/include/replay/analysis/ring_deque.hpp): the contents of a
// std::deque through random pushes, pops, inserts and erases, across the
// buffer's wrap and its growth; a queue kept at the newest N cycles through
// slots without growing; what a removed element owns is freed at once.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <string>

#include <replay/analysis/ring_deque.hpp>

TEST_CASE("RingDeque: the contents of a std::deque through random pushes, pops, inserts and erases") {
  replay::RingDeque<std::uint32_t> ring;
  std::deque<std::uint32_t> truth;
  std::mt19937 rng(7);
  std::uint32_t next = 0;
  for (int step = 0; step < 20000; ++step) {
    const unsigned op = rng() % 10;
    if (op < 5 || truth.empty()) {
      ring.push_back(next);
      truth.push_back(next);
      ++next;
    } else if (op < 8) {
      ring.pop_front();
      truth.pop_front();
    } else if (op == 8) {
      const std::size_t at = rng() % (truth.size() + 1);
      const auto it = ring.insert(ring.begin() + static_cast<std::ptrdiff_t>(at), next);
      CHECK(*it == next);
      truth.insert(truth.begin() + static_cast<std::ptrdiff_t>(at), next);
      ++next;
    } else {
      const std::size_t at = rng() % truth.size();
      // erase() moves the shorter side: the element after the erased one
      // is the one returned either way.
      const auto it = ring.erase(ring.begin() + static_cast<std::ptrdiff_t>(at));
      const auto jt = truth.erase(truth.begin() + static_cast<std::ptrdiff_t>(at));
      REQUIRE((it == ring.end()) == (jt == truth.end()));
      if (jt != truth.end()) REQUIRE(*it == *jt);
    }
    REQUIRE(ring.size() == truth.size());
    REQUIRE(std::equal(ring.begin(), ring.end(), truth.begin(), truth.end()));
    if (!truth.empty()) {
      REQUIRE(ring.front() == truth.front());
      REQUIRE(ring.back() == truth.back());
      const std::size_t i = rng() % truth.size();
      REQUIRE(ring[i] == truth[i]);
    }
  }
  // Random access as the engine's searches use it (a sorted ledger).
  ring.clear();
  for (std::uint32_t v = 0; v < 100; ++v) ring.push_back(2 * v);
  for (int i = 0; i < 37; ++i) ring.pop_front();  // the front off slot 0
  ring.push_back(200);
  ring.push_back(202);                             // and the back across the wrap
  CHECK(*std::partition_point(ring.begin(), ring.end(), [](std::uint32_t x) { return x < 151; }) == 152);
  CHECK(*std::lower_bound(ring.begin(), ring.end(), 201u) == 202);
  CHECK(*ring.rbegin() == 202);
  CHECK(std::distance(ring.begin(), ring.end()) == 65);  // 100 - 37 + 2
}

TEST_CASE("RingDeque: a queue kept at its newest N reuses its slots (the capacity is the power of two above N)") {
  replay::RingDeque<std::uint64_t> ring;
  CHECK(ring.capacity() == 0);  // nothing allocated before the first push
  constexpr std::size_t kKept = 32;
  for (std::uint64_t v = 0; v < 10000; ++v) {
    ring.push_back(v);
    if (ring.size() > kKept) ring.pop_front();
  }
  // 33 held at the push before the pop: 64 slots (32 would be full at 33).
  CHECK(ring.capacity() == 64);
  CHECK(ring.front() == 10000 - kKept);
  CHECK(ring.back() == 9999);
}

TEST_CASE("RingDeque: what a popped, erased or cleared element owns is freed at once") {
  replay::RingDeque<std::shared_ptr<int>> ring;
  auto a = std::make_shared<int>(1), b = std::make_shared<int>(2), c = std::make_shared<int>(3);
  ring.push_back(a);
  ring.push_back(b);
  ring.push_back(c);
  CHECK(a.use_count() == 2);
  ring.pop_front();
  CHECK(a.use_count() == 1);  // not kept alive by its old slot
  ring.erase(ring.begin());
  CHECK(b.use_count() == 1);
  ring.clear();
  CHECK(c.use_count() == 1);
  CHECK(ring.empty());
}

TEST_CASE("RingDeque: pushing one of its own elements when full copies it before the slots move") {
  replay::RingDeque<std::string> ring;
  for (int i = 0; i < 4; ++i) ring.push_back(std::string(40, static_cast<char>('a' + i)));  // heap strings
  REQUIRE(ring.size() == ring.capacity());  // full: the next push grows
  ring.push_back(ring.front());
  CHECK(ring.back() == std::string(40, 'a'));
  ring.emplace_back(ring[1]);
  CHECK(ring.back() == std::string(40, 'b'));
}

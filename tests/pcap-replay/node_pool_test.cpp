// NodePool (pcap-replay/src/analysis/node_pool.hpp): a node given back is
// the next one handed out, last in first out; requests for several objects
// bypass the list; a std::set on it keeps its order and contents through
// the churn the SACK scoreboard makes (a key added at the back and one
// removed at the front per segment); a thread's list is freed when the
// thread ends.
#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <set>
#include <thread>
#include <vector>

#include "analysis/node_pool.hpp"
#include "heap_counter.hpp"

namespace {
struct Node {
  std::int64_t key;
  void* links[3];
};
}  // namespace

TEST_CASE("NodePool: freed nodes come back last in first out; arrays bypass the list") {
  replay::NodePool<Node> pool;
  Node* a = pool.allocate(1);
  Node* b = pool.allocate(1);
  CHECK(a != b);
  pool.deallocate(a, 1);
  pool.deallocate(b, 1);
  CHECK(pool.allocate(1) == b);  // the last freed first
  CHECK(pool.allocate(1) == a);
  Node* many = pool.allocate(4);  // four at once: operator new, not the list
  pool.deallocate(many, 4);
  pool.deallocate(a, 1);
  CHECK(pool.allocate(1) == a);  // the array did not go on the list
  pool.deallocate(a, 1);
  pool.deallocate(b, 1);
}

TEST_CASE("NodePool: a std::set on it after 10000 segments of churn holds the last window, in order") {
  // Window of 64 keys: key k added, key k - 64 removed, for k = 0 .. 9999:
  // at the end the set holds 9936 .. 9999 (64 keys), smallest first.
  std::set<std::int64_t, std::less<std::int64_t>, replay::NodePool<std::int64_t>> s;
  for (std::int64_t k = 0; k < 10'000; ++k) {
    s.insert(s.end(), k);
    if (k >= 64) s.erase(s.find(k - 64));
  }
  REQUIRE(s.size() == 64u);
  std::vector<std::int64_t> got(s.begin(), s.end());
  CHECK(got.front() == 9936);
  CHECK(got.back() == 9999);
  for (std::size_t i = 1; i < got.size(); ++i) CHECK(got[i] == got[i - 1] + 1);
}

TEST_CASE("NodePool: the nodes a thread gave back are freed when the thread ends") {
  // A thread takes 100 nodes and gives them back: they stay on its list
  // (heap in use above the start) until it ends; then none is left.
  std::int64_t during = 0;
  const std::int64_t before = replaytest::heap_in_use();
  std::thread t([&] {
    replay::NodePool<Node> pool;
    std::vector<Node*> nodes;
    for (int i = 0; i < 100; ++i) nodes.push_back(pool.allocate(1));
    for (Node* n : nodes) pool.deallocate(n, 1);
    std::vector<Node*>().swap(nodes);
    during = replaytest::heap_in_use() - before;
  });
  t.join();
  CHECK(during >= static_cast<std::int64_t>(100 * sizeof(Node)));  // kept on the list
  CHECK(replaytest::heap_in_use() - before <= 0);  // the thread's end freed them
}

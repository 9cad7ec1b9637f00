// The receiver's reassembly queue: overlaps stored once, gaps filled in order.

#include <doctest/doctest.h>

#include "netstack/reassembly.hpp"

using netstack::ReassemblyQueue;

namespace {
std::vector<std::uint8_t> bytes(std::uint8_t from, std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(from + i);
  return v;
}
}  // namespace

TEST_CASE("ReassemblyQueue: out-of-order pieces, overlaps and duplicates, popped once in order") {
  ReassemblyQueue q;
  // Stream bytes b[i] = i. Hold [20,30), [10,15), then [12,25) overlapping both.
  CHECK(q.insert(20, bytes(20, 10)) == 10);
  CHECK(q.insert(10, bytes(10, 5)) == 5);
  CHECK(q.insert(12, bytes(12, 13)) == 5);  // only [15,20) is new
  CHECK(q.insert(20, bytes(20, 10)) == 0);  // a duplicate
  CHECK(q.size() == 20);
  CHECK(q.ranges() == std::vector<std::pair<std::uint64_t, std::uint64_t>>{{10, 30}});
  std::vector<std::uint8_t> out;
  CHECK(q.pop_contiguous(5, out) == 5);  // gap [5,10) still missing
  CHECK(out.empty());
  CHECK(q.pop_contiguous(12, out) == 30);  // [10,12) already delivered: skipped
  CHECK(out == bytes(12, 18));
  CHECK(q.empty());
  CHECK(q.size() == 0);
}

TEST_CASE("ReassemblyQueue: separate ranges stay separate (SACK blocks)") {
  ReassemblyQueue q;
  q.insert(100, bytes(0, 10));
  q.insert(200, bytes(0, 10));
  q.insert(110, bytes(10, 5));
  CHECK(q.ranges() == std::vector<std::pair<std::uint64_t, std::uint64_t>>{{100, 115}, {200, 210}});
}

// FlowTable::lookup keeps the entry it found last and the 4-tuple it found
// it for, so that the next segment of the same connection (either
// direction) skips the hash and the probe. What it answers must be what the
// table holds: a connection that left the table (retire) is not found
// again through it, and a connection opened on another 4-tuple leaves it
// valid. A store of two connection records, as the analyzer's.
#include <doctest/doctest.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>

#include "analysis/flow_table.hpp"
#include "segment_builder.hpp"

namespace {
using replay::FlowMatch;
using replaytest::segment;

struct Store final : replay::FlowStore {
  struct Record {
    replay::Endpoint client, server;
    std::size_t file_index = 0;
  };
  std::array<Record, 2> records;
  std::array<replay::FlowSlot, 2> slots;
  replay::FlowEnds ends(std::size_t i) const override {
    return replay::FlowEnds{records[i].file_index, &records[i].client, &records[i].server};
  }
  replay::FlowSlot& slot(std::size_t i) override { return slots[i]; }
  bool gap_known(std::size_t, replay::CaptureTime, replay::CaptureTime) const override { return true; }
  replay::SeqSpan sent(std::size_t, int) override { return {}; }
  std::optional<std::pair<replay::CaptureTime, std::uint32_t>> last_tsval(std::size_t, int) override {
    return std::nullopt;
  }
};

// Opens connection `index` of `store` with its first segment `s` (the client's).
void open(replay::FlowTable& t, Store& store, std::size_t index, const replay::Segment& s) {
  store.records[index] = Store::Record{s.src, s.dst, s.file_index};
  const FlowMatch m = t.lookup(s, 0);
  REQUIRE(m.is(FlowMatch::Place::first));
  t.open(s, 0, index, m);
}
}  // namespace

TEST_CASE("FlowTable: the last entry found answers the same connection's next segment, either direction") {
  Store store;
  replay::FlowTable t(std::chrono::seconds{300}, store);
  open(t, store, 0, segment(0, true, 40000, wire::kSyn, 1000, 0));
  // Each direction in turn: the entry of connection 0 each time.
  for (int i = 0; i < 4; ++i) {
    const FlowMatch m = t.lookup(segment(1'000 * (i + 1), i % 2 == 0, 40000, wire::kAck, 1001, 5001), 0);
    CHECK(m.is(FlowMatch::Place::belongs));
    CHECK(m.connection == 0);
  }
  // A connection on another 4-tuple (client port 40001) is opened: the
  // first is still found, and so is the new one.
  open(t, store, 1, segment(10'000, true, 40001, wire::kSyn, 7000, 0));
  const FlowMatch first = t.lookup(segment(11'000, false, 40000, wire::kAck, 5001, 1001), 0);
  CHECK(first.is(FlowMatch::Place::belongs));
  CHECK(first.connection == 0);
  const FlowMatch second = t.lookup(segment(12'000, true, 40001, wire::kAck, 7001, 0), 0);
  CHECK(second.is(FlowMatch::Place::belongs));
  CHECK(second.connection == 1);
}

TEST_CASE("FlowTable: a connection retired right after its segment was looked up is not found again") {
  Store store;
  replay::FlowTable t(std::chrono::seconds{300}, store);
  open(t, store, 0, segment(0, true, 40000, wire::kSyn, 1000, 0));
  const FlowMatch before = t.lookup(segment(1'000, false, 40000, wire::kSyn | wire::kAck, 5000, 1001), 0);
  REQUIRE(before.is(FlowMatch::Place::belongs));
  t.retire(0);
  // The same 4-tuple's next segment: no entry left (a new connection's first).
  const FlowMatch after = t.lookup(segment(2'000, true, 40000, wire::kAck, 1001, 5001), 0);
  CHECK(after.is(FlowMatch::Place::first));
  CHECK(t.size() == 0);
}

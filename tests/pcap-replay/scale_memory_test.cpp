// Memory per connection (2 M one-packet flows): what a connection
// of one SYN keeps allocated while the analysis runs, counted by the
// replaced operator new (heap_counter.hpp); and limits::kUnheardKept, the
// segments a side keeps for the peer's model before that model exists, at
// its boundary.

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <replay/analysis/analyzer.hpp>
#include <replay/analysis/thresholds.hpp>

#include "analysis/sender_model.hpp"
#include "heap_counter.hpp"
#include "segment_builder.hpp"

namespace {

using replay::CaptureTime;

using replaytest::segment;

constexpr std::uint16_t kConnections = 2000;  // enough that per-connection bytes dwarf any one-off allocation

// Heap bytes per connection kept by an analysis of kConnections connections
// (distinct client ports), each of `syns` SYNs with one ISN from the client
// 1 s apart (the SYN and its retransmissions, nothing from the server),
// before finish(): what a live connection holds.
double live_bytes_per_connection(unsigned syns) {
  replay::Analyzer a(replay::Options::for_profile("rfc6298"));
  a.add_file(0, "t.pcap");
  std::vector<replay::Segment> segs;
  std::uint64_t frame = 0;
  for (unsigned k = 0; k < syns; ++k)
    for (std::uint16_t i = 0; i < kConnections; ++i) {
      segs.push_back(segment(k * 1'000'000 + i, true, static_cast<std::uint16_t>(20000 + i), wire::kSyn, 1000, 0));
      segs.back().frame = ++frame;
    }
  // The first connection opens the analyzer's per-host tables: not counted.
  a.add(segs.front());
  const std::int64_t before = replaytest::heap_in_use();
  for (std::size_t j = 1; j < segs.size(); ++j) a.add(segs[j]);
  const std::int64_t after = replaytest::heap_in_use();
  const replay::Report r = a.finish();
  REQUIRE(r.flows.size() == kConnections);
  CHECK(r.flows.back().packets == syns);
  return static_cast<double>(after - before) / (kConnections - 1);
}

}  // namespace

// What a live connection of one segment may hold, in bytes (this build,
// x86-64, glibc's rounding included). Issue 9 asks for 2 M one-packet
// connections in under 1 GB: 500 B each for everything, of which the
// process's own (the reader's buffer, libraries, malloc's free lists) takes
// a few tens; so 460 for what a connection allocates. Expected: its
// Connection record in the deque (144: FlowHead, FlowSlot, attempt ref, the
// state variant), the kept first segment (FirstSegment, 120 + 8), its
// lockstep attempt (136, in a deque) and its flow-table slot (8 B + a
// control byte at a load of 0.44 to 0.875: about 19): 408 measured. A
// FlowReport (1504), a SenderModel (about 1930), a Live record with its
// vectors (about 500) or a std::map / unordered_map node per connection
// (100 to 170) held while live would cross it.
constexpr double kOneSegmentLiveMax = 460;

TEST_CASE("memory: a connection of one SYN holds no report and no sender model while live") {
  // Before: its FlowReport (1504) and the SYN sender's model (1928) came on
  // top: 4 294 B. Now the model waits for the connection's second segment
  // and the report for its end.
  const double per = live_bytes_per_connection(1);
  MESSAGE("live heap bytes per one-SYN connection: " << per);
  CHECK(per < kOneSegmentLiveMax);
  CHECK(kOneSegmentLiveMax < static_cast<double>(sizeof(replay::FlowReport)));  // a report would not fit
  CHECK(per > static_cast<double>(sizeof(replay::Segment)));  // the count sees the kept SYN (120 B) and more
}

TEST_CASE("memory: the second segment creates the sender's model (one SYN, then two)") {
  // From 1 to 2 SYNs the client's model (a SenderModel with its TimerModel,
  // about 1.9 KB) and the senders' reports (2 x 664) are created: the step
  // is over sizeof(FlowReport) = 1504 (1.9 KB + 1.3 KB minus nothing freed).
  const double one = live_bytes_per_connection(1);
  const double two = live_bytes_per_connection(2);
  MESSAGE("per connection: " << one << " B at 1 SYN, " << two << " at 2");
  CHECK(two - one > static_cast<double>(sizeof(replay::FlowReport)));
}

TEST_CASE("memory: the silent side's model is created at the (kUnheardKept + 1)th segment of its peer") {
  constexpr unsigned k = replay::limits::kUnheardKept;
  // Up to k SYNs: the server's model does not exist, the SYNs are kept for
  // it (k segments at most). At k + 1 it is created (a SenderModel) and the
  // k kept segments freed: the step from k to k + 1 is over
  // sizeof(SenderModel) - k * sizeof(Segment); the step from k - 1 to k is
  // one more kept Segment and Recent (a few hundred bytes, vector growth
  // included), under it.
  const double step = static_cast<double>(sizeof(replay::SenderModel)) - k * static_cast<double>(sizeof(replay::Segment));
  const double below = live_bytes_per_connection(k - 1);
  const double at = live_bytes_per_connection(k);
  const double above = live_bytes_per_connection(k + 1);
  MESSAGE("per connection: " << below << " B at " << k - 1 << " SYNs, " << at << " at " << k << ", " << above
                             << " at " << k + 1 << "; a model less the kept segments: " << step);
  CHECK(at - below < step);
  CHECK(above - at > step);
}

TEST_CASE("memory: a server model created late hears every SYN it missed (k + 1 SYNs, then the SYN-ACK)") {
  // The client's SYN at 0, 1, 3, 7, 15 s (k + 1 = 5 of them for k = 4:
  // waits of 1, 2, 4, 8 s, RFC 6298 5.5 doubling from the 1 s initial RTO,
  // 5.7), the SYN-ACK at 15.010 s. The server's model is created at the 5th
  // SYN (k kept, then it hears them and the 5th); it must have seen the
  // client (peer_seen) and answered a SYN (1 packet, 1 data-bearing: the
  // SYN-ACK counts as one byte).
  constexpr unsigned k = replay::limits::kUnheardKept;
  static_assert(k == 4, "the SYN times below are for k = 4");
  for (const unsigned syns : {k - 1, k, k + 1}) {
    CAPTURE(syns);
    replay::Analyzer a(replay::Options::for_profile("rfc6298"));
    a.add_file(0, "t.pcap");
    const std::int64_t at_s[] = {0, 1, 3, 7, 15};
    std::uint64_t frame = 0;
    for (unsigned i = 0; i < syns; ++i) {
      auto s = segment(at_s[i] * 1'000'000, true, 40000, wire::kSyn, 1000, 0);
      s.frame = ++frame;
      a.add(s);
    }
    auto synack = segment(at_s[syns - 1] * 1'000'000 + 10'000, false, 40000, wire::kSyn | wire::kAck, 7000, 1001);
    synack.frame = ++frame;
    a.add(synack);
    const replay::Report r = a.finish();
    REQUIRE(r.flows.size() == 1);
    const auto& client = r.flows[0].senders[0];
    const auto& server = r.flows[0].senders[1];
    CHECK(client.packets == syns);
    REQUIRE(client.timeouts.size() == syns - 1);
    for (unsigned i = 0; i + 1 < syns; ++i) {
      CHECK(client.timeouts[i].syn);
      CHECK(client.timeouts[i].wait == replay::Interval::point(std::chrono::seconds{1 << i}));  // 1, 2, 4, 8 s
    }
    CHECK(server.packets == 1);
    CHECK(server.data_segments == 1);
    CHECK(server.peer_seen);
    CHECK(client.peer_seen);
  }
}

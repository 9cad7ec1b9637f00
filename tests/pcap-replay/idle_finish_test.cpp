// Connections that cannot resume (reset, closed by a FIN from each side, or
// never answered: only SYNs) and have been idle longer than the idle split
// (Options::idle_split, 300 s) are over: any later segment on their 4-tuple
// opens a new connection, and the analysis finishes them (frees their models,
// writes their report) while it reads on. A connection of an input file is
// finished when the next file begins. Tested at the split's boundary.

#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include <replay/analysis/analyzer.hpp>
#include <replay/report/wireshark_ref.hpp>
#include "segment_builder.hpp"

namespace {

using replaytest::segment;
using wire::kAck;
using wire::kFin;
using wire::kRst;
using wire::kSyn;

constexpr std::int64_t kSplitUs = 300'000'000;  // Options::idle_split's default, 300 s

replay::Options options() { return replay::Options::for_profile("rfc6298"); }

// Gives `a` the segments `segs` in order, numbered as frames 1, 2, ...
void feed(replay::Analyzer& a, std::vector<replay::Segment>& segs) {
  std::uint64_t frame = 0;
  for (auto& s : segs) {
    s.frame = ++frame;
    a.add(s);
  }
}

// A connection on client port 40000 with its segments `segs`, then one more
// segment `late` on the same 4-tuple: how many connections the analysis
// finds.
std::size_t connections(std::vector<replay::Segment> segs, const replay::Segment& late) {
  replay::Analyzer a(options());
  a.add_file(0, "t.pcap");
  segs.push_back(late);
  feed(a, segs);
  return a.finish().flows.size();
}

// A handshake and one data segment, acknowledged: established, open.
std::vector<replay::Segment> established(std::uint16_t port) {
  return {segment(0, true, port, kSyn, 1000, 0), segment(1'000, false, port, kSyn | kAck, 5000, 1001),
          segment(2'000, true, port, kAck, 1001, 5001), segment(3'000, true, port, kAck, 1001, 5001, 100),
          segment(4'000, false, port, kAck, 5001, 1101)};
}

// Makes `a` write each finished connection at once (its report dropped),
// noting its flow id in `written`.
void count_written(replay::Analyzer& a, std::vector<std::size_t>& written) {
  replay::SinkMode mode;
  mode.keep_reports = false;
  a.set_flow_sink([&written](replay::FlowReport& f, replay::CaptureTime) { written.push_back(f.id); }, mode);
  a.set_origin(replaytest::at_us(0));
}

}  // namespace

TEST_CASE("idle finish: after a RST, a segment more than the idle split later is a new connection") {
  auto segs = established(40000);
  segs.push_back(segment(5'000, true, 40000, kRst | kAck, 1101, 5001));
  const std::int64_t last = 5'000;
  // Exactly the split: still the old connection (the rule is "longer than").
  CHECK(connections(segs, segment(last + kSplitUs, false, 40000, kAck, 5001, 1101)) == 1);
  // One microsecond more: a new one.
  CHECK(connections(segs, segment(last + kSplitUs + 1, false, 40000, kAck, 5001, 1101)) == 2);
}

TEST_CASE("idle finish: after a FIN from each side, likewise; after one FIN only, never") {
  auto both = established(40000);
  both.push_back(segment(5'000, true, 40000, kFin | kAck, 1101, 5001));
  both.push_back(segment(6'000, false, 40000, kFin | kAck, 5001, 1102));
  const std::int64_t last = 6'000;
  CHECK(connections(both, segment(last + kSplitUs, true, 40000, kAck, 1102, 5002)) == 1);
  CHECK(connections(both, segment(last + kSplitUs + 1, true, 40000, kAck, 1102, 5002)) == 2);
  auto half = established(40000);
  half.push_back(segment(5'000, true, 40000, kFin | kAck, 1101, 5001));
  // Half-closed: the server may still send, however late.
  CHECK(connections(half, segment(5'000 + 10 * kSplitUs, false, 40000, kAck, 5001, 1102, 100)) == 1);
}

TEST_CASE("idle finish: a SYN nothing answered, then an ACK after the split: a new connection") {
  const std::vector<replay::Segment> syn{segment(0, true, 40000, kSyn, 1000, 0)};
  CHECK(connections(syn, segment(kSplitUs, false, 40000, kSyn | kAck, 5000, 1001)) == 1);
  CHECK(connections(syn, segment(kSplitUs + 1, false, 40000, kSyn | kAck, 5000, 1001)) == 2);
}

TEST_CASE("idle finish: an established, open connection resumes after any idle time") {
  CHECK(connections(established(40000), segment(4'000 + 100 * kSplitUs, true, 40000, kAck, 1101, 5001, 100)) == 1);
}

TEST_CASE("idle finish: over connections are handed to the sink while the input is read") {
  // 100 connections reset at once, then one segment of another connection
  // more than the split later: the 100 are finished (and written) before
  // finish(); at exactly the split none is.
  for (const std::int64_t gap : {kSplitUs, kSplitUs + 1}) {
    CAPTURE(gap);
    replay::Analyzer a(options());
    a.add_file(0, "t.pcap");
    std::vector<std::size_t> sunk;
    count_written(a, sunk);
    std::uint64_t frame = 0;
    for (std::uint16_t i = 0; i < 100; ++i) {
      for (auto s : established(static_cast<std::uint16_t>(41000 + i))) {
        s.frame = ++frame;
        a.add(s);
      }
      auto rst = segment(5'000, true, static_cast<std::uint16_t>(41000 + i), kRst | kAck, 1101, 5001);
      rst.frame = ++frame;
      a.add(rst);
    }
    auto later = segment(5'000 + gap, true, 50000, kSyn, 1, 0);
    later.frame = ++frame;
    a.add(later);
    CHECK(sunk.size() == (gap > kSplitUs ? 100u : 0u));
    const replay::Report r = a.finish();
    CHECK(sunk.size() == 101);
    CHECK(r.flow_count() == 101);
  }
}

TEST_CASE("idle finish: a new input file finishes the open connections of the files before it") {
  replay::Analyzer a(options());
  a.add_file(0, "a.pcap");
  a.add_file(1, "b.pcap");
  std::vector<std::size_t> sunk;
  count_written(a, sunk);
  auto open = established(40000);  // open, established: it would never be over
  feed(a, open);
  CHECK(sunk.empty());
  auto s = segment(0, true, 40000, kSyn, 1000, 0);  // the same 4-tuple, in the second file
  s.file_index = 1;
  s.frame = 1;
  a.add(s);
  CHECK(sunk == std::vector<std::size_t>{1});
  CHECK(a.finish().flow_count() == 2);
}

TEST_CASE("idle finish: a new file finishes its predecessor's connections when finished ones wait among them") {
  // File 0: connection 1 (port 40000) open; connection 2 (port 40001) one
  // SYN, then a SYN with another ISN on its 4-tuple: connection 3, and 2 is
  // finished but waits for 1 (reports go out in order); 3 open. File 1's
  // first segment finishes 1 and 3: written 1, 2, 3, then file 1's at the end.
  replay::Analyzer a(options());
  a.add_file(0, "a.pcap");
  a.add_file(1, "b.pcap");
  std::vector<std::size_t> order;
  count_written(a, order);
  std::vector<replay::Segment> segs = established(40000);
  segs.push_back(segment(5'000, true, 40001, kSyn, 1000, 0));
  segs.push_back(segment(6'000, true, 40001, kSyn, 9000, 0));  // another ISN: a new connection
  feed(a, segs);
  CHECK(order.empty());  // 1 is open: 2 waits
  auto s = segment(0, true, 40000, kSyn, 1000, 0);
  s.file_index = 1;
  s.frame = 1;
  a.add(s);
  CHECK(order == std::vector<std::size_t>{1, 2, 3});
  const replay::Report r = a.finish();
  CHECK(order == std::vector<std::size_t>{1, 2, 3, 4});
  CHECK(r.flow_count() == 4);
}

TEST_CASE("idle finish: a gap across a step of the capture clock is unknown, so it splits nothing") {
  // A (port 40000) is reset at 2 ms. Then the capture clock steps back an
  // hour: B's three segments are dated 3600 s earlier, and the reader
  // re-bases them (Segment::rebase) to just after the latest time, as it
  // does every later frame. A's ACK, dated 200 s after its RST on its own
  // clock, comes 3800 s later on the model's clock; the gap spans the step,
  // so its length is unknown: the same connection (2 connections, not 3).
  replay::Analyzer a(options());
  a.add_file(0, "t.pcap");
  std::vector<replay::Segment> segs{segment(0, true, 40000, kSyn, 1000, 0),
                                    segment(1'000, false, 40000, kSyn | kAck, 5000, 1001),
                                    segment(2'000, true, 40000, kRst | kAck, 1001, 5001)};
  const std::chrono::nanoseconds rebase{3'600'000'000'000 + 2'000'000 + 1'000'001};  // 3600 s + 2 ms + 1 ms + 1 ns
  for (std::int64_t i = 0; i < 3; ++i) {
    auto s = segment(-3'600'000'000 + 3'000 + i * 1'000, i != 1, 40001, i == 0 ? kSyn : (i == 1 ? kSyn | kAck : kAck),
                     i == 1 ? 7000 : 2000 + (i == 2), i == 0 ? 0 : (i == 1 ? 2001 : 7001));
    s.rebase = rebase;
    segs.push_back(s);
  }
  auto late = segment(2'000 + 200'000'000, false, 40000, kAck, 5001, 1001);
  late.rebase = rebase;
  segs.push_back(late);
  feed(a, segs);
  const replay::Report r = a.finish();
  CHECK(r.flows.size() == 2);
}

TEST_CASE("idle finish: a connection over after an idle gap that begins with no SYN keeps Wireshark's tcp.stream") {
  // Wireshark starts a stream only at a SYN: A reset, its late ACK 300 s + 1 us
  // later (a connection of ours, stream 0 still), then C on port 40002
  // (stream 1). tshark on the same packets: frames 1-4 stream 0, 5-9 stream 1.
  replay::Analyzer a(options());
  a.add_file(0, "t.pcap");
  auto segs = established(40000);
  segs.push_back(segment(5'000, true, 40000, kRst | kAck, 1101, 5001));
  segs.push_back(segment(5'000 + kSplitUs + 1, false, 40000, kAck, 5001, 1101));
  for (auto s : established(40002)) {
    s.time += std::chrono::microseconds{kSplitUs + 10'000};
    segs.push_back(s);
  }
  feed(a, segs);
  const replay::Report r = a.finish();
  REQUIRE(r.flows.size() == 3);
  const replay::StreamNumbers streams(r);
  CHECK(streams.of(r.flows[0]) == std::optional<std::uint64_t>(0));
  CHECK(streams.of(r.flows[1]) == std::optional<std::uint64_t>(0));
  CHECK(streams.of(r.flows[2]) == std::optional<std::uint64_t>(1));
}

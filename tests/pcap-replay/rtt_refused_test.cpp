// An RTT sample over 1 hour (a capture clock that jumped) is refused by
// rto::Estimator, and the report counts it apart (SenderReport::
// samples_refused): in neither sample count nor the RTT statistics.

#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include <replay/analysis/analyzer.hpp>
#include "segment_builder.hpp"

namespace {

using replaytest::segment;
using wire::kAck;
using wire::kSyn;

}  // namespace

TEST_CASE("an RTT sample over 1 hour is refused and counted apart, in no statistic and not in the timeline") {
  // Established and open, so it resumes: 100 bytes at 5 ms, acknowledged 2 h
  // later. Karn's sample would be 7200 s; rto::Estimator refuses samples
  // over 1 h (a clock that jumped), and so do the counts, the RTT stats and
  // the timeline (its "ack" event carries no sample).
  replay::Analyzer a(replay::Options::for_profile("rfc6298"), /*keep_timeline=*/true);
  a.add_file(0, "t.pcap");
  std::uint64_t frame = 0;
  std::vector<replay::Segment> segs{
      segment(0, true, 40000, kSyn, 1000, 0), segment(1'000, false, 40000, kSyn | kAck, 5000, 1001),
      segment(2'000, true, 40000, kAck, 1001, 5001), segment(3'000, true, 40000, kAck, 1001, 5001, 100),
      segment(4'000, false, 40000, kAck, 5001, 1101)};
  segs.push_back(segment(5'000, true, 40000, kAck, 1101, 5001, 100));
  segs.push_back(segment(5'000 + 7'200'000'000LL, false, 40000, kAck, 5001, 1201));
  for (auto& s : segs) {
    s.frame = ++frame;
    a.add(s);
  }
  const replay::Report r = a.finish();
  REQUIRE(r.flows.size() == 1);
  const replay::SenderReport& client = r.flows[0].senders[0];
  CHECK(client.samples_refused == 1);
  // The client's other samples: its SYN (0 ms) by the SYN-ACK (1 ms), its
  // first 100 bytes (3 ms) by the ACK at 4 ms: 2 samples of 1 ms each.
  CHECK(client.samples_seq == 2);
  CHECK(client.rtt_karn.samples == 2);
  CHECK(client.rtt_karn.max == std::chrono::milliseconds(1));
  std::size_t shown = 0;
  for (const replay::TimelineEvent& e : client.timeline) {
    if (e.frame == frame) CHECK_FALSE(e.sample.has_value());  // the ACK 2 h later
    if (e.sample) {
      CHECK(*e.sample < std::chrono::hours(1));
      ++shown;
    }
  }
  CHECK(shown == client.samples_seq);
}

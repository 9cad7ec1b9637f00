// `timeline --csv` written as the analysis goes: the Analyzer's
// flow sink hands over each connection in flow order as soon as it and
// every connection before it are finished, and the rows written that way
// are the bytes write_timeline_csv writes from the whole report.

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include <replay/analysis/analyzer.hpp>
#include <replay/pipeline/analyze_files.hpp>
#include <replay/report/timeline_csv.hpp>
#include "replay_scenario.hpp"
#include "segment_builder.hpp"

namespace {

using replay::CaptureTime;

CaptureTime at(std::int64_t t_us) { return replaytest::at_us(t_us); }

// replaytest::segment, numbered `frame`.
replay::Segment seg(std::uint64_t frame, std::int64_t t_us, bool from_client, std::uint16_t cport,
                    std::uint8_t flags, std::uint32_t seq, std::uint32_t ack) {
  replay::Segment s = replaytest::segment(t_us, from_client, cport, flags, seq, ack);
  s.frame = frame;
  return s;
}

}  // namespace

TEST_CASE("flow sink: each connection once, in flow order, when it and all before it are finished") {
  replay::Analyzer a(replay::Options::for_profile("linux"), /*keep_timeline=*/true);
  a.add_file(0, "t.pcap");
  std::vector<std::size_t> got;
  std::vector<std::uint64_t> packets;
  bool origin_ok = true;
  a.set_flow_sink([&](replay::FlowReport& f, CaptureTime origin) {
    got.push_back(f.id);
    packets.push_back(f.packets);
    origin_ok = origin_ok && origin == at(0);
  });
  a.set_origin(at(0));
  // Flow 1 (port 40000): handshake and FIN, 4 packets.
  a.add(seg(1, 0, true, 40000, wire::kSyn, 1000, 0));
  a.add(seg(2, 1000, false, 40000, wire::kSyn | wire::kAck, 7000, 1001));
  a.add(seg(3, 2000, true, 40000, wire::kAck, 1001, 7001));
  a.add(seg(4, 3000, true, 40000, wire::kFin | wire::kAck, 1001, 7001));
  // Flow 2 (port 40001): one SYN, left open.
  a.add(seg(5, 3500, true, 40001, wire::kSyn, 3000, 0));
  CHECK(got.empty());  // nothing finished yet
  // A SYN on port 40000 after the FIN: flow 3, and flow 1 is finished.
  a.add(seg(6, 10000, true, 40000, wire::kSyn, 2000, 0));
  CHECK(got == std::vector<std::size_t>{1});
  CHECK(packets == std::vector<std::uint64_t>{4});
  // A SYN with another ISN on port 40000: flow 4; flow 3 is finished but
  // waits for flow 2, still open.
  a.add(seg(7, 20000, true, 40000, wire::kSyn, 2500, 0));
  CHECK(got == std::vector<std::size_t>{1});
  // Another ISN on port 40001: flow 5; flow 2 is finished, then 3 follows.
  a.add(seg(8, 30000, true, 40001, wire::kSyn, 3500, 0));
  CHECK(got == std::vector<std::size_t>{1, 2, 3});
  const replay::Report r = a.finish();  // flows 4 and 5 at the end
  CHECK(got == std::vector<std::size_t>{1, 2, 3, 4, 5});
  CHECK(packets == std::vector<std::uint64_t>{4, 1, 1, 1, 1});
  CHECK(origin_ok);
  CHECK(r.flows.size() == 5);
}

TEST_CASE("flow sink: without set_origin, the earliest segment's time, as Report::first_time") {
  replay::Analyzer a(replay::Options::for_profile("rfc6298"));
  a.add_file(0, "t.pcap");
  std::vector<CaptureTime> origins;
  a.set_flow_sink([&](replay::FlowReport&, CaptureTime origin) { origins.push_back(origin); });
  a.add(seg(1, 5000, true, 40000, wire::kSyn, 1000, 0));
  a.add(seg(2, 4000, true, 40001, wire::kSyn, 1000, 0));  // stamped earlier (a clock step)
  const replay::Report r = a.finish();
  REQUIRE(origins.size() == 2);
  CHECK(origins[0] == at(4000));
  CHECK(origins[1] == at(4000));
  CHECK(r.first_time == at(4000));
}

TEST_CASE("timeline rows streamed by analyze_files are the bytes of write_timeline_csv") {
  for (const std::string name : {"random-loss", "syn-loss", "blackhole-backoff"}) {
    CAPTURE(name);
    const std::vector<std::string> files{replaytest::linux_trace(name)};
    const auto opt = replay::Options::for_profile("linux");
    std::vector<std::string> errors;
    const auto whole = replay::analyze_files(files, opt, true, errors);
    REQUIRE(errors.empty());
    std::ostringstream want, streamed;
    replay::write_timeline_csv(want, whole);
    replay::write_timeline_header(streamed);
    std::size_t sunk = 0;
    const auto r = replay::analyze_files(files, opt, true, errors, [&](replay::FlowReport& f, CaptureTime origin) {
      replay::write_timeline_rows(streamed, f, origin);
      ++sunk;
    });
    CHECK(sunk == r.flows.size());
    CHECK(streamed.str() == want.str());
    CHECK(want.str().size() > 1000);  // events, not the header alone
  }
}

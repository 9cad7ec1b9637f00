// Resource bounds of the analysis: --max-flows and
// --max-outstanding at their boundaries, the diagnostics cap, the TSval
// clock's memory, and a SACK pattern that used to be quadratic.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <replay/analysis/analyzer.hpp>
#include <replay/report/input_counts.hpp>
#include <replay/pipeline/analyze_files.hpp>
#include "replay_scenario.hpp"
#include "segment_builder.hpp"
#include <replay/analysis/rtt_sampling.hpp>
#include <replay/analysis/thresholds.hpp>

namespace {

using replay::CaptureTime;
using std::chrono::microseconds;

using replaytest::segment;

}  // namespace

TEST_CASE("--max-flows N: N connections are analysed, the segments of the N+1th are dropped and named") {
  replay::Options o = replay::Options::for_profile("linux");
  o.max_flows = 3;
  replay::Analyzer a(o);
  a.add_file(0, "t.pcap");
  std::uint64_t frame = 0;
  for (std::uint16_t port = 40000; port < 40003; ++port) {
    auto s = segment(port, true, port, wire::kSyn, 1000, 0);
    s.frame = ++frame;
    a.add(s);
  }
  // A second segment of a known connection is still analysed at the limit.
  auto again = segment(50000, false, 40000, wire::kSyn | wire::kAck, 7000, 1001);
  again.frame = ++frame;
  a.add(again);
  SUBCASE("exactly N: no limit hit") {
    const replay::Report r = a.finish();
    CHECK(r.flows.size() == 3);
    CHECK(r.limit_hits.empty());
    CHECK(r.dropped_segments == 0);
    CHECK(r.flows[0].packets == 2);
  }
  SUBCASE("N + 1: the fourth connection is dropped, twice") {
    auto fourth = segment(60000, true, 40003, wire::kSyn, 1000, 0);
    fourth.frame = ++frame;  // frame 5
    a.add(fourth);
    fourth.frame = ++frame;
    a.add(fourth);
    const replay::Report r = a.finish();
    CHECK(r.flows.size() == 3);
    REQUIRE(r.limit_hits.size() == 1);
    CHECK(r.limit_hits[0].message.find("t.pcap: frame 5:") == 0);
    CHECK(r.limit_hits[0].message.find("--max-flows 3") != std::string::npos);
    CHECK(r.dropped_segments == 2);
  }
}

TEST_CASE("--max-outstanding N: N unacknowledged segments are analysed, the N+1th ends the connection's analysis") {
  replay::Options o = replay::Options::for_profile("linux");
  o.max_outstanding = 4;
  replay::Analyzer a(o);
  a.add_file(0, "t.pcap");
  std::uint64_t frame = 0;
  auto add = [&](replay::Segment s) {
    s.frame = ++frame;
    a.add(s);
  };
  add(segment(0, true, 40000, wire::kSyn, 1000, 0));
  add(segment(10'000, false, 40000, wire::kSyn | wire::kAck, 7000, 1001));
  add(segment(10'010, true, 40000, wire::kAck, 1001, 7001));
  // The SYN is acknowledged: outstanding starts empty. Four 1000-byte segments.
  for (std::uint32_t i = 0; i < 4; ++i) add(segment(20'000 + i, true, 40000, wire::kAck, 1001 + 1000 * i, 7001, 1000));
  SUBCASE("exactly N outstanding") {
    const replay::Report r = a.finish();
    CHECK(r.limit_hits.empty());
    CHECK(r.flows.at(0).senders[0].data_segments == 1 + 4);  // the SYN counts as data
  }
  SUBCASE("N + 1 outstanding: named, later segments not analysed") {
    add(segment(20'004, true, 40000, wire::kAck, 5001, 7001, 1000));  // frame 8: the fifth
    add(segment(30'000, false, 40000, wire::kAck, 7001, 6001));       // frame 9: dropped
    const replay::Report r = a.finish();
    REQUIRE(r.limit_hits.size() == 1);
    CHECK(r.limit_hits[0].message.find("t.pcap: frame 8:") == 0);
    CHECK(r.limit_hits[0].message.find("--max-outstanding 4") != std::string::npos);
    CHECK(r.dropped_segments == 1);
    CHECK(r.flows.at(0).packets == 8);
  }
}

TEST_CASE("a duplicate ACK SACKing everything above the head, 160 000 times: every one is a sample, one fast retransmit") {
  // Segment 0 of [1001, 2001) is lost; segments 1..n each draw a duplicate
  // ACK that SACKs [2001, 1001 + 1000 (k + 1)): k segments above the head.
  // Each such ACK newly SACKs one never-retransmitted segment: one sample
  // (tcp_sacktag_one's first_sackt), n in all, plus the SYN's. The head is
  // then resent (loss evidence, ACK-clocked: a fast retransmit) and the
  // final ACK covers it: retransmitted, no sample (Karn).
  constexpr std::uint32_t n = 160'000;
  replay::Analyzer a(replay::Options::for_profile("linux"));
  a.add_file(0, "t.pcap");
  std::uint64_t frame = 0;
  auto add = [&](replay::Segment s) {
    s.frame = ++frame;
    a.add(s);
  };
  add(segment(0, true, 40000, wire::kSyn, 1000, 0));
  add(segment(10'000, false, 40000, wire::kSyn | wire::kAck, 7000, 1001));
  add(segment(10'010, true, 40000, wire::kAck, 1001, 7001));
  add(segment(20'000, true, 40000, wire::kAck, 1001, 7001, 1000));
  std::int64_t t = 20'000;
  for (std::uint32_t k = 1; k <= n; ++k) {
    t = 20'000 + std::int64_t{k} * 100;
    add(segment(t, true, 40000, wire::kAck, 1001 + 1000 * k, 7001, 1000));
    auto d = segment(t + 50, false, 40000, wire::kAck, 7001, 1001);
    d.tcp.options.sack_count = 1;
    d.tcp.options.sack[0] = {2001, 1001 + 1000 * (k + 1)};
    add(d);
  }
  add(segment(t + 60, true, 40000, wire::kAck, 1001, 7001, 1000));                // the head again
  add(segment(t + 160, false, 40000, wire::kAck, 7001, 1001 + 1000 * (n + 1)));  // everything
  const replay::Report r = a.finish();
  const auto& c = r.flows.at(0).senders[0];
  CHECK(c.samples_seq == 1 + n);
  CHECK(c.retransmissions() == 1);
  CHECK(c.by_kind[static_cast<std::size_t>(replay::SendKind::fast)] == 1);
  CHECK(c.data_segments == 1 + (n + 1) + 1);  // SYN, n + 1 first transmissions, the retransmission
}

TEST_CASE("TSval clock: send times retired as echoed; without echoes at most kTsSendTimesKept") {
  // 10 Hz clock (not 1 kHz: echoes are timed from the first send of the TSval).
  const CaptureTime t0{std::chrono::seconds{1'700'000'000}};
  auto at = [&](std::int64_t ms) { return t0 + std::chrono::milliseconds{ms}; };
  SUBCASE("echoed: only the TSvals not yet echoed are kept") {
    replay::TsClock c;
    for (std::uint32_t i = 0; i < 1000; ++i) {
      c.observe(at(100 * i), 5000 + i);
      c.echoed(5000 + i);
    }
    CHECK(c.remembered() == 1);  // the last echoed one stays (an ACK may echo it again)
  }
  SUBCASE("no echoes: the kTsSendTimesKept newest stay, the oldest is forgotten") {
    replay::TsClock c;
    const std::uint32_t kept = replay::limits::kTsSendTimesKept;
    for (std::uint32_t i = 0; i < kept; ++i) c.observe(at(100 * std::int64_t{i}), 5000 + i);
    CHECK(c.remembered() == kept);
    const auto ack = at(100 * std::int64_t{kept} + 50);
    // TSval 5000 was first sent at 0 ms: the ACK 100 * kept + 50 ms later.
    REQUIRE(c.echo_rtt(ack, 5000).has_value());
    CHECK(*c.echo_rtt(ack, 5000) == microseconds{(100 * std::int64_t{kept} + 50) * 1000});
    c.observe(at(100 * std::int64_t{kept}), 5000 + kept);  // one more
    CHECK(c.remembered() == kept);
    CHECK_FALSE(c.echo_rtt(ack, 5000).has_value());
    // TSval 5001 (sent at 100 ms) is still known: 100 * kept + 50 - 100 ms.
    CHECK(*c.echo_rtt(ack, 5001) == microseconds{(100 * std::int64_t{kept} - 50) * 1000});
  }
}

TEST_CASE("TSval clock: the rate follows its host's clock as other connections feed it") {
  // rate_hz() keeps its last answer until this clock or its host changes.
  const CaptureTime t0{std::chrono::seconds{1'700'000'000}};
  auto at = [&](std::int64_t ms) { return t0 + std::chrono::milliseconds{ms}; };
  replay::HostClock host;
  replay::TsClock a, b;
  a.set_host(&host);
  b.set_host(&host);
  a.observe(at(0), 1000);
  a.observe(at(100), 1100);  // 100 ms < kTsClockMinSpan (200 ms): no rate yet
  REQUIRE(replay::limits::kTsClockMinSpan > microseconds{100'000});
  CHECK_FALSE(a.rate_hz().has_value());
  // Another connection of the host (one clock, no offset): 300 ticks in
  // 300 ms since the host's first TSval (a's, at 0 ms) = 1000 Hz.
  b.observe(at(300), 1300);
  REQUIRE(a.rate_hz().has_value());
  CHECK(*a.rate_hz() == 1000.0);
  // a's own TSvals alone (another host-less clock): still none.
  replay::TsClock alone;
  alone.observe(at(0), 1000);
  alone.observe(at(100), 1100);
  CHECK_FALSE(alone.rate_hz().has_value());
}

TEST_CASE("reader diagnostics: kMaxDiagnostics kept, the rest counted") {
  // A capture of bad frames only: each a 1-byte IPv4 packet (LINKTYPE_RAW),
  // skipped with a diagnostic.
  auto write = [](std::size_t frames) {
    replaytest::Bytes f;
    auto put32 = [&](std::uint32_t v) { for (int i = 0; i < 4; ++i) f.push_back((v >> (8 * i)) & 0xFF); };
    put32(0xA1B2C3D4);
    put32(0x00040002);
    put32(0);
    put32(0);
    put32(262144);
    put32(101);
    for (std::size_t i = 0; i < frames; ++i) {
      put32(1'700'000'000);
      put32(static_cast<std::uint32_t>(i % 1'000'000));
      put32(1);
      put32(1);
      f.push_back(0x45);
    }
    const auto path = std::filesystem::temp_directory_path() /
                      ("rto-replay-diags-" + std::to_string(::getpid()) + "-" + std::to_string(frames) + ".pcap");
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(f.data()),
                                                static_cast<std::streamsize>(f.size()));
    return path.string();
  };
  const std::size_t cap = replay::limits::kMaxDiagnostics;
  for (const std::size_t frames : {cap, cap + 1}) {
    CAPTURE(frames);
    const std::string path = write(frames);
    std::vector<std::string> errors;
    const replay::Report r = replay::analyze_files({path}, replay::Options::for_profile("linux"), false, errors);
    std::filesystem::remove(path);
    CHECK(r.diagnostics.size() == cap);
    CHECK(r.dropped_skipped == frames - cap);
    CHECK(replay::input_counts(r).skipped == frames);
    REQUIRE(r.inputs.size() == 1);
    CHECK(r.inputs[0].skipped_frames == frames);
  }
}

// A capture clock that steps back: copies of the shipped
// Linux blackhole capture whose clock steps back 30 s, 0.5 s and 50 us at a
// chosen frame (every later record moved back by the step, as a clock set
// back would date them), and a copy that steps twice. The expected findings
// come from the original capture's own verdicts: a timeout whose wait spans
// the step loses its verdict (an INFO names the step); every other one keeps
// it. Times below are the original capture's, read with tshark:
//
//   frame   time (s)    TSval        what
//     179   0.541455    3844541765   expiry 1 (armed by the tail-loss probe)
//     180   0.953433    3844542177   expiry 2
//     181   1.785460    3844543009   expiry 3
//     182   3.449445    3844544673   expiry 4
//     183   6.745467    3844547969   expiry 5
//     184  13.401486    3844554625   expiry 6
//     185  13.401546                 the peer's first ACK after the blackhole
//     186  13.401555                 the next data segment (slow start after the RTO)
//
// The sender's TSval clock ticks at 1 kHz (1 tick = 1 ms).

#include <doctest/doctest.h>

#include "common/report_json.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <replay/analysis/analyzer.hpp>
#include <replay/report/report_json.hpp>
#include <replay/report/report_text.hpp>
#include <replay/analysis/thresholds.hpp>

#include "common/paths.hpp"
#include "common/tools.hpp"
#include "reader_capture_builder.hpp"
#include "replay_scenario.hpp"

namespace {

using std::chrono::microseconds;
using std::chrono::nanoseconds;
using namespace replaytest;

const std::string kBlackhole = "tests/captures/linux-blackhole.pcap";

struct Step {
  std::uint64_t frame;  // the first record dated earlier
  std::int64_t back_us; // by how much every record from it on is moved back
};

// A copy of classic pcap `in` (microsecond fractions, either byte order)
// whose clock steps back at each of `steps`: every record from the step's
// frame on is dated back_us earlier (steps add up).
std::string with_clock_steps(const std::string& in, const std::vector<Step>& steps, const std::string& tag) {
  std::ifstream is(in, std::ios::binary);
  testcommon::Bytes b((std::istreambuf_iterator<char>(is)), std::istreambuf_iterator<char>());
  REQUIRE(b.size() >= 24);
  REQUIRE((b[0] == 0xd4 || b[3] == 0xd4));  // microsecond pcap (0xA1B2C3D4), either byte order
  const bool is_pcap = testcommon::edit_record_times(b, [&](std::uint64_t frame, std::uint32_t& sec, std::uint32_t& usec) {
    std::int64_t shift = 0;
    for (const Step& s : steps) shift += frame >= s.frame ? s.back_us : 0;
    const std::int64_t t = std::int64_t{sec} * 1'000'000 + usec - shift;
    REQUIRE(t >= 0);
    sec = static_cast<std::uint32_t>(t / 1'000'000);
    usec = static_cast<std::uint32_t>(t % 1'000'000);
  });
  REQUIRE(is_pcap);
  const std::string path = readertest::write_temp(b, "clock-" + tag + ".pcap");
  return path;
}

const replay::TimeoutRecord* timeout_at(const replay::SenderReport& s, std::uint64_t frame) {
  for (const auto& t : s.timeouts)
    if (t.frame == frame) return &t;
  return nullptr;
}

// Findings as comparable text: frame, level, rule, message.
std::vector<std::string> finding_lines(const replay::SenderReport& s, std::uint64_t except_frame_a = 0,
                                       std::uint64_t except_frame_b = 0) {
  std::vector<std::string> out;
  for (const auto& f : s.findings) {
    if (f.frame == except_frame_a || f.frame == except_frame_b) continue;
    out.push_back(std::to_string(f.frame) + " " + std::string(replay::to_string(f.level)) + " " +
                  std::string(replay::to_string(f.rule)) + " " + message(f));
  }
  return out;
}

// How far a prediction may move when one wait of the chain before it is
// read on the sender's TSval clock (+/- limits::kClockDisagreeTicks = 2 ms at
// 1 kHz) instead of the capture's: the fitted RTO moves by at most 2 ms over
// that wait's 2^d, so a prediction 2^k later by at most 2 ms x 2^(k-d);
// the spanning expiry is expiry 2 or 4, the last judged 6: 2 x 2^4 = 32 ms.
constexpr microseconds kBridgeShift{32'000};
bool near(microseconds a, microseconds b) { return (a > b ? a - b : b - a) <= kBridgeShift; }

// A timeout of the copy judged as the original judged it. `after_step`: an
// expiry after a spanning one, whose doubling is predicted from waits one of
// which is read on the sender's TSval clock (whole ms) instead of the
// capture's: the window moves by a few ms (kBridgeShift), the verdict stays.
void same_verdict(const replay::TimeoutRecord& copy, const replay::TimeoutRecord& orig, bool after_step = false) {
  CHECK(copy.wait == orig.wait);
  if (!after_step) {
    CHECK(copy.predicted == orig.predicted);
    CHECK(copy.accepted == orig.accepted);
  } else {
    CHECK(near(copy.predicted.lo, orig.predicted.lo));
    CHECK(near(copy.predicted.hi, orig.predicted.hi));
    CHECK(near(copy.accepted.lo, orig.accepted.lo));
    CHECK(near(copy.accepted.hi, orig.accepted.hi));
  }
  CHECK(copy.verdict == orig.verdict);
  CHECK(copy.rules == orig.rules);
  CHECK(copy.armed_by == orig.armed_by);
  CHECK_FALSE(copy.wait_unknown);
}

// The timeout at `frame` spans the step: no verdict, an INFO that names the step.
void spans_step(const replay::SenderReport& s, std::uint64_t frame, const std::string& step_words) {
  const replay::TimeoutRecord* t = timeout_at(s, frame);
  REQUIRE(t != nullptr);
  CHECK(t->wait_unknown);
  CHECK(t->verdict == replay::Verdict::unchecked);
  CHECK(t->rules.empty());
  bool said = false;
  for (const auto& f : s.findings)
    if (f.frame == frame && f.level == replay::Level::info && f.topic == replay::Topic::clock_step &&
        message(f).find(step_words) != std::string::npos &&
        message(f).find("the wait across it is unknown") != std::string::npos)
      said = true;
  CHECK_MESSAGE(said, "no INFO naming \"" << step_words << "\" at frame " << frame);
}

struct Original {
  replay::Report report = analyze(kBlackhole, Profile::rfc6298);
  const replay::SenderReport& sender() const { return report.flows.at(0).senders[0]; }
};

}  // namespace

TEST_CASE("clock step: the original capture's six timeouts, as the tests below derive from them") {
  const Original o;
  const auto& s = o.sender();
  REQUIRE(s.timeouts.size() == 6);
  for (std::uint64_t f = 179; f <= 184; ++f) REQUIRE(timeout_at(s, f) != nullptr);
  CHECK(o.report.inputs.at(0).clock_steps_back == 0);
}

TEST_CASE("clock step: 30 s back at frame 182 - expiry 4 is unknown, the five others keep their verdicts") {
  const Original o;
  // The step: frame 182 is dated 30 s - (3.449445 - 1.785460) s = 28.336015 s before frame 181.
  const auto path = with_clock_steps(kBlackhole, {{182, 30'000'000}}, "30s");
  const replay::Report r = analyze(path, Profile::rfc6298);
  REQUIRE(r.inputs.size() == 1);
  CHECK(r.inputs[0].clock_steps_back == 1);
  REQUIRE(r.inputs[0].clock_rebased.size() == 1);
  CHECK(r.inputs[0].clock_rebased[0].frame == 182);
  CHECK(r.inputs[0].clock_rebased[0].back == microseconds(28'336'015));
  const auto& s = r.flows.at(0).senders[0];
  const auto& os = o.sender();
  REQUIRE(s.timeouts.size() == 6);  // today's model lost three of them (6 timeouts became 3)
  for (std::uint64_t f : {179, 180, 181}) same_verdict(*timeout_at(s, f), *timeout_at(os, f));
  for (std::uint64_t f : {183, 184}) same_verdict(*timeout_at(s, f), *timeout_at(os, f), true);
  spans_step(s, 182, "stepped back 28.336 s at frame 182 (dated before frame 181)");
  // Expiry 5 is judged by the doubling of the chain's waits, expiry 4's read
  // on the sender's TSval clock: 3844544673 - 3844543009 = 1664 ticks =
  // 1664 ms (+/- 2): R <= (1666 + 1) / 8 = 208.4 ms from it, <= (412 + 1) / 2
  // = 206.5 ms from expiry 2, so 16 R <= 3304 ms; it waited 6.745467 -
  // 3.449445 = 3296.022 ms, inside.
  CHECK(timeout_at(s, 183)->predicted.contains(microseconds(3'296'022)));
  CHECK(timeout_at(s, 183)->wait == replay::Interval::point(microseconds(3'296'022)));
  // The frames keep their own times: expiry 4 at 3.449445 - 30 = -26.550555 s.
  CHECK(replay::format_rel(timeout_at(s, 182)->time, r.first_time) == "-26.550555000");
  CHECK(replay::format_rel(timeout_at(s, 184)->time, r.first_time) == "-16.598514000");
  // Same findings apart from the INFO at the step; same RTT samples, kinds, TSval clock.
  CHECK(finding_lines(s, 182) == finding_lines(os));
  CHECK(s.samples_seq == os.samples_seq);
  CHECK(s.samples_ts == os.samples_ts);
  CHECK(s.by_kind == os.by_kind);
  CHECK(s.inferred.tsval_hz == os.inferred.tsval_hz);
  CHECK(s.srtt == os.srtt);
  CHECK(r.count(replay::Level::must) == 0);
}

TEST_CASE("clock step: 0.5 s back at frame 180 - expiry 2 is unknown, expiry 3 doubles its TSval wait") {
  const Original o;
  // Frame 180 is dated 0.5 s - (0.953433 - 0.541455) s = 88.022 ms before frame 179.
  const auto path = with_clock_steps(kBlackhole, {{180, 500'000}}, "half-s");
  const replay::Report r = analyze(path, Profile::rfc6298);
  REQUIRE(r.inputs.at(0).clock_rebased.size() == 1);
  CHECK(r.inputs[0].clock_rebased[0].back == microseconds(88'022));
  // Re-based to 1 ms + 1 ns after frame 179: 88.022 ms + 1.000001 ms.
  CHECK(r.inputs[0].clock_rebased[0].rebase == nanoseconds(89'022'001));
  const auto& s = r.flows.at(0).senders[0];
  const auto& os = o.sender();
  REQUIRE(s.timeouts.size() == 6);  // today's model took expiry 2 for a burst member (5 timeouts)
  same_verdict(*timeout_at(s, 179), *timeout_at(os, 179));
  for (std::uint64_t f : {181, 182, 183, 184}) same_verdict(*timeout_at(s, f), *timeout_at(os, f), true);
  spans_step(s, 180, "stepped back 88.022 ms at frame 180 (dated before frame 179)");
  // Expiry 2's wait on the TSval clock: 3844542177 - 3844541765 = 412 ticks
  // = 412 ms (+/- 2); expiry 3 waited 1.785460 - 0.953433 = 832.027 ms,
  // inside the doubling the chain predicts.
  CHECK(timeout_at(s, 181)->predicted.contains(microseconds(824'000)));
  CHECK(timeout_at(s, 181)->accepted.contains(microseconds(832'027)));
  CHECK(timeout_at(s, 181)->wait == replay::Interval::point(microseconds(832'027)));
  CHECK(finding_lines(s, 180) == finding_lines(os));
  CHECK(s.by_kind == os.by_kind);
}

TEST_CASE("clock step: 50 us back at frame 186 is reordering - the frames keep their times, nothing changes") {
  const Original o;
  // Frame 186 is dated 50 - (13.401555 - 13.401546) * 1e6 = 41 us before frame
  // 185: within limits::kClockReorderMax, as two capture interfaces disagree.
  static_assert(replay::limits::kClockReorderMax >= microseconds(41));
  const auto path = with_clock_steps(kBlackhole, {{186, 50}}, "50us");
  const replay::Report r = analyze(path, Profile::rfc6298);
  CHECK(r.inputs.at(0).clock_steps_back == 1);
  CHECK(r.inputs[0].clock_rebased.empty());
  const auto& s = r.flows.at(0).senders[0];
  const auto& os = o.sender();
  REQUIRE(s.timeouts.size() == 6);
  for (std::uint64_t f = 179; f <= 184; ++f) same_verdict(*timeout_at(s, f), *timeout_at(os, f));
  CHECK(finding_lines(s) == finding_lines(os));
  // The data segment 41 us "before" the ACK is still its response (slow start after the RTO).
  CHECK(s.by_kind == os.by_kind);
  CHECK(s.samples_seq == os.samples_seq);
  CHECK(s.samples_ts == os.samples_ts);
}

TEST_CASE("clock step: stepping back twice (0.5 s at 180, 30 s at 182) - each spanning expiry unknown, the rest kept") {
  const Original o;
  const auto path = with_clock_steps(kBlackhole, {{180, 500'000}, {182, 30'000'000}}, "twice");
  const replay::Report r = analyze(path, Profile::rfc6298);
  REQUIRE(r.inputs.at(0).clock_rebased.size() == 2);
  CHECK(r.inputs[0].clock_rebased[0].frame == 180);
  CHECK(r.inputs[0].clock_rebased[1].frame == 182);
  // Frames 181 and 182 are both 0.5 s earlier: the second step is still 28.336015 s.
  CHECK(r.inputs[0].clock_rebased[1].back == microseconds(28'336'015));
  const auto& s = r.flows.at(0).senders[0];
  const auto& os = o.sender();
  REQUIRE(s.timeouts.size() == 6);
  same_verdict(*timeout_at(s, 179), *timeout_at(os, 179));
  for (std::uint64_t f : {181, 183, 184}) same_verdict(*timeout_at(s, f), *timeout_at(os, f), true);
  spans_step(s, 180, "stepped back 88.022 ms at frame 180");
  spans_step(s, 182, "stepped back 28.336 s at frame 182");
  CHECK(finding_lines(s, 180, 182) == finding_lines(os));
  // Under the linux profile too (the original is clean there).
  const replay::Report l = analyze(path, Profile::linux_kernel);
  CHECK(l.count(replay::Level::must) == 0);
  CHECK(l.count(replay::Level::should) == 0);
}

TEST_CASE("clock step: the text and JSON reports keep the reader's warning and print the frames' own times") {
  const auto path = with_clock_steps(kBlackhole, {{182, 30'000'000}}, "30s-out");
  const replay::Report r = analyze(path, Profile::rfc6298);
  std::ostringstream os;
  replay::write_text_report(os, r);
  const std::string text = os.str();
  CHECK(text.find("frame 182: frame.time: the clock steps back 28336.015000 ms from frame 181") != std::string::npos);
  CHECK(text.find("a step of the capture clock") != std::string::npos);
  // Expiry 4's row: its own time (-26.551 s), the wait unknown.
  CHECK(text.find("182   -26.551") != std::string::npos);
  CHECK(text.find("wait unknown") != std::string::npos);
  const auto j = replay::to_json(r);
  const auto& in = j.at("inputs").at(0);
  CHECK(in.at("clock_steps_back") == 1);
  CHECK(in.at("clock_rebased").at(0).at("frame") == 182);
  CHECK(in.at("clock_rebased").at(0).at("back_ms") == doctest::Approx(28336.015));
  bool null_wait = false;
  const auto senders = testcommon::report_senders(j);  // (held: a range over a temporary's member dangles)
  for (const auto& t : senders.at(0).at("timeouts"))
    if (t.at("frame") == 182) null_wait = t.at("observed_rto_ms").is_null() && t.at("verdict") == "unchecked";
  CHECK(null_wait);
  // An input whose clock never stepped back has no such fields.
  const auto plain = replay::to_json(analyze(kBlackhole, Profile::rfc6298));
  CHECK_FALSE(plain.at("inputs").at(0).contains("clock_rebased"));
}

TEST_CASE("clock step: the reordering tolerance at its boundary (reader)") {
  using namespace readertest;
  // Times (s): 10.000000, 10.002000, 10.001000 (back exactly kClockReorderMax
  // = 1 ms: reordering, not re-based), 10.003000, 10.001999 (back 1.001 ms:
  // re-based to 1 ms + 1 ns after the latest, 10.003 s: rebase = 10.003 +
  // 0.001000001 - 10.001999 = 0.002001001 s), 10.002500 (forward: same rebase).
  static_assert(replay::limits::kClockReorderMax == microseconds(1000));
  const Bytes syn = ipv4_tcp(false, 1, 0, wire::kSyn, 0);
  const auto path = write_temp(pcap_file(0xA1B2C3D4, 228,
                                         {{10, 0, syn}, {10, 2000, syn}, {10, 1000, syn}, {10, 3000, syn},
                                          {10, 1999, syn}, {10, 2500, syn}}),
                               "reorder-boundary.pcap");
  const ReadResult rr = read_all(path);
  REQUIRE(rr.segments.size() == 6);
  CHECK(rr.stats.clock_steps_back == 2);
  CHECK(rr.stats.clock_rebases == 1);
  REQUIRE(rr.stats.clock_steps.size() == 2);
  CHECK_FALSE(rr.stats.clock_steps[0].rebased);
  CHECK(rr.stats.clock_steps[1].rebased);
  CHECK(rr.stats.clock_steps[1].back == microseconds(1001));
  const std::vector<std::int64_t> want{0, 0, 0, 0, 2'001'001, 2'001'001};
  for (std::size_t i = 0; i < 6; ++i) CHECK(rr.segments[i].rebase.count() == want[i]);
  // The frames keep their own times.
  CHECK(ns(rr.segments[4]) == 10'001'999'000);
  // Frame 5's step warned at its frame; frame 3's reordering in the summary (at the end).
  REQUIRE(rr.diagnostics.size() == 2);
  CHECK(rr.diagnostics.at(0).frame == 5);
  CHECK(rr.diagnostics.at(0).message.find("a step of the capture clock") != std::string::npos);
  CHECK(rr.diagnostics.at(1).frame == 3);
  CHECK(rr.diagnostics.at(1).message.find("reordering rather than a step of the capture clock") != std::string::npos);
}

// The clock's return (limits::kClockReturnSlack): after a step back, a frame
// that jumps forward to where the clock from before the step reads, had the
// stretch lasted its own length and this frame come right after it, ends
// the re-basing. Times (s): 5000.000000, 5000.000100 (the frame before the
// step), 4000.000200 (back 999.9999 s: re-based to 1 ms + 1 ns after
// 5000.000100, rebase 5000.000100 + 0.001000001 - 4000.000200 =
// 1000.000900001 s), 4000.000300 (the stretch's own length: 100 us), then
// 5000.000100 + 100 us + `late` us: back on the old clock when |late| <=
// 1000 us, the slack.
TEST_CASE("clock step: the clock's return to its time before the step, at the slack's boundary (reader)") {
  using namespace readertest;
  static_assert(replay::limits::kClockReturnSlack == microseconds(1000));
  const Bytes syn = ipv4_tcp(false, 1, 0, wire::kSyn, 0);
  for (const std::uint32_t late : {1000u, 1001u}) {
    CAPTURE(late);
    const auto path = write_temp(pcap_file(0xA1B2C3D4, 228,
                                           {{5000, 0, syn}, {5000, 100, syn}, {4000, 200, syn}, {4000, 300, syn},
                                            {5000, 200 + late, syn}}),
                                 "clock-return-" + std::to_string(late) + ".pcap");
    const ReadResult rr = read_all(path);
    REQUIRE(rr.segments.size() == 5);
    CHECK(rr.stats.clock_steps_back == 1);
    CHECK(rr.segments[2].rebase.count() == 1'000'000'900'001);
    CHECK(rr.segments[3].rebase.count() == 1'000'000'900'001);
    if (late == 1000) {
      // Returned: the model's latest time is frame 4's, 4000.000300 +
      // 1000.000900001 = 5000.001200001; frame 5's own 5000.001200 goes 1 ms
      // + 1 ns after it: rebase 0.001000002 s (more than the 0 before the step).
      CHECK(rr.stats.clock_rebases == 2);
      CHECK(rr.stats.clock_returns == 1);
      REQUIRE(rr.stats.clock_steps.size() == 2);
      CHECK(rr.stats.clock_steps[1].frame == 5);
      REQUIRE(rr.stats.clock_steps[1].returns_from.has_value());
      CHECK(*rr.stats.clock_steps[1].returns_from == 3);
      CHECK(rr.segments[4].rebase.count() == 1'000'002);
      REQUIRE(rr.diagnostics.size() == 2);
      CHECK(rr.diagnostics[1].frame == 5);
      CHECK(rr.diagnostics[1].message.find("frames 3-4 were mis-dated") != std::string::npos);
    } else {
      // 1 us past the slack: an idle gap on the stepped clock, the same rebase.
      CHECK(rr.stats.clock_rebases == 1);
      CHECK(rr.stats.clock_returns == 0);
      CHECK(rr.stats.clock_steps.size() == 1);
      CHECK(rr.segments[4].rebase.count() == 1'000'000'900'001);
    }
  }
}

// suricata bug-1450-04: its SYN-ACK (frame 2) is dated 21 years before the
// SYN and the ACK (frames 1 and 3, 45 us apart). The server's only sample is
// then the ACK of its 4208-byte segment (frame 6 at .029385 s, acknowledged
// by frame 8 at .029514 s, tshark): 129 us. The SYN-ACK's wait for its ACK,
// across the mis-dated frame, is no sample (it read 21 years before).
TEST_CASE("clock step: a single mis-dated frame gives no RTT sample across it (suricata bug-1450-04)") {
  const auto path = testcommon::shared_dir() / "traces" / "public" / "suricata__bug-1450-04.pcap";
  if (!std::filesystem::exists(path)) {
    testcommon::skip_or_fail("the shared public captures (" + path.string() + ")");
    return;
  }
  const replay::Report r = analyze(path.string(), Profile::rfc6298);
  REQUIRE(r.flows.size() == 1);
  const replay::SenderReport& server = r.flows[0].senders[1];
  CHECK(server.samples_seq == 1);
  CHECK(server.samples_refused == 0);
  REQUIRE(server.rtt_karn.samples == 1);
  CHECK(server.rtt_karn.max == microseconds(129));
  REQUIRE(r.inputs.size() == 1);
  REQUIRE(r.inputs[0].clock_rebased.size() == 2);
  CHECK(r.inputs[0].clock_rebased[1].frame == 3);
  CHECK(r.inputs[0].clock_rebased[1].returns_from == std::optional<std::uint64_t>(2));
}

// Results independent of the capture's absolute date: the same
// capture with every record's seconds shifted so that it starts in 1971,
// 2037, 2039 (past the signed 32-bit seconds of 2038) and 2105 (the classic
// pcap seconds field is unsigned 32-bit, up to 2106) gives the same report
// apart from the dates.

#include <doctest/doctest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <replay/analysis/analyzer.hpp>
#include <replay/report/judgement_text.hpp>
#include "replay_scenario.hpp"

namespace {

// Everything of a report but its absolute times: flows, senders, timeouts,
// findings (with their messages), as text.
std::string digest(const replay::Report& r) {
  std::ostringstream o;
  for (const auto& f : r.flows) {
    o << "flow " << f.id << " " << f.packets << " " << f.first_frame << "-" << f.last_frame << " "
      << replay::format_rel(f.last_time, f.first_time) << " " << replay::format_rel(f.first_time, r.first_time)
      << f.saw_syn << f.saw_fin << f.saw_rst << " dup " << f.capture_duplicates << "\n";
    for (const auto& s : f.senders) {
      o << " sender " << s.packets << " " << s.data_segments << " " << s.bytes << " kinds";
      for (auto k : s.by_kind) o << " " << k;
      o << " samples " << s.samples_seq << "/" << s.samples_ts << "/" << s.ambiguous_acks << " srtt "
        << (s.srtt ? s.srtt->count() : -1) << " rttvar " << (s.rttvar ? s.rttvar->count() : -1) << " rto "
        << s.rto.count() << " backoff " << s.backoff << " hz " << s.inferred.tsval_hz.value_or(0) << "\n";
      for (const auto& t : s.timeouts)
        o << "  timeout " << t.frame << " " << t.wait.lo.count() << "-" << t.wait.hi.count() << " "
          << t.predicted.lo.count() << "-" << t.predicted.hi.count() << " " << t.accepted.lo.count() << "-"
          << t.accepted.hi.count() << " " << replay::to_string(t.verdict) << " "
          << replay::to_string(t.clock) << " " << t.rules.size() << "\n";
      for (const auto& x : s.findings)
        o << "  finding " << static_cast<int>(x.rule) << " " << static_cast<int>(x.level) << " " << x.frame << " "
          << replay::describe(x, r.options) << "\n";
    }
  }
  return o.str();
}

// A copy of classic pcap `in` (microsecond or nanosecond, either byte
// order) whose records' seconds are moved so that the first is `first_s`
// (modulo 2^32: the field is unsigned 32-bit).
std::string shifted(const std::string& in, std::uint32_t first_s, const std::string& tag) {
  std::ifstream is(in, std::ios::binary);
  testcommon::Bytes b((std::istreambuf_iterator<char>(is)), std::istreambuf_iterator<char>());
  std::uint32_t delta = 0;
  const bool is_pcap = testcommon::edit_record_times(b, [&](std::uint64_t frame, std::uint32_t& sec, std::uint32_t&) {
    if (frame == 1) delta = first_s - sec;
    sec += delta;  // modulo 2^32, as the field
  });
  REQUIRE(is_pcap);
  const auto path = std::filesystem::temp_directory_path() /
                    ("rto-replay-shift-" + std::to_string(::getpid()) + "-" + tag + ".pcap");
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(b.data()),
                                              static_cast<std::streamsize>(b.size()));
  return path.string();
}

}  // namespace

TEST_CASE("the same capture dated 1971, 2037, 2039 and 2105 gives the same report apart from the dates") {
  for (const std::string name : {"blackhole-backoff", "random-loss", "syn-loss"}) {
    const std::string trace = replaytest::linux_trace(name);
    if (!std::filesystem::exists(trace)) {
      if (std::getenv("CI")) FAIL("missing " << trace);
      MESSAGE("skipped: " << trace << " missing");
      continue;
    }
    CAPTURE(name);
    const std::string want = digest(replaytest::analyze(trace, "linux"));
    REQUIRE(want.find("timeout") != std::string::npos);  // the captures exercise the timer
    // 1971-01-01, 2037-01-01, 2039-01-01, 2105-01-01 00:00:00 UTC, seconds since the epoch.
    for (const std::uint32_t first : {31'536'000u, 2'114'380'800u, 2'177'452'800u, 4'260'211'200u}) {
      CAPTURE(first);
      const std::string path = shifted(trace, first, name + "-" + std::to_string(first));
      const replay::Report r = replaytest::analyze(path, "linux");
      std::filesystem::remove(path);
      REQUIRE(r.have_first_time);
      CHECK(digest(r) == want);
    }
  }
}

// The reader's part: the shifted date itself. The pcap seconds field is
// unsigned 32-bit (valid to 2106), so 2039 and 2105 must not come back as
// 1903 and 1968.
TEST_CASE("the reader gives a shifted capture's date: 1971, 2037, 2039, 2105") {
  const std::string trace = replaytest::linux_trace("syn-loss");
  if (!std::filesystem::exists(trace)) {
    if (std::getenv("CI")) FAIL("missing " << trace);
    return;
  }
  for (const std::uint32_t first : {31'536'000u, 2'114'380'800u, 2'177'452'800u, 4'260'211'200u}) {
    CAPTURE(first);
    const std::string path = shifted(trace, first, "date-" + std::to_string(first));
    const replay::Report r = replaytest::analyze(path, "linux");
    std::filesystem::remove(path);
    REQUIRE(r.have_first_time);
    CHECK(std::chrono::duration_cast<std::chrono::seconds>(r.first_time.time_since_epoch()).count() ==
          std::int64_t{first});
  }
}

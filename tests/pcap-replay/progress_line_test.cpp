// The status line (progress_line.hpp): its texts, its redraw interval
// (limits::kStatusLineInterval) and the large-file threshold
// (limits::kProgressMinFileBytes) at their boundaries, the width cut, and
// that a line that is not enabled (stderr not a terminal) writes nothing.

#include <doctest/doctest.h>

#include <chrono>
#include <sstream>
#include <string>
#include <vector>

#include <replay/analysis/analyzer.hpp>
#include <replay/pipeline/analyze_files.hpp>
#include <replay/report/progress_line.hpp>
#include <replay/analysis/thresholds.hpp>

#include "reader_capture_builder.hpp"

using namespace std::chrono_literals;
using replay::ProgressLine;

namespace {
const std::string kErase = "\x1b[K";  // ANSI EL: erase to the end of the line
}

TEST_CASE("status line: the live text names packets, connections, timeouts, drops and time") {
  replay::LiveProgress p;
  p.input = "live:veth0";
  p.packets = 1520;
  p.connections = 3;
  p.timeouts = 2;
  p.kernel_drops = 0;
  p.elapsed = 12'449ms;  // 12.449 s: one decimal, rounded: 12.4
  CHECK(replay::live_status_text(p) == "live:veth0: 1520 packets, 3 TCP connections, 2 timeouts, 0 dropped, 12.4 s");
  p.packets = 1;
  p.connections = 1;
  p.timeouts = 1;
  p.kernel_drops = 7;
  p.elapsed = 50ms;  // 0.05 s is 0.05000000000000000277 as a double, above the half: 0.1
  CHECK(replay::live_status_text(p) == "live:veth0: 1 packet, 1 TCP connection, 1 timeout, 7 dropped, 0.1 s");
}

TEST_CASE("status line: the file text gives the percent read, rounded down") {
  replay::FileProgress p;
  p.file = "big.pcap";
  p.packets = 120000;
  p.fraction = 0.379;  // 37.9 % shows as 37 %: 100 % only when all is read
  CHECK(replay::file_progress_text(p) == "big.pcap: 120000 packets, 37% of the file");
  p.fraction = 0.99999;
  CHECK(replay::file_progress_text(p) == "big.pcap: 120000 packets, 99% of the file");
  p.fraction = 1.0;
  CHECK(replay::file_progress_text(p) == "big.pcap: 120000 packets, 100% of the file");
  p.fraction.reset();  // standard input: no size
  p.packets = 1;
  CHECK(replay::file_progress_text(p) == "big.pcap: 1 packet");
}

TEST_CASE("status line: a file gets a progress line from kProgressMinFileBytes on") {
  constexpr std::uint64_t k = replay::limits::kProgressMinFileBytes;
  static_assert(k == 16ull * 1024 * 1024);  // 16 MiB = 16777216 bytes, as thresholds.hpp states
  CHECK_FALSE(replay::wants_file_progress(16'777'215));
  CHECK(replay::wants_file_progress(16'777'216));
  CHECK_FALSE(replay::wants_file_progress(std::nullopt));  // no size (a pipe)
}

TEST_CASE("status line: redrawn at most every kStatusLineInterval, in place, erased at the end") {
  static_assert(replay::limits::kStatusLineInterval == 250ms);
  std::ostringstream os;
  const ProgressLine::Clock::time_point t0{};
  {
    ProgressLine line(os, true, 80);
    CHECK(line.due(t0));  // nothing drawn yet
    line.draw("one", t0);
    CHECK(os.str() == "\rone" + kErase);
    CHECK_FALSE(line.due(t0 + 249ms));  // 1 ms before the interval
    line.draw("two", t0 + 249ms);       // not shown
    CHECK(os.str() == "\rone" + kErase);
    CHECK(line.due(t0 + 250ms));  // exactly the interval
    line.draw("three", t0 + 250ms);
    CHECK(os.str() == "\rone" + kErase + "\rthree" + kErase);
    line.clear();
    CHECK(os.str() == "\rone" + kErase + "\rthree" + kErase + "\r" + kErase);
    line.clear();  // nothing drawn since: nothing written
  }
  CHECK(os.str() == "\rone" + kErase + "\rthree" + kErase + "\r" + kErase);  // the destructor had nothing to erase
}

TEST_CASE("status line: a text wider than the terminal is cut to columns - 1") {
  std::ostringstream os;
  ProgressLine line(os, true, 10);
  line.draw("0123456789abc", {});
  CHECK(os.str() == "\r012345678" + kErase);  // 10 columns: 9 characters, the cursor stays on the line
}

TEST_CASE("status line: off when standard error is not a terminal") {
  std::ostringstream os;
  {
    ProgressLine line(os, false, 80);
    CHECK_FALSE(line.due({}));
    line.draw("one", {});
    line.clear();
  }
  CHECK(os.str().empty());
}

namespace {
// A raw-IP pcap of `n` pure ACKs of one connection (56 bytes a record: 16 of
// record header, 20 IPv4, 20 TCP), and what analyze_files' progress callback
// saw while reading it.
std::vector<replay::FileProgress> progress_calls(std::uint32_t n) {
  std::vector<testcommon::Record> recs;
  for (std::uint32_t i = 0; i < n; ++i)
    recs.push_back({1795998000 + i / 1000, (i % 1000) * 1000, readertest::ipv4_tcp(false, 1, 1 + i, 0x10, 0), 0});
  const std::string path = readertest::write_temp(testcommon::pcap_file(testcommon::kPcapMagicMicros, 101, recs),
                                                  "progress-" + std::to_string(n) + ".pcap");
  std::vector<replay::FileProgress> calls;
  std::vector<std::string> errors;
  replay::analyze_files({path}, replay::Options::for_profile("linux"), false, errors, nullptr,
                        [&calls](const replay::FileProgress& p) { calls.push_back(p); });
  CHECK(errors.empty());
  return calls;
}
}  // namespace

TEST_CASE("status line: a file's progress is looked at every kProgressEverySegments segments") {
  static_assert(replay::limits::kProgressEverySegments == 4096);
  CHECK(progress_calls(4095).empty());  // one segment short of the first look
  const auto one = progress_calls(4096);
  REQUIRE(one.size() == 1);
  CHECK(one[0].packets == 4096);
  CHECK(one[0].file_index == 0);
  const auto two = progress_calls(2 * 4096 + 1);  // looks at 4096 and 8192, none at the end
  REQUIRE(two.size() == 2);
  CHECK(two[0].packets == 4096);
  CHECK(two[1].packets == 8192);
  // The file is 24 + 8193 x 56 = 458 832 bytes; the reader reads ahead in
  // blocks, so the fraction is only bounded: more than 8192 x 56 / 458 832
  // = 0.9999 of the records were read at the second look, at most all.
  REQUIRE(two[1].fraction.has_value());
  CHECK(*two[1].fraction > 0.99);
  CHECK(*two[1].fraction <= 1.0);
  REQUIRE(two[0].fraction.has_value());
  CHECK(*two[0].fraction <= *two[1].fraction);
}

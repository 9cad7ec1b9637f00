// Time in the reader: pcap seconds are unsigned 32-bit (valid to
// 2106, not 1969); a pcapng timestamp past 2262 is a diagnostic naming the
// frame, not a signed overflow; a clock stepping back is reported with its
// frame and size and counted.
#include "reader_capture_builder.hpp"

#include <replay/input/pcapng_file.hpp>

using namespace readertest;

namespace {
Bytes syn() { return ipv4_tcp(false, 1, 0, wire::kSyn, 0); }
}  // namespace

TEST_CASE("time: pcap seconds 0x80000000 and 0xFFFFFFFF are 2038 and 2106, not before 1970") {
  const auto path = write_temp(
      pcap_file(0xA1B23C4D, 228, {{0x80000000u, 5, syn()}, {0xFFFFFFFFu, 999'999'999, syn()}}), "2106.pcap");
  const ReadResult r = read_all(path);
  REQUIRE(r.segments.size() == 2);
  CHECK(ns(r.segments[0]) == 2'147'483'648LL * 1'000'000'000 + 5);            // 2038-01-19T03:14:08Z
  CHECK(ns(r.segments[1]) == 4'294'967'295LL * 1'000'000'000 + 999'999'999);  // 2106-02-07T06:28:15Z
  CHECK(r.diagnostics.empty());
  CHECK(r.stats.clock_steps_back == 0);
}

TEST_CASE("time: a pcapng timestamp past 2262 is a frame.time diagnostic, the frame skipped, the next read") {
  // if_tsresol 9 (ns): 2^63 ns is 2262-04-11T23:47:16.854775808Z, one past int64.
  const std::uint64_t past = 1ULL << 63;
  const auto path = write_temp(pcapng_file(228, {std::uint8_t{9}}, {{1'000'000'000, syn()}, {past, syn()}, {2'000'000'000, syn()}}),
                               "2262.pcapng");
  const ReadResult r = read_all(path);
  REQUIRE(r.segments.size() == 2);
  CHECK(r.segments[0].frame == 1);
  CHECK(r.segments[1].frame == 3);
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].frame == 2);
  CHECK(r.diagnostics[0].field == "frame.time");
  CHECK(r.diagnostics[0].file == path);
  CHECK(r.diagnostics[0].message.find("9223372036854775808") != std::string::npos);
  CHECK(r.stats.malformed == 1);
}

TEST_CASE("time: pcapng_time_ns at its boundaries") {
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  CHECK(replay::pcapng_time_ns(static_cast<std::uint64_t>(max), 9, 0) == max);   // the last representable ns
  CHECK_FALSE(replay::pcapng_time_ns(static_cast<std::uint64_t>(max) + 1, 9, 0).has_value());
  CHECK(replay::pcapng_time_ns(1'500'000, 6, 0) == 1'500'000'000);                // 1.5 s in µs
  CHECK(replay::pcapng_time_ns(3, 0x81, 0) == 1'500'000'000);                     // 3 * 2^-1 s
  CHECK(replay::pcapng_time_ns(15, 10, 0) == 1);                                  // 15 * 10^-10 s = 1.5 ns, truncated
  CHECK(replay::pcapng_time_ns(UINT64_MAX, 6, 0) == std::nullopt);                // 1.8e19 us: far past 2262
  CHECK(replay::pcapng_time_ns(0, 6, -1) == -1'000'000'000);                      // if_tsoffset -1 s
  // 9223372036 s + 854775807 ns is int64's limit: an offset of 1 s more overflows.
  CHECK_FALSE(replay::pcapng_time_ns(854'775'808, 9, 9'223'372'036).has_value());
  CHECK(replay::pcapng_time_ns(854'775'807, 9, 9'223'372'036) == max);
}

TEST_CASE("time: a clock that steps back is reported with its frame and size, and the frame is used") {
  // Times 10.0 s, 11.0 s, 10.25 s (back 750 ms from frame 2), 10.5 s (forward: no step), 10.4999 s (back 0.1 ms).
  const auto path = write_temp(pcap_file(0xA1B2C3D4, 228,
                                         {{10, 0, syn()}, {11, 0, syn()}, {10, 250'000, syn()}, {10, 500'000, syn()},
                                          {10, 499'900, syn()}}),
                               "back.pcap");
  const ReadResult r = read_all(path);
  CHECK(r.segments.size() == 5);
  CHECK(r.stats.clock_steps_back == 2);
  CHECK(r.stats.largest_step_back == std::chrono::milliseconds(750));
  REQUIRE(r.stats.clock_steps.size() == 2);
  CHECK(r.stats.clock_steps[0].frame == 3);
  CHECK(r.stats.clock_steps[0].back == std::chrono::milliseconds(750));
  CHECK(r.stats.clock_steps[1].frame == 5);
  CHECK(r.stats.clock_steps[1].back == std::chrono::microseconds(100));
  // The 750 ms step warned at its frame; the 0.1 ms one (reordering, within
  // kClockReorderMax) in the file's one summary line, at the end.
  REQUIRE(r.diagnostics.size() == 2);
  CHECK(r.diagnostics[0].frame == 3);
  CHECK(r.diagnostics[0].field == "frame.time");
  CHECK_FALSE(r.diagnostics[0].skipped);
  CHECK(r.diagnostics[0].message.find("750.000000 ms from frame 2") != std::string::npos);
  CHECK(r.diagnostics[1].frame == 5);
  CHECK(r.diagnostics[1].field == "frame.time");
  CHECK(r.diagnostics[1].message.find("1 frame(s) dated before the frame read just before them, by at most "
                                      "0.100000 ms (the first: frame 5)") != std::string::npos);
  CHECK(r.stats.reordered == 1);
}

TEST_CASE("time: reordering up to kClockReorderMax is one line per file; a step just beyond keeps its own warning") {
  // Times 10 s, then back 1000 us (frame 2: reordering, the bound itself),
  // 10.1 s, back 300 us (frame 4), 10.2 s, back 1001 us (frame 6: a step of
  // the capture clock), 10.3 s (frame 7: no step).
  const auto path = write_temp(pcap_file(0xA1B2C3D4, 228,
                                         {{10, 0, syn()}, {9, 999'000, syn()}, {10, 100'000, syn()},
                                          {10, 99'700, syn()}, {10, 200'000, syn()}, {10, 198'999, syn()},
                                          {10, 300'000, syn()}}),
                               "reorder.pcap");
  const ReadResult r = read_all(path);
  CHECK(r.segments.size() == 7);
  CHECK(r.stats.clock_steps_back == 3);
  CHECK(r.stats.reordered == 2);
  CHECK(r.stats.largest_reordered == std::chrono::microseconds(1000));
  CHECK(r.stats.first_reordered_frame == 2);
  std::vector<std::uint64_t> frames;
  for (const auto& d : r.diagnostics)
    if (d.field == "frame.time") frames.push_back(d.frame);
  // Frame 6's own warning; the summary at frame 2 (no line for frame 4).
  CHECK(frames == std::vector<std::uint64_t>{6, 2});
  CHECK(r.diagnostics.back().message.find("2 frame(s) dated before the frame read just before them, by at most "
                                          "1.000000 ms (the first: frame 2)") != std::string::npos);
}

TEST_CASE("time: clock steps past kMaxClockStepsListed are counted, not listed") {
  std::vector<Record> recs;
  const std::size_t steps = replay::kMaxClockStepsListed + 1;
  for (std::size_t i = 0; i <= steps; ++i) recs.push_back({static_cast<std::uint32_t>(i % 2 == 0 ? 20 : 21), 0, syn()});
  // 20, 21, 20, 21, ...: every even-indexed record after the first steps back 1 s.
  const ReadResult r = read_all(write_temp(pcap_file(0xA1B2C3D4, 228, recs), "many-back.pcap"));
  CHECK(r.stats.clock_steps_back == steps / 2);
  // steps / 2 = 50 steps here: below the limit, all listed. Now past it:
  std::vector<Record> more;
  for (std::size_t i = 0; i < 2 * (replay::kMaxClockStepsListed + 1) + 1; ++i)
    more.push_back({static_cast<std::uint32_t>(i % 2 == 0 ? 20 : 21), 0, syn()});
  const ReadResult m = read_all(write_temp(pcap_file(0xA1B2C3D4, 228, more), "more-back.pcap"));
  CHECK(m.stats.clock_steps_back == replay::kMaxClockStepsListed + 1);
  CHECK(m.stats.clock_steps.size() == replay::kMaxClockStepsListed);
  CHECK(m.diagnostics.size() == replay::kMaxClockStepsListed);
}

TEST_CASE("time: a step back across the whole int64 range (pcapng if_tsoffset) does not overflow") {
  // Interface 0: if_tsresol 9 and no offset; the first packet at 9.2e18 ns (2261);
  // the second on the same interface at 0 ns: back 9.2e18 ns, representable.
  const auto path = write_temp(pcapng_file(228, {std::uint8_t{9}}, {{9'200'000'000'000'000'000ULL, syn()}, {0, syn()}}),
                               "far-back.pcapng");
  const ReadResult r = read_all(path);
  REQUIRE(r.segments.size() == 2);
  CHECK(r.stats.clock_steps_back == 1);
  CHECK(r.stats.largest_step_back == std::chrono::nanoseconds(9'200'000'000'000'000'000LL));
  // Through pcapng_time_ns with a negative offset: -9.2e18 ns is also representable.
  CHECK(replay::pcapng_time_ns(0, 9, -9'200'000'000) == -9'200'000'000'000'000'000LL);
}

// write_text_flow formats a flow's text into a buffer and writes it out in
// pieces once the buffer holds 64 KiB (report_text.cpp, kTextSpill): a flow
// whose text is far longer than that comes out whole, every line once and in
// order, and the same as the flow's lines written one finding at a time.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <sstream>
#include <string>

#include <replay/analysis/options.hpp>
#include <replay/report/report_text.hpp>

namespace {
using std::chrono::microseconds;
using std::chrono::nanoseconds;

replay::Judgement finding(std::uint64_t frame, replay::CaptureTime origin) {
  replay::Judgement j;
  j.rule = replay::RuleId::rfc6298_5_5;
  j.outcome = replay::Outcome::broken;
  j.level = replay::level_of(j.rule, j.outcome);
  j.basis = replay::Basis::profile_rto;
  j.frame = frame;
  j.time = origin + nanoseconds{static_cast<std::int64_t>(frame) * 1'000'000};  // frame k at k ms
  j.expiry = 2;
  j.armed_by = replay::ArmCause::timeout;
  j.waited = replay::Interval::point(microseconds{204'000});
  j.predicted = replay::Interval::at_least(microseconds{400'000});
  j.accepted = replay::Interval{microseconds{398'000}, microseconds{451'000}};
  return j;
}

replay::FlowReport flow_with(std::uint64_t findings, replay::CaptureTime origin) {
  replay::FlowReport f;
  f.id = 1;
  f.client = replay::Endpoint{*wire::IpAddress::parse("10.0.0.1"), 40000};
  f.server = replay::Endpoint{*wire::IpAddress::parse("10.0.0.2"), 80};
  f.file = "spill.pcap";
  f.first_time = f.last_time = origin;
  replay::SenderReport s;
  s.src = f.client;
  s.dst = f.server;
  s.profile = "linux";
  s.data_segments = 1;
  s.peer_seen = true;
  for (std::uint64_t k = 1; k <= findings; ++k) s.findings.push_back(finding(k, origin));
  f.senders[0] = s;  // the other sender sent no data: not shown
  return f;
}

std::string text_of(const replay::FlowReport& f, replay::CaptureTime origin) {
  std::ostringstream os;
  replay::write_text_flow(os, f, replay::Options::for_profile("linux"), 0, origin);
  return os.str();
}
}  // namespace

TEST_CASE("write_text_flow: a flow's text far past the spill size comes out whole, each finding's line once, in order") {
  const replay::CaptureTime origin{nanoseconds{1'795'998'040'000'000'000}};
  // One finding: the flow's lines up to its finding line, and that line.
  const std::string one = text_of(flow_with(1, origin), origin);
  const std::size_t line1 = one.find("        frame 1 at ");
  REQUIRE(line1 != std::string::npos);
  const std::string head = one.substr(0, line1);
  const std::string first_line = one.substr(line1);
  // 4000 findings of about 150 bytes each: some 600 KB, many times the
  // 64 KiB at which the buffer is written out.
  constexpr std::uint64_t kFindings = 4000;
  const std::string big = text_of(flow_with(kFindings, origin), origin);
  REQUIRE(big.size() > 8 * 64 * 1024);
  // The same head up to the count of the rule's findings, "(4000 time(s))"
  // where the one-finding flow has "(1 time(s))".
  const std::size_t count_at = head.find("(1 time(s))");
  REQUIRE(count_at != std::string::npos);
  CHECK(big.compare(0, count_at, head, 0, count_at) == 0);
  CHECK(big.compare(count_at, 14, "(4000 time(s))") == 0);
  // Each finding's line: the first finding's line with its frame and time
  // (frame k at k ms after the origin: "at 0.00k s") in place of frame 1's.
  std::size_t at = big.find("        frame 1 at ");
  REQUIRE(at != std::string::npos);
  CHECK(big.substr(at, first_line.size()) == first_line);
  std::uint64_t lines = 0;
  for (std::uint64_t k = 1; k <= kFindings; ++k) {
    const std::string prefix = "        frame " + std::to_string(k) + " at ";
    REQUIRE_MESSAGE(big.compare(at, prefix.size(), prefix) == 0, k);
    const std::size_t end = big.find('\n', at);
    REQUIRE(end != std::string::npos);
    at = end + 1;
    ++lines;
  }
  CHECK(lines == kFindings);
  CHECK(at == big.size());  // nothing after the last finding's line, nothing lost or written twice before it
}

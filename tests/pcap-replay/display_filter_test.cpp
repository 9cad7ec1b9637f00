// -Y: the display-filter subset (report/display_filter.hpp). Which texts are
// read and which refused, and the frame sets at their bounds; the
// connections chosen are held against tshark's in tests/e2e/pcap_replay_findings.sh.

#include <doctest/doctest.h>

#include <string>
#include <variant>
#include <vector>

#include <replay/report/display_filter.hpp>

namespace {
using replay::DisplayFilter;

DisplayFilter parse_ok(const std::string& text) {
  auto r = DisplayFilter::parse(text);
  INFO(text);
  REQUIRE(std::holds_alternative<DisplayFilter>(r));
  return std::get<DisplayFilter>(r);
}
std::string parse_error(const std::string& text) {
  auto r = DisplayFilter::parse(text);
  INFO(text);
  REQUIRE(std::holds_alternative<std::string>(r));
  return std::get<std::string>(r);
}
bool exists(const std::string& p) { return p == "a.pcap" || p == "b.pcap"; }
}  // namespace

TEST_CASE("-Y: the fields read, joined by && or and") {
  CHECK(parse_ok("tcp.stream == 3").terms.size() == 1);
  CHECK(parse_ok("tcp.stream eq 3").terms.size() == 1);
  CHECK(parse_ok("tcp.port==80&&ip.addr==10.0.0.1").terms.size() == 2);
  CHECK(parse_ok("ipv6.addr == fd00::1 and frame.number >= 10 and frame.number < 20").terms.size() == 3);
  const auto f = parse_ok("ip.addr == 198.18.0.2");
  CHECK(f.terms[0].address == *wire::IpAddress::parse("198.18.0.2"));
}

TEST_CASE("-Y: what is not read is refused, naming it and -f") {
  CHECK(parse_error("tcp.analysis.retransmission").find("compares nothing") != std::string::npos);
  CHECK(parse_error("tcp.flags.syn == 1").find("tcp.flags.syn is not a field pcap-replay reads") != std::string::npos);
  CHECK(parse_error("tcp.port == 80 || tcp.port == 443").find("|| (or) is not read") != std::string::npos);
  CHECK(parse_error("!(tcp.port == 80)").find("negation") != std::string::npos);
  CHECK(parse_error("ip.addr != 10.0.0.1").find("== only") != std::string::npos);
  CHECK(parse_error("tcp.stream > 3").find("== only") != std::string::npos);
  CHECK(parse_error("tcp.port == 65536").find("beyond 65535") != std::string::npos);
  CHECK(parse_error("ip.addr == fd00::1").find("takes an IPv4 address") != std::string::npos);
  CHECK(parse_error("ip.addr == 10.0.0").find("not an address") != std::string::npos);
  CHECK(parse_error("frame.number == x").find("takes a number") != std::string::npos);
  CHECK(parse_error("tcp.port == 80 &&").find("nothing on one side") != std::string::npos);
  CHECK(parse_error("").find("empty") != std::string::npos);
  CHECK(parse_error("tcp.flags.syn == 1").find("-f takes a BPF filter") != std::string::npos);
}

TEST_CASE("-Y: frame.number bounds: >= and <= include the bound, > and < exclude it, != one frame") {
  const auto f = parse_ok("frame.number >= 100 && frame.number < 120 && frame.number != 110");
  CHECK_FALSE(f.shows_frame(99));
  CHECK(f.shows_frame(100));
  CHECK(f.shows_frame(109));
  CHECK_FALSE(f.shows_frame(110));
  CHECK(f.shows_frame(119));
  CHECK_FALSE(f.shows_frame(120));
  const auto sel = f.frames();
  REQUIRE(sel.has_value());
  CHECK(sel->lo == 100);
  CHECK(sel->hi == 119);
  CHECK(sel->excluded == std::vector<std::uint64_t>{110});
  CHECK_FALSE(parse_ok("frame.number < 0").frames()->contains(0));
  CHECK_FALSE(parse_ok("frame.number < 0").frames()->contains(1));
  const auto eq = parse_ok("frame.number == 7 && frame.number <= 7").frames();
  CHECK(eq->contains(7));
  CHECK_FALSE(eq->contains(6));
  CHECK_FALSE(eq->contains(8));
  CHECK(parse_ok("frame.number > 5").frames()->lo == 6);
  CHECK_FALSE(parse_ok("tcp.port == 80").frames().has_value());
}

TEST_CASE("-Y: a connection matches by either endpoint, its tcp.stream, and a packet among the frames") {
  replay::FlowReport f;
  f.client = {*wire::IpAddress::parse("10.0.0.1"), 40000};
  f.server = {*wire::IpAddress::parse("10.0.0.2"), 443};
  CHECK(parse_ok("ip.addr == 10.0.0.2").shows(f, 0));
  CHECK(parse_ok("ip.addr == 10.0.0.1 && tcp.port == 40000").shows(f, 0));
  CHECK_FALSE(parse_ok("ip.addr == 10.0.0.3").shows(f, 0));
  CHECK_FALSE(parse_ok("tcp.port == 80").shows(f, 0));
  CHECK(parse_ok("tcp.stream == 4").shows(f, 4));
  CHECK_FALSE(parse_ok("tcp.stream == 4").shows(f, 5));
  CHECK_FALSE(parse_ok("tcp.stream == 4").shows(f, std::nullopt));
  CHECK_FALSE(parse_ok("frame.number == 9").shows(f, 0));  // no packet among the frames
  f.has_selected_frame = true;
  CHECK(parse_ok("frame.number == 9").shows(f, 0));
}

TEST_CASE("a tcpdump expression after the files is told apart from files") {
  using V = std::vector<std::string>;
  CHECK(replay::trailing_bpf(V{"a.pcap", "tcp", "port", "80"}, exists) == std::optional<std::string>("tcp port 80"));
  CHECK(replay::trailing_bpf(V{"a.pcap", "host", "10.0.0.1", "and", "port", "443"}, exists) ==
        std::optional<std::string>("host 10.0.0.1 and port 443"));
  CHECK_FALSE(replay::trailing_bpf(V{"a.pcap", "b.pcap"}, exists).has_value());
  CHECK_FALSE(replay::trailing_bpf(V{"a.pcap", "missing.pcap"}, exists).has_value());  // a missing file, said as one
  CHECK_FALSE(replay::trailing_bpf(V{"tcp", "a.pcap"}, exists).has_value());  // a file after it: not an expression
}

TEST_CASE("-Y: a number may carry a leading +, as Wireshark reads it; a lone + or +- is no number") {
  CHECK(parse_ok("tcp.stream == +3").terms[0].number == 3);
  CHECK(parse_ok("frame.number >= +10").terms[0].number == 10);
  CHECK(parse_error("tcp.stream == +").find("takes a number") != std::string::npos);
  CHECK(parse_error("tcp.stream == +-3").find("takes a number") != std::string::npos);
  CHECK(parse_error("tcp.stream == -3").find("takes a number") != std::string::npos);
}

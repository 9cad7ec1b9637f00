// Capture reader on the shared traces: every capture in ../shared/traces/public
// and ../shared/traces/linux is read without crashing; the damaged ones give
// the right clear error (MANIFEST.md); and for a spread of link types and
// formats the segments decoded agree with tshark, frame by frame (frame
// number, port, raw sequence and ACK numbers, TCP length, nanosecond time,
// flags, TSval/TSecr).
#include "reader_capture_builder.hpp"

#include "common/command.hpp"
#include "common/tools.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <utility>

using namespace readertest;
namespace fs = std::filesystem;

namespace {

// What each damaged capture must report: (frame, field) pairs, in order.
const std::map<std::string, std::vector<std::pair<std::uint64_t, std::string>>>& expected_diagnostics() {
  static const std::map<std::string, std::vector<std::pair<std::uint64_t, std::string>>> m{
      // Fuzzed ns pcap (snaplen 0): record 1 claims caplen 524501; after it the
      // scan finds three short records (two of them 0 bytes captured, too short
      // for the NULL header), then a caplen of 1011744512 and nothing plausible.
      {"ndpi__fuzz-2021-10-13.pcap", {{1, "pcap"}, {3, "null"}, {4, "null"}, {5, "pcap"}}},
      // Frame 1 has 4 of 60 bytes captured (tshark: "Ethernet truncated").
      {"ndpi__gnutella.pcap", {{1, "eth"}}},
      // Record headers claiming absurd capture lengths after 6 / 18 good records
      // (the reader resynchronises after them); bug-1450-04's frame 2 is dated
      // 668322 s before frame 1 (tshark -t e: 1463664616.49 then 795342174.97).
      // Frame 2 dated 21 years before frames 1 and 3, which are 45 us apart
      // (tshark: frame.time_delta -668322441.995528 s at 2, +668322441.995573
      // at 3): the step back at 2, the clock's return at 3.
      {"suricata__bug-1450-04.pcap", {{2, "frame.time"}, {3, "frame.time"}, {7, "pcap"}}},
      {"suricata__smtp-to-comma.pcap", {{19, "pcap"}}},
      // Clocks that step back (tshark: frame.time_delta < 0 at these frames).
      {"ndpi__avast.pcap", {{103, "frame.time"}}},
      // zeek__communityid-tcp: 0.146 ms and 0.184 ms back at 8 and 10, both
      // reordering (within kClockReorderMax): one summary line, at frame 8.
      {"zeek__communityid-tcp.pcap", {{8, "frame.time"}}},
      // Record microsecond fields 1000000 and 2147483648.
      {"tcpdump__timestamp_invalid_micro.pcap", {{2, "frame.time"}, {3, "frame.time"}}},
      // IPv4 total length 46 in a PPPoE packet of 40 bytes: the TCP length comes from the
      // frame (tshark: "IPv4 total length exceeds packet length", Len: 0).
      {"zeek__pppoe-over-qinq.pcap", {{19, "ip.len"}, {33, "ip.len"}, {41, "ip.len"}, {47, "ip.len"}, {63, "ip.len"}, {81, "ip.len"}}},
      // The SYN's timestamps option has length 8 (tshark: "option length should be 10").
      {"zeek__tcp-truncated-header.pcap", {{1, "tcp.option.tsval"}}},
  };
  return m;
}

// Files that cannot be opened, and a phrase of the reason.
const std::map<std::string, std::string>& expected_open_errors() {
  static const std::map<std::string, std::string> m{
      {"libpcap__pcap-invalid-version-1.pcap", "archaic pcap savefile format"},
      {"libpcap__shb-option-too-long.pcapng", "the section header block's total length (52) and its trailing copy"},
  };
  return m;
}

std::vector<fs::path> captures_in(const fs::path& dir) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const auto ext = e.path().extension();
    if (ext == ".pcap" || ext == ".pcapng") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// "1000.100000123" -> 1000100000123 (exact, no floating point).
std::int64_t epoch_ns(const std::string& s) {
  const auto dot = s.find('.');
  std::int64_t sec = std::stoll(s.substr(0, dot));
  std::string frac = dot == std::string::npos ? "" : s.substr(dot + 1);
  frac.resize(9, '0');
  return sec * 1'000'000'000 + std::stoll(frac.substr(0, 9));
}

struct TsharkRow {
  std::uint64_t frame = 0;
  std::uint16_t srcport = 0;
  std::uint32_t seq = 0;
  std::uint32_t ack = 0;
  std::uint32_t len = 0;
  std::int64_t time_ns = 0;
  std::uint32_t flags = 0;
  std::string tsval;  ///< "" when the segment has no timestamps option
  std::string tsecr;
};

// Runs tshark on `file`: one row per frame that carries a TCP header of its
// own (ICMP errors quote TCP headers; those are not segments).
std::vector<TsharkRow> tshark_rows(const fs::path& file, bool& ran) {
  const std::string cmd = "tshark -n -r '" + file.string() +
                          "' -Y 'tcp && !icmp && !icmpv6' -T fields -E separator=/t "
                          "-e frame.number -e tcp.srcport -e tcp.seq_raw -e tcp.ack_raw -e tcp.len "
                          "-e frame.time_epoch -e tcp.flags -e tcp.options.timestamp.tsval "
                          "-e tcp.options.timestamp.tsecr 2>/dev/null";
  std::vector<TsharkRow> rows;
  const testcommon::CommandResult tshark = testcommon::run_command(cmd);
  ran = tshark.status != -1;
  if (!ran) return rows;
  std::istringstream lines(tshark.output);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream in(line);
    std::string f[9];
    for (auto& x : f) std::getline(in, x, '\t');
    if (f[5].empty()) continue;
    // Tunnelled frames may list two values ("a,b"): the inner TCP is the last.
    for (auto& x : f) {
      const auto c = x.rfind(',');
      if (c != std::string::npos) x = x.substr(c + 1);
      while (!x.empty() && (x.back() == '\n' || x.back() == '\r')) x.pop_back();
    }
    rows.push_back(TsharkRow{std::stoull(f[0]), static_cast<std::uint16_t>(std::stoul(f[1])),
                             static_cast<std::uint32_t>(std::stoul(f[2])),
                             static_cast<std::uint32_t>(f[3].empty() ? 0 : std::stoul(f[3])),
                             static_cast<std::uint32_t>(std::stoul(f[4])), epoch_ns(f[5]),
                             static_cast<std::uint32_t>(std::stoul(f[6], nullptr, 16)), f[7], f[8]});
  }
  return rows;
}

}  // namespace

TEST_CASE("traces: every shared capture opens and reads; damaged ones give the expected clear errors") {
  const fs::path root = shared_dir() / "traces";
  std::vector<fs::path> files = captures_in(root / "public");
  const auto linux_files = captures_in(root / "linux");
  files.insert(files.end(), linux_files.begin(), linux_files.end());
  REQUIRE_MESSAGE(files.size() >= 50, "shared traces not found under " << root.string());
  std::set<std::string> seen;
  for (const fs::path& f : files) {
    const std::string name = f.filename().string();
    CAPTURE(name);
    seen.insert(name);
    const auto oe = expected_open_errors().find(name);
    if (oe != expected_open_errors().end()) {
      const std::string e = open_error(f.string());
      CHECK(e.find(f.string()) != std::string::npos);
      CHECK(e.find(oe->second) != std::string::npos);
      continue;
    }
    const ReadResult r = read_all(f.string());
    std::vector<std::pair<std::uint64_t, std::string>> got;
    for (const auto& d : r.diagnostics) {
      CHECK(d.file == f.string());
      CHECK_FALSE(d.message.empty());
      got.emplace_back(d.frame, d.field);
    }
    const auto ed = expected_diagnostics().find(name);
    CHECK(got == (ed == expected_diagnostics().end() ? decltype(got){} : ed->second));
    const auto& st = r.stats;
    CHECK(st.frames == st.tcp_segments + st.filtered_out + st.non_ip + st.non_tcp + st.fragments_skipped + st.malformed +
                           st.frames_lost);
    CHECK(r.segments.size() == st.tcp_segments);
    // Frame numbers strictly increase.
    for (std::size_t i = 1; i < r.segments.size(); ++i) CHECK(r.segments[i].frame > r.segments[i - 1].frame);
    if (f.parent_path().filename() == "linux") {
      CHECK(st.tcp_segments == st.frames);  // captured with filter "tcp port 5001"
      CHECK(st.tcp_segments > 1000);
    }
  }
  for (const auto& [name, _] : expected_diagnostics()) CHECK_MESSAGE(seen.count(name) == 1, name);
  for (const auto& [name, _] : expected_open_errors()) CHECK_MESSAGE(seen.count(name) == 1, name);
}

TEST_CASE("traces: MANIFEST partial reads: 6 and 18 segments before the bad record, the rest after it") {
  const fs::path pub = shared_dir() / "traces" / "public";
  // Resynchronised: the frames after the damage agree with tshark's reading
  // of the file with the skipped bytes cut out (tshark stops at the damage
  // itself), shifted by the one frame number the reader gives the damage.
  struct Case {
    const char* name;
    std::uint64_t bad_frame, begin, end;  // the damaged frame and the bytes skipped [begin, end)
    std::size_t before;                   // segments before it
  };
  for (const Case& c : {Case{"suricata__bug-1450-04.pcap", 7, 5035, 5115, 6},
                        Case{"suricata__smtp-to-comma.pcap", 19, 3695, 3698, 18}}) {
    CAPTURE(c.name);
    const ReadResult r = read_all((pub / c.name).string());
    REQUIRE(r.stats.lost.size() == 1);
    CHECK(r.stats.lost[0].byte_begin == c.begin);
    CHECK(r.stats.lost[0].byte_end == c.end);
    std::ifstream in(pub / c.name, std::ios::binary);
    Bytes f((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    f.erase(f.begin() + static_cast<std::ptrdiff_t>(c.begin), f.begin() + static_cast<std::ptrdiff_t>(c.end));
    bool ran = false;
    const auto rows = tshark_rows(write_temp(f, std::string("repaired-") + c.name), ran);
    if (rows.empty()) {
      if (std::getenv("CI")) FAIL("tshark is missing");
      MESSAGE("tshark is missing: the resync comparison is skipped");
      continue;
    }
    REQUIRE(r.segments.size() == rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const std::uint64_t expect = rows[i].frame < c.bad_frame ? rows[i].frame : rows[i].frame + 1;
      CHECK(r.segments[i].frame == expect);
      CHECK(r.segments[i].tcp.seq == rows[i].seq);
      CHECK(ns(r.segments[i]) == rows[i].time_ns);
    }
    CHECK(std::count_if(r.segments.begin(), r.segments.end(), [&](const auto& s) { return s.frame < c.bad_frame; }) ==
          static_cast<std::ptrdiff_t>(c.before));
  }
  // The snaplen-68 capture: all 24 frames are segments (tshark counts 24 TCP packets).
  const ReadResult z = read_all((pub / "zeek__tcp-truncated-header.pcap").string());
  CHECK(z.segments.size() == 24);
  REQUIRE_FALSE(z.segments.empty());
  CHECK(z.segments[0].tcp_options_bad);
  CHECK(z.segments[0].tcp.options.mss == 1460);
}

TEST_CASE("traces: segments agree with tshark frame by frame across link types and formats") {
  if (!testcommon::tshark_available()) return;
  const fs::path pub = shared_dir() / "traces" / "public";
  // One tshark start costs ~0.7 s: a dozen files that cover the link types and formats.
  const std::vector<fs::path> files{
      pub / "zeek__pppoe-over-qinq.pcap",                    // QinQ + PPPoE, IP lengths beyond the frame
      pub / "ndpi__syslog.pcap",                             // 802.1Q
      pub / "ndpi__KakaoTalk_talk.pcap",                     // LINUX_SLL, mostly UDP
      pub / "pcapplusplus__sll2.pcap",                       // LINUX_SLL2
      pub / "suricata__smb-length-5770.pcap",                // NULL
      pub / "pcapplusplus__four_ipv6_http_streams.pcap",     // RAW (12), IPv6
      pub / "ndpi__bt-http.pcapng",                          // pcapng, ns
      pub / "pcapplusplus__nanosecs_big_endian.pcap",        // big-endian ns pcap
      pub / "suricata__ipv6-kill-router6.pcap",              // IPv6, ICMPv6 quoting TCP
      pub / "zeek__tcp-truncated-header.pcap",               // snaplen 68, bad option
      pub / "suricata__bug-1450-04.pcap",                    // damage after 6
      pub / "zeek__ldap-gap-data-missing.pcapng",            // interfaces with different snaplens
      shared_dir() / "traces" / "linux" / "syn-loss.pcap",   // Linux sender, snaplen 128
  };
  for (const fs::path& f : files) {
    CAPTURE(f.filename().string());
    bool ran = false;
    const auto rows = tshark_rows(f, ran);
    REQUIRE_MESSAGE(ran, "tshark could not be run");
    REQUIRE_FALSE(rows.empty());
    ReadResult r = read_all(f.string());
    if (!r.stats.lost.empty()) {
      // tshark stops at damage, the reader goes on (see the partial-reads test): compare before it.
      REQUIRE(r.segments.size() >= rows.size());
      r.segments.resize(rows.size());
    }
    REQUIRE(r.segments.size() == rows.size());
    std::size_t mismatches = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const replay::Segment& s = r.segments[i];
      const TsharkRow& t = rows[i];
      const bool same = s.frame == t.frame && s.src.port == t.srcport && s.tcp.seq == t.seq &&
                        (!s.tcp.has(wire::kAck) || s.tcp.ack == t.ack) && s.payload_len == t.len &&
                        ns(s) == t.time_ns && (s.tcp.flags & 0xFFu) == (t.flags & 0xFFu) &&
                        (s.tcp.options.tsval ? std::to_string(*s.tcp.options.tsval) : "") == t.tsval &&
                        (s.tcp.options.tsecr ? std::to_string(*s.tcp.options.tsecr) : "") == t.tsecr;
      if (!same && ++mismatches <= 3) {
        FAIL_CHECK("frame " << t.frame << ": ours frame " << s.frame << " port " << s.src.port << " seq " << s.tcp.seq
                            << " len " << s.payload_len << " t " << ns(s) << " flags " << int(s.tcp.flags) << " tsval "
                            << s.tcp.options.tsval.value_or(0) << "; tshark port " << t.srcport << " seq " << t.seq
                            << " len " << t.len << " t " << t.time_ns << " flags " << t.flags << " tsval " << t.tsval);
      }
    }
    CHECK(mismatches == 0);
  }
}

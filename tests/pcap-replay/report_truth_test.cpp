// What the reports say in the words of other tools, checked against those
// tools run on the same captures (popen; a missing tool fails under CI=true):
//  - rel_time / "at (s)": tshark's frame.time_relative (frame 1 of the file,
//    TCP or not, filtered out or not);
//  - each connection's tcp.stream: tshark's tcp.stream of its first frame,
//    also for a SYN re-sent with the same ISN after an RST (a new connection
//    here, the old stream in Wireshark, and so the same index);
//  - per-sender RTT statistics: tcptrace -l -r's "RTT samples/min/avg/max/
//    stdev" (same samples where tcptrace's and Linux's sampling coincide;
//    where not, the definitional difference is checked: tcptrace times the
//    newest segment an ACK covers, Linux and pcap-replay the oldest).

#include <doctest/doctest.h>

#include "common/report_json.hpp"

#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include "replay_scenario.hpp"
#include <replay/pipeline/analyze_files.hpp>
#include <replay/report/report_json.hpp>
#include <replay/report/wireshark_ref.hpp>

using namespace replaytest;
using replaytest::Profile;

namespace {

std::string public_trace(const std::string& name) { return (shared_dir() / "traces" / "public" / name).string(); }

// Whether `tool` runs; when it does not, the test fails under CI=true and is
// skipped (with a message) otherwise.
bool have_tool(const std::string& probe, const std::string& expect, const char* name) {
  if (run(probe + " 2>&1").find(expect) != std::string::npos) return true;
  const char* ci = std::getenv("CI");
  if (ci && std::string(ci) == "true") FAIL(name << " is not installed (CI=true): the independent truth is missing");
  MESSAGE(name << " not installed: skipped");
  return false;
}
bool have_tshark_tool() { return have_tool("tshark -v", "TShark", "tshark"); }
bool have_tcptrace() { return have_tool("tcptrace -v", "tcptrace", "tcptrace"); }

bool have_file(const std::string& path) {
  if (std::filesystem::exists(path)) return true;
  if (std::getenv("CI")) FAIL("missing " << path);
  MESSAGE("missing " << path << ": skipped");
  return false;
}

replay::Report analyze_file(const std::string& file, const std::string& filter = "") {
  std::vector<std::string> errors;
  auto o = replay::Options::for_profile(Profile::rfc6298);
  o.filter = filter;
  return replay::analyze_files({file}, o, false, errors);
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> c;
  std::size_t start = 0;
  for (;;) {
    const std::size_t tab = line.find('\t', start);
    c.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) return c;
    start = tab + 1;
  }
}

// tshark -T fields with `fields`, one vector per frame (frame.number first).
std::map<std::uint64_t, std::vector<std::string>> tshark_fields(const std::string& file, const std::string& fields) {
  std::map<std::uint64_t, std::vector<std::string>> out;
  std::stringstream ss(run("tshark -n -r '" + file + "' -T fields -E separator=/t -e frame.number " + fields +
                           " 2>/dev/null"));
  std::string line;
  while (std::getline(ss, line)) {
    auto c = split_tabs(line);
    if (c.size() < 2 || c[0].empty()) continue;
    out[std::stoull(c[0])] = c;
  }
  return out;
}

}  // namespace

TEST_CASE("rel_time: every timeout and finding at tshark's frame.time_relative (from frame 1, TCP or not)") {
  if (!have_tshark_tool()) return;
  struct Case {
    std::string file, filter;
  };
  const std::vector<Case> cases = {
      // Frame 1 is a DNS query (UDP): the old origin was the first TCP frame.
      {public_trace("ndpi__conncheck.pcap"), ""},
      // Frame 1 is ARP.
      {public_trace("suricata__base64-decode-5885.pcap"), ""},
      // Frame 1 (the SYN) is filtered out: the origin stays frame 1, as in
      // Wireshark, not the first frame the filter lets through (frame 2,
      // 0.015 ms later, more than the 1 us compared).
      {"tests/captures/linux-blackhole.pcap", "tcp src port 5001 or (tcp[tcpflags] & tcp-syn == 0)"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.file);
    CAPTURE(c.filter);
    if (!have_file(c.file)) continue;
    const auto ts = tshark_fields(c.file, "-e frame.time_relative");
    const auto r = analyze_file(c.file, c.filter);
    const auto j = replay::to_json(r);
    std::size_t compared = 0;
    for (const auto& f : testcommon::report_senders(j))
      for (const char* key : {"timeouts", "findings"})
        for (const auto& x : f[key]) {
          const std::uint64_t frame = x["frame"];
          CAPTURE(frame);
          REQUIRE(ts.count(frame));
          CHECK(std::abs(x["rel_time"].get<double>() - std::stod(ts.at(frame)[1])) < 1e-6);
          CHECK(x["display_filter"] == "frame.number == " + std::to_string(frame));
          ++compared;
        }
    // Every case has something to compare (conncheck 17, base64 44, the
    // filtered blackhole its 6 expiries and the 2.4 finding at least).
    CHECK(compared >= 7);
  }
}

TEST_CASE("tcp.stream: each connection's index is tshark's, a SYN re-sent with the same ISN included") {
  if (!have_tshark_tool()) return;
  struct Case {
    std::string file;
    std::size_t shared;  // connections of ours in an earlier connection's stream (tshark: SYN retransmissions)
  };
  const std::vector<Case> cases = {
      {"tests/captures/linux-blackhole.pcap", 0},
      {"tests/captures/lab/many-flows.pcap", 0},          // 120 connections
      {"tests/captures/lockstep/lockstep-syn.pcap", 0},   // 224 connections, lone SYNs among them
      // A SYN re-sent after an RST with the same ISN (tshark: "suspected
      // retransmission") at frame 235: a new connection here, stream 11 in
      // Wireshark, which starts a new stream only for a new ISN.
      {public_trace("suricata__base64-decode-5885.pcap"), 1},
      // 14 such re-sent SYNs (frames 227, 245, ... 744).
      {public_trace("ndpi__gnutella.pcap"), 14},
  };
  for (const auto& c : cases) {
    CAPTURE(c.file);
    if (!have_file(c.file)) continue;
    const auto ts = tshark_fields(c.file, "-e tcp.stream -e tcp.flags.syn -e tcp.flags.ack -e tcp.analysis.retransmission");
    const auto r = analyze_file(c.file);
    const replay::StreamNumbers streams(r);
    std::set<std::uint64_t> seen;
    std::size_t shared = 0;
    for (const auto& f : r.flows) {
      CAPTURE(f.first_frame);
      REQUIRE(ts.count(f.first_frame));
      const auto& row = ts.at(f.first_frame);
      REQUIRE(row.size() >= 5);
      const std::uint64_t ws = std::stoull(row[1]);
      const auto ours = streams.of(f);
      REQUIRE(ours.has_value());
      CHECK(*ours == ws);
      CHECK(replay::stream_filter(f, ours) == "tcp.stream == " + std::to_string(ws));
      if (seen.count(ws)) {
        // A stream Wireshark already had: a SYN (no ACK) tshark itself calls a retransmission.
        CHECK(row[2] == "1");
        CHECK(row[3] == "0");
        CHECK(row[4] == "1");
        ++shared;
      }
      seen.insert(ws);
    }
    CHECK(shared == c.shared);
    // Wireshark has no stream we do not have.
    std::set<std::uint64_t> all;
    for (const auto& [frame, row] : ts)
      if (row.size() > 1 && !row[1].empty()) all.insert(std::stoull(row[1]));
    CHECK(all == seen);
  }
}

TEST_CASE("tcp.stream: unknown under a BPF filter (Wireshark counts the hidden connections)") {
  const auto r = analyze_file("tests/captures/lab/many-flows.pcap", "tcp port 5001");
  REQUIRE(!r.flows.empty());
  const replay::StreamNumbers streams(r);
  CHECK(!streams.of(r.flows.front()).has_value());
  // The display filter falls back to the address pair.
  CHECK(replay::stream_filter(r.flows.front(), std::nullopt).rfind("ip.addr == 198.18.0.1 && tcp.port == ", 0) == 0);
}

namespace {

// tcptrace -l -r -n: per connection, host a / host b and the a2b / b2a
// columns of the RTT lines ("RTT samples", "RTT min", ..., in ms).
struct TcptraceDir {
  std::string src, dst;
  std::map<std::string, double> v;  // "samples", "min", "max", "avg", "stdev"
};
// The number after `label` at `from` or later in `line` (e.g. "70" after
// "RTT samples:"); the position after it in `next`.
std::optional<double> number_after(const std::string& line, const std::string& label, std::size_t from,
                                   std::size_t& next) {
  const std::size_t at = line.find(label, from);
  if (at == std::string::npos) return std::nullopt;
  const char* begin = line.c_str() + at + label.size();
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  if (end == begin) return std::nullopt;
  next = static_cast<std::size_t>(end - line.c_str());
  return v;
}

std::vector<TcptraceDir> tcptrace_rtt(const std::string& file) {
  std::vector<TcptraceDir> out;
  std::stringstream ss(run("tcptrace -l -r -n '" + file + "' 2>/dev/null"));
  std::string line, a;
  while (std::getline(ss, line)) {
    const std::size_t text = line.find_first_not_of(" \t");
    if (text == std::string::npos) continue;
    const std::string_view rest = std::string_view(line).substr(text);
    if (rest.rfind("host a:", 0) == 0 || rest.rfind("host b:", 0) == 0) {
      std::stringstream words{std::string(rest.substr(7))};
      std::string endpoint;
      words >> endpoint;
      if (rest[5] == 'a') {
        a = endpoint;
      } else {
        out.push_back({a, endpoint, {}});
        out.push_back({endpoint, a, {}});
      }
      continue;
    }
    if (out.empty()) continue;
    // "RTT min:   0.0 ms   RTT min:   0.0 ms" (not "RTT min (last):" nor "RTT full_sz min:").
    for (const char* key : {"samples", "min", "max", "avg", "stdev"}) {
      const std::string label = std::string("RTT ") + key + ":";
      if (rest.rfind(label, 0) != 0) continue;
      std::size_t next = 0;
      const auto ab = number_after(line, label, text, next);
      const auto ba = ab ? number_after(line, label, next, next) : std::nullopt;
      if (ab && ba) {
        out[out.size() - 2].v[key] = *ab;
        out[out.size() - 1].v[key] = *ba;
      }
    }
  }
  return out;
}

const replay::SenderReport* sender_of(const replay::Report& r, const std::string& src, const std::string& dst) {
  for (const auto& f : r.flows)
    for (const auto& s : f.senders)
      if (replay::to_string(s.src) == src && replay::to_string(s.dst) == dst) return &s;
  return nullptr;
}

// tcptrace prints ms with one decimal: half of it, and a little for rounding.
constexpr double kTcptraceResolutionMs = 0.051;

}  // namespace

TEST_CASE("RTT statistics: tcptrace -l -r's samples, min, avg, max and stdev where both sample alike") {
  if (!have_tcptrace()) return;
  // Captured at the sender, one ACK per segment: tcptrace's per-ACK samples
  // are the Karn samples, the same set (thin-linear: 152 samples from the
  // receiver's ~21 ms delayed data; tlp-tail-1: 22 and 62).
  for (const char* name : {"thin-linear", "tlp-tail-1"}) {
    const std::string file = std::string("tests/captures/lab/") + name + ".pcap";
    CAPTURE(file);
    if (!have_file(file)) continue;
    const auto r = analyze_file(file);
    const auto dirs = tcptrace_rtt(file);
    REQUIRE(dirs.size() == 2);
    for (const auto& d : dirs) {
      CAPTURE(d.src);
      const auto* s = sender_of(r, d.src, d.dst);
      REQUIRE(s != nullptr);
      REQUIRE(d.v.size() == 5);
      CHECK(s->rtt_karn.samples == static_cast<std::uint64_t>(d.v.at("samples")));
      CHECK(std::abs(static_cast<double>(s->rtt_karn.min.count()) / 1000.0 - d.v.at("min")) < kTcptraceResolutionMs);
      CHECK(std::abs(static_cast<double>(s->rtt_karn.max.count()) / 1000.0 - d.v.at("max")) < kTcptraceResolutionMs);
      CHECK(std::abs(*s->rtt_karn.mean_ms() - d.v.at("avg")) < kTcptraceResolutionMs);
      CHECK(std::abs(*s->rtt_karn.stdev_ms() - d.v.at("stdev")) < kTcptraceResolutionMs);
    }
  }
}

TEST_CASE("RTT statistics: with delayed ACKs, tcptrace's newest-segment samples are never longer than ours") {
  if (!have_tcptrace()) return;
  // The data sender of syn-loss and bulk-clean (captured at the sender): one
  // sample per ACK of new data in both (639 and 1927), but an ACK covering
  // two segments is timed by tcptrace from the newer, by Linux (and us) from
  // the older (tcp_clean_rtx_queue), so ours are never shorter: the same
  // minimum (one-segment ACKs), a mean and maximum at least tcptrace's.
  for (const char* name : {"syn-loss", "bulk-clean"}) {
    const std::string file = linux_trace(name);
    CAPTURE(file);
    if (!have_file(file)) continue;
    const auto r = analyze_file(file);
    const auto dirs = tcptrace_rtt(file);
    REQUIRE(!dirs.empty());
    const auto& d = dirs.front();  // host a: the client, the data sender
    const auto* s = sender_of(r, d.src, d.dst);
    REQUIRE(s != nullptr);
    CHECK(s->rtt_karn.samples == static_cast<std::uint64_t>(d.v.at("samples")));
    CHECK(std::abs(static_cast<double>(s->rtt_karn.min.count()) / 1000.0 - d.v.at("min")) < kTcptraceResolutionMs);
    CHECK(*s->rtt_karn.mean_ms() > d.v.at("avg") - kTcptraceResolutionMs);
    CHECK(static_cast<double>(s->rtt_karn.max.count()) / 1000.0 > d.v.at("max") - kTcptraceResolutionMs);
  }
}

TEST_CASE("RttStats: mean and the n - 1 standard deviation, by hand") {
  replay::RttStats st;
  CHECK(!st.mean_ms().has_value());
  CHECK(!st.stdev_ms().has_value());
  using std::chrono::microseconds;
  st.add(microseconds{1000});
  CHECK(*st.stdev_ms() == 0.0);  // one sample
  st.add(microseconds{3000});
  st.add(microseconds{5000});
  // mean (1 + 3 + 5) / 3 = 3 ms; squares of the deviations 4 + 0 + 4 = 8 ms^2;
  // / (n - 1 = 2) = 4; sqrt = 2 ms (the population form would give 1.633).
  CHECK(st.samples == 3);
  CHECK(*st.mean_ms() == doctest::Approx(3.0));
  CHECK(*st.stdev_ms() == doctest::Approx(2.0));
  CHECK(st.min == microseconds{1000});
  CHECK(st.max == microseconds{5000});
}

TEST_CASE("RTT statistics: a hand-made capture with samples of 10, 30 and 50 ms, by hand and by tcptrace") {
  // Handshake with a 10 ms round trip (the SYN's sample), then [1,1001) at
  // 100 ms acknowledged at 130 ms (30 ms) and [1001,2001) at 200 ms
  // acknowledged at 250 ms (50 ms): mean 30 ms; deviations -20, 0, +20, squares
  // 800 ms^2 / (3 - 1) = 400, stdev 20 ms (the population form: 16.33 ms).
  Scenario sc;
  sc.handshake(0, 10'000);
  sc.data(100'000, 1);
  sc.ack(130'000, 1001);
  sc.data(200'000, 1001);
  sc.ack(250'000, 2001);
  const std::string file = sc.write("rtt-stats");
  const auto r = analyze_file(file);
  REQUIRE(r.flows.size() == 1);
  const auto& s = r.flows[0].senders[0];
  CHECK(s.rtt_karn.samples == 3);
  CHECK(s.rtt_karn.min == std::chrono::milliseconds{10});
  CHECK(s.rtt_karn.max == std::chrono::milliseconds{50});
  CHECK(*s.rtt_karn.mean_ms() == doctest::Approx(30.0));
  CHECK(*s.rtt_karn.stdev_ms() == doctest::Approx(20.0));
  if (have_tcptrace()) {
    const auto dirs = tcptrace_rtt(file);
    REQUIRE(dirs.size() == 2);
    const auto& d = dirs.front();  // host a: the client
    CHECK(d.src == "198.18.0.1:40000");
    CHECK(static_cast<std::uint64_t>(d.v.at("samples")) == s.rtt_karn.samples);
    CHECK(std::abs(d.v.at("avg") - *s.rtt_karn.mean_ms()) < kTcptraceResolutionMs);
    CHECK(std::abs(d.v.at("stdev") - *s.rtt_karn.stdev_ms()) < kTcptraceResolutionMs);
  }
  std::filesystem::remove(file);
}

TEST_CASE("rel_time: each input counts from its own frame 1 (tshark's frame.time_relative of that file)") {
  if (!have_tshark_tool()) return;
  const std::string a = linux_trace("syn-loss"), b = linux_trace("bulk-clean");
  if (!have_file(a) || !have_file(b)) return;
  const auto tb = tshark_fields(b, "-e frame.time_relative");
  std::vector<std::string> errors;
  const auto r = replay::analyze_files({a, b}, replay::Options::for_profile(Profile::rfc6298), false, errors);
  const auto j = replay::flows_to_json(r);
  REQUIRE(j["flows"].size() == 2);
  CHECK(j["flows"][0]["rel_time"].get<double>() == doctest::Approx(0.0));
  // bulk-clean's connection begins at its frame 1: 0 s as tshark shows that file (not the
  // seconds since syn-loss's frame 1, as before).
  const std::uint64_t first = j["flows"][1]["first_frame"].get<std::uint64_t>();
  REQUIRE(tb.count(first));
  const double expected = std::stod(tb.at(first)[1]);
  CHECK(std::abs(j["flows"][1]["rel_time"].get<double>() - expected) < 1e-6);
  REQUIRE(r.inputs.size() == 2);
  REQUIRE(r.inputs[1].first_frame_time.has_value());
  CHECK(r.origin_of(1) == *r.inputs[1].first_frame_time);
}

// The lockstep finding (pcap-replay/include/replay/analysis/lockstep.hpp): each threshold at its
// boundary on hand-built attempt lists (the arithmetic in the comments), the
// reconnect chains, the collector, then the three captures: the simulator's
// storm with exponential backoff (one lockstep group) and with full jitter
// (none, dispersion reported), and the Linux kernel's SYN retransmissions
// (tests/captures/lockstep, the truth in its meta.json).

#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include <replay/analysis/lockstep.hpp>
#include "replay_scenario.hpp"
#include <replay/report/report_json.hpp>
#include <replay/report/report_text.hpp>

using namespace replaytest;
using replay::lockstep::Attempt;
using replay::lockstep::kChanceNeighbourhood;
using replay::lockstep::kLockstepWindow;
using replay::lockstep::kMinChanceRatio;
using replay::lockstep::kMinGroupSize;
using replay::lockstep::Outcome;
using replay::lockstep::RetryKind;
using std::chrono::microseconds;

namespace {

replay::CaptureTime at_us(std::int64_t us) { return replay::CaptureTime{microseconds{us}}; }

replay::Endpoint ep(std::uint8_t host, std::uint16_t port) {
  replay::Endpoint e;
  e.address.bytes = {198, 18, 1, host};
  e.port = port;
  return e;
}
const replay::Endpoint kServer = [] {
  replay::Endpoint e;
  e.address.bytes = {198, 18, 0, 2};
  e.port = 5001;
  return e;
}();

std::uint64_t next_frame = 1;

// An attempt from 198.18.1.HOST:PORT with its first SYN at `start` us and
// retransmitted SYNs at `retx` us (absolute), ended as `outcome` at `end` us.
Attempt attempt(std::uint8_t host, std::uint16_t port, std::int64_t start, std::vector<std::int64_t> retx = {},
                Outcome outcome = Outcome::none, std::int64_t end = 0) {
  Attempt a;
  a.server = kServer;
  a.client = ep(host, port);
  a.first = {at_us(start), next_frame++};
  for (auto t : retx) a.retransmits.push_back({at_us(t), next_frame++});
  a.outcome = outcome;
  if (outcome != Outcome::none) a.end = replay::lockstep::Sent{at_us(end), next_frame++};
  return a;
}

// `n` attempts (hosts 1..n, one each) starting at 0 with one SYN
// retransmission each at the given times.
std::vector<Attempt> one_retry_each(const std::vector<std::int64_t>& retry_at) {
  std::vector<Attempt> v;
  for (std::size_t i = 0; i < retry_at.size(); ++i)
    v.push_back(attempt(static_cast<std::uint8_t>(i + 1), 40000, 0, {retry_at[i]}));
  return v;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("lockstep: the constants are the documented ones") {
  CHECK(kLockstepWindow == microseconds{10'000});
  CHECK(kMinGroupSize == 8);
  CHECK(kChanceNeighbourhood == microseconds{500'000});
  CHECK(kMinChanceRatio == 4);
}

TEST_CASE("lockstep window: 8 first retries spanning exactly 10 ms are a group, 10.001 ms are not") {
  SUBCASE("span = kLockstepWindow: one group of 8 at +1.00125 s") {
    // 7 retries at 1'000'000 us and one at 1'010'000 us: span 10'000 us = the window.
    // Mean offset after the start (0): (7 * 1'000'000 + 1'010'000) / 8 = 1'001'250 us.
    const auto r = replay::lockstep::find_groups(
        one_retry_each({1'000'000, 1'000'000, 1'000'000, 1'000'000, 1'000'000, 1'000'000, 1'000'000, 1'010'000}));
    REQUIRE(r.groups.size() == 1);
    CHECK(r.groups[0].members == 8);
    CHECK(r.groups[0].kind == RetryKind::syn_retransmission);
    REQUIRE(r.groups[0].offsets.size() == 1);
    CHECK(r.groups[0].offsets[0].offset == microseconds{1'001'250});
    CHECK(r.groups[0].offsets[0].spread == microseconds{10'000});
    CHECK(r.groups[0].offsets[0].frames.size() == 8);
    CHECK(r.dispersed.empty());
  }
  SUBCASE("span = kLockstepWindow + 1 us: 7 + 1, no group; the 8 are reported dispersed") {
    const auto r = replay::lockstep::find_groups(
        one_retry_each({1'000'000, 1'000'000, 1'000'000, 1'000'000, 1'000'000, 1'000'000, 1'000'000, 1'010'001}));
    CHECK(r.groups.empty());
    REQUIRE(r.dispersed.size() == 1);
    CHECK(r.dispersed[0].chains == 8);
    CHECK(r.dispersed[0].largest_cluster == 7);
    CHECK(r.dispersed[0].spread == microseconds{10'001});  // 1'010'001 - 1'000'000 (all started at 0)
  }
}

TEST_CASE("lockstep dispersion: its largest cluster counts first retries exactly 10 ms apart together, 10.001 ms apart not") {
  // 8 chains started at 0, first retries at 1.000 s and `second` us, the
  // other six 100 ms apart from 1.1 s: no 8 within 10 ms, no group; all 8
  // reported dispersed. The most within kLockstepWindow of each other: the
  // first two when 1.010 s - 1.000 s = 10'000 us <= 10 ms (2), one each
  // at 10'001 us (1); the others are >= 90 ms from any.
  const auto cluster = [](std::int64_t second) {
    const auto r = replay::lockstep::find_groups(
        one_retry_each({1'000'000, second, 1'100'000, 1'200'000, 1'300'000, 1'400'000, 1'500'000, 1'600'000}));
    CHECK(r.groups.empty());
    REQUIRE(r.dispersed.size() == 1);
    CHECK(r.dispersed[0].chains == 8);
    return r.dispersed[0].largest_cluster;
  };
  CHECK(cluster(1'010'000) == 2);
  CHECK(cluster(1'010'001) == 1);
}

TEST_CASE("lockstep minimum group size: 8 chains retrying together are a group, 7 are not (nor a dispersion)") {
  const std::vector<std::int64_t> eight(8, 1'000'000), seven(7, 1'000'000);
  CHECK(replay::lockstep::find_groups(one_retry_each(eight)).groups.size() == 1);
  const auto r7 = replay::lockstep::find_groups(one_retry_each(seven));
  CHECK(r7.groups.empty());
  CHECK(r7.dispersed.empty());
}

// 8 first retries at exactly 10.000 s, and m others spread evenly over
// [9.5, 9.98] and [10.02, 10.5] s (never within 10 ms of the 8, at most 3 of
// them within 10 ms of each other). Chance level: m * 10 ms / (2 * 500 ms) =
// m / 100 per window; the group needs 8 >= 4 * m / 100, i.e. m <= 200.
TEST_CASE("lockstep chance ratio: 8 together among 200 neighbours is a group, among 201 it is not") {
  const auto build = [](int m) {
    std::vector<std::int64_t> t(8, 10'000'000);
    const int left = m / 2, right = m - m / 2;
    for (int k = 0; k < left; ++k) t.push_back(9'500'000 + k * 480'000 / std::max(1, left - 1));
    for (int k = 0; k < right; ++k) t.push_back(10'020'000 + k * 480'000 / std::max(1, right - 1));
    return t;
  };
  SUBCASE("m = 200") {
    const auto r = replay::lockstep::find_groups(one_retry_each(build(200)));
    REQUIRE(r.groups.size() == 1);
    CHECK(r.groups[0].members == 8);
    REQUIRE(r.dispersed.size() == 1);
    CHECK(r.dispersed[0].chains == 200);
  }
  SUBCASE("m = 201") {
    const auto r = replay::lockstep::find_groups(one_retry_each(build(201)));
    CHECK(r.groups.empty());
    REQUIRE(r.dispersed.size() == 1);
    CHECK(r.dispersed[0].chains == 209);
    CHECK(r.dispersed[0].largest_cluster == 8);
  }
}

// The same 8 among 200 neighbours in [9.5, 10.5] s, plus one more just
// outside the 500 ms neighbourhood (10.5 s + 1 us): still 200 counted, a
// group. Moved to exactly 10.5 s (10.000 + 0.500), it counts: 201, no group.
TEST_CASE("lockstep chance neighbourhood: a retry 500 ms + 1 us away does not count, one 500 ms away does") {
  const auto build = [](std::int64_t extra) {
    std::vector<std::int64_t> t(8, 10'000'000);
    for (int k = 0; k < 100; ++k) t.push_back(9'500'000 + k * 480'000 / 99);
    for (int k = 0; k < 100; ++k) t.push_back(10'020'000 + k * 470'000 / 99);  // up to 10.49 s
    t.push_back(extra);
    return t;
  };
  CHECK(replay::lockstep::find_groups(one_retry_each(build(10'500'001))).groups.size() == 1);
  CHECK(replay::lockstep::find_groups(one_retry_each(build(10'500'000))).groups.empty());
}

TEST_CASE("lockstep offsets: kept while within the window, the first wider one is where jitter took over") {
  // 8 connections started at 0; retry 1 at 1.000 s for all; retry 2 at 3.000 s
  // + i * d for connection i = 0..7, so its spread is 7 * d.
  const auto build = [](std::int64_t d) {
    std::vector<Attempt> v;
    for (int i = 0; i < 8; ++i)
      v.push_back(attempt(static_cast<std::uint8_t>(i + 1), 40000, 0, {1'000'000, 3'000'000 + i * d}));
    return v;
  };
  SUBCASE("spread 7 * 1428 = 9996 us <= 10 ms: two lockstep offsets, +1.000 and +3.004998 s") {
    const auto r = replay::lockstep::find_groups(build(1428));
    REQUIRE(r.groups.size() == 1);
    REQUIRE(r.groups[0].offsets.size() == 2);
    CHECK(r.groups[0].offsets[0].offset == microseconds{1'000'000});
    // mean of 3'000'000 + 1428 * (0 + 1 + ... + 7) / 8 = 3'000'000 + 1428 * 3.5 = 3'004'998 us
    CHECK(r.groups[0].offsets[1].offset == microseconds{3'004'998});
    CHECK(r.groups[0].offsets[1].spread == microseconds{9'996});
    CHECK_FALSE(r.groups[0].dispersed.has_value());
    CHECK(r.groups[0].message.find("no jitter") != std::string::npos);
  }
  SUBCASE("spread 7 * 1429 = 10003 us > 10 ms: one lockstep offset, dispersed at retry 2") {
    const auto r = replay::lockstep::find_groups(build(1429));
    REQUIRE(r.groups.size() == 1);
    CHECK(r.groups[0].offsets.size() == 1);
    REQUIRE(r.groups[0].dispersed.has_value());
    CHECK(r.groups[0].dispersed->retry == 2);
    CHECK(r.groups[0].dispersed->spread == microseconds{10'003});
    CHECK(r.groups[0].message.find("no jitter until retry 1") != std::string::npos);
  }
  SUBCASE("a retry position that fewer than 8 members reach ends the offsets, without dispersion") {
    auto v = build(0);
    v[0].retransmits.pop_back();  // 7 members have a 2nd retry
    const auto r = replay::lockstep::find_groups(v);
    REQUIRE(r.groups.size() == 1);
    CHECK(r.groups[0].offsets.size() == 1);
    CHECK_FALSE(r.groups[0].dispersed.has_value());
  }
}

TEST_CASE("lockstep reconnects: a host's new SYN after a failure continues its chain; success ends it") {
  SUBCASE("8 hosts refused twice, then connected: one reconnect group at +1.010 and +3.020 s") {
    // Per host: SYN at 0, RST at 10 ms; wait 1 s: SYN at 1.010 s, RST at 1.020 s;
    // wait 2 s: SYN at 3.020 s, SYN-ACK. Offsets after the first SYN: 1.010, 3.020 s.
    std::vector<Attempt> v;
    for (std::uint8_t h = 1; h <= 8; ++h) {
      v.push_back(attempt(h, 40000, 0, {}, Outcome::rst, 10'000));
      v.push_back(attempt(h, 40001, 1'010'000, {}, Outcome::rst, 1'020'000));
      v.push_back(attempt(h, 40002, 3'020'000, {}, Outcome::syn_ack, 3'030'000));
    }
    const auto r = replay::lockstep::find_groups(v);
    REQUIRE(r.groups.size() == 1);
    const auto& g = r.groups[0];
    CHECK(g.kind == RetryKind::reconnect);
    CHECK(g.members == 8);
    CHECK(g.client_hosts == 8);
    REQUIRE(g.offsets.size() == 2);
    CHECK(g.offsets[0].offset == microseconds{1'010'000});
    CHECK(g.offsets[1].offset == microseconds{3'020'000});
  }
  SUBCASE("two attempts outstanding on one host: the oldest failure is continued first") {
    // Per host: A at 0 (RST at 10 ms) and B at 1 ms (RST at 11 ms); new SYNs
    // at 1.000 s (continues A) and 1.500 s (continues B). Two groups of 8:
    // A's offset 1.000 - 0 = 1.000 s, B's 1.500 - 0.001 = 1.499 s.
    std::vector<Attempt> v;
    for (std::uint8_t h = 1; h <= 8; ++h) {
      v.push_back(attempt(h, 40000, 0, {}, Outcome::rst, 10'000));
      v.push_back(attempt(h, 40001, 1'000, {}, Outcome::rst, 11'000));
      v.push_back(attempt(h, 40002, 1'000'000, {}, Outcome::syn_ack, 1'010'000));
      v.push_back(attempt(h, 40003, 1'500'000, {}, Outcome::syn_ack, 1'510'000));
    }
    const auto r = replay::lockstep::find_groups(v);
    REQUIRE(r.groups.size() == 2);
    CHECK(r.groups[0].offsets.at(0).offset == microseconds{1'000'000});
    CHECK(r.groups[1].offsets.at(0).offset == microseconds{1'499'000});
    CHECK(r.groups[0].client_hosts == 8);
  }
  SUBCASE("a new SYN after a success is not a reconnect") {
    std::vector<Attempt> v;
    for (std::uint8_t h = 1; h <= 8; ++h) {
      v.push_back(attempt(h, 40000, 0, {}, Outcome::syn_ack, 10'000));
      v.push_back(attempt(h, 40001, 5'000'000, {}, Outcome::syn_ack, 5'010'000));
    }
    const auto r = replay::lockstep::find_groups(v);
    CHECK(r.groups.empty());
    CHECK(r.dispersed.empty());
  }
}

TEST_CASE("lockstep collector: SYN, its retransmission (same ISN) and the server's RST make one attempt") {
  replay::lockstep::AttemptCollector c;
  replay::Segment syn;
  syn.frame = 1;
  syn.time = at_us(0);
  syn.src = ep(1, 40000);
  syn.dst = kServer;
  syn.tcp.flags = wire::kSyn;
  syn.tcp.seq = 777;
  replay::lockstep::AttemptRef ref = replay::lockstep::kNoAttempt;
  c.add(syn, 0, syn.src, kServer, ref);
  auto retx = syn;
  retx.frame = 2;
  retx.time = at_us(1'000'000);
  c.add(retx, 0, syn.src, kServer, ref);
  replay::Segment rst;
  rst.frame = 3;
  rst.time = at_us(1'000'100);
  rst.src = kServer;
  rst.dst = syn.src;
  rst.tcp.flags = wire::kRst | wire::kAck;
  c.add(rst, 0, syn.src, kServer, ref);
  auto late = syn;  // after the end: not a retransmission of this attempt
  late.frame = 4;
  late.time = at_us(2'000'000);
  c.add(late, 0, syn.src, kServer, ref);
  const auto a = c.attempts();
  REQUIRE(a.size() == 1);
  CHECK(a[0].first.frame == 1);
  REQUIRE(a[0].retransmits.size() == 1);
  CHECK(a[0].retransmits[0].frame == 2);
  CHECK(a[0].outcome == Outcome::rst);
  REQUIRE(a[0].end.has_value());
  CHECK(a[0].end->frame == 3);
}

// tests/captures/storm: `reconnect-storm --connections 200 --mode refuse
// --strategy exponential,full-jitter --pcap tests/captures/storm`. Each
// client's SYN reaches the server 5 ms after it is sent and the RST is back
// 5 ms later: an attempt fails 10 ms after it starts. Exponential (1 s, x2):
// new SYNs at 0.010 + 1 = 1.010, 1.020 + 2 = 3.020, 3.030 + 4 = 7.030,
// 7.040 + 8 = 15.040, 15.050 + 16 = 31.050 s (the server opens at 30 s),
// for all 200 clients at once: one reconnect group, spread 0.
TEST_CASE("lockstep on the storm capture, exponential backoff: one group of 200 at +1.01, +3.02, +7.03, +15.04, +31.05 s") {
  const auto r = analyze("tests/captures/storm/storm-refuse-exponential.pcap", replaytest::Profile::rfc6298);
  REQUIRE(r.lockstep.groups.size() == 1);
  const auto& g = r.lockstep.groups[0];
  CHECK(g.kind == RetryKind::reconnect);
  CHECK(g.members == 200);
  CHECK(g.client_hosts == 200);
  const std::int64_t expect[] = {1'010'000, 3'020'000, 7'030'000, 15'040'000, 31'050'000};
  REQUIRE(g.offsets.size() == 5);
  for (std::size_t k = 0; k < 5; ++k) {
    CAPTURE(k);
    CHECK(g.offsets[k].offset == microseconds{expect[k]});
    CHECK(g.offsets[k].spread == microseconds{0});
    CHECK(g.offsets[k].members == 200);
  }
  CHECK_FALSE(g.dispersed.has_value());
  CHECK(r.lockstep.dispersed.empty());
  std::ostringstream os;
  replay::write_text_report(os, r);
  CHECK(os.str().find("[INFO lockstep]") != std::string::npos);
  CHECK(os.str().find("; lockstep: 1 group(s)") != std::string::npos);
  const auto j = replay::to_json(r);
  REQUIRE(j["lockstep"].size() == 1);
  CHECK(j["lockstep"][0]["members"] == 200);
  CHECK(j["lockstep"][0]["offsets"].size() == 5);
  CHECK(j["lockstep"][0]["offsets"][0]["frames"].size() == 200);
}

// Full jitter: the first wait is U[0, 1 s], so first reconnects come
// 0.010 s + U[0, 1 s] after the first SYN: spread under 1 s, standard
// deviation near 1 s / sqrt(12) = 288.7 ms (200 draws: within +-40 ms), and
// far fewer than 8 within any 10 ms (about 200 * 10 / 1000 = 2 expected).
TEST_CASE("lockstep on the storm capture, full jitter: no group, the dispersion is reported") {
  const auto r = analyze("tests/captures/storm/storm-refuse-full-jitter.pcap", replaytest::Profile::rfc6298);
  CHECK(r.lockstep.groups.empty());
  REQUIRE(r.lockstep.dispersed.size() == 1);
  const auto& d = r.lockstep.dispersed[0];
  CHECK(d.kind == RetryKind::reconnect);
  CHECK(d.chains == 200);
  CHECK(d.spread <= microseconds{1'000'000});
  CHECK(d.spread >= microseconds{900'000});
  CHECK(d.stddev >= microseconds{248'000});
  CHECK(d.stddev <= microseconds{329'000});
  CHECK(d.largest_cluster < kMinGroupSize);
  std::ostringstream os;
  replay::write_text_report(os, r);
  CHECK(os.str().find("[INFO dispersed]") != std::string::npos);
  CHECK(replay::summary_line(r).find("lockstep") == std::string::npos);  // no group in the summary
}

// tests/captures/lockstep: 200 sockets in namespace a and 8 in b connect at
// T0, 16 more in b at T0 + 0.5 s, to a blackholed port. Truth: meta.json
// (the script's setup and the kernel's TcpExtTCPSynRetrans in each client
// namespace). The kernel's SYN schedule on this 6.18 kernel, read off the
// capture: tcp_syn_linear_timeouts = 4 keeps the initial 1 s RTO for 4 more
// timeouts (5 in all), then doubles: waits 1, 1, 1, 1, 1, 2, 4, 8, 16, 32 s,
// i.e. retransmissions at +1, +2, +3, +4, +5, +7, +11, +19, +35, +67 s
// (tcp_syn_retries = 6 bounds the time, 2^7 - 1 = 127 s, not the count),
// each wait rounded up by the timer wheel (at most 1/8 late, plus a 4 ms jiffy).
TEST_CASE("lockstep on the kernel capture: the groups the script set up, the kernel's unjittered SYN schedule") {
  const auto meta = nlohmann::json::parse(slurp("tests/captures/lockstep/lockstep-syn.meta.json"));
  const auto r = analyze("tests/captures/lockstep/lockstep-syn.pcap", replaytest::Profile::linux_kernel);
  const auto& truth = meta["truth"];
  REQUIRE(r.lockstep.groups.size() == truth["lockstep_groups"].size());
  CHECK(r.lockstep.dispersed.empty());
  const std::int64_t nominal_wait_s[] = {1, 1, 1, 1, 1, 2, 4, 8, 16, 32};
  std::size_t retransmissions = 0;
  for (std::size_t i = 0; i < r.lockstep.groups.size(); ++i) {
    CAPTURE(i);
    const auto& g = r.lockstep.groups[i];
    const auto& t = truth["lockstep_groups"][i];
    CHECK(g.kind == RetryKind::syn_retransmission);
    CHECK(g.members == t["members"].get<std::size_t>());
    CHECK(g.client_hosts == t["clients"].size());
    CHECK(std::abs(replay::to_seconds(g.start) - t["start_at"].get<double>()) < 0.01);
    CHECK_FALSE(g.dispersed.has_value());
    REQUIRE(g.offsets.size() == 10);
    microseconds prev{0};
    for (std::size_t k = 0; k < g.offsets.size(); ++k) {
      CAPTURE(k);
      const auto wait = g.offsets[k].offset - prev;
      const microseconds nominal{nominal_wait_s[k] * 1'000'000};
      CHECK(wait >= nominal - microseconds{4'000});
      CHECK(wait <= nominal + nominal / 8 + microseconds{4'000});
      CHECK(g.offsets[k].spread <= kLockstepWindow);
      CHECK(g.offsets[k].members == g.members);
      retransmissions += g.offsets[k].members;
      prev = g.offsets[k].offset;
    }
  }
  // Every SYN retransmission the kernel counted is in a group.
  CHECK(retransmissions == truth["nstat_TcpExtTCPSynRetrans"]["a"].get<std::size_t>() +
                               truth["nstat_TcpExtTCPSynRetrans"]["b"].get<std::size_t>());
}

// --shard K/N and -j N (Options::shard_k, shard_n): a shard reports only its own
// connections, and reports each as the whole run does, because the
// connections it does not analyse still feed what their hosts share
// (SenderEngine::feed_only): here, the client host's activity, where another
// connection's late ACK shows a queue flush that changes this one's verdict.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include <replay/pipeline/analyze_parallel.hpp>
#include <replay/report/report_json.hpp>

#include "replay_scenario.hpp"

using namespace replaytest;
using replay::FlowReport;
using replay::Level;

namespace {
constexpr std::int64_t ms = 1000;

// Connection A (client port 40000): handshake at 0 (100 ms round trip); the
// server's data [1,101) at 150 ms; the client's data [1,1001) at 200 ms,
// acknowledged at 300 ms; then the client's pure ACK of the server's data
// at 800 ms: the first ACK of data that arrived 650 ms before, over
// kDelayedAckMax (500 ms), so it was held in the client's queue.
Scenario connection_a() {
  Scenario a;
  a.handshake(0, 100 * ms);
  a.pkts.push_back({150 * ms, false, 1, 1, wire::kAck | wire::kPsh, 100, {}, {}, {}});
  a.data(200 * ms, 1);
  a.ack(300 * ms, 1001);
  a.pkts.push_back({800 * ms, true, 1001, 101, wire::kAck, 0, {}, {}, {}});
  return a;
}

// Connection B (client port 40001), the same two hosts: handshake at 100 ms
// (100 ms round trip: SRTT 100, RTTVAR 50, RTO without the 2.4 floor
// 100 + 4 x 50 = 300 ms); data [1,1001) at 801 ms, and again at 1001 ms.
// The client host was silent from 200.01 ms to 800 ms (over kFlushSilence,
// 500 ms), and B's data is 1 ms after A's held ACK (within kFlushWindow,
// 5 ms): a flushed burst, so 801 ms is no send time and the wait is 200 ms
// or more: it may hold 300 ms (cannot tell). Without A's ACK, the wait is
// 200 ms, below 300 less 10 % and 1 ms (269 ms): 5.3/5.6 broken (MUST).
// Another connection of the same two hosts (client port 40001, other ISNs).
Scenario second_connection() {
  Scenario b;
  b.client_port = 40001;
  b.client_isn = 5000;
  b.server_isn = 900000;
  return b;
}

Scenario connection_b() {
  Scenario b = second_connection();
  b.handshake(100 * ms, 100 * ms);
  b.data(801 * ms, 1);
  b.data(1001 * ms, 1);
  return b;
}

// The packets of `scenarios`, interleaved by time, as one pcap file.
std::string write_together(const std::vector<Scenario>& scenarios, const std::string& name) {
  struct Timed {
    std::int64_t t_us;
    testcommon::Record rec;
  };
  std::vector<Timed> all;
  for (const Scenario& sc : scenarios)
    for (const Pkt& p : sc.pkts)
      all.push_back({p.t_us, {static_cast<std::uint32_t>(sc.epoch_s + p.t_us / 1'000'000),
                              static_cast<std::uint32_t>(p.t_us % 1'000'000), sc.packet(p), 0}});
  std::stable_sort(all.begin(), all.end(), [](const Timed& x, const Timed& y) { return x.t_us < y.t_us; });
  std::vector<testcommon::Record> recs;
  for (Timed& t : all) recs.push_back(std::move(t.rec));
  const auto path = std::filesystem::temp_directory_path() / ("rto-shard-" + std::to_string(::getpid()) + "-" + name + ".pcap");
  const Bytes b = testcommon::pcap_file(testcommon::kPcapMagicMicros, 101, recs);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  return path.string();
}

// Files removed when it goes, a test that stops at a failed REQUIRE too.
struct Removed {
  std::vector<std::string> paths;
  ~Removed() {
    std::error_code ec;
    for (const std::string& p : paths) std::filesystem::remove(p, ec);
  }
};

// Every connection the analysis of `file` under shard k of n finished, as
// its sink had them (the shard's and, elsewhere, the others').
std::vector<FlowReport> run_shard(const std::string& file, std::uint32_t k, std::uint32_t n) {
  replay::Options o = replay::Options::for_profile("rfc6298");
  o.shard_k = k;
  o.shard_n = n;
  std::vector<std::string> errors;
  std::vector<FlowReport> flows;
  replay::analyze_files({file}, o, false, errors, [&](FlowReport& f, replay::CaptureTime) { flows.push_back(f); });
  REQUIRE(errors.empty());
  return flows;
}

// Calls f(n, shard of A, shard of B) for each shard count from 2 to 6 that
// puts connections 1 (A) and 2 (B) apart; how many did.
template <class F>
int for_each_split(F f) {
  int apart = 0;
  for (std::uint32_t n = 2; n <= 6; ++n) {
    const std::uint32_t sa = replay::Options::shard_of(1, n), sb = replay::Options::shard_of(2, n);
    if (sa == sb) continue;
    ++apart;
    f(n, sa, sb);
  }
  return apart;
}
}  // namespace

TEST_CASE("shards: each connection in exactly one shard, by a hash of its id") {
  for (std::uint32_t n : {1u, 2u, 3u, 7u}) {
    std::vector<std::size_t> per(n + 1, 0);
    for (std::size_t id = 1; id <= 7000; ++id) {
      const std::uint32_t s = replay::Options::shard_of(id, n);
      REQUIRE(s >= 1);
      REQUIRE(s <= n);
      ++per[s];
      replay::Options o;
      o.shard_n = n;
      for (std::uint32_t k = 1; k <= n; ++k) {
        o.shard_k = k;
        CHECK(o.owns(id) == (k == s));
      }
    }
    // A hash, not id mod n: every shard within 10 % of an even split.
    for (std::uint32_t k = 1; k <= n; ++k) CHECK(per[k] * 10 * n >= 9 * 7000);
  }
}

TEST_CASE("shards: another shard's connection still feeds its host's activity (a flush it shows)") {
  const std::string both = write_together({connection_a(), connection_b()}, "both");
  const std::string b_alone = write_together({connection_b()}, "b-alone");
  const Removed removed{{both, b_alone}};
  // The whole run: B's resend cannot be judged (flushed), A has nothing.
  const auto whole = run_shard(both, 1, 1);
  REQUIRE(whole.size() == 2);
  const FlowReport& b_whole = whole[1];
  REQUIRE(b_whole.senders[0].timeouts.size() == 1);
  CHECK(musts(b_whole.senders[0]) == 0);
  // The departure the flush excuses: B without A is broken (MUST).
  const auto alone = run_shard(b_alone, 1, 1);
  REQUIRE(alone.size() == 1);
  CHECK(musts(alone[0].senders[0]) == 1);
  // Every shard count where A (id 1) and B (id 2) fall apart: B's shard
  // replays A without judging it, and reports B as the whole run does.
  const int apart = for_each_split([&](std::uint32_t n, std::uint32_t sa, std::uint32_t sb) {
    const auto flows = run_shard(both, sb, n);
    REQUIRE(flows.size() == 2);
    CHECK(flows[0].elsewhere);
    CHECK(flows[0].senders[0].data_segments == 0);  // A's senders are its own shard's to report
    CHECK_FALSE(flows[1].elsewhere);
    CHECK(musts(flows[1].senders[0]) == 0);
    CHECK(flows[1].senders[0].timeouts.size() == b_whole.senders[0].timeouts.size());
    CHECK(flows[1].senders[0].findings.size() == b_whole.senders[0].findings.size());
    // And A's shard reports A, with B elsewhere.
    const auto other = run_shard(both, sa, n);
    CHECK_FALSE(other[0].elsewhere);
    CHECK(other[1].elsewhere);
    CHECK(other[0].senders[0].data_segments == whole[0].senders[0].data_segments);
  });
  CHECK(apart > 0);
}

namespace {
// One client host numbering every connection's TSvals from one 1 kHz clock
// (TSval = 1000 + ms since the start; no per-connection offset). A (client
// port 40000) sends data every 100 ms for 0.9 s; B (port 40001) lives 50 ms
// from 1100 ms on: too short (limits::kTsClockMinSpan, 200 ms) for its own
// TSvals to give a rate, so B's clock is its host's, which A's TSvals fitted
// (RFC 7323 5.4: one clock across connections).
Pkt with_ts(Pkt p, std::uint32_t tsval, std::uint32_t tsecr) {
  p.tsval = tsval;
  p.tsecr = tsecr;
  return p;
}
std::uint32_t client_ts(std::int64_t t_us) { return 1000 + static_cast<std::uint32_t>(t_us / ms); }

// A is captured mid-stream from the server's ACK at 0 on: its first
// segment (whose effect on its host the routing replays, Live::deferred) is
// the server's, so every client TSval of A reaches the client host through
// A's engines only.
Scenario ts_connection_a() {
  Scenario a;
  a.pkts.push_back(with_ts({0, false, 1, 1, wire::kAck, 0, {}, {}, {}}, 4999, client_ts(0)));
  for (std::uint32_t k = 1; k <= 10; ++k) {
    const std::int64_t t = k * 100 * ms;
    a.pkts.push_back(with_ts({t, true, 1 + 1000 * (k - 1), 1, wire::kAck | wire::kPsh, 1000, {}, {}, {}}, client_ts(t), 5000));
    a.pkts.push_back(with_ts({t + 10 * ms, false, 1, 1 + 1000 * k, wire::kAck, 0, {}, {}, {}}, 5000 + k, client_ts(t)));
  }
  return a;
}

Scenario ts_connection_b() {
  Scenario b = second_connection();
  const std::int64_t t0 = 1100 * ms;
  b.pkts.push_back(with_ts({t0, true, 0, 0, wire::kSyn, 0, {}, {}, {}}, client_ts(t0), 0));
  b.pkts.push_back(with_ts({t0 + 10 * ms, false, 0, 1, wire::kSyn | wire::kAck, 0, {}, {}, {}}, 7000, client_ts(t0)));
  b.pkts.push_back(with_ts({t0 + 10 * ms + 10, true, 1, 1, wire::kAck, 0, {}, {}, {}}, client_ts(t0 + 10 * ms), 7000));
  b.pkts.push_back(with_ts({t0 + 50 * ms, true, 1, 1, wire::kAck | wire::kPsh, 1000, {}, {}, {}}, client_ts(t0 + 50 * ms), 7000));
  b.pkts.push_back(with_ts({t0 + 60 * ms, false, 1, 1001, wire::kAck, 0, {}, {}, {}}, 7001, client_ts(t0 + 50 * ms)));
  return b;
}
}  // namespace

TEST_CASE("shards: another shard's connection still feeds its host's TSval clock") {
  const std::string both = write_together({ts_connection_a(), ts_connection_b()}, "ts-both");
  const std::string b_alone = write_together({ts_connection_b()}, "ts-b-alone");
  const Removed removed{{both, b_alone}};
  const auto whole = run_shard(both, 1, 1);
  REQUIRE(whole.size() == 2);
  // The whole run: B's clock is its host's 1 kHz (A's 1 s of TSvals).
  REQUIRE(whole[1].senders[0].inferred.tsval_hz.has_value());
  CHECK(*whole[1].senders[0].inferred.tsval_hz == doctest::Approx(1000.0));
  // Alone, B's 50 ms of TSvals give no rate.
  const auto alone = run_shard(b_alone, 1, 1);
  REQUIRE(alone.size() == 1);
  CHECK_FALSE(alone[0].senders[0].inferred.tsval_hz.has_value());
  const int apart = for_each_split([&](std::uint32_t n, std::uint32_t, std::uint32_t sb) {
    const auto flows = run_shard(both, sb, n);
    REQUIRE(flows.size() == 2);
    CHECK(flows[0].elsewhere);
    REQUIRE(flows[1].senders[0].inferred.tsval_hz.has_value());
    CHECK(*flows[1].senders[0].inferred.tsval_hz == doctest::Approx(1000.0));
  });
  CHECK(apart > 0);
}

// -j N (analyze_files_parallel): the shards in threads, put back together.
TEST_CASE("threads: -j 2 and -j 3 give analyze_files's report, kept or streamed, and its connections in order") {
  const std::string lab = "tests/captures/lab/many-flows.pcap";  // 120 connections of the kernel, losses
  const std::string made = write_together({connection_a(), connection_b(), ts_connection_a(), ts_connection_b()}, "jobs");
  const Removed removed{{made}};
  for (const std::string& file : {lab, made}) {
    for (const char* profile : {"rfc6298", "auto"}) {
      const replay::Options o = replay::Options::for_profile(profile);
      std::vector<std::string> errors;
      const replay::Report one = replay::analyze_files({file}, o, true, errors);
      REQUIRE(errors.empty());
      const std::string want = replay::dump_document(replay::to_json(one));
      for (unsigned jobs : {2u, 3u}) {
        CAPTURE(file);
        CAPTURE(profile);
        CAPTURE(jobs);
        // Kept: the whole Report, as its JSON document says it.
        const replay::Report kept = replay::analyze_files_parallel({file}, o, jobs, true, errors);
        CHECK(replay::dump_document(replay::to_json(kept)) == want);
        CHECK(kept.flows.size() == one.flows.size());
        // Streamed: every connection once, in id order, then the totals.
        std::vector<std::size_t> ids;
        std::string streamed_flows;
        replay::SinkMode drop;
        drop.keep_reports = false;
        const replay::Report s = replay::analyze_files_parallel(
            {file}, o, jobs, false, errors,
            [&](FlowReport& f, replay::CaptureTime origin) {
              ids.push_back(f.id);
              nlohmann::json e = nlohmann::json::array();
              replay::append_flow_json(e, f, o, std::nullopt, origin, {});
              streamed_flows += e.dump();
            },
            nullptr, drop);
        std::vector<std::size_t> in_order(one.flows.size());
        for (std::size_t i = 0; i < in_order.size(); ++i) in_order[i] = i + 1;
        CHECK(ids == in_order);
        CHECK(s.flows.empty());
        CHECK(s.flow_count() == one.flow_count());
        for (Level l : {Level::must, Level::should, Level::may, Level::info}) CHECK(s.count(l) == one.count(l));
        std::string want_flows;
        for (const FlowReport& f : one.flows) {
          nlohmann::json e = nlohmann::json::array();
          replay::append_flow_json(e, f, o, std::nullopt, one.origin_of(f.file_index), {});
          want_flows += e.dump();
        }
        CHECK(streamed_flows == want_flows);
      }
    }
  }
}

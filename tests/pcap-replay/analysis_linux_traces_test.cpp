// End-to-end analysis of the real Linux captures in ../shared/traces/linux
// against the kernel's own ground truth (.meta.json verification and
// counters, .truth.csv sampled tcp_info), with both profiles.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "replay_scenario.hpp"

using namespace replaytest;
using replay::Level;
using replaytest::Profile;
using replay::SendKind;

namespace {

const char* const kTraces[] = {"bulk-clean", "blackhole-backoff", "syn-loss", "random-loss", "ipv6"};

nlohmann::json meta(const std::string& name) {
  std::ifstream in(shared_dir() / "traces" / "linux" / (name + ".meta.json"));
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

double rel_s(const replay::Report& r, replay::CaptureTime t) {
  return std::chrono::duration<double>(t - r.first_time).count();
}


struct TruthRow {
  std::int64_t t_ns;
  double rto_ms, srtt_ms;
  int backoff;
  std::string state;
};

std::vector<TruthRow> truth(const std::string& name) {
  std::ifstream in(shared_dir() / "traces" / "linux" / (name + ".truth.csv"));
  REQUIRE(in.good());
  std::string line;
  std::getline(in, line);
  std::vector<std::string> head;
  {
    std::stringstream ss(line);
    std::string c;
    while (std::getline(ss, c, ',')) head.push_back(c);
  }
  auto col = [&](const std::string& n) {
    auto it = std::find(head.begin(), head.end(), n);
    REQUIRE(it != head.end());
    return static_cast<std::size_t>(it - head.begin());
  };
  const std::size_t ct = col("t_wall"), crto = col("rto_ms"), csrtt = col("srtt_ms"), cb = col("backoff"),
                    cs = col("state");
  std::vector<TruthRow> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string c;
    while (std::getline(ss, c, ',')) f.push_back(c);
    if (f.size() < head.size() - 1) continue;
    rows.push_back({static_cast<std::int64_t>(std::llround(std::stod(f[ct]) * 1e9)), std::stod(f[crto]),
                    std::stod(f[csrtt]), std::stoi(f[cb]), f[cs]});
  }
  return rows;
}

}  // namespace

TEST_CASE("linux traces, profile linux: every kernel RTO expiry is found as a timeout, nothing else is, no MUST") {
  for (const char* name : kTraces) {
    CAPTURE(name);
    auto r = analyze(linux_trace(name), Profile::linux_kernel);
    REQUIRE(r.flows.size() == 1);
    CHECK(r.diagnostics.empty());
    const auto& c = client(r);
    const auto m = meta(name);
    const auto& vf = m["verification"]["flows"][0];
    const auto timeouts_kernel = m["sender_netns_counters"]["TcpExt.TCPTimeouts"].get<std::size_t>();
    CHECK(vf["rto_expiries"].get<std::size_t>() == timeouts_kernel);
    // Every expiry (total_rto) is a timeout here, at the same time and sequence.
    REQUIRE(c.timeouts.size() == timeouts_kernel);
    for (std::size_t i = 0; i < c.timeouts.size(); ++i) {
      const auto& ev = vf["chain"][i];
      CAPTURE(i);
      CHECK(std::abs(rel_s(r, c.timeouts[i].time) - ev["t_rel_s"].get<double>()) < 0.001);
      CHECK(c.timeouts[i].rel_seq == ev["seq_rel"].get<std::uint32_t>());
      CHECK(c.timeouts[i].verdict == replay::Verdict::ok);
    }
    // All retransmitted segments are accounted for, and probes are probes.
    CHECK(c.retransmissions() == m["sender_netns_counters"]["Tcp.RetransSegs"].get<std::uint64_t>());
    CHECK(count(c, SendKind::tlp) <= m["sender_netns_counters"]["TcpExt.TCPLossProbes"].get<std::uint64_t>());
    CHECK(r.count(Level::must) == 0);
    CHECK(r.exit_status(false) == 0);
  }
}

TEST_CASE("linux traces, profile linux: syn-loss notes 5.7 as Linux's documented departure (the handshake's RTO kept)") {
  // The README: after the SYN-ACK, srtt 40 ms, rttvar 20 ms, rto 240 ms
  // (40 + max(200, 4 x 20) = 240: the SYN-ACK's TSecr gave a valid sample),
  // not 5.7's 3 s; "a checker should at least report it". Linux applies
  // 3 s only when the handshake gave no sample (tcp_init_metrics): an INFO
  // on the SYN-ACK (frame 8), no MUST.
  auto r = analyze(linux_trace("syn-loss"), Profile::linux_kernel);
  const auto& c = client(r);
  const auto js = findings(c, "5.7");
  REQUIRE(js.size() == 1);
  const auto& j = js[0];
  CHECK(j.level == Level::info);
  CHECK(j.topic == replay::Topic::sample_kept_57);
  CHECK(j.frame == 8);
  REQUIRE(j.alternative);
  REQUIRE(j.predicted);
  CHECK(j.alternative->lo == std::chrono::milliseconds{240});  // the kept RTO
  CHECK(j.predicted->lo == std::chrono::seconds{3});           // 5.7's
  CHECK(r.count(Level::must) == 0);
  // Without a SYN timeout there is nothing to note.
  CHECK(findings(client(analyze(linux_trace("bulk-clean"), Profile::linux_kernel)), "5.7").empty());
}

// The share of truth.csv rows the replay must match: the README's claim.
// The rows are tcp_info polled at their own times, so a row taken between the
// kernel's update and the capture's copy of the ACK lags one sample (measured:
// blackhole-backoff 600 of 601 RTO rows, 593 of 596 SRTT rows; random-loss
// 2259 of 2268 SRTT rows; every other trace all rows).
constexpr std::size_t kTruthAgreementPercent = 99;

TEST_CASE("linux traces, profile linux: the replayed RTO and SRTT follow the kernel's tcp_info (truth.csv)") {
  for (const char* name : kTraces) {
    CAPTURE(name);
    auto r = analyze(linux_trace(name), Profile::linux_kernel, true);
    const auto& tl = client(r).timeline;
    REQUIRE(!tl.empty());
    std::size_t rows = 0, rto_ok = 0, srtt_rows = 0, srtt_ok = 0;
    for (const TruthRow& row : truth(name)) {
      if (row.backoff != 0) continue;  // outside backoff
      // The state after the last event at or before the row's time.
      auto it = std::upper_bound(tl.begin(), tl.end(), row.t_ns, [](std::int64_t t, const replay::TimelineEvent& e) {
        return t < e.time.time_since_epoch().count();
      });
      if (it == tl.begin()) continue;
      const auto& e = *std::prev(it);
      ++rows;
      const double rto_ms = static_cast<double>(e.rto.count()) / 1000.0;
      if (std::abs(rto_ms - row.rto_ms) <= std::max(4.0, 0.02 * row.rto_ms)) ++rto_ok;
      if (row.state != "SYN_SENT" && e.srtt) {
        ++srtt_rows;
        if (std::abs(static_cast<double>(e.srtt->count()) / 1000.0 - row.srtt_ms) <= 1.0) ++srtt_ok;
      }
    }
    INFO(std::string(name) << ": rows " << rows << " rto ok " << rto_ok << " srtt rows " << srtt_rows << " srtt ok " << srtt_ok);
    CHECK(rows > 100);
    CHECK(rto_ok * 100 >= rows * kTruthAgreementPercent);   // RTO within 4 ms or 2 %          // within 4 ms or 2 % for >= 95 % of rows
    CHECK(srtt_ok * 100 >= srtt_rows * kTruthAgreementPercent);  // SRTT within 1 ms    // SRTT within 1 ms (98 % of rows: one row lags a sample)
  }
}

TEST_CASE("linux traces, profile rfc6298: the departures the traces' README predicts") {
  SUBCASE("syn-loss: 5.5 for the linear SYN timeouts, and an INFO 5.7 note") {
    auto r = analyze(linux_trace("syn-loss"), Profile::rfc6298);
    const auto& c = client(r);
    CHECK(c.timeouts.size() == 6);
    // Gaps 1.026, 1.020, 1.024, 1.024, 1.024, 2.016 s: the 2nd..5th do not double.
    CHECK(findings(c, "5.5").size() == 4);
    // 5.7: the SYN timed out and the SYN-ACK's TSecr gave a 40 ms sample; the
    // next sample (the first data ACK, frame 11) came before any data timeout,
    // so whether the sender used 3 s cannot be seen: an INFO note on the
    // SYN-ACK (frame 8), no MUST (the README: "a 5.7 finding or a noted exception").
    REQUIRE(findings(c, "5.7").size() == 1);
    CHECK(findings(c, "5.7")[0].level == Level::info);
    CHECK(findings(c, "5.7")[0].frame == 8);
    CHECK(message(findings(c, "5.7")[0]).find("not verifiable from the wire") != std::string::npos);
    CHECK(r.count(Level::must) == 4);
    CHECK(findings(c, "2.1").empty());  // the first SYN waited 1.026 s
    CHECK(r.exit_status(false) == 1);
  }
  SUBCASE("blackhole-backoff and ipv6: 2.4 (base RTO ~340 ms), no 5.5, TLP not a timeout") {
    for (const char* name : {"blackhole-backoff", "ipv6"}) {
      CAPTURE(name);
      auto r = analyze(linux_trace(name), Profile::rfc6298);
      const auto& c = client(r);
      CHECK(count(c, SendKind::tlp) == 1);
      CHECK(c.timeouts.size() == (std::string(name) == "ipv6" ? 7u : 8u));
      // One: the base RTO (~340 ms = SRTT 139 ms + 200 ms, the traces' README)
      // is below 1 s at the first expiry; the later waits double it (5.5).
      REQUIRE(findings(c, "2.4").size() == 1);
      CHECK(findings(c, "2.4")[0].level == Level::should);
      CHECK(findings(c, "5.5").empty());
      CHECK(findings(c, "5.4").empty());
      CHECK(r.count(Level::must) == 0);
    }
  }
  SUBCASE("random-loss: 12 timer expiries, fast retransmits and probes not counted, 2.4, each chain doubles") {
    auto r = analyze(linux_trace("random-loss"), Profile::rfc6298);
    const auto& c = client(r);
    CHECK(c.timeouts.size() == 12);
    // The kernel's own split of its 130 retransmissions (meta.json):
    // TCPFastRetrans 69 + TCPSlowStartRetrans 49 + TCPTimeouts 12, exactly.
    // The kernel files a segment by its congestion state as it sends it.
    // Frame 3162 (13.487 s) resends 2998814, which the burst after the
    // expiry at 13.278 s had resent (frame 3150, 13.445 s); the SACK of
    // frame 3161 covers 3000262, resent after it (frame 3151): the
    // retransmission was lost, and Linux leaves Loss for Recovery
    // (FLAG_LOST_RETRANS; truth.csv: Loss at 13.48 s, Recovery at 13.49 s),
    // so 3162 is a fast retransmit.
    const auto k = meta("random-loss")["sender_netns_counters"];
    const auto kfast = k["TcpExt.TCPFastRetrans"].get<std::size_t>();
    const auto kslow = k["TcpExt.TCPSlowStartRetrans"].get<std::size_t>();
    CHECK(count(c, SendKind::fast) == kfast);
    CHECK(count(c, SendKind::slow_start_after_rto) == kslow);
    CHECK(findings(c, "5.5").empty());
    CHECK(findings(c, "2.4").size() == 7);  // one per chain: seven outages
  }
  SUBCASE("bulk-clean: no retransmission, nothing to find") {
    auto r = analyze(linux_trace("bulk-clean"), Profile::rfc6298);
    CHECK(client(r).retransmissions() == 0);
    CHECK(client(r).findings.empty());
    CHECK(client(r).rto.count() == 1'000'000);  // the 1 s floor throughout (2.4)
  }
}

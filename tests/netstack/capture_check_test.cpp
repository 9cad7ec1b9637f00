// Simulated captures checked by independent tools: pcap-replay (the project's
// RFC 6298 checker, --profile rfc6298) must find nothing, and the number of
// retransmissions it counts for the sender's flow must equal the sender's own
// counter and tshark's. Captures go to a temp dir, never into the repo.
//
// tshark is counted with retransmission || fast_retransmission ||
// spurious_retransmission || out_of_order: tshark labels a resend that comes
// within one handshake RTT of the highest segment "out of order" rather than
// "retransmission" (its heuristic for reordering on the path); in a capture
// taken at the sender, that label can only be a retransmission.

#include <doctest/doctest.h>

#include <exception>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim_fixture.hpp"

using namespace nstest;

namespace {

struct Scenario {
  netstack::SenderConfig sender = sender_config();
  netstack::ReceiverConfig receiver = receiver_config();
  netstack::SimConfig sim;
  std::size_t bytes = 1000;
  std::vector<std::pair<std::int64_t, std::size_t>> writes;  // (ms, bytes) after connect
};

struct Captured {
  std::filesystem::path pcap;
  netstack::SenderStats stats;
};

Captured run_captured(Scenario sc, const std::string& name) {
  static const std::filesystem::path dir = temp_dir();
  Captured c;
  c.pcap = dir / (name + ".pcap");
  sc.sim.pcap_path = c.pcap.string();
  netstack::TcpSender s(sc.sender);
  netstack::TcpReceiver r(sc.receiver);
  {
    netstack::SimNetwork net(sc.sim, s, r);
    if (sc.bytes > 0) s.write(pattern(sc.bytes));
    s.connect(at_ms(0));
    for (const auto& [ms, n] : sc.writes) {
      net.run_until(at_ms(ms));
      s.write(pattern(n, static_cast<std::uint64_t>(ms)), at_ms(ms));
    }
    const auto last = sc.writes.empty() ? 0 : sc.writes.back().first;
    net.run_until(at_ms(last + 1));
    s.close(net.now());
    CHECK(net.run_to_completion(at_ms(last + 600'000)));
    net.close_capture();
  }
  c.stats = s.stats();
  return c;
}

void check_capture(const Captured& c, const std::vector<Expected>& expected = {}) {
  check_capture(c.pcap, static_cast<long>(c.stats.retransmissions), expected);
}

// As check_capture(), but INFO notes from pcap-replay are allowed (5.7 on a
// lost SYN cannot always be seen on the wire: pcap-replay then notes it):
// no MUST/SHOULD/MAY finding, no diagnostics, every timeout "ok", exit 0, and
// the sender flow's retransmissions equal the sender's own count.
void check_capture_no_departure(const Captured& c) {
  CAPTURE(c.pcap.string());
  const auto bin = pcap_replay_binary();
  if (!bin) {
    skip_or_fail("pcap-replay not built: capture check skipped for " + c.pcap.string());
    return;
  }
  const auto r = run_command("'" + bin->string() + "' check --profile rfc6298 --json '" + c.pcap.string() + "' 2>&1");
  INFO("pcap-replay output: " << r.output);
  CHECK(r.status == 0);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(r.output);
  } catch (const std::exception& e) {
    FAIL_CHECK("pcap-replay --json did not print JSON: " << e.what());
    return;
  }
  CHECK(doc["diagnostics"].empty());
  long retransmissions = -1;
  nlohmann::json senders = nlohmann::json::array();  // check --json: connections, their senders inside
  for (const auto& c : doc["flows"])
    for (const auto& x : c["senders"]) senders.push_back(x);
  for (const auto& f : senders) {
    for (const auto& x : f["findings"]) CHECK(x["level"] == "INFO");
    for (const auto& t : f["timeouts"]) CHECK(t["verdict"] == "ok");
    if (f["src"].get<std::string>().find("40000") == std::string::npos) continue;
    retransmissions = 0;
    for (const auto& [kind, v] : f["retransmissions"].items()) retransmissions += v.get<long>();
  }
  CHECK(retransmissions == static_cast<long>(c.stats.retransmissions));
  if (const auto tshark = tshark_retransmissions(c.pcap, 40000)) {
    CHECK(*tshark == static_cast<long>(c.stats.retransmissions));
  } else {
    skip_or_fail("tshark not installed: its count skipped");
  }
}

}  // namespace

TEST_CASE("capture: blackhole 2-9 s (5.5 5.6), timestamps on and off, is clean for pcap-replay and tshark") {
  for (bool ts : {true, false}) {
    CAPTURE(ts);
    Scenario sc;
    sc.sender.timestamps = ts;
    sc.sim = rtt100();
    sc.sim.forward.blackholes = {{at_ms(2000), at_ms(9000)}};
    sc.sim.reverse.blackholes = {{at_ms(2000), at_ms(9000)}};
    sc.writes = {{1000, 1000}, {2000, 1000}, {9500, 1000}};
    const auto c = run_captured(sc, ts ? "blackhole-ts" : "blackhole-karn");
    CHECK(c.stats.retransmissions_timeout == 3);
    check_capture(c);
  }
}

TEST_CASE("capture: B15 and 5.7, a lost SYN and a lost first data segment") {
  // Frames (sender side): 1 SYN (lost), 2 SYN at 1.0 s, 3 SYN-ACK at 1.1 s, 4 ACK,
  // 5 D1 (lost), ... D1 again at 4.1 s = 1.1 + 3 s (5.7), which pcap-replay predicts.
  SUBCASE("without timestamps: no finding at all") {
    Scenario sc;
    sc.sender.timestamps = false;
    sc.sim = rtt100();
    sc.sim.forward.drop_numbers = {1, 4};  // the first SYN and D1 (3 is the handshake's ACK)
    const auto c = run_captured(sc, "b15-karn");
    CHECK(c.stats.retransmissions_timeout == 2);
    check_capture(c);
  }
  SUBCASE("with timestamps: no departure (the data timeout at 3 s shows 5.7 kept)") {
    // The SYN-ACK's TSecr would give a sample that Linux uses instead of the 3 s
    // fallback; this sender does not take it (Karn on the handshake, shared case
    // B15) and waits the full 3 s before resending D1. pcap-replay (rfc6298
    // profile) sees that timeout before any fresh sample and judges 5.7 by it:
    // "ok", predicted 3000 ms, no finding (at most an INFO note).
    Scenario sc;
    sc.sim = rtt100();
    sc.sim.forward.drop_numbers = {1, 4};
    const auto c = run_captured(sc, "b15-ts");
    CHECK(c.stats.retransmissions_timeout == 2);
    check_capture_no_departure(c);
  }
}

TEST_CASE("capture: 1 % loss each way, 2 MB bulk with NewReno fast retransmits, IPv4 and IPv6") {
  for (bool v6 : {false, true}) {
    CAPTURE(v6);
    Scenario sc;
    sc.sender = sender_config(v6);
    sc.receiver = receiver_config(v6);
    sc.receiver.delayed_ack = true;
    sc.sim.forward = plain_link(milliseconds{20});
    sc.sim.forward.bandwidth_bps = 50'000'000;
    sc.sim.forward.loss = 0.01;
    sc.sim.forward.seed = 3;
    sc.sim.reverse = plain_link(milliseconds{20});
    sc.sim.reverse.loss = 0.01;
    sc.sim.reverse.seed = 4;
    sc.bytes = 2'000'000;
    const auto c = run_captured(sc, v6 ? "bulk-v6" : "bulk-v4");
    CHECK(c.stats.retransmissions_fast > 0);
    check_capture(c);
  }
}

TEST_CASE("capture: jitter, reordering and duplication on top of 0.5 % loss, 1 MB") {
  Scenario sc;
  sc.sim.forward = plain_link(milliseconds{30});
  sc.sim.forward.jitter = milliseconds{5};
  sc.sim.forward.bandwidth_bps = 20'000'000;
  sc.sim.forward.loss = 0.005;
  sc.sim.forward.reorder = 0.01;
  sc.sim.forward.reorder_delay = milliseconds{15};
  sc.sim.forward.duplicate = 0.01;
  sc.sim.forward.seed = 21;
  sc.sim.reverse = plain_link(milliseconds{30});
  sc.sim.reverse.jitter = milliseconds{5};
  sc.sim.reverse.duplicate = 0.01;
  sc.sim.reverse.seed = 22;
  sc.bytes = 1'000'000;
  const auto c = run_captured(sc, "reorder-dup");
  check_capture(c);
}

TEST_CASE("capture: a zero-window stall with persist probes is clean (probes are not retransmissions)") {
  // As in sender_test: the window closes at 0.2 s, probes at 1.2 s and 3.2 s, the
  // application reads from 5 s on.
  static const std::filesystem::path dir = temp_dir();
  const auto pcap = dir / "zero-window.pcap";
  auto rc = receiver_config();
  rc.consume_immediately = false;
  rc.receive_buffer = 2920;
  auto cfg = rtt100();
  cfg.pcap_path = pcap.string();
  netstack::TcpSender s(sender_config());
  netstack::TcpReceiver r(rc);
  {
    netstack::SimNetwork net(cfg, s, r);
    s.write(pattern(20'000));
    s.close();
    s.connect(at_ms(0));
    net.run_until(at_ms(5000));
    for (int ms = 5000; ms < 60'000 && !s.finished(); ms += 50) {
      net.run_until(at_ms(ms));
      (void)r.read();
    }
    CHECK(net.run_to_completion(at_ms(60'000)));
  }
  CHECK(s.stats().window_probes == 2);
  check_capture(Captured{pcap, s.stats()});
}

TEST_CASE("capture: seed sweep at 5 % loss with jitter, reordering and duplication is clean") {
  // Seeds 100-105 (seed 100 loses the SYN with timestamps on, the B15 case
  // above: pcap-replay may note 5.7 as not verifiable, an INFO note).
  for (std::uint64_t seed = 100; seed < 106; ++seed) {
    CAPTURE(seed);
    Scenario sc;
    sc.sender = sender_config(seed % 3 == 0);
    sc.sender.timestamps = seed % 2 == 0;
    sc.receiver = receiver_config(seed % 3 == 0);
    sc.receiver.delayed_ack = seed % 4 < 2;
    sc.receiver.sack = seed % 5 != 0;
    set_sweep_links(sc.sim, seed);
    sc.bytes = 150'000;
    const auto c = run_captured(sc, "sweep-" + std::to_string(seed));
    check_capture_no_departure(c);
  }
}

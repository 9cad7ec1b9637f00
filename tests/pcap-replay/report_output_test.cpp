// The three outputs of a report: the text report, the JSON document
// (SCHEMA.md) and the timeline CSV, on the blackhole-backoff capture and a
// hand-made one; and exit statuses.

#include <doctest/doctest.h>

#include "common/report_json.hpp"

#include <nlohmann/json.hpp>
#include <fstream>
#include <sstream>

#include "replay_scenario.hpp"
#include <replay/pipeline/analyze_files.hpp>
#include <replay/report/report_json.hpp>
#include <replay/report/report_text.hpp>
#include <replay/report/timeline_csv.hpp>

using namespace replaytest;
using replaytest::Profile;

TEST_CASE("output: JSON has flows[].timeouts[] and flows[].findings[] with the documented fields") {
  auto r = analyze(linux_trace("blackhole-backoff"), Profile::rfc6298);
  const nlohmann::json j = replay::to_json(r);
  CHECK(j["profile"] == "rfc6298");
  CHECK(j["tolerance"]["granularity_ms"] == 1.0);
  CHECK(j["tolerance"]["slack_percent"] == 10);
  // One connection; both directions sent data-bearing segments (the receiver: SYN-ACK and FIN).
  REQUIRE(j["flows"].size() == 1);
  REQUIRE(j["flows"][0]["senders"].size() == 2);
  const auto senders = testcommon::report_senders(j);
  const auto& f = senders[0];
  CHECK(f["direction"] == "client->server");
  CHECK(f["src"] == "198.18.0.1:39008");
  REQUIRE(f["timeouts"].size() == 8);
  const auto& t0 = f["timeouts"][0];
  CHECK(t0["frame"] == 7399);
  CHECK(t0["backoff"] == 1);
  CHECK(t0["predicted_rto_ms"] == 1000.0);
  CHECK(t0["verdict"] == "early");
  CHECK(t0["time"].get<double>() > 1.7e9);                                  // seconds since the epoch
  // Since frame 1: tshark -r blackhole-backoff.pcap -e frame.time_relative gives frame 7399 2.237744000.
  CHECK(std::abs(t0["rel_time"].get<double>() - 2.237744) < 1e-6);
  CHECK(t0.contains("observed_rto_ms"));
  bool has24 = false;
  for (const auto& x : f["findings"]) {
    CHECK(x.contains("rule"));
    CHECK(x.contains("level"));
    CHECK(x.contains("frame"));
    CHECK(x.contains("message"));
    if (x["rule"] == "2.4") {
      has24 = true;
      CHECK(x["level"] == "SHOULD");
      CHECK(x["frame"] == 7399);
    }
  }
  CHECK(has24);
  CHECK(j["summary"]["must"] == 0);
}

TEST_CASE("output: timeline CSV columns, times and one row per event") {
  Scenario s;
  s.handshake(0, 100'000);
  s.data(200'000, 1);
  s.ack(300'000, 1001);
  auto r = analyze(s, "csv", Profile::rfc6298, true);
  std::ostringstream os;
  replay::write_timeline_csv(os, r);
  std::istringstream in(os.str());
  std::string header, line;
  std::getline(in, header);
  CHECK(header == "flow,direction,frame,time,rel_time,event,seq,sample_us,sample_kind,srtt_us,rttvar_us,rto_us,backoff,copy_of");
  std::vector<std::string> rows;
  while (std::getline(in, line)) rows.push_back(line);
  // Client: SYN (send), SYN-ACK (ack, sample 100 ms), data (send), ACK (sample).
  // Server: SYN-ACK (send), client ACK of it (ack, sample 10 us).
  REQUIRE(rows.size() == 6);
  CHECK(rows[0] == "1,c2s,1,1700000000.000000000,0.000000000,send,0,,,,,1000000,0,");
  // After the first sample R = 100 ms: SRTT 100000, RTTVAR 50000, RTO max(1 s, 300 ms) (2.2, 2.4).
  CHECK(rows[1] == "1,c2s,2,1700000000.100000000,0.100000000,ack,1,100000,karn,100000,50000,1000000,0,");
}

TEST_CASE("output: text report names the flow, timeouts, findings by rule and ends with the summary") {
  auto r = analyze(linux_trace("syn-loss"), Profile::rfc6298);
  std::ostringstream os;
  replay::write_text_report(os, r);
  const std::string t = os.str();
  CHECK(t.find("198.18.0.1:37650 <-> 198.18.0.2:5001") != std::string::npos);
  CHECK(t.find("[MUST 5.5]") != std::string::npos);
  // 5.7 cannot be seen on the wire here (the handshake gave a timestamp sample
  // and the next sample came before any data timeout): an INFO note, headed as one.
  CHECK(t.find("[INFO 5.7]") != std::string::npos);
  CHECK(t.find("[MUST 5.7]") == std::string::npos);
  CHECK(t.find("(a note, not a departure)") != std::string::npos);
  CHECK(t.find("tolerance 1.000 ms + 10%") != std::string::npos);
  // The table's verdict names the finding each early expiry raised.
  CHECK(t.find("early: MUST 5.5") != std::string::npos);
  // Where the capture cannot tell, the finding is INFO, and so is the table's.
  CHECK(t.find("cannot-tell: MUST") == std::string::npos);
  CHECK(t.find("summary: 1 flow(s), 6 retransmission(s), 6 timeout(s); findings: 4 MUST, 0 SHOULD, 0 MAY, 1 INFO") !=
        std::string::npos);
  // The counts are what the capture shows: the report says an expiry with
  // no copy at the capture point is not among them (the kernel's
  // TcpExtTCPTimeouts counts it), once, before the summary.
  const auto counted = t.find("\ncounted: the timer expiries and retransmissions the capture shows; an expiry whose "
                              "every copy was lost before the capture point");
  CHECK(counted != std::string::npos);
  CHECK(counted < t.find("\nsummary: "));
  CHECK(t.find("\ncounted: ", counted + 1) == std::string::npos);
  CHECK(r.exit_status(false) == 1);
}

TEST_CASE("output: an unreadable file is named with libpcap's reason, the others are still analysed") {
  std::vector<std::string> errors;
  auto r = replay::analyze_files({"/nonexistent/x.pcap", linux_trace("syn-loss")},
                                 replay::Options::for_profile(Profile::linux_kernel), false, errors);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].find("/nonexistent/x.pcap") != std::string::npos);
  CHECK(r.flows.size() == 1);
  CHECK(r.flows[0].file_index == 1);
}

TEST_CASE("flows: one connection per 4-tuple, split on a new SYN after FIN (port reuse)") {
  Scenario s;
  s.handshake(0, 10'000);
  s.data(20'000, 1);
  s.ack(30'000, 1001);
  s.pkts.push_back({40'000, true, 1001, 1, wire::kFin | wire::kAck, 0, {}, {}, {}});
  s.pkts.push_back({50'000, false, 1, 1002, wire::kFin | wire::kAck, 0, {}, {}, {}});
  s.pkts.push_back({60'000, true, 1002, 2, wire::kAck, 0, {}, {}, {}});
  // Same ports again, a new ISN: a second connection.
  Scenario again;
  again.client_isn = 9'000'000;
  again.handshake(1'000'000, 10'000);
  for (const auto& p : again.pkts) {
    Pkt q = p;
    q.rel_seq += p.from_client ? (9'000'000 - s.client_isn) : 0;
    s.pkts.push_back(q);
  }
  auto r = analyze(s, "reuse", Profile::rfc6298);
  REQUIRE(r.flows.size() == 2);
  CHECK(r.flows[0].saw_fin);
  CHECK(r.flows[0].packets == 8);
  CHECK(r.flows[1].first_frame == 9);
  CHECK(r.flows[1].packets == 3);
}

TEST_CASE("flows: a segment captured twice is ignored, a real retransmission is not") {
  // No IPv4 ID (0): the copy 0.1 ms later, nothing from the peer between, is
  // within the 0.2 ms fallback window; the RTO retransmission 1 s later is not.
  Scenario s;
  s.handshake(0, 10'000);
  s.data(20'000, 1);
  s.data(20'000 + 100, 1);   // identical copy 0.1 ms later: the capture saw it twice
  s.ack(30'000, 1001);
  s.data(40'000, 1001);
  s.data(1'040'000, 1001);   // 1 s later: an RTO retransmission
  auto r = analyze(s, "dup", Profile::rfc6298);
  REQUIRE(r.flows.size() == 1);
  CHECK(r.flows[0].capture_duplicates == 1);
  CHECK(r.flows[0].duplicate_frames == std::vector<std::uint64_t>{5});
  CHECK(client(r).retransmissions() == 1);
  CHECK(client(r).timeouts.size() == 1);
}

namespace {
// Handshake (frames 1-3), data [1,1001) at 20 ms (frame 4, IPv4 ID 0x0101),
// the same segment again `after_us` later (frame 5, ID `copy_id`), then an
// ACK of it 10 ms later. Both copies have identical TCP headers.
replay::Report sent_twice(std::int64_t after_us, std::uint16_t copy_id, std::uint16_t first_id = 0x0101,
                          bool ack_between = false) {
  Scenario s;
  s.handshake(0, 10'000);
  s.data(20'000, 1);
  s.ip_id[3] = first_id;
  if (ack_between) s.ack(20'000 + after_us / 2, 1);  // a (duplicate) ACK from the peer between the copies
  s.data(20'000 + after_us, 1);
  s.ip_id[s.pkts.size() - 1] = copy_id;
  s.ack(30'000 + after_us, 1001);
  return analyze(s, "twice", Profile::rfc6298);
}
}  // namespace

TEST_CASE("flows: the IPv4 ID tells a retransmission 0.2 ms after the original from a packet captured twice") {
  // A low-RTT path (0.1 ms): a fast retransmit goes out 0.2 ms after the
  // original, inside one 1 ms TSval tick. A new IPv4 ID (0x0102 after
  // 0x0101) proves the sender sent it again: a retransmission.
  auto retx = sent_twice(200, 0x0102);
  REQUIRE(retx.flows.size() == 1);
  CHECK(retx.flows[0].capture_duplicates == 0);
  CHECK(client(retx).retransmissions() == 1);
  CHECK(client(retx).data_segments == 3);  // SYN, the original, the retransmission
  // The same ID (0x0101 twice) is one datagram seen twice: ignored.
  auto dup = sent_twice(200, 0x0101);
  CHECK(dup.flows[0].capture_duplicates == 1);
  CHECK(dup.flows[0].duplicate_frames == std::vector<std::uint64_t>{5});
  CHECK(client(dup).retransmissions() == 0);
  CHECK(client(dup).data_segments == 2);
  // Same ID 5 ms apart (two capture points): still the same datagram (window 10 ms).
  CHECK(sent_twice(5'000, 0x0101).flows[0].capture_duplicates == 1);
  // ID 0 then a non-zero ID: different datagrams.
  CHECK(client(sent_twice(100, 0x0102, 0)).retransmissions() == 1);
}

TEST_CASE("flows: without an IPv4 ID (0) only a copy within 0.2 ms and nothing from the peer between is a duplicate") {
  // 0.1 ms <= 0.2 ms, nothing between: captured twice.
  CHECK(sent_twice(100, 0, 0).flows[0].capture_duplicates == 1);
  // 0.3 ms > 0.2 ms: a retransmission (the old 1 ms window ate it).
  auto late = sent_twice(300, 0, 0);
  CHECK(late.flows[0].capture_duplicates == 0);
  CHECK(client(late).retransmissions() == 1);
  // 0.1 ms but a duplicate ACK from the peer between the two: a fast
  // retransmit on a 0.05 ms path, not a copy.
  auto between = sent_twice(100, 0, 0, /*ack_between=*/true);
  CHECK(between.flows[0].capture_duplicates == 0);
  CHECK(client(between).retransmissions() == 1);
}

TEST_CASE("flows: a pure ACK with the same non-zero IPv4 ID is captured twice; with a new ID it is a duplicate ACK") {
  auto make = [](std::uint16_t first_id, std::uint16_t second_id) {
    Scenario s;
    s.handshake(0, 10'000);
    s.data(20'000, 1);
    s.data(20'010, 1001);
    s.ack(30'000, 1001);  // frame 6
    s.ip_id[5] = first_id;
    s.ack(30'005, 1001);  // frame 7, 5 us later
    s.ip_id[6] = second_id;
    return analyze(s, "ack-twice", Profile::rfc6298, /*timeline=*/true);
  };
  auto count_dup_acks = [](const replay::Report& r) {
    int n = 0;
    for (const auto& e : client(r).timeline) n += e.event == "dup-ack" ? 1 : 0;
    return n;
  };
  auto same = make(0x0201, 0x0201);
  CHECK(same.flows[0].capture_duplicates == 1);
  CHECK(count_dup_acks(same) == 0);
  auto fresh = make(0x0201, 0x0202);
  CHECK(fresh.flows[0].capture_duplicates == 0);
  CHECK(count_dup_acks(fresh) == 1);
  // Without IDs identical pure ACKs are always real duplicate ACKs (RFC 5681 2).
  auto none = make(0, 0);
  CHECK(none.flows[0].capture_duplicates == 0);
  CHECK(count_dup_acks(none) == 1);
}

TEST_CASE("analysis of every public capture completes: bad frames reported, the rest analysed") {
  namespace fs = std::filesystem;
  std::size_t files = 0, flows = 0, unreadable = 0;
  for (const auto& e : fs::directory_iterator(shared_dir() / "traces" / "public")) {
    const auto ext = e.path().extension();
    if (ext != ".pcap" && ext != ".pcapng") continue;
    CAPTURE(e.path().string());
    std::vector<std::string> errors;
    for (auto p : {Profile::rfc6298, Profile::linux_kernel}) {
      auto r = replay::analyze_files({e.path().string()}, replay::Options::for_profile(p), false, errors);
      if (p == Profile::rfc6298) flows += r.flows.size();
      for (const auto& d : r.diagnostics) CHECK(d.file == e.path().string());
    }
    for (const auto& err : errors) CHECK(err.find(e.path().string()) == 0);  // names the file
    unreadable += errors.empty() ? 0 : 1;
    ++files;
  }
  CHECK(files >= 40);
  CHECK(flows > 100);
  CHECK(unreadable == 2);  // pcap-invalid-version-1 and shb-option-too-long: libpcap refuses them
}

TEST_CASE("flows: a SYN after a long idle gap (over 300 s) opens a new connection; a SYN retransmission does not") {
  Scenario s;
  s.handshake(0, 10'000);
  s.data(20'000, 1);
  s.ack(30'000, 1001);
  // 400 s later, the same 4-tuple and ISN, no FIN/RST in between.
  s.handshake(400'000'000, 10'000);
  auto r = analyze(s, "idle", Profile::rfc6298);
  REQUIRE(r.flows.size() == 2);
  CHECK(r.flows[1].first_frame == 6);
  CHECK(client(r).timeouts.empty());
}

TEST_CASE("output: every key of a sender, an expiry and a finding is documented in SCHEMA.md") {
  // The document a user reads must name what the JSON holds: each key the
  // report writes appears as "key": in pcap-replay/SCHEMA.md.
  std::ifstream in(testcommon::repo_root() / "pcap-replay" / "SCHEMA.md");
  REQUIRE(in);
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto documented = [&](const nlohmann::json& o) {
    for (const auto& [k, v] : o.items()) {
      CAPTURE(k);
      CHECK(doc.find("\"" + k + "\":") != std::string::npos);
    }
  };
  // rto-min-route (linux): an expiry, a setting note with its setting object.
  auto r = analyze("tests/captures/lab/rto-min-route.pcap", Profile::linux_kernel);
  const nlohmann::json j = replay::to_json(r);
  documented(j["flows"][0]);  // the connection (its senders inside)
  const auto& s = j["flows"][0]["senders"][0];
  documented(s);
  REQUIRE(!s["timeouts"].empty());
  documented(s["timeouts"][0]);
  REQUIRE(!s["findings"].empty());
  bool setting = false;
  for (const auto& f : s["findings"]) {
    documented(f);
    if (f["setting"].is_object()) {
      documented(f["setting"]);
      setting = true;
    }
  }
  CHECK(setting);
}

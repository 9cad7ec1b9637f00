// What the command line builds its exit status and input sections from:
// which input files are usable (Report::inputs), which frame problems were
// skipped and which only warned (Diagnostic::skipped), the note for a filter
// that matched nothing, the summary line, the data-bearing wording of the
// text report and `flows --json`, the view of --flow / --stream /
// --findings-only, and the profile hint. The command line itself (exit
// statuses, messages) is checked by tests/e2e/pcap_replay_cli.sh.

#include <doctest/doctest.h>

#include "common/report_json.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "replay_scenario.hpp"
#include <replay/pipeline/analyze_files.hpp>
#include <replay/report/input_counts.hpp>
#include <replay/report/report_json.hpp>
#include <replay/analysis/profile_hint.hpp>
#include <replay/report/report_text.hpp>
#include <replay/report/report_view.hpp>

using namespace replaytest;
using replaytest::Profile;

namespace {

std::string public_trace(const std::string& name) { return (shared_dir() / "traces" / "public" / name).string(); }

// A little-endian microsecond pcap, LINKTYPE_ETHERNET, snaplen 65535, then `records`.
std::string write_pcap(const std::string& name, const Bytes& records) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("pcap_replay_cli_" + std::to_string(::getpid()) + "_" + name + ".pcap"))
                               .string();
  const Bytes header = {0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 1, 0, 0, 0};
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(header.data()), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(records.data()), static_cast<std::streamsize>(records.size()));
  return path;
}

// A record header: ts 1 s + 0 us, caplen, len (little-endian).
Bytes record_header(std::uint32_t caplen, std::uint32_t len) {
  Bytes h = {1, 0, 0, 0, 0, 0, 0, 0};
  for (std::uint32_t v : {caplen, len})
    for (int i = 0; i < 4; ++i) h.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  return h;
}

replay::Report analyze_any(const std::vector<std::string>& files, const std::string& filter = "") {
  std::vector<std::string> errors;
  auto o = replay::Options::for_profile(Profile::rfc6298);
  o.filter = filter;
  return replay::analyze_files(files, o, false, errors);
}

}  // namespace

TEST_CASE("input: a pcapng whose interfaces differ in snaplen is read (libpcap refuses it)") {
  // zeek__ldap-gap-data-missing.pcapng: its second interface has another
  // snaplen; libpcap gave up at the first block, the reader reads it all.
  const std::string f = public_trace("zeek__ldap-gap-data-missing.pcapng");
  auto r = analyze_any({f});
  REQUIRE(r.inputs.size() == 1);
  CHECK(r.inputs[0].opened);
  CHECK(r.inputs[0].frames == 18);  // tshark -r zeek__ldap-gap-data-missing.pcapng | wc -l
  CHECK_FALSE(r.inputs[0].read_error);
  CHECK(r.inputs[0].usable());
  CHECK(replay::unusable_inputs(r).empty());
}

TEST_CASE("input: a file unreadable from its first record is unusable, named with the reason") {
  Bytes cut = record_header(60, 60);
  cut.resize(cut.size() + 10, 0);  // 10 of the 60 bytes the record announces
  const std::string f = write_pcap("first-cut", cut);
  auto r = analyze_any({f});
  REQUIRE(r.inputs.size() == 1);
  CHECK(r.inputs[0].opened);
  CHECK(r.inputs[0].frames == 0);
  CHECK(r.inputs[0].read_error);
  CHECK_FALSE(r.inputs[0].usable());
  CHECK(r.inputs[0].error.find(f + ": frame 1: pcap: read error") == 0);
  CHECK(replay::unusable_inputs(r).size() == 1);
  CHECK_FALSE(replay::empty_input_note(r).has_value());  // the unusable file says it all
  std::remove(f.c_str());
}

TEST_CASE("input: with one unusable file and one good one, the good one is analysed and the other named") {
  auto r = analyze_any({public_trace("libpcap__pcap-invalid-version-1.pcap"), linux_trace("syn-loss")});
  REQUIRE(r.inputs.size() == 2);
  CHECK_FALSE(r.inputs[0].opened);
  CHECK(r.inputs[0].error.find("archaic pcap savefile format") != std::string::npos);
  CHECK(r.inputs[1].usable());
  CHECK(r.inputs[1].frames == 2033);  // tshark -r syn-loss.pcap | wc -l
  CHECK(r.flows.size() == 1);
  REQUIRE(replay::unusable_inputs(r).size() == 1);
  CHECK(replay::unusable_inputs(r)[0]->name == public_trace("libpcap__pcap-invalid-version-1.pcap"));
  std::ostringstream t;
  replay::write_text_report(t, r);
  CHECK(t.str().find("unusable input (nothing analysed from these files; exit status 2):\n  " +
                     public_trace("libpcap__pcap-invalid-version-1.pcap") + ": cannot open") != std::string::npos);
  CHECK(t.str().find(", 1 unusable file(s); profile rfc6298") != std::string::npos);
  const auto j = replay::to_json(r);
  CHECK(j["inputs"][0]["usable"] == false);
  CHECK(j["inputs"][1]["usable"] == true);
  CHECK(j["summary"]["unusable_files"] == 1);
}

TEST_CASE("input: hand-made files: truncated first record and all-malformed are unusable, an empty pcap is not") {
  // A record announcing 60 captured bytes with only 10 in the file.
  Bytes cut = record_header(60, 60);
  cut.resize(cut.size() + 10, 0);
  const std::string truncated = write_pcap("truncated", cut);
  // One 2-byte Ethernet frame: malformed ("eth"), the only frame.
  Bytes tiny = record_header(2, 2);
  tiny.push_back(0);
  tiny.push_back(0);
  const std::string malformed = write_pcap("malformed", tiny);
  const std::string empty = write_pcap("empty", {});
  auto r = analyze_any({truncated, malformed, empty});
  REQUIRE(r.inputs.size() == 3);
  CHECK_FALSE(r.inputs[0].usable());
  CHECK(r.inputs[0].frames == 0);
  CHECK_FALSE(r.inputs[1].usable());
  CHECK(r.inputs[1].error == malformed + ": every frame (1) is malformed");
  CHECK(r.inputs[1].skipped_frames == 1);
  CHECK(r.inputs[2].usable());  // a valid capture, just no frame
  CHECK(r.inputs[2].frames == 0);
  CHECK(replay::unusable_inputs(r).size() == 2);
  CHECK(replay::empty_input_note(r) == std::optional<std::string>("no TCP segment in the input"));
  for (const auto& p : {truncated, malformed, empty}) std::remove(p.c_str());
}

TEST_CASE("input: an unusable file's read error counts as the file, not as a skipped frame") {
  Bytes cut = record_header(60, 60);
  cut.resize(cut.size() + 10, 0);
  const std::string first_cut = write_pcap("first-cut-2", cut);
  auto r = analyze_any({first_cut, public_trace("zeek__pppoe-over-qinq.pcap")});
  std::remove(first_cut.c_str());
  REQUIRE(r.diagnostics.size() == 7);  // the read error at first-cut's frame 1, then pppoe's 6 ip.len warnings
  CHECK(replay::is_unusable_reason(r, r.diagnostics[0]));
  CHECK_FALSE(replay::is_unusable_reason(r, r.diagnostics[1]));
  const auto c = replay::input_counts(r);
  CHECK(c.skipped == 0);
  CHECK(c.warned == 6);
  CHECK(c.unusable == 1);
  CHECK(replay::summary_line(r).find("input: 0 frame(s) skipped, 6 analysed with a warning, 1 unusable file(s)") !=
        std::string::npos);
  std::ostringstream t;
  replay::write_text_report(t, r);
  CHECK(t.str().find("bad input") == std::string::npos);  // the read error is under "unusable input" only
  CHECK(t.str().find("unusable input") != std::string::npos);
}

TEST_CASE("input: a BPF filter that matches nothing gives a note, not an error") {
  auto r = analyze_any({linux_trace("syn-loss")}, "host 1.2.3.4");
  CHECK(r.flows.empty());
  CHECK(replay::unusable_inputs(r).empty());
  CHECK(r.inputs[0].frames == 2033);
  CHECK(r.inputs[0].tcp_segments == 0);
  CHECK(replay::empty_input_note(r) == std::optional<std::string>("no TCP segment matched the filter \"host 1.2.3.4\""));
  std::ostringstream t;
  replay::write_text_report(t, r);
  CHECK(t.str().find("note: no TCP segment matched the filter \"host 1.2.3.4\"") != std::string::npos);
  CHECK(replay::to_json(r)["note"] == "no TCP segment matched the filter \"host 1.2.3.4\"");
}

TEST_CASE("diagnostics: frames used with a warning are not counted as skipped (pppoe-over-qinq)") {
  // Frames 19, 33, 41, 47, 63, 81: the IPv4 total length claims 6 bytes more
  // than the PPPoE payload; Wireshark and the reader take the length from the
  // frame and use them.
  auto r = analyze_any({public_trace("zeek__pppoe-over-qinq.pcap")});
  REQUIRE(r.diagnostics.size() == 6);
  for (const auto& d : r.diagnostics) {
    CHECK(d.field == "ip.len");
    CHECK_FALSE(d.skipped);
  }
  CHECK(r.diagnostics[0].frame == 19);
  CHECK(r.inputs[0].skipped_frames == 0);
  const std::string line = replay::summary_line(r);
  CHECK(line.find("input: 0 frame(s) skipped, 6 analysed with a warning; profile rfc6298") != std::string::npos);
  std::ostringstream t;
  replay::write_text_report(t, r);
  CHECK(t.str().find("bad input") == std::string::npos);
  CHECK(t.str().find("warnings (frames analysed, the problem worked around as Wireshark does):\n  " +
                     public_trace("zeek__pppoe-over-qinq.pcap") + ": frame 19: ip.len:") != std::string::npos);
  const auto j = replay::to_json(r);
  CHECK(j["diagnostics"][0]["skipped"] == false);
  CHECK(j["summary"]["frames_skipped"] == 0);
  CHECK(j["summary"]["frames_with_warning"] == 6);
}

TEST_CASE("diagnostics: frames with a bad timestamp are skipped and listed as such") {
  // tcpdump__timestamp_invalid_micro.pcap: two records whose microseconds are
  // 1 s or more; the reader skips them ("frame.time").
  auto r = analyze_any({public_trace("tcpdump__timestamp_invalid_micro.pcap")});
  REQUIRE(r.diagnostics.size() == 2);
  for (const auto& d : r.diagnostics) {
    CHECK(d.field == "frame.time");
    CHECK(d.skipped);
  }
  CHECK(r.inputs[0].usable());
  CHECK(replay::summary_line(r).find("input: 2 frame(s) skipped, 0 analysed with a warning") != std::string::npos);
  std::ostringstream t;
  replay::write_text_report(t, r);
  CHECK(t.str().find("bad input (frames skipped, not analysed):") != std::string::npos);
  CHECK(replay::to_json(r)["diagnostics"][1]["skipped"] == true);
}

TEST_CASE("text report: SYN and FIN are data-bearing, payload bytes counted apart (syn-loss receiver)") {
  // The receiver 198.18.0.2:5001 sends 641 packets: the SYN-ACK and the FIN
  // occupy sequence space (2 data-bearing segments), no payload.
  auto r = analyze(linux_trace("syn-loss"), Profile::linux_kernel);
  std::ostringstream t;
  replay::write_text_report(t, r);
  CHECK(t.str().find("sender 198.18.0.2:5001 -> 198.18.0.1:37650: 641 packets, 2 data-bearing segment(s) "
                     "(SYN/FIN count as one byte), 0 payload bytes;") != std::string::npos);
}

TEST_CASE("flows --json: the connection list with both directions") {
  auto r = analyze({linux_trace("syn-loss"), linux_trace("bulk-clean")}, Profile::rfc6298);
  const auto j = replay::flows_to_json(r);
  CHECK(j["kind"] == "flows");
  REQUIRE(j["flows"].size() == 2);
  const auto& f = j["flows"][0];
  CHECK(f["flow"] == 1);
  CHECK(f["client"] == "198.18.0.1:37650");
  CHECK(f["server"] == "198.18.0.2:5001");
  CHECK(f["packets"] == 2033);
  CHECK(f["first_frame"] == 1);
  CHECK(f["last_frame"] == 2033);
  CHECK(f["syn"] == true);
  CHECK(f["fin"] == true);
  CHECK(f["senders"][0]["packets"] == 1392);  // 1392 + 641 = 2033
  CHECK(f["senders"][1]["packets"] == 641);
  CHECK(f["senders"][1]["data_segments"] == 2);  // SYN-ACK, FIN
  CHECK(f["senders"][1]["bytes"] == 0);
  CHECK(j["flows"][1]["file"] == linux_trace("bulk-clean"));
  CHECK(j["inputs"].size() == 2);
}

TEST_CASE("flows: the text list without the sender models is the list with them") {
  // `pcap-replay flows` (text) sets Options::model_senders = false.
  const std::vector<std::string> files{linux_trace("syn-loss"), linux_trace("bulk-clean")};
  const auto modelled = analyze(files, Profile::rfc6298);
  replay::Options o = replay::Options::for_profile(Profile::rfc6298);
  o.model_senders = false;
  std::vector<std::string> errors;
  const auto bare = replay::analyze_files(files, o, false, errors);
  CHECK(errors.empty());
  REQUIRE(bare.flows.size() == 2);
  CHECK(bare.flows[0].packets == 2033);  // as "flows --json" above: 1392 + 641
  CHECK(bare.flows[0].senders[0].src == modelled.flows[0].senders[0].src);
  CHECK(bare.flows[0].senders[0].packets == 0);  // no model counted them
  CHECK(bare.flows[0].senders[1].findings.empty());
  std::ostringstream a, b;
  replay::write_flow_list(a, modelled);
  replay::write_flow_list(b, bare);
  CHECK(a.str() == b.str());
}

TEST_CASE("view: --flow, --stream and --findings-only choose the entries; the summary covers everything") {
  // many-flows.pcap: 120 connections, one per client port, in file order
  // (tshark numbers them tcp.stream 0-119 in the same order: report_truth_test).
  auto r = analyze_any({"tests/captures/lab/many-flows.pcap"});
  REQUIRE(r.flows.size() == 120);
  replay::ReportView v;
  v.flow = 2;
  CHECK_FALSE(v.error(r, replay::StreamNumbers(r)).has_value());
  auto j = replay::to_json(r, v);
  REQUIRE(!j["flows"].empty());
  for (const auto& f : j["flows"]) CHECK(f["flow"] == 2);
  CHECK(j["selection"]["flow"] == 2);
  CHECK(j["summary"]["flows"] == 120);
  replay::ReportView s;
  s.stream = 1;  // 0-based: the second connection
  const auto jf = replay::flows_to_json(r, s);
  REQUIRE(jf["flows"].size() == 1);
  CHECK(jf["flows"][0]["flow"] == 2);
  CHECK(jf["flows"][0]["tcp_stream"] == 1);
  CHECK(jf["flows"][0]["stream_filter"] == "tcp.stream == 1");
  std::ostringstream t;
  replay::write_flow_list(t, r, s);
  const std::string list = t.str();
  CHECK(list.find("\n   2      1  ") != std::string::npos);
  CHECK(std::count(list.begin(), list.end(), '\n') == 2);  // the header and flow 2
  // Errors name the flag and what the input has.
  replay::ReportView bad;
  bad.flow = 121;
  CHECK(bad.error(r, replay::StreamNumbers(r)) == std::optional<std::string>("--flow 121: no such connection; the input has 120 (1-120)"));
  bad.flow = 0;
  CHECK(bad.error(r, replay::StreamNumbers(r)).has_value());
  replay::ReportView none;
  none.stream = 120;
  CHECK(none.error(r, replay::StreamNumbers(r)) == std::optional<std::string>("--stream 120: no connection has tcp.stream 120"));
}

TEST_CASE("view: --findings-only keeps the senders with findings (linux-blackhole: the data sender's 2.4)") {
  auto r = analyze_any({"tests/captures/linux-blackhole.pcap"});
  replay::ReportView v;
  v.findings_only = true;
  const auto j = replay::to_json(r, v);
  REQUIRE(j["flows"].size() == 1);
  REQUIRE(j["flows"][0]["senders"].size() == 1);  // of the 2 data-bearing directions
  CHECK(j["flows"][0]["senders"][0]["src"] == "198.18.0.1:54906");
  CHECK(j["summary"]["should"] == 1);
  std::ostringstream t;
  replay::write_text_report(t, r, v);
  CHECK(t.str().find("sender 198.18.0.2:5001") == std::string::npos);
  CHECK(t.str().find("frame 179 at 0.541 s: ") != std::string::npos);
  CHECK(t.str().find("[frame.number == 179]") != std::string::npos);
  CHECK(t.str().find("  Wireshark: tcp.stream 0; display filter: tcp.stream == 0\n") != std::string::npos);
  // Nothing left to show: the flow header goes too.
  auto clean = analyze_any({linux_trace("syn-loss")});
  replay::ReportView none;
  none.findings_only = true;
  none.flow = 1;
  clean.flows[0].senders[0].findings.clear();
  std::ostringstream e;
  replay::write_text_report(e, clean, none);
  CHECK(e.str().find("\nflow 1:") == std::string::npos);
}

TEST_CASE("tcp.stream: numbered per file, as Wireshark numbers each file it opens") {
  auto r = analyze_any({linux_trace("syn-loss"), linux_trace("bulk-clean")});
  const auto j = replay::flows_to_json(r);
  REQUIRE(j["flows"].size() == 2);
  CHECK(j["flows"][0]["tcp_stream"] == 0);
  CHECK(j["flows"][1]["flow"] == 2);
  CHECK(j["flows"][1]["tcp_stream"] == 0);  // the first connection of bulk-clean.pcap
}

TEST_CASE("profile hint: rfc6298's MUST departures on a Linux capture are Linux's") {
  // syn-loss: 4 MUST (5.5: Linux's linear SYN timeouts) under rfc6298, none
  // under linux (the e2e test runs the CLI; here the two reports directly).
  auto judged = analyze_any({linux_trace("syn-loss")});
  REQUIRE(judged.count(replay::Level::must) == 4);
  std::vector<std::string> errors;
  auto o = replay::Options::for_profile("auto");
  auto best = replay::analyze_files({linux_trace("syn-loss")}, o, false, errors);
  CHECK(replay::profile_hint(judged, best) ==
        std::optional<std::string>("the MUST departures of 1 of 1 sender(s) are what linux (Linux 6.x defaults) does: "
                                   "0 MUST there; try --profile auto (or --profile linux)"));
  // No MUST under the judged profile: no hint.
  auto linux_judged = analyze(linux_trace("syn-loss"), Profile::linux_kernel);
  CHECK_FALSE(replay::profile_hint(linux_judged, best).has_value());
}

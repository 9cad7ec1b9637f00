// A check --json document read back (json_report_reader.hpp), the ground of
// `pcap-replay merge --text`: the text written from the document is byte for
// byte the text `check` writes from the analysis, and each connection read
// back writes its JSON entry again byte for byte. On every shipped capture
// under rfc6298 and linux, under the selections (--findings-only, --level,
// -Y), and on a report made by hand with every value the writers read set
// (virtual networks apart, a host alongside, capture copies, clock steps,
// settings, ties, hidden findings). Every key of an entry is read: one
// removed is an error that names the document and the key.

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include <replay/pipeline/analyze_files.hpp>
#include <replay/report/check_stream.hpp>
#include <replay/report/display_filter.hpp>
#include <replay/report/json_report_reader.hpp>
#include <replay/report/report_html.hpp>
#include <replay/report/report_json.hpp>
#include <replay/report/report_text.hpp>
#include <replay/report/wireshark_ref.hpp>

namespace {

using nlohmann::json;
using replay::FlowReport;
using replay::Interval;
using replay::Judgement;
using replay::Level;
using replay::Report;
using replay::ReportView;
using std::chrono::microseconds;
using std::chrono::nanoseconds;

// The document `check --json` writes for `r` under `view` (no profile hint),
// as text parsed again: what a merge reads.
json document_of(const Report& r, const ReportView& view) {
  json doc = replay::to_json(r, view);
  doc["profile_hint"] = nullptr;
  return json::parse(replay::dump_document(doc));
}

std::string text_of(const Report& r, const ReportView& view) {
  std::ostringstream os;
  replay::write_text_report(os, r, view);
  return os.str();
}

std::string text_from(const json& doc) {
  std::ostringstream os;
  replay::write_text_from_json(os, doc, "doc.json");
  return os.str();
}

// The first line where two texts differ, for the failure message.
std::string first_difference(const std::string& a, const std::string& b) {
  std::istringstream x(a), y(b);
  std::string l1, l2;
  for (int n = 1;; ++n) {
    const bool m1 = static_cast<bool>(std::getline(x, l1)), m2 = static_cast<bool>(std::getline(y, l2));
    if (!m1 && !m2) return "none";
    if (!m1 || !m2 || l1 != l2) return "line " + std::to_string(n) + ":\n  check: " + (m1 ? l1 : "(end)") + "\n  read:  " + (m2 ? l2 : "(end)");
  }
}

// Each entry of `doc` read back and written again: its own text.
void check_entries_rewritten(const json& doc) {
  std::ostringstream sink;
  const replay::JsonTextReport text(sink, doc, "doc.json");
  const Report base = replay::report_from_json(doc, "doc.json");
  const ReportView view = replay::view_from_json(doc, "doc.json");
  for (const json& e : doc["flows"]) {
    const auto [f, stream] = text.read(e);
    std::string again;
    replay::write_flow_json(again, f, base.options, stream, base.origin_of(f.file_index), view);
    const std::string original = e.dump(2);
    INFO("flow " << f.id);
    CHECK(again == original);
    if (again != original) return;  // one is enough to see
  }
}

// The whole round trip of `r` under `view`.
void check_round_trip(const Report& r, const ReportView& view = {}) {
  const json doc = document_of(r, view);
  const std::string want = text_of(r, view), got = text_from(doc);
  INFO("first difference: " << first_difference(want, got));
  CHECK(want == got);
  check_entries_rewritten(doc);
}

// The CLI's way (CheckStream, each connection written as it is finished):
// `check`'s text and `check --json`'s document of one run, the text from the
// document read back against the text.
void check_streamed_round_trip(const std::vector<std::string>& files, const replay::Options& o,
                               const ReportView& view = {}) {
  std::ostringstream text_os, json_os;
  replay::CheckStream text(text_os, o, view, false), doc(json_os, o, view, true);
  std::vector<std::string> errors;
  const Report r = replay::analyze_files(
      files, o, false, errors,
      [&](FlowReport& f, replay::CaptureTime origin) {
        text.flow(f, origin);
        doc.flow(f, origin);
      },
      nullptr, text.sink_mode());
  text.finish(r, std::nullopt);
  doc.finish(r, std::nullopt);
  const std::string want = text_os.str(), got = text_from(json::parse(json_os.str()));
  INFO("first difference: " << first_difference(want, got));
  CHECK(want == got);
}

Report analyze(const std::vector<std::string>& files, replay::Options o) {
  std::vector<std::string> errors;
  return replay::analyze_files(files, o, false, errors);
}

std::vector<std::string> shipped_captures() {
  std::vector<std::string> out;
  for (const char* dir : {"tests/captures", "tests/captures/lab"})
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().extension() == ".pcap") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

ReportView view_with(const std::string& display) {
  ReportView v;
  auto parsed = replay::DisplayFilter::parse(display);
  REQUIRE(std::holds_alternative<replay::DisplayFilter>(parsed));
  v.display = std::get<replay::DisplayFilter>(parsed);
  return v;
}

}  // namespace

TEST_CASE("json report reader: the text of check, from check --json read back, on every shipped capture") {
  const auto files = shipped_captures();
  REQUIRE(files.size() >= 22);
  for (const char* profile : {"rfc6298", "linux"}) {
    for (const std::string& file : files) {
      CAPTURE(profile);
      CAPTURE(file);
      check_round_trip(analyze({file}, replay::Options::for_profile(profile)));
      check_streamed_round_trip({file}, replay::Options::for_profile(profile));
    }
  }
}

TEST_CASE("json report reader: selections, several inputs, a BPF filter, the command line's settings") {
  const std::string many = "tests/captures/lab/many-flows.pcap", thin = "tests/captures/lab/thin-linear.pcap";
  const Report r = analyze({many}, replay::Options::for_profile("rfc6298"));
  REQUIRE(r.count(Level::must) > 0);
  ReportView findings_only;
  findings_only.findings_only = true;
  ReportView must;
  must.level = Level::must;
  ReportView should_only = findings_only;
  should_only.level = Level::should;
  for (const ReportView& v : {findings_only, must, should_only}) {
    CAPTURE(v.describe());
    check_round_trip(r, v);
  }
  // -Y: the analysis notes the connections with a packet among its frames (as the CLI runs it).
  const auto analyze_for = [](const std::vector<std::string>& files, replay::Options o, const ReportView& v) {
    if (v.display) o.frames = v.display->frames();
    return analyze(files, o);
  };
  for (const ReportView& v : {view_with("frame.number >= 500 && frame.number < 2000"), view_with("frame.number != 1207"),
                              view_with("tcp.port == 5001")}) {
    CAPTURE(v.describe());
    const Report rv = analyze_for({many}, replay::Options::for_profile("rfc6298"), v);
    CHECK(text_of(rv, v).find("\nflow ") != std::string::npos);  // some connection shown
    check_round_trip(rv, v);
  }
  // A finding hidden by -Y's frame, not by its level: its sender still says so.
  const ReportView frame_206 = view_with("frame.number == 206");
  const Report t = analyze_for({thin}, replay::Options::for_profile("linux"), frame_206);
  check_round_trip(t, frame_206);
  const std::string shown = text_of(t, frame_206);
  CHECK(shown.find("findings (4 hidden by -Y \"frame.number == 206\"):") != std::string::npos);
  CHECK(shown.find("frame 212 at") == std::string::npos);  // hidden: counted, not listed
  check_streamed_round_trip({many}, replay::Options::for_profile("rfc6298"), findings_only);
  check_round_trip(analyze({many}, replay::Options::for_profile("auto")));
  check_round_trip(analyze({"tests/captures/linux-blackhole.pcap", many, thin}, replay::Options::for_profile("rfc6298")));
  replay::Options o = replay::Options::for_profile("linux");
  o.filter = "tcp port 5001";
  check_round_trip(analyze({many}, o));
  o.filter = "tcp port 1";  // no connection: the note names the filter
  check_round_trip(analyze({many}, o));
  replay::Options set = replay::Options::for_profile("rfc6298");
  set.config.min_rto = microseconds{1'000'000}, set.user_min_rto = true;  // the profile's own, set anyway
  set.config.syn_linear_timeouts = 2, set.user_syn_linear = true;
  set.absolute_tolerance = set.config.granularity = microseconds{5'000}, set.user_granularity = true;
  set.slack_percent = 20;
  check_round_trip(analyze({many}, set));
}

namespace {

constexpr std::int64_t kEpochNs = 1'795'998'040'381'147'123;

replay::CaptureTime at_ns(std::int64_t ns_after) { return replay::CaptureTime{nanoseconds{kEpochNs + ns_after}}; }

replay::Endpoint endpoint(const char* address, std::uint16_t port) {
  return replay::Endpoint{*wire::IpAddress::parse(address), port};
}

Judgement judgement(replay::RuleId rule, replay::Outcome outcome, replay::Topic topic, std::uint64_t frame) {
  Judgement j;
  j.rule = rule;
  j.outcome = outcome;
  j.level = replay::level_of(rule, outcome);
  j.topic = topic;
  j.basis = replay::Basis::profile_rto;
  j.frame = frame;
  j.time = at_ns(static_cast<std::int64_t>(frame) * 1'234'567);
  j.expiry = 2;
  j.armed_by = replay::ArmCause::timeout;
  j.waited = Interval{microseconds{412'001}, microseconds{427'399}};
  j.prev_waited = Interval::point(microseconds{204'000});
  j.predicted = Interval::at_least(microseconds{400'000});
  j.accepted = Interval{microseconds{359'000}, microseconds{441'001}};
  j.alternative = Interval::point(microseconds{203'999});
  j.readings = {{replay::Reading::ack_unheard, false}, {replay::Reading::ack_heard, true}};
  j.evidence = {3, 5, 8};
  return j;
}

// A report with every value the text and JSON writers read set to
// something no default is.
Report everything_set(bool bpf) {
  Report r;
  r.options = replay::Options::for_profile("linux");
  r.options.config.max_rto = microseconds{30'000'000}, r.options.user_max_rto = true;
  if (bpf) r.options.filter = "tcp";
  r.files = {"a.pcap", "b.pcap"};
  r.inputs.resize(2);
  r.inputs[0].name = "a.pcap";
  r.inputs[0].opened = true;
  r.inputs[0].frames = 400;
  r.inputs[0].tcp_segments = 390;
  r.inputs[0].first_frame_time = at_ns(-7);
  r.inputs[0].read_error = true;
  r.inputs[0].lost.push_back({1000, 1200, 149, std::nullopt, false});
  r.inputs[0].lost.push_back({5000, 6000, 300, 2, true});
  r.inputs[0].clock_steps_back = 2;
  r.inputs[0].clock_rebased.push_back({182, nanoseconds{28'336'015'000}, true, nanoseconds{28'426'037'002}, std::nullopt});
  r.inputs[1].name = "b.pcap";
  r.inputs[1].opened = true;
  r.inputs[1].error = "b.pcap: cannot open: no such file";
  r.first_time = at_ns(-7);
  r.have_first_time = true;
  r.diagnostics.push_back({"a.pcap", 7, "tcp.hdr_len", "header length 40 bytes runs past the 34 bytes captured", true});
  r.diagnostics.push_back({"a.pcap", 19, "ip.len", "the length is taken from the frame", false});
  r.dropped_skipped = 3;
  r.dropped_warned = 4;

  FlowReport f;
  f.id = 9;
  f.file = "a.pcap";
  f.file_index = 0;
  f.client = endpoint("fd00::1", 39008);
  f.server = endpoint("fd00::2", 5001);
  f.saw_syn = f.saw_rst = true;
  f.has_selected_frame = true;  // -Y frame.number shows it
  f.packets = 321;
  f.first_frame = 11;
  f.last_frame = 399;
  f.first_time = at_ns(1'000'000'001);
  f.last_time = at_ns(14'545'000'003);
  f.capture_duplicates = 7;
  f.duplicate_frames = {12, 13, 20, 21, 30, 31, 40};
  f.duplicate_of = {11, 11, 19, 19, 29, 29, 39};
  replay::VirtualNetwork qinq, vxlan;
  qinq.push(replay::VirtualNetwork::Kind::svlan, 100);
  qinq.push(replay::VirtualNetwork::Kind::vlan, 200);
  vxlan.push(replay::VirtualNetwork::Kind::vxlan, 5001);
  vxlan.push(replay::VirtualNetwork::Kind::vlan, 7);
  f.vnets = {qinq, replay::VirtualNetwork{}, vxlan};
  f.vnet_apart = true;
  f.alongside = replay::AlongsideOf{1, true, 90000, 70000, 11, false};
  for (std::size_t d = 0; d < 2; ++d) {
    replay::SenderReport& s = f.senders[d];
    s.src = d == 0 ? f.client : f.server;
    s.dst = d == 0 ? f.server : f.client;
    s.timestamps = d == 0;
    s.tsval_sent = true;
    s.tsval_peer = d == 0;
    s.sack = true;
    s.peer_seen = true;
    s.packets = 200 + d;
    s.data_segments = 150 + d;
    s.bytes = 123456 + d;
    s.samples_seq = 3;
    s.samples_ts = 2;
    s.ambiguous_acks = 1;
    s.samples_refused = 1;
    if (d == 0) s.capture_rtt = microseconds{20'701};  // the server's: none known
    s.capture_rtt_bound = d == 0;
    for (auto us : {41'282, 121'139, 174'683}) s.rtt_karn.add(microseconds{us});
    for (auto us : {41'000, 73'001}) s.rtt_ts_echo.add(microseconds{us});
    for (std::size_t k = 0; k < replay::kSendKinds; ++k) s.by_kind[k] = 10 * d + k + 1;
    s.keepalives = 2;
    s.zero_window_probes = 3;
    s.profile = d == 0 ? "linux" : "freebsd";
    s.srtt = microseconds{138'800};
    s.rttvar = microseconds{360};
    s.rto = microseconds{1'000'001};
    s.backoff = 2;
    replay::InferredSettings& in = s.inferred;
    in.initial_rto = microseconds{1'026'000};
    in.syn_waits = {microseconds{1'026'000}, microseconds{2'016'001}};
    in.syn_linear = 4;
    in.floor = replay::RtoFloor::variance;
    in.min_first_wait = microseconds{204'000};
    in.plateau = microseconds{5'120'000};
    in.additive = microseconds{200'000};
    in.lateness = microseconds{12'000};
    in.probes = 1;
    in.linear_data = 3;
    in.tsval_hz = 250.0;
    in.fallback_57 = replay::Seen57::not_visible;
    in.settings = {"net.ipv4.tcp_rto_max_ms"};
    in.ties = {"rfc6298", "macos"};
    in.evidence = {3, 4, 5};
    replay::TimeoutRecord t;
    t.frame = 179;
    t.time = at_ns(541'000'123);
    t.rel_seq = 131073;
    t.syn = d == 1;
    t.expiry = 3;
    t.wait = Interval{microseconds{204'100}, microseconds{212'700}};
    t.basis = replay::Basis::doubling;
    t.predicted = Interval{microseconds{369'200}, microseconds{427'400}};
    t.accepted = Interval::at_least(microseconds{368'200});
    t.alternative = Interval{microseconds{183'600}, microseconds{236'100}};
    t.armed_by = replay::ArmCause::probe;
    t.verdict = replay::Verdict::cannot_tell;
    t.clock = replay::ClockUsed::tsval;
    t.readings = {{replay::Reading::as_probe, true}};
    t.rules = {replay::RuleId::rfc6298_2_4, replay::RuleId::ambiguous};
    s.timeouts.push_back(t);
    t.frame = 180;
    t.wait_unknown = true;
    s.timeouts.push_back(t);
    t.frame = 181;  // the verdict a documented setting explains
    t.wait_unknown = false;
    t.verdict = replay::Verdict::setting;
    s.timeouts.push_back(t);
    using replay::Outcome;
    using replay::RuleId;
    using replay::Topic;
    s.findings.push_back(judgement(RuleId::rfc6298_5_5, Outcome::broken, Topic::none, 179));
    Judgement step = judgement(RuleId::ambiguous, Outcome::note, Topic::clock_step, 180);
    step.other_frame = 182;
    step.other_prev_frame = 181;
    step.step = nanoseconds{28'336'015'001};
    s.findings.push_back(step);
    Judgement setting = judgement(RuleId::stack_setting, Outcome::note, Topic::setting, 181);
    setting.setting = {replay::SettingUse::Kind::max_rto, Interval{microseconds{5'000'000}, microseconds{5'100'000}}, 0,
                       "net.ipv4.tcp_rto_max_ms"};
    s.findings.push_back(setting);
    Judgement linear = judgement(RuleId::stack_setting, Outcome::note, Topic::setting, 182);
    linear.setting = {replay::SettingUse::Kind::syn_linear, Interval{}, 6, "net.ipv4.tcp_syn_linear_timeouts"};
    s.findings.push_back(linear);
    Judgement una = judgement(RuleId::rfc6298_5_4, Outcome::cannot_tell, Topic::readings_differ, 183);
    una.rel_seq = 2897;
    una.rel_una = 1449;
    s.findings.push_back(una);
    s.findings.push_back(judgement(RuleId::rfc6298_2_4, Outcome::broken, Topic::none, 184));
    s.findings.push_back(judgement(RuleId::late, Outcome::note, Topic::late_expiry, 185));
    Judgement flushed = judgement(RuleId::ambiguous, Outcome::note, Topic::flushed_burst, 186);
    flushed.other_frame = 186;
    flushed.hold = replay::HoldSign::repeat;
    flushed.evidence = {188};
    s.findings.push_back(flushed);
    Judgement kept = judgement(RuleId::rfc6298_5_7, Outcome::note, Topic::sample_kept_57, 187);
    kept.predicted = Interval::point(microseconds{3'000'000});
    kept.alternative = Interval::point(microseconds{240'000});
    s.findings.push_back(kept);
  }
  r.flows.push_back(f);
  r.file_totals.resize(2);
  r.file_totals[0].add(r.flows[0]);
  // A lockstep group and a dispersed herd.
  replay::lockstep::Group g;
  g.file_index = 0;
  g.server = endpoint("198.18.0.2", 5001);
  g.kind = replay::lockstep::RetryKind::reconnect;
  g.members = 208;
  g.client_hosts = 2;
  g.start = at_ns(2'000'000'009);
  g.start_frame = 1;
  g.offsets.push_back({1, microseconds{1'024'100}, microseconds{500}, 208, {225, 226, 227, 228}});
  g.dispersed = replay::lockstep::Offset{2, microseconds{3'072'001}, microseconds{12'345}, 9, {300}};
  g.message = "208 connections from 2 client host(s) retried together";
  r.lockstep.groups.push_back(g);
  replay::lockstep::Dispersion herd;
  herd.file_index = 0;
  herd.server = endpoint("fd00::2", 443);
  herd.chains = 200;
  herd.spread = microseconds{985'900};
  herd.stddev = microseconds{292'700};
  herd.largest_cluster = 7;
  herd.first_frame = 401;
  herd.message = "200 chains retried with no lockstep";
  r.lockstep.dispersed.push_back(herd);
  return r;
}

// Every path of `j` to a member of an object (entries' keys), depth first.
void member_paths(const json& j, const json::json_pointer& at, std::vector<json::json_pointer>& out) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) {
      out.push_back(at / k);
      member_paths(v, at / k, out);
    }
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) member_paths(j[i], at / i, out);
  }
}

}  // namespace

TEST_CASE("json report reader: a report with every value set reads back to the same text and JSON") {
  for (bool bpf : {false, true}) {
    CAPTURE(bpf);
    const Report r = everything_set(bpf);
    check_round_trip(r);
    ReportView should;  // the INFO findings hidden, counted
    should.level = Level::should;
    check_round_trip(r, should);
    const ReportView frames = view_with("frame.number != 183 && frame.number <= 184");
    // Hidden: the findings at frames 183, 185, 186 and 187.
    CHECK(text_of(r, frames).find("findings (4 hidden by -Y \"frame.number != 183 && frame.number <= 184\"):") != std::string::npos);
    check_round_trip(r, frames);
    ReportView only;
    only.findings_only = true;
    only.level = Level::must;
    check_round_trip(r, only);
  }
  // The values that show: the text says them (not a round trip of defaults).
  const std::string text = text_of(everything_set(false), {});
  CHECK(text.find("virtual networks: svlan 100/vlan 200, none, vxlan 5001/vlan 7 (its 4-tuple had another connection") !=
        std::string::npos);
  CHECK(text.find("7 packet(s) captured again, ignored (frames 12, 13, 20, 21, 30, ...)") != std::string::npos);
  CHECK(text.find("stepped back 28.336 s at frame 182 (dated before frame 181)") != std::string::npos);
  CHECK(text.find("frame 186 was captured in a burst the sending host released after a silence (frame 188 sends its "
                  "connection's previous data again less than 5.0 ms after it") != std::string::npos);
  CHECK(text.find("display filter: tcp.stream == 0 && (ieee8021ad.id == 100 && vlan.id == 200 || ") != std::string::npos);
}

TEST_CASE("json report reader: every key of an entry is read; one missing or mistyped is an error naming it") {
  const json doc = document_of(everything_set(false), {});
  const json& entry = doc["flows"][0];
  // The words the writers make from the values, and schema 1's copies of
  // values read elsewhere: not read back.
  const std::vector<std::string> words{"message", "summary", "display_filter", "stream_filter", "time",
                                       "observed_rto_ms", "predicted_rto_ms", "backoff", "relative", "avg_ms",
                                       "stdev_ms"};
  std::vector<json::json_pointer> paths;
  member_paths(entry, json::json_pointer(), paths);
  std::ostringstream sink;
  const replay::JsonTextReport text(sink, doc, "shard-2.json");
  std::size_t read = 0;
  for (const auto& p : paths) {
    const std::string key = p.back();
    const std::string parent = p.parent_pointer().to_string();
    // "backoff" is read in "final" (schema 1's copy in timeouts is not).
    const bool word = std::find(words.begin(), words.end(), key) != words.end() &&
                      !(key == "backoff" && parent.find("/final") != std::string::npos);
    json cut = entry;
    cut[p.parent_pointer()].erase(key);
    CAPTURE(p.to_string());
    if (word) {
      CHECK_NOTHROW(text.read(cut));
      continue;
    }
    ++read;
    try {
      text.read(cut);
      FAIL("no error without ", p.to_string());
    } catch (const replay::JsonReadError& e) {
      const std::string what = e.what();
      CHECK(what.rfind(p.to_string() == "/flow" ? "shard-2.json: a \"flows\" entry: " : "shard-2.json: flow 9: ", 0) == 0);
      CHECK(what.find(key + ": missing") != std::string::npos);
    }
  }
  CHECK(read > 150);
  // A value of another type, deep inside.
  json bad = entry;
  bad["senders"][1]["timeouts"][0]["wait_ms"] = "soon";
  try {
    text.read(bad);
    FAIL("no error for a wait that is a string");
  } catch (const replay::JsonReadError& e) {
    CHECK(std::string(e.what()) == "shard-2.json: flow 9: senders[1].timeouts[0].wait_ms: not an array");
  }
  bad = entry;
  bad["client"] = "fd00::1:39008";  // IPv6 without brackets
  CHECK_THROWS_WITH_AS(text.read(bad), doctest::Contains("client: \"fd00::1:39008\" is not an endpoint"),
                       replay::JsonReadError);
  bad = entry;
  bad["senders"][0]["findings"][0]["rule"] = "9.9";
  CHECK_THROWS_WITH_AS(text.read(bad), doctest::Contains("senders[0].findings[0].rule: \"9.9\" is not a rule"),
                       replay::JsonReadError);
  // The document's own keys: a missing one names the document.
  json top = doc;
  top["rto_config"].erase("set_on_command_line");
  CHECK_THROWS_WITH_AS(replay::JsonTextReport(sink, top, "merged.json"),
                       doctest::Contains("merged.json: rto_config.set_on_command_line: missing"), replay::JsonReadError);
  // A signed value past what int64 holds (2^63): refused, not wrapped to
  // INT64_MIN (an origin 292 years before 1970, every time printed wrong).
  top = doc;
  top["first_time_ns"] = std::uint64_t{1} << 63;
  CHECK_THROWS_WITH_AS(replay::JsonTextReport(sink, top, "merged.json"),
                       doctest::Contains("merged.json: first_time_ns: out of range"), replay::JsonReadError);
  // Hidden findings the selection would show: not what check wrote.
  bad = entry;
  bad["senders"][0]["findings_hidden"]["must"] = 1;
  CHECK_THROWS_WITH_AS(text.read(bad), doctest::Contains("findings_hidden.must: 1 finding(s) hidden where"),
                       replay::JsonReadError);
}

// ---- check --json --timeline, and the page of merge --html -----------------

namespace {

// Every field of two timeline events alike (the event's name by its text).
void check_same_event(const replay::TimelineEvent& a, const replay::TimelineEvent& b) {
  CHECK(a.frame == b.frame);
  CHECK(a.time == b.time);
  CHECK(a.event == b.event);
  CHECK(a.rel_seq == b.rel_seq);
  CHECK(a.sample == b.sample);
  CHECK(a.sample_kind == b.sample_kind);
  CHECK(a.srtt == b.srtt);
  CHECK(a.rttvar == b.rttvar);
  CHECK(a.rto == b.rto);
  CHECK(a.backoff == b.backoff);
  CHECK(a.len == b.len);
  CHECK(a.sack_count == b.sack_count);
  for (std::size_t i = 0; i < a.sack_count; ++i) CHECK(a.sack[i] == b.sack[i]);
  CHECK(a.copy_of == b.copy_of);
}

// `r` (its timelines kept) written as check --json --timeline and read back
// whole (JsonWholeReport, merge --html's way): every sender's timeline
// event for event, and the page check --html writes, byte for byte.
void check_whole_round_trip(const Report& r) {
  ReportView with;
  with.timeline = true;
  const json doc = document_of(r, with);
  replay::JsonWholeReport whole(doc, "doc.json");
  replay::FlowTotals read;
  for (const json& e : doc["flows"]) read.add(whole.check(e));
  replay::JsonWholeReport::check_summary(read, doc, "doc.json");
  for (const json& e : doc["flows"]) whole.add(e);
  const Report back = whole.take();
  REQUIRE(back.flows.size() == r.flows.size());
  std::size_t events = 0;
  for (std::size_t i = 0; i < r.flows.size(); ++i)
    for (std::size_t d = 0; d < 2; ++d) {
      const auto& want = r.flows[i].senders[d].timeline;
      const auto& got = back.flows[i].senders[d].timeline;
      if (r.flows[i].senders[d].data_segments == 0) continue;  // not in the document
      CAPTURE(r.flows[i].id);
      CAPTURE(d);
      REQUIRE(got.size() == want.size());
      for (std::size_t k = 0; k < want.size(); ++k) check_same_event(want[k], got[k]);
      events += want.size();
    }
  CHECK(events > 0);
  const int status = r.exit_status(false);
  std::ostringstream page, again;
  replay::write_html_report(page, r, status, {});
  replay::write_html_report(again, back, status, whole.view());
  INFO("first difference: " << first_difference(page.str(), again.str()));
  CHECK(page.str() == again.str());
}

}  // namespace

TEST_CASE("json report reader: check --json --timeline reads back event for event, and the page is check --html's") {
  const auto files = shipped_captures();
  for (const char* profile : {"rfc6298", "linux"})
    for (const std::string& file : files) {
      CAPTURE(profile);
      CAPTURE(file);
      std::vector<std::string> errors;
      check_whole_round_trip(replay::analyze_files({file}, replay::Options::for_profile(profile), /*keep_timeline=*/true, errors));
    }
  // Without --timeline the document has no timeline: the page cannot be drawn.
  std::vector<std::string> errors;
  const Report r = replay::analyze_files({"tests/captures/linux-blackhole.pcap"}, replay::Options::for_profile("linux"), true, errors);
  const json plain = document_of(r, {});
  CHECK_FALSE(plain["flows"][0]["senders"][0].contains("timeline"));
  replay::JsonWholeReport whole(plain, "s1.json");
  CHECK_THROWS_WITH_AS(whole.check(plain["flows"][0]),
                       doctest::Contains("s1.json: flow 1: senders: the client's sender has no \"timeline\""),
                       replay::JsonReadError);
}

TEST_CASE("json report reader: a timeline event with every field set, and what is refused") {
  Report r = everything_set(false);
  replay::SenderReport& s = r.flows[0].senders[0];
  s.timeline.clear();
  // A send, the peer's SACK with three blocks and a Karn sample, a copy of
  // frame 40, a held sample (TSecr) after a backoff.
  replay::TimelineEvent send;
  send.frame = 40, send.time = at_ns(2'000'000'123), send.event = replay::to_string(replay::SendKind::timeout);
  send.rel_seq = 4294967000u, send.len = 1449, send.rto = microseconds{2'400'000}, send.backoff = 3;
  replay::TimelineEvent sack = send;
  sack.frame = 41, sack.event = "sack", sack.len = 0, sack.sample = microseconds{1234};
  sack.sample_kind = replay::SampleKind::seq, sack.srtt = microseconds{1500}, sack.rttvar = microseconds{750};
  sack.sack = {{{1, 2}, {3, 4}, {4294967290u, 4294967295u}, {0, 0}}}, sack.sack_count = 3;
  replay::TimelineEvent copy = sack;
  copy.frame = 42, copy.event = replay::kCaptureCopyEvent, copy.copy_of = 40, copy.sack_count = 0, copy.sample.reset();
  copy.sample_kind.reset();
  replay::TimelineEvent held = sack;
  held.frame = 41, held.event = replay::kHeldSampleEvent, held.sample_kind = replay::SampleKind::ts_echo, held.sack_count = 0;
  s.timeline = {send, sack, copy, held};
  r.flows[0].senders[1].timeline = {send};
  // Probes that carried a byte (BSD, Windows), which the picture's legend names.
  s.by_kind[static_cast<std::size_t>(replay::SendKind::keepalive)] = 2;
  s.by_kind[static_cast<std::size_t>(replay::SendKind::zero_window_probe)] = 1;
  ReportView with;
  with.timeline = true;
  const json doc = document_of(r, with);
  std::ostringstream sink;
  const replay::JsonTextReport text(sink, doc, "s2.json");
  const replay::SenderReport read = text.read(doc["flows"][0]).first.senders[0];
  const auto& back = read.timeline;
  REQUIRE(back.size() == 4);
  for (std::size_t k = 0; k < 4; ++k) check_same_event(s.timeline[k], back[k]);
  CHECK(read.by_kind[static_cast<std::size_t>(replay::SendKind::keepalive)] == 2);
  CHECK(read.by_kind[static_cast<std::size_t>(replay::SendKind::zero_window_probe)] == 1);
  check_whole_round_trip(r);  // the page too (its legend names the probes)
  {
    // Frame 180's wait is unknown (the capture clock stepped): its expiry is
    // drawn without an arm or a window, and its row sorts by its "?";
    // frame 179's, known, has both.
    std::ostringstream page;
    replay::write_html_report(page, r, 1, {});
    const std::string html = page.str();
    CHECK(html.find("<rect class=\"window\" data-frame=\"179\"") != std::string::npos);
    CHECK(html.find("class=\"arm\" data-frame=\"179\"") != std::string::npos);
    CHECK(html.find("<rect class=\"window\" data-frame=\"180\"") == std::string::npos);
    CHECK(html.find("class=\"arm\" data-frame=\"180\"") == std::string::npos);
    CHECK(html.find("<title>frame 180: timer expiry 3 of its chain at 0.541000 s, waited ? ms") != std::string::npos);
    CHECK(html.find("<tr><td class=\"n\">180</td><td class=\"n\">0.541</td><td class=\"n\">131073</td><td class=\"n\">3</td>"
                    "<td class=\"n\">?</td><td class=\"n\">[369.2, 427.4]*</td><td class=\"n\">-</td>") != std::string::npos);
  }
  // Written as the CSV names them: a Karn sample "karn", a TSecr one "ts_echo".
  CHECK(doc["flows"][0]["senders"][0]["timeline"][1]["sample_kind"] == "karn");
  CHECK(doc["flows"][0]["senders"][0]["timeline"][3]["sample_kind"] == "ts_echo");
  CHECK(doc["flows"][0]["senders"][0]["timeline"][1]["sack"] == json::parse("[[1,2],[3,4],[4294967290,4294967295]]"));
  // Every key is read: one missing is an error naming it.
  for (const auto& [key, _] : doc["flows"][0]["senders"][0]["timeline"][1].items()) {
    json cut = doc["flows"][0];
    cut["senders"][0]["timeline"][1].erase(key);
    CAPTURE(key);
    CHECK_THROWS_WITH_AS(text.read(cut), doctest::Contains(("senders[0].timeline[1]." + key + ": missing").c_str()),
                         replay::JsonReadError);
  }
  json bad = doc["flows"][0];
  bad["senders"][0]["timeline"][0]["event"] = "retransmit";
  CHECK_THROWS_WITH_AS(text.read(bad), doctest::Contains("timeline[0].event: \"retransmit\" is not a timeline event"),
                       replay::JsonReadError);
  bad = doc["flows"][0];
  bad["senders"][0]["timeline"][1]["sack"] = json::parse("[[1,2],[3,4],[5,6],[7,8],[9,10]]");
  CHECK_THROWS_WITH_AS(text.read(bad), doctest::Contains("timeline[1].sack: more than 4 SACK blocks"), replay::JsonReadError);
  bad = doc["flows"][0];
  bad["senders"][0]["timeline"][1]["sack"][0] = json::parse("[1]");
  CHECK_THROWS_WITH_AS(text.read(bad), doctest::Contains("timeline[1].sack[0]: not a block"), replay::JsonReadError);
  bad = doc["flows"][0];
  bad["senders"][0]["timeline"][1]["sample_kind"] = "seq";
  CHECK_THROWS_WITH_AS(text.read(bad), doctest::Contains("timeline[1].sample_kind: \"seq\" is not a sample kind"),
                       replay::JsonReadError);
  bad = doc["flows"][0];
  bad["senders"][0]["timeline"][0]["rel_seq"] = std::uint64_t{1} << 32;
  CHECK_THROWS_WITH_AS(text.read(bad), doctest::Contains("timeline[0].rel_seq: out of range"), replay::JsonReadError);
  // A selection: the page counts and draws every connection and finding.
  ReportView must;
  must.level = Level::must;
  must.timeline = true;
  CHECK_THROWS_WITH_AS(replay::JsonWholeReport(document_of(r, must), "s3.json"),
                       doctest::Contains("s3.json: selection: a selection"), replay::JsonReadError);
  // Entries that do not add up to the summary (one left out): refused.
  const replay::JsonWholeReport whole(doc, "s4.json");
  CHECK_THROWS_WITH_AS(replay::JsonWholeReport::check_summary({}, doc, "s4.json"),
                       doctest::Contains("s4.json: its connections have 0 connection(s) where its summary.flows counts 1"),
                       replay::JsonReadError);
  // Each count is compared, the INFO findings too.
  replay::FlowTotals totals = whole.check(doc["flows"][0]);
  CHECK_NOTHROW(replay::JsonWholeReport::check_summary(totals, doc, "s4.json"));
  ++totals.findings[static_cast<std::size_t>(Level::info)];
  CHECK_THROWS_WITH_AS(replay::JsonWholeReport::check_summary(totals, doc, "s4.json"),
                       doctest::Contains("INFO finding(s) where its summary.info counts"), replay::JsonReadError);
  --totals.findings[static_cast<std::size_t>(Level::info)];
  ++totals.timeouts;
  CHECK_THROWS_WITH_AS(replay::JsonWholeReport::check_summary(totals, doc, "s4.json"),
                       doctest::Contains("timer expiries where its inputs' summaries (timeouts) counts"),
                       replay::JsonReadError);
  // A duration below 0, which no writer gives.
  bad = doc["flows"][0];
  bad["senders"][0]["timeline"][0]["rto_ms"] = -1.0;
  CHECK_THROWS_WITH_AS(text.read(bad), doctest::Contains("timeline[0].rto_ms: negative"), replay::JsonReadError);
}

#include <replay/report/report_json.hpp>

#include <replay/analysis/analyzer.hpp>
#include <replay/report/inferred_text.hpp>
#include <replay/report/judgement_text.hpp>
#include "report/lockstep_report.hpp"
#include <replay/report/wireshark_ref.hpp>
#include <replay/analysis/milliseconds.hpp>
#include <replay/report/input_counts.hpp>

namespace replay {

using std::chrono::microseconds;
using nlohmann::json;

namespace {
json opt_ms(const std::optional<microseconds>& d) { return d ? json(ms(*d)) : json(nullptr); }

json lost_json(const InputFile& in) {
  json a = json::array();
  for (const auto& l : in.lost)
    a.push_back({{"byte_begin", l.byte_begin},
                 {"byte_end", l.byte_end},
                 {"frames_before", l.frames_before},
                 {"frames_lost", l.frames_lost ? json(*l.frames_lost) : json(nullptr)},
                 {"to_end", l.to_end}});
  return a;
}

json inputs_json(const Report& r) {
  json a = json::array();
  for (const auto& in : r.inputs) {
    a.push_back({{"file", in.name},
                 {"usable", in.usable()},
                 {"error", in.usable() ? json(nullptr) : json(in.error)},
                 {"frames", in.frames},
                 {"tcp_segments", in.tcp_segments},
                 {"read_error", in.read_error},
                 {"lost", lost_json(in)}});
    if (in.kernel_drops) a.back()["kernel_drops"] = *in.kernel_drops;  // live capture only
    // Its own frame 1 (its connections' rel_time origin) and what it gave.
    const std::size_t i = a.size() - 1;
    const FlowTotals t = i < r.file_totals.size() ? r.file_totals[i] : FlowTotals{};
    a.back()["first_time"] = in.first_frame_time ? json(to_seconds(*in.first_frame_time)) : json(nullptr);
    a.back()["summary"] = {{"flows", t.flows},
                           {"retransmissions", t.retransmissions},
                           {"timeouts", t.timeouts},
                           {"must", t.findings[static_cast<std::size_t>(Level::must)]},
                           {"should", t.findings[static_cast<std::size_t>(Level::should)]},
                           {"may", t.findings[static_cast<std::size_t>(Level::may)]},
                           {"info", t.findings[static_cast<std::size_t>(Level::info)]}};
  }
  for (std::size_t i = 0; i < r.inputs.size(); ++i) {
    // Only for an input whose clock stepped back (the document of any other
    // input is unchanged): the steps the model's clock was re-based at.
    const InputFile& in = r.inputs[i];
    if (in.clock_steps_back == 0) continue;
    json steps = json::array();
    for (const ClockStep& c : in.clock_rebased)
      steps.push_back({{"frame", c.frame},
                       {"back_ms", static_cast<double>(c.returns_from ? -c.back.count() : c.back.count()) / 1e6},
                       {"rebase_ms", static_cast<double>(c.rebase.count()) / 1e6},
                       {"returns_from", c.returns_from ? json(*c.returns_from) : json(nullptr)}});
    a[i]["clock_steps_back"] = in.clock_steps_back;
    a[i]["clock_rebased"] = steps;
  }
  return a;
}
json stream_json(const std::optional<std::uint64_t>& n) { return n ? json(*n) : json(nullptr); }

// FlowReport::vnets: "vlan 10", "vxlan 5001/vlan 7"; "none" for untagged
// beside a tagged one.
json vnets_json(const FlowReport& f) {
  json a = json::array();
  for (const VirtualNetwork& v : f.vnets) a.push_back(v.empty() ? std::string("none") : to_string(v));
  return a;
}

// FlowReport::alongside, or null.
json alongside_json(const FlowReport& f) {
  if (!f.alongside) return nullptr;
  const AlongsideOf& a = *f.alongside;
  return {{"flow", a.flow},
          {"host", a.server ? "server" : "client"},
          {"isn", a.isn},
          {"other_isn", a.other_isn},
          {"syn_frame", a.syn_frame ? json(a.syn_frame) : json(nullptr)},
          {"another_clock", a.another_clock ? json(*a.another_clock) : json(nullptr)}};
}

json selection_json(const ReportView& v) {
  return {{"flow", v.flow ? json(*v.flow) : json(nullptr)},
          {"stream", v.stream ? json(*v.stream) : json(nullptr)},
          {"findings_only", v.findings_only},
          {"level", to_string(v.level)},
          {"display_filter", v.display ? json(v.display->text) : json(nullptr)}};
}

json rtt_json(const RttStats& s) {
  const auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  return {{"samples", s.samples},
          {"min_ms", s.samples ? json(ms(s.min)) : json(nullptr)},
          {"avg_ms", opt(s.mean_ms())},
          {"max_ms", s.samples ? json(ms(s.max)) : json(nullptr)},
          {"stdev_ms", opt(s.stdev_ms())}};
}

json interval_json(const Interval& i) { return json::array({ms(i.lo), i.bounded() ? json(ms(i.hi)) : json(nullptr)}); }

json readings_json(const std::vector<ReadingResult>& rs) {
  json a = json::array();
  for (const ReadingResult& r : rs) a.push_back({{"reading", to_string(r.reading)}, {"keeps", r.keeps}});
  return a;
}

// A judgement's fields, and its words ("message").
template <class Rel>
json judgement_json(const Judgement& x, const Options& options, const Rel& rel) {
  json j{{"rule", to_string(x.rule)},
         {"level", to_string(x.level)},
         {"outcome", to_string(x.outcome)},
         {"topic", to_string(x.topic)},
         {"basis", to_string(x.basis)},
         {"frame", x.frame},
         {"time", to_seconds(x.time)},
         {"rel_time", rel(x.time)},
         {"syn", x.syn},
         {"expiry", x.expiry},
         {"armed_by", to_string(x.armed_by)},
         {"readings", readings_json(x.readings)},
         {"evidence_frames", x.evidence},
         {"message", describe(x, options)},
         {"display_filter", frame_filter(x.frame)}};
  const auto opt = [](const std::optional<Interval>& i) { return i ? interval_json(*i) : json(nullptr); };
  j["wait_ms"] = opt(x.waited);
  j["prev_wait_ms"] = opt(x.prev_waited);
  j["predicted_ms"] = opt(x.predicted);
  j["accepted_ms"] = opt(x.accepted);
  j["alternative_ms"] = opt(x.alternative);
  j["setting"] = x.setting.kind == SettingUse::Kind::none
                     ? json(nullptr)
                     : json{{"kind", to_string(x.setting.kind)},
                            {"name", x.setting.name.empty() ? json(nullptr) : json(std::string(x.setting.name))},
                            {"value_ms", interval_json(x.setting.value)},
                            {"count", x.setting.count}};
  if (x.rule == RuleId::rfc6298_5_4) {
    j["rel_seq"] = x.rel_seq;
    j["rel_una"] = x.rel_una;
  }
  j["other_frame"] = x.other_frame ? json(x.other_frame) : json(nullptr);
  return j;
}

json rule_ids(const std::vector<RuleId>& rules) {
  json a = json::array();
  for (RuleId r : rules) a.push_back(std::string(to_string(r)));
  return a;
}

json inferred_json(const InferredSettings& in) {
  const auto opt = [](const std::optional<std::chrono::microseconds>& d) { return d ? json(ms(*d)) : json(nullptr); };
  json syn = json::array();
  for (auto w : in.syn_waits) syn.push_back(ms(w));
  return {{"initial_rto_ms", opt(in.initial_rto)},
          {"syn_waits_ms", syn},
          {"syn_linear_timeouts", in.syn_linear ? json(*in.syn_linear) : json(nullptr)},
          {"rto_floor", in.floor == RtoFloor::unknown ? json(nullptr) : json(to_string(in.floor))},
          {"first_rto_ms", opt(in.min_first_wait)},
          {"cap_reached_ms", opt(in.plateau)},
          {"additive_ms", opt(in.additive)},
          {"max_lateness_ms", opt(in.lateness)},
          {"loss_probes", in.probes},
          {"linear_data_timeouts", in.linear_data},
          {"tsval_hz", in.tsval_hz ? json(*in.tsval_hz) : json(nullptr)},
          {"fallback_57", in.fallback_57 == Seen57::unknown ? json(nullptr) : json(to_string(in.fallback_57))},
          {"settings", json(std::vector<std::string>(in.settings.begin(), in.settings.end()))},
          {"evidence_frames", in.evidence}};
}
}  // namespace

namespace {
// What every document says of its input (json objects keep their keys
// sorted, so the order of these lines does not show): the files, the time of
// frame 1, each input's counts and losses, the note on empty input, and the
// selection (--flow, --stream, --findings-only).
void put_input_fields(json& doc, const Report& r, const ReportView& view) {
  doc["files"] = r.files;
  doc["first_time"] = r.have_first_time ? json(to_seconds(r.first_time)) : json(nullptr);
  doc["inputs"] = inputs_json(r);
  const auto note = empty_input_note(r);
  doc["note"] = note ? json(*note) : json(nullptr);
  doc["selection"] = selection_json(view);
}
}  // namespace

namespace {
// A connection's own fields, as both documents give them (check's with its
// senders' full reports inside, flows' with their counts).
json connection_json(const FlowReport& f, std::optional<std::uint64_t> stream, CaptureTime origin) {
  return {{"flow", f.id},
          {"tcp_stream", stream_json(stream)},
          {"stream_filter", stream_filter(f, stream)},
          {"file", f.file},
          {"client", to_string(f.client)},
          {"server", to_string(f.server)},
          {"packets", f.packets},
          {"first_frame", f.first_frame},
          {"last_frame", f.last_frame},
          {"time", to_seconds(f.first_time)},
          {"rel_time", seconds_between(f.first_time, origin)},
          {"duration_s", seconds_between(f.last_time, f.first_time)},
          {"syn", f.saw_syn},
          {"fin", f.saw_fin},
          {"rst", f.saw_rst},
          {"capture_duplicates", f.capture_duplicates},
          {"virtual_networks", vnets_json(f)},
          {"alongside", alongside_json(f)}};
}

bool shows_sender(const FlowReport& f, std::size_t dir, const ReportView& view) {
  return f.senders[dir].data_segments != 0 && view.shows(f.senders[dir]);
}

json sender_json(const FlowReport& f, const Options& options, std::size_t dir, CaptureTime origin,
                 const ReportView& view) {
  const auto rel = [&](CaptureTime t) { return seconds_between(t, origin); };
  const SenderReport& s = f.senders[dir];
  json jf;
  jf["direction"] = dir == 0 ? "client->server" : "server->client";
  jf["src"] = to_string(s.src);
  jf["dst"] = to_string(s.dst);
  jf["packets"] = s.packets;
  jf["data_segments"] = s.data_segments;
  jf["bytes"] = s.bytes;
  jf["timestamps"] = s.timestamps;
  jf["tsval_sent"] = s.tsval_sent;
  jf["tsval_peer"] = s.tsval_peer;
  jf["sack"] = s.sack;
  jf["peer_seen"] = s.peer_seen;
  jf["rtt_samples"] = {{"karn", s.samples_seq},
                       {"ts_echo", s.samples_ts},
                       {"ambiguous_acks", s.ambiguous_acks},
                       {"refused", s.samples_refused}};
  jf["rtt"] = {{"karn", rtt_json(s.rtt_karn)}, {"ts_echo", rtt_json(s.rtt_ts_echo)}};
  jf["final"] = {{"srtt_ms", opt_ms(s.srtt)}, {"rttvar_ms", opt_ms(s.rttvar)}, {"rto_ms", ms(s.rto)},
                 {"backoff", s.backoff}};
  json kinds = json::object();
  for (std::size_t k = 0; k < kSendKinds; ++k)
    if (is_retransmission(static_cast<SendKind>(k)) || static_cast<SendKind>(k) == SendKind::out_of_order)
      kinds[std::string(to_string(static_cast<SendKind>(k)))] = s.by_kind[k];
  jf["retransmissions"] = kinds;
  jf["new_data_probes"] = s.by_kind[static_cast<std::size_t>(SendKind::tlp_new_data)];
  jf["keepalives"] = s.keepalives;
  jf["zero_window_probes"] = s.zero_window_probes;
  json touts = json::array();
  for (const auto& t : s.timeouts) {
    json jt{{"frame", t.frame},
            {"time", to_seconds(t.time)},
            {"rel_time", rel(t.time)},
            {"seq", t.rel_seq},
            {"syn", t.syn},
            {"expiry", t.expiry},
            {"wait_ms", t.wait_unknown ? json(nullptr) : interval_json(t.wait)},
            {"basis", to_string(t.basis)},
            {"predicted_ms", interval_json(t.predicted)},
            {"accepted_ms", interval_json(t.accepted)},
            {"alternative_ms", t.alternative ? interval_json(*t.alternative) : json(nullptr)},
            {"armed_by", to_string(t.armed_by)},
            {"verdict", to_string(t.verdict)},
            {"clock", to_string(t.clock)},
            {"readings", readings_json(t.readings)},
            {"rules", rule_ids(t.rules)},
            {"display_filter", frame_filter(t.frame)}};
    // Schema 1's names, kept for its readers: the wait's latest reading, the
    // prediction's low end, the expiry number, the doubling basis.
    jt["observed_rto_ms"] = t.wait_unknown ? json(nullptr) : json(ms(t.wait.lo));
    jt["predicted_rto_ms"] = ms(t.predicted.lo);
    jt["backoff"] = t.expiry;
    jt["relative"] = t.basis == Basis::doubling;
    touts.push_back(std::move(jt));
  }
  jf["timeouts"] = touts;
  json finds = json::array();
  for (const auto& x : s.findings)
    if (view.shows(x)) finds.push_back(judgement_json(x, options, rel));
  jf["findings"] = finds;
  jf["profile"] = s.profile;
  jf["inferred"] = inferred_json(s.inferred);
  jf["inferred"]["summary"] = summarize(s, options);
  return jf;
}

}  // namespace

void append_flow_json(json& entries, const FlowReport& f, const Options& options, std::optional<std::uint64_t> stream,
                      CaptureTime origin, const ReportView& view) {
  json entry = connection_json(f, stream, origin);
  json senders = json::array();
  for (std::size_t dir = 0; dir < 2; ++dir)
    if (shows_sender(f, dir, view)) senders.push_back(sender_json(f, options, dir, origin, view));
  entry["senders"] = std::move(senders);
  entries.push_back(std::move(entry));
}

json to_json(const Report& r, const ReportView& view) {
  const Options& o = r.options;
  json doc;
  doc["tool"] = "pcap-replay";
  doc["schema_version"] = kSchemaVersion;
  doc["kind"] = "check";
  doc["profile"] = o.auto_profile ? std::string("auto") : std::string(o.profile->name);
  doc["tolerance"] = {{"granularity_ms", ms(o.absolute_tolerance)},
                      {"slack_percent", o.slack_percent},
                      {"timer_wheel_lateness", o.profile->lateness == Lateness::linux_wheel}};
  doc["rto_config"] = {{"initial_rto_ms", ms(o.config.initial_rto)},
                       {"min_rto_ms", ms(o.config.min_rto)},
                       {"max_rto_ms", ms(o.config.max_rto)},
                       {"syn_linear_timeouts", o.config.syn_linear_timeouts}};
  put_input_fields(doc, r, view);
  json diags = json::array();
  for (const auto& d : r.diagnostics)
    diags.push_back({{"file", d.file},
                     {"frame", d.frame},
                     {"field", d.field},
                     {"message", d.message},
                     {"skipped", d.skipped}});
  doc["diagnostics"] = diags;
  const StreamNumbers streams(r);
  json flows = json::array();
  for (const auto& f : r.flows) {
    const auto stream = streams.of(f);
    if (view.shows(f, stream)) append_flow_json(flows, f, r.options, stream, r.origin_of(f.file_index), view);
  }
  doc["flows"] = flows;
  doc["lockstep"] = lockstep_json(r);
  const InputCounts in = input_counts(r);
  doc["summary"] = {{"flows", r.flow_count()},
                    {"frames_skipped", in.skipped},
                    {"frames_with_warning", in.warned},
                    {"unusable_files", in.unusable},
                    {"must", r.count(Level::must)},
                    {"should", r.count(Level::should)},
                    {"may", r.count(Level::may)},
                    {"info", r.count(Level::info)}};
  return doc;
}

std::string dump_document(const json& doc) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (std::string_view k : kLeadingKeys)
    if (const auto it = doc.find(std::string(k)); it != doc.end()) out[std::string(k)] = *it;
  if (const auto it = doc.find("flows"); it != doc.end()) out["flows"] = *it;
  for (const auto& [k, v] : doc.items())
    if (!out.contains(k)) out[k] = v;
  return out.dump(2);
}

void write_json_report(std::ostream& os, const Report& r, const ReportView& view) {
  os << dump_document(to_json(r, view)) << "\n";
}

json flow_list_entry(const FlowReport& f, std::optional<std::uint64_t> stream, CaptureTime origin) {
  json senders = json::array();
  for (std::size_t dir = 0; dir < 2; ++dir) {
    const SenderReport& s = f.senders[dir];
    senders.push_back({{"direction", dir == 0 ? "client->server" : "server->client"},
                       {"src", to_string(s.src)},
                       {"dst", to_string(s.dst)},
                       {"packets", s.packets},
                       {"data_segments", s.data_segments},
                       {"bytes", s.bytes}});
  }
  json entry = connection_json(f, stream, origin);
  entry["senders"] = std::move(senders);
  return entry;
}


json flows_to_json(const Report& r, const ReportView& view) {
  json doc;
  doc["tool"] = "pcap-replay";
  doc["schema_version"] = kSchemaVersion;
  doc["kind"] = "flows";
  put_input_fields(doc, r, view);
  const StreamNumbers streams(r);
  json flows = json::array();
  for (const auto& f : r.flows)
    if (view.shows(f, streams)) flows.push_back(flow_list_entry(f, streams.of(f), r.origin_of(f.file_index)));
  doc["flows"] = flows;
  return doc;
}

void write_json_flow_list(std::ostream& os, const Report& r, const ReportView& view) {
  os << dump_document(flows_to_json(r, view)) << "\n";
}

}  // namespace replay

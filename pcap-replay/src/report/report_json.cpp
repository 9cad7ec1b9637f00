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
    a.back()["first_time_ns"] = in.first_frame_time ? json(in.first_frame_time->time_since_epoch().count()) : json(nullptr);
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
json selection_json(const ReportView& v) {
  return {{"flow", v.flow ? json(*v.flow) : json(nullptr)},
          {"stream", v.stream ? json(*v.stream) : json(nullptr)},
          {"findings_only", v.findings_only},
          {"level", to_string(v.level)},
          {"display_filter", v.display ? json(v.display->text) : json(nullptr)}};
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
  // The same, exact (nanoseconds since the epoch): the origin a reader of
  // the document counts the rel_time keys from (json_report_reader.hpp).
  doc["first_time_ns"] = r.have_first_time ? json(r.first_time.time_since_epoch().count()) : json(nullptr);
  doc["inputs"] = inputs_json(r);
  const auto note = empty_input_note(r);
  doc["note"] = note ? json(*note) : json(nullptr);
  doc["selection"] = selection_json(view);
}
}  // namespace

void append_flow_json(json& entries, const FlowReport& f, const Options& options, std::optional<std::uint64_t> stream,
                      CaptureTime origin, const ReportView& view) {
  std::string text;
  write_flow_json(text, f, options, stream, origin, view);
  entries.push_back(json::parse(text));
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
  json set = json::array();  // which of them the command line set, in the text heading's order
  if (o.user_min_rto) set.push_back("min_rto_ms");
  if (o.user_max_rto) set.push_back("max_rto_ms");
  if (o.user_syn_linear) set.push_back("syn_linear_timeouts");
  if (o.user_granularity) set.push_back("granularity_ms");
  doc["rto_config"] = {{"initial_rto_ms", ms(o.config.initial_rto)},
                       {"min_rto_ms", ms(o.config.min_rto)},
                       {"max_rto_ms", ms(o.config.max_rto)},
                       {"syn_linear_timeouts", o.config.syn_linear_timeouts},
                       {"granularity_ms", ms(o.config.granularity)},
                       {"syn_fallback_rto_ms", ms(o.config.syn_fallback_rto)},
                       {"set_on_command_line", set}};
  doc["bpf_filter"] = o.filter.empty() ? json(nullptr) : json(o.filter);
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
  // A string that is not UTF-8 (a file name can be any bytes) has its
  // invalid bytes written as U+FFFD rather than failing the report.
  return out.dump(2, ' ', false, json::error_handler_t::replace);
}

void write_json_report(std::ostream& os, const Report& r, const ReportView& view) {
  os << dump_document(to_json(r, view)) << "\n";
}

json flow_list_entry(const FlowReport& f, std::optional<std::uint64_t> stream, CaptureTime origin) {
  std::string text;
  write_flow_list_entry(text, f, stream, origin);
  return json::parse(text);
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

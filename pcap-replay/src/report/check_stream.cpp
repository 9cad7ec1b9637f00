#include <replay/report/check_stream.hpp>

#include <string_view>

#include <replay/report/report_json.hpp>
#include <replay/report/report_text.hpp>

#include <replay/report/json_flows_writer.hpp>
#include <replay/report/shard_merge.hpp>
#include <replay/report/input_counts.hpp>

namespace replay {

CheckStream::CheckStream(std::ostream& os, const Options& options, const ReportView& view, bool json)
    : os_(os),
      options_(options),
      view_(view),
      json_(json),
      doc_(os),
      streams_(options.filter.empty()),
      hint_(options.profile->name) {}

SinkMode CheckStream::sink_mode() {
  SinkMode m;
  m.keep_reports = false;
  return m;
}

void CheckStream::begin_text() {
  if (begun_) return;
  begun_ = true;
  write_text_heading(os_, options_);
}

void CheckStream::begin_json() {
  if (doc_.begun()) return;
  // The document's kLeadingKeys depend on the options and the view only.
  Report head;
  head.options = options_;
  doc_.begin(to_json(head, view_));
}

void CheckStream::flow(FlowReport& f, CaptureTime origin) {
  const auto stream = streams_.next(f);  // numbered over every connection, this shard's or not
  if (f.elsewhere) return;
  hint_.judged(f);
  if (!view_.shows(f, stream)) return;
  ++shown_;
  if (!json_) {
    begin_text();
    write_text_flow(os_, f, options_, stream, origin, view_);
    return;
  }
  entry_.clear();
  write_flow_json(entry_, f, options_, stream, origin, view_, JsonFlowsWriter::kEntryIndent);
  begin_json();
  doc_.entry(entry_);
}

void CheckStream::finish(const Report& r, const std::optional<std::string>& profile_hint) {
  if (!json_) {
    if (unusable_inputs(r).size() == r.inputs.size() && !begun_) return;  // no report at all, as without streaming
    begin_text();
    write_text_ending(os_, r);
    if (profile_hint) os_ << "hint: " << *profile_hint << "\n";
    return;
  }
  nlohmann::json doc = to_json(r, view_);
  doc["profile_hint"] = profile_hint ? nlohmann::json(*profile_hint) : nlohmann::json(nullptr);
  if (shard_run_) {
    doc["shard"] = shard_json(r, hint_);
    doc["shard"]["run"] = *shard_run_;
  }
  doc_.finish(doc);
}

}  // namespace replay

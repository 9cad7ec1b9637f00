#include <replay/check_stream.hpp>

#include <string_view>

#include <replay/report_json.hpp>
#include <replay/report_text.hpp>

namespace replay {

namespace {
// Where dump(2) of a report document puts the top-level "flows" array: every
// top-level key is on its own line indented by two spaces, and no string in
// the document holds a raw newline (JSON escapes it), so this is unique.
constexpr std::string_view kFlowsKey = "\n  \"flows\": [";

// `text` (an object dumped with indent 2) as an element of the top-level
// "flows" array: each of its lines four spaces further in.
void write_entry(std::ostream& os, const std::string& text) {
  os << "    ";
  std::size_t from = 0;
  for (std::size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', from)) {
    os.write(text.data() + from, static_cast<std::streamsize>(nl + 1 - from));
    os << "    ";
    from = nl + 1;
  }
  os.write(text.data() + from, static_cast<std::streamsize>(text.size() - from));
}
}  // namespace

CheckStream::CheckStream(std::ostream& os, const Options& options, const ReportView& view, bool json)
    : os_(os),
      options_(options),
      view_(view),
      json_(json),
      streams_(options.filter.empty()),
      hint_(options.profile->name) {}

SinkMode CheckStream::sink_mode() {
  SinkMode m;
  m.keep_reports = false;
  if (json_) {
    m.after_input = true;
    m.input_read = [this](const Report& r) { head_ = r; };
  }
  return m;
}

void CheckStream::begin_text() {
  if (begun_) return;
  begun_ = true;
  write_text_heading(os_, options_);
}

void CheckStream::begin_json(CaptureTime origin) {
  if (begun_) return;
  begun_ = true;
  // The document as the whole-report path would start it: its keys before
  // "flows" (diagnostics, files, first_time) are complete once the input is
  // read, and the origin is Report::first_time.
  Report head = head_ ? std::move(*head_) : Report{};
  head_.reset();
  head.options = options_;
  head.first_time = origin;
  head.have_first_time = true;
  const std::string text = to_json(head, view_).dump(2);
  const std::size_t at = text.find(kFlowsKey);
  os_.write(text.data(), static_cast<std::streamsize>(at + kFlowsKey.size()));
}

void CheckStream::flow(FlowReport& f, CaptureTime origin) {
  hint_.judged(f);
  const auto stream = streams_.next(f);
  if (!view_.shows(f, stream)) return;
  if (!json_) {
    begin_text();
    write_text_flow(os_, f, stream, origin, view_);
    return;
  }
  nlohmann::json entries = nlohmann::json::array();
  append_flow_json(entries, f, stream, origin, view_);
  if (entries.empty()) return;
  begin_json(origin);
  for (const auto& e : entries) {
    os_ << (any_entry_ ? ",\n" : "\n");
    write_entry(os_, e.dump(2));
    any_entry_ = true;
  }
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
  const std::string text = doc.dump(2);
  if (!any_entry_) {
    os_ << text << "\n";  // no entry: the whole document as it is ("flows": [])
    return;
  }
  // The entries are written: close the array and write what follows it.
  const std::size_t after = text.find(kFlowsKey) + kFlowsKey.size();  // at "]" of "[]"
  os_ << "\n  ";
  os_.write(text.data() + after, static_cast<std::streamsize>(text.size() - after));
  os_ << "\n";
}

}  // namespace replay

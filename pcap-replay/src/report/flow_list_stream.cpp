#include <replay/report/flow_list_stream.hpp>

#include <replay/report/report_json.hpp>
#include <replay/report/report_text.hpp>

namespace replay {

FlowListStream::FlowListStream(std::ostream& os, const Options& options, bool json)
    : os_(os), json_(json), doc_(os), streams_(options.filter.empty()) {}

SinkMode FlowListStream::sink_mode() {
  SinkMode m;
  m.keep_reports = false;
  return m;
}

void FlowListStream::flow(FlowReport& f, CaptureTime origin) {
  const auto stream = streams_.next(f);
  if (!json_) {
    if (!begun_) write_flow_list_heading(os_);
    begun_ = true;
    write_flow_list_line(os_, f, stream);
    return;
  }
  if (!doc_.begun()) doc_.begin(flows_to_json(Report{}));  // its kLeadingKeys are the same for every report
  entry_.clear();
  write_flow_list_entry(entry_, f, stream, origin, JsonFlowsWriter::kEntryIndent);
  doc_.entry(entry_);
}

void FlowListStream::finish(const Report& r) {
  if (!json_) {
    if (!begun_) write_flow_list_heading(os_);
    begun_ = true;
    return;
  }
  doc_.finish(flows_to_json(r));
}

}  // namespace replay

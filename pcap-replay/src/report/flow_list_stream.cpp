#include <replay/flow_list_stream.hpp>

#include <replay/report_json.hpp>
#include <replay/report_text.hpp>

namespace replay {

FlowListStream::FlowListStream(std::ostream& os, const Options& options, bool json)
    : os_(os), json_(json), doc_(os), streams_(options.filter.empty()) {}

SinkMode FlowListStream::sink_mode() {
  SinkMode m;
  m.keep_reports = false;
  if (json_) {
    m.after_input = true;
    m.input_read = [this](const Report& r) { head_ = r; };
  }
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
  if (!doc_.begun()) {
    // The document as write_json_flow_list would start it: "files" and
    // "first_time" (the origin) are complete once the input is read.
    Report head = head_ ? std::move(*head_) : Report{};
    head_.reset();
    head.first_time = origin;
    head.have_first_time = true;
    doc_.begin(flows_to_json(head));
  }
  doc_.entry(flow_list_entry(f, stream, origin));
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

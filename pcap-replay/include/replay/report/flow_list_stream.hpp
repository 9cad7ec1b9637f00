#pragma once
// The connection list of `pcap-replay flows` (text or --json) written
// connection by connection as the analysis finishes them
// (Analyzer::set_flow_sink), so that the memory held does not grow with the
// connections already listed. The output is byte for byte what
// write_flow_list / write_json_flow_list write for the whole report.

#include <optional>
#include <string>
#include <ostream>

#include <replay/analysis/analyzer.hpp>
#include <replay/report/json_flows_writer.hpp>
#include <replay/report/report_view.hpp>
#include <replay/report/wireshark_ref.hpp>

namespace replay {

/// Writes one connection list as it goes. Use: sink_mode() for
/// analyze_files, flow() as its FlowSink, then finish() with the Report it
/// returned. Not for a view that picks connections (--flow, --stream).
class FlowListStream {
 public:
  /// `json`: the document of flows_to_json, else the lines of write_flow_list.
  /// `options`: the analysis's (the tcp.stream numbers are unknown under a
  /// BPF filter).
  FlowListStream(std::ostream& os, const Options& options, bool json);

  /// How analyze_files must feed flow(): each connection as soon as it is
  /// finished, its report dropped once written (JSON too: only the
  /// document's kLeadingKeys come before "flows").
  SinkMode sink_mode();
  /// The FlowSink: writes connection `f` ("rel_time" since `origin`).
  void flow(FlowReport& f, CaptureTime origin);
  /// Writes the rest of the list: `r` is what analyze_files returned.
  void finish(const Report& r);

 private:
  std::ostream& os_;
  bool json_;
  bool begun_ = false;          // the heading line is written (text)
  JsonFlowsWriter doc_;         // the document (JSON)
  std::string entry_;           // a connection's entry (JSON), its capacity reused
  StreamCounter streams_;
};

}  // namespace replay

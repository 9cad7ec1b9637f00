#pragma once
// The report of `pcap-replay check` (text or --json) written connection by
// connection as the analysis finishes them (Analyzer::set_flow_sink), so that
// the memory held does not grow with the connections already written. The
// output is byte for byte what write_text_report / write_json_report
// write for the whole report.

#include <optional>
#include <utility>

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include <replay/analysis/analyzer.hpp>
#include <replay/report/json_flows_writer.hpp>
#include <replay/analysis/profile_hint.hpp>
#include <replay/report/report_view.hpp>
#include <replay/report/wireshark_ref.hpp>

namespace replay {

/// Writes one check report as it goes. Use: sink_mode() for analyze_files,
/// flow() as its FlowSink, then finish() with the Report it returned. Not for
/// a view that picks connections (--flow, --stream: ReportView::error needs
/// every connection first); --findings-only is fine.
class CheckStream {
 public:
  /// `json`: the document of to_json, else the text of write_text_report.
  /// `options`: the analysis's (the text heading; the tcp.stream numbers are
  /// unknown under a BPF filter).
  CheckStream(std::ostream& os, const Options& options, const ReportView& view, bool json);

  /// How analyze_files must feed flow(): each connection as soon as it is
  /// finished, its report dropped once written (JSON too: only the
  /// document's kLeadingKeys, known from the options, come before "flows").
  SinkMode sink_mode();
  /// The FlowSink: writes connection `f` (times since `origin`) and notes
  /// its senders with MUST findings for the profile hint (hint()).
  void flow(FlowReport& f, CaptureTime origin);
  /// Makes the document a shard's (`check --shard K/N`, even 1/1): its
  /// "shard" object (shard_json) with `run` in it, what the shards of one run
  /// must agree on beyond the document (the options it does not show).
  void set_shard_run(nlohmann::json run) { shard_run_ = std::move(run); }
  /// The senders with MUST findings seen so far (HintTally::judged).
  HintTally& hint() { return hint_; }
  /// Connections the view showed so far.
  std::size_t shown() const { return shown_; }
  /// Writes the rest of the report: `r` is what analyze_files returned
  /// (Report::streamed counts the written connections), `profile_hint` the
  /// hint line (text: "hint: ..." after the summary; JSON: "profile_hint").
  /// Writes nothing of the text report when no input was usable (as the
  /// whole-report path, which prints none then).
  void finish(const Report& r, const std::optional<std::string>& profile_hint);

 private:
  void begin_text();
  void begin_json();

  std::ostream& os_;
  const Options& options_;
  std::size_t shown_ = 0;
  ReportView view_;
  bool json_;
  bool begun_ = false;       // the heading is written (text)
  JsonFlowsWriter doc_;      // the document (JSON)
  std::string entry_;        // a connection's entry (JSON), its capacity reused
  StreamCounter streams_;
  HintTally hint_;
  std::optional<nlohmann::json> shard_run_;
};

}  // namespace replay

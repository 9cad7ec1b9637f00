#pragma once
// The analysis front door: feed it the segments of one or more captures (in
// file order) and get a Report: connections, per sender the retransmissions
// by kind, RTT samples, the replayed RTO and timeouts, and RFC 6298 findings.

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <replay/input/capture_reader.hpp>
#include <replay/analysis/flow_report.hpp>
#include <replay/analysis/options.hpp>

namespace replay {

/// Receives each connection's final report during the analysis (for output
/// written as it goes: timeline --csv), with the origin that will be
/// Report::first_time. The sink may take what it wrote out of the report
/// (the timeline events); the rest stays for Analyzer::finish().
using FlowSink = std::function<void(FlowReport& flow, CaptureTime origin)>;

/// How connections reach a FlowSink (for reports written as they go).
struct SinkMode {
  /// false: a connection's report is dropped as soon as the sink had it
  /// (Report::flows then holds none of them; their counts are in
  /// Report::streamed), so the memory held does not grow with the finished
  /// connections. true: Report::flows still has every one.
  bool keep_reports = true;
};

/// Streams segments into per-connection sender models.
class Analyzer {
 public:
  /// `keep_timeline`: record every event for `timeline --csv` (more memory).
  /// Throws rto::ConfigError when options.config is invalid.
  explicit Analyzer(Options options, bool keep_timeline = false);
  ~Analyzer();
  Analyzer(const Analyzer&) = delete;
  Analyzer& operator=(const Analyzer&) = delete;

  /// Declares input file number `file_index` (Segment::file_index) by name.
  void add_file(std::size_t file_index, const std::string& name);
  /// One TCP segment, in capture order within its file.
  void add(const Segment& s);
  /// Reader problems to carry into the report: the first
  /// limits::kMaxDiagnostics are kept, the rest only counted
  /// (Report::dropped_skipped, dropped_warned).
  void add_diagnostics(const std::vector<Diagnostic>& d);
  /// Diagnostics the caller counted but did not keep (beyond the cap).
  void count_dropped_diagnostics(std::uint64_t skipped, std::uint64_t warned);
  /// What became of one input file (Report::inputs, in call order).
  void add_input(const InputFile& in);
  /// Ends the analysis; the Analyzer is spent afterwards.
  Report finish();
  /// Hands every connection to `sink` in FlowReport::id order, each as soon
  /// as it and every connection before it are finished and the origin is
  /// known (set_origin, else at finish(): the earliest segment's time). A
  /// connection is finished when a new one takes its 4-tuple, when the next
  /// input file begins, when it cannot resume (reset, closed both ways, or
  /// SYNs nothing answered) and the capture is past its last segment by more
  /// than Options::idle_split, else at finish(); so what waits is bounded by
  /// the connections still open and the finished ones after the oldest open
  /// one.
  /// `mode`: see SinkMode (by default the reports are kept and handed over
  /// as soon as possible).
  void set_flow_sink(FlowSink sink, SinkMode mode = {});
  /// The time Report::first_time will be (the first frame of the first
  /// input that has one, as analyze_files sets it); call once, when known.
  void set_origin(CaptureTime origin);
  /// The time of frame 1 of input file `file_index` (Report::origin_of):
  /// the sink is given it as the origin of that file's connections. Call
  /// before the file's first segment is added; without it, set_origin's.
  void set_file_origin(std::size_t file_index, CaptureTime origin);

  /// TCP connections seen so far (for a status line).
  std::size_t connections() const;
  /// Retransmission timeouts found so far, over every sender (under
  /// --profile auto, as the first profile reads them): for a status line;
  /// the report's count can differ once the connections are finished.
  std::size_t timeouts_so_far() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace replay

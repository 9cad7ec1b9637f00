#pragma once
// The analysis front door: feed it the segments of one or more captures (in
// file order) and get a Report: connections, per sender the retransmissions
// by kind, RTT samples, the replayed RTO and timeouts, and RFC 6298 findings.

#include <memory>
#include <string>
#include <vector>

#include "capture_reader.hpp"
#include "flow_report.hpp"
#include "options.hpp"

namespace replay {

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
  /// Reader problems to carry into the report.
  void add_diagnostics(const std::vector<Diagnostic>& d);
  /// Ends the analysis; the Analyzer is spent afterwards.
  Report finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Reads every file with CaptureReader (BPF `filter`, "-" = stdin) and
/// analyses them. Files that cannot be opened are named in `errors` (with
/// libpcap's reason) and skipped; frames that are malformed are in
/// Report::diagnostics.
Report analyze_files(const std::vector<std::string>& files, const Options& options,
                     bool keep_timeline, std::vector<std::string>& errors);

}  // namespace replay

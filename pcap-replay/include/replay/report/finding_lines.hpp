#pragma once
// `pcap-replay findings`: the findings one per line, as `tshark -z expert`
// lists its expert items and a compiler its diagnostics, for grep, sort and
// spreadsheets. The words of each are judgement_text.hpp's.

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <replay/analysis/flow_report.hpp>
#include <replay/analysis/options.hpp>
#include <replay/report/report_view.hpp>

namespace replay {

/// One line of `pcap-replay findings`, with where it sorts: by file, then
/// frame (the CLI prints a file's lines in frame order, across connections).
struct FindingLine {
  std::size_t file_index = 0;
  std::uint64_t frame = 0;
  std::string text;  ///< the line, without its newline
};

/// The lines of connection `f`'s findings that `view` shows (its level and
/// above; the caller decides whether `view` shows `f`), both senders'
/// merged in frame order (ties: the client's first), appended to `out`:
///   text: "FILE:FRAME: LEVEL RULE SRC -> DST: MESSAGE"
///   tsv:  FILE, FRAME, LEVEL, RULE, "SRC -> DST", MESSAGE separated by tabs
///         (a tab or line break inside a field is written as a space).
/// RULE is the short id of rules.hpp ("5.5", "2.4", "ambiguous"); LEVEL is
/// MUST, SHOULD, MAY or INFO; `o`: the options the capture was judged under.
void finding_lines(std::vector<FindingLine>& out, const FlowReport& f, const Options& o, const ReportView& view,
                   bool tsv);

/// Writes `lines` sorted by file, then frame (stable: a frame's findings in
/// their connection's order), one per line.
void write_finding_lines(std::ostream& os, std::vector<FindingLine> lines);

}  // namespace replay

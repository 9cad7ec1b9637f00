#pragma once
// `pcap-replay findings`: the findings one per line, as `tshark -z expert`
// lists its expert items and a compiler its diagnostics, for grep, sort and
// spreadsheets. The words of each are judgement_text.hpp's.

#include <ostream>

#include <replay/analysis/flow_report.hpp>
#include <replay/analysis/options.hpp>
#include <replay/report/report_view.hpp>

namespace replay {

/// Writes the findings of connection `f` that `view` shows (its level and
/// above; the caller decides whether `view` shows `f`), both senders'
/// merged in frame order (ties: the client's first), one line each:
///   text: "FILE:FRAME: LEVEL RULE SRC -> DST: MESSAGE"
///   tsv:  FILE, FRAME, LEVEL, RULE, "SRC -> DST", MESSAGE separated by tabs
///         (a tab or line break inside a field is written as a space).
/// RULE is the short id of rules.hpp ("5.5", "2.4", "ambiguous"); LEVEL is
/// MUST, SHOULD, MAY or INFO; `o`: the options the capture was judged under.
void write_finding_lines(std::ostream& os, const FlowReport& f, const Options& o, const ReportView& view, bool tsv);

}  // namespace replay

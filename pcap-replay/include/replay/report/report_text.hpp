#pragma once
// The readable report of `pcap-replay check` and the list of `pcap-replay flows`.

#include <cstdint>
#include <optional>
#include <ostream>

#include <replay/analysis/flow_report.hpp>
#include <replay/report/report_view.hpp>

namespace replay {

/// Per flow: endpoints, file, frames, Wireshark's tcp.stream and a display
/// filter for it; per sender: packets, RTT samples and their min/avg/max/stdev
/// (as tcptrace -l -r), final SRTT/RTTVAR/RTO, retransmissions by kind,
/// every timeout (frame, time, sequence, backoff k, waited, predicted,
/// verdict) and the findings by rule, each with the display filter of its
/// frame ("frame.number == 179"); then a note when no TCP segment came out of
/// usable input (e.g. a filter matching nothing), the input problems
/// (write_input_problems) and one summary line (over the whole input,
/// whatever `view` hides). Times ("at (s)") are seconds since
/// Report::first_time. Senders that sent no data-bearing segment (payload,
/// SYN or FIN) are omitted, and so are the flows and senders `view` hides.
/// Written in three parts (write_text_heading, write_text_flow per shown
/// connection, write_text_ending), which a report written as the analysis
/// goes calls itself.
void write_text_report(std::ostream& os, const Report& r, const ReportView& view = {});

/// The heading of write_text_report: profile (or auto), tolerance and the
/// RTO settings (the model's thresholds are written at the end).
void write_text_heading(std::ostream& os, const Options& o);

/// The part of write_text_report for connection `f` (the caller decides
/// whether `view` shows it: ReportView::shows): `stream` is its tcp.stream
/// (StreamNumbers, StreamCounter), times ("at (s)") are seconds since
/// `origin` (Report::first_time); its senders as `view` shows them.
void write_text_flow(std::ostream& os, const FlowReport& f, const Options& options, std::optional<std::uint64_t> stream,
                     CaptureTime origin,
                     const ReportView& view = {});

/// The end of write_text_report: the empty-input note, write_input_problems,
/// the lockstep section, the per-file lines (several inputs), the model's
/// thresholds and summary_line (over every connection, kept or streamed).
void write_text_ending(std::ostream& os, const Report& r);

/// The input problems, each kind under its own heading: files that could not
/// be used at all (Report::inputs), frames skipped (Diagnostic::skipped), and
/// frames analysed with a warning. Writes nothing when there are none.
void write_input_problems(std::ostream& os, const Report& r);

/// One line per connection `view` shows: id, Wireshark's tcp.stream ("-"
/// under -f), endpoints, packets, frames, duration, file and flags.
void write_flow_list(std::ostream& os, const Report& r, const ReportView& view = {});
/// The heading line of write_flow_list.
void write_flow_list_heading(std::ostream& os);
/// The line of write_flow_list for connection `f` (`stream`: its tcp.stream,
/// StreamNumbers or StreamCounter).
void write_flow_list_line(std::ostream& os, const FlowReport& f, std::optional<std::uint64_t> stream);

/// The summary line: "summary: N flow(s), R retransmission(s), T timeout(s);
/// findings: X MUST, Y SHOULD, Z MAY, W INFO; input: S frame(s) skipped,
/// U analysed with a warning[, F unusable file(s)]; profile P[; lockstep: G group(s)]".
std::string summary_line(const Report& r);

}  // namespace replay

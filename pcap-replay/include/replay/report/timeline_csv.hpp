#pragma once
// `pcap-replay timeline --csv`: every event of every sender, with the
// replayed SRTT, RTTVAR, RTO and backoff after it, for plotting.

#include <ostream>

#include <replay/analysis/flow_report.hpp>

namespace replay {

/// Columns: flow,direction,frame,time,rel_time,event,seq,sample_us,sample_kind,
/// srtt_us,rttvar_us,rto_us,backoff,copy_of. `time` = capture timestamp (s
/// since the epoch), `rel_time` = s since the first frame, `copy_of` = the
/// frame a `capture-copy` row copies (kCaptureCopyEvent). Empty cell = no value.
/// Rows by flow, then direction (c2s first), then capture order.
/// Needs a Report made with keep_timeline.
void write_timeline_csv(std::ostream& os, const Report& r);

/// The header row of write_timeline_csv (the column names above).
void write_timeline_header(std::ostream& os);

/// The rows write_timeline_csv writes for connection `f`: both directions,
/// c2s first; `origin`: Report::first_time (rel_time's zero). For a writer
/// that streams each connection as the analysis finishes it (analyze_files'
/// FlowSink), in flow order after write_timeline_header: the same bytes.
void write_timeline_rows(std::ostream& os, const FlowReport& f, CaptureTime origin);

}  // namespace replay

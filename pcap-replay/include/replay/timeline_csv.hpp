#pragma once
// `pcap-replay timeline --csv`: every event of every sender, with the
// replayed SRTT, RTTVAR, RTO and backoff after it, for plotting.

#include <ostream>

#include "flow_report.hpp"

namespace replay {

/// Columns: flow,direction,frame,time,rel_time,event,seq,sample_us,sample_kind,
/// srtt_us,rttvar_us,rto_us,backoff. `time` = capture timestamp (s since the
/// epoch), `rel_time` = s since the first frame. Empty cell = no value.
/// Needs a Report made with keep_timeline.
void write_timeline_csv(std::ostream& os, const Report& r);

}  // namespace replay

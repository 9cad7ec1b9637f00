#pragma once
// `pcap-replay check --json` (and `flows --json`): the report as one JSON
// document (nlohmann-json).
// The schema is documented in pcap-replay/SCHEMA.md.

#include <nlohmann/json.hpp>
#include <ostream>

#include "flow_report.hpp"

namespace replay {

/// The report as JSON (see SCHEMA.md; times in seconds since the epoch and
/// since the first frame, durations in ms).
nlohmann::json to_json(const Report& r);

/// Writes to_json(r), indented, and a newline.
void write_json_report(std::ostream& os, const Report& r);

/// `pcap-replay flows --json`: the connections only ("kind": "flows"; see
/// SCHEMA.md): per flow id, file, client, server, packets, first/last frame,
/// start time, duration (s), SYN/FIN/RST seen, and per direction packets,
/// data-bearing segments and payload bytes.
nlohmann::json flows_to_json(const Report& r);

/// Writes flows_to_json(r), indented, and a newline.
void write_json_flow_list(std::ostream& os, const Report& r);

}  // namespace replay

#pragma once
// `pcap-replay check --json`: the report as one JSON document (nlohmann-json).
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

}  // namespace replay

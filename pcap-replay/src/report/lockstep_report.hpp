#pragma once
// The lockstep finding (lockstep.hpp) in the text and JSON reports: kept apart
// from report_text / report_json so those only call in.

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include <replay/analysis/flow_report.hpp>

namespace replay {

/// The "lockstep" block of the text report: one [INFO lockstep] entry per
/// group (its sentence, then per retry offset the spread and the first
/// frames) and one [INFO dispersed] entry per jittered herd. Nothing when
/// Report::lockstep is empty.
void write_lockstep_text(std::ostream& os, const Report& r);

/// "; lockstep: N group(s)" for the summary line, or "" when there is none.
std::string lockstep_summary(const Report& r);

/// The top-level "lockstep" array of `check --json` (see SCHEMA.md): groups
/// ("lockstep": true) then dispersed herds ("lockstep": false).
nlohmann::json lockstep_json(const Report& r);

}  // namespace replay

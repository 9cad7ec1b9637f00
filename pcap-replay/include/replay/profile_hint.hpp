#pragma once
// The hint `pcap-replay check` gives when the departures it found under one
// profile are what another stack does: "these look like linux's: try
// --profile auto".

#include <optional>
#include <string>

#include "flow_report.hpp"

namespace replay {

/// Compares `judged` (one profile, with MUST findings) with `best`, the same
/// input analysed under --profile auto (each sender against every profile,
/// the best fit reported). Returns, when at least one sender with MUST
/// findings in `judged` has none under the profile auto fitted it to, a
/// sentence naming those senders' count and profiles, e.g. "the MUST
/// departures of 1 of 1 sender(s) are what linux (Linux 6.x defaults) does:
/// 0 MUST there; try --profile auto (or --profile linux)"; nullopt
/// otherwise (no MUST finding, or none that another profile explains).
/// Senders are matched by flow id and direction (both reports come from the
/// same files and options).
std::optional<std::string> profile_hint(const Report& judged, const Report& best);

}  // namespace replay

#pragma once
// What a sender's stack does, read from its own timeouts and probes: the
// initial RTO, the SYN schedule, how the RTO is floored, the cap it reached,
// an additive term, timer lateness, loss probes, linear data timeouts, 5.7,
// and its TSval clock. The numbers are the sender's own waits, not the
// profile's predictions (which repeats are expiries and which are probes is
// the model's reading under the profile); the summary line names the
// profile the sender was judged against (under --profile auto, the best fit).

#include <span>
#include <string_view>

#include <replay/analysis/flow_report.hpp>
#include <replay/analysis/options.hpp>

namespace replay {

/// Fills s.inferred from s.timeouts, s.findings and what the model counted;
/// `judged` is the reading s was judged under; `ties` (--profile auto) the
/// other profiles that explain the sender as well (the summary names them).
void infer_settings(SenderReport& s, const Options& judged, std::span<const std::string_view> ties = {});

}  // namespace replay

#pragma once
// The words of what a sender's stack does (InferredSettings): one line for
// the reports, "behaves like Linux 6.x defaults: first RTO 200 ms ...".

#include <string>

#include <replay/analysis/flow_report.hpp>
#include <replay/analysis/options.hpp>

namespace replay {

/// One line on sender `s`: how it came out against its profile (or, under
/// --profile auto, which profile it behaves like) and the settings read
/// from its own waits. `o`: the options the report was made under.
std::string summarize(const SenderReport& s, const Options& o);

}  // namespace replay

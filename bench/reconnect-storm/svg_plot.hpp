#pragma once
// An SVG of the storm (on the project's SVG blocks, replay::svg): one panel per strategy (rows) and outage
// mode (columns), SYNs arriving at the server per bin as bars over time, the
// server's opening marked by a dashed line. Each panel has its own y scale
// (its peak is written in it) and every panel of a column the same x scale.

#include <chrono>
#include <ostream>
#include <vector>

#include "storm.hpp"

namespace storm {

/// Writes the SVG document for `results` (any order; panels are laid out by
/// strategy in order of first appearance and by mode, refuse first). `bin`
/// is the width of one bar, `opens_at` where the dashed line goes.
void write_svg(std::ostream& os, const std::vector<StormResult>& results, std::chrono::microseconds bin,
               std::chrono::microseconds opens_at);

}  // namespace storm

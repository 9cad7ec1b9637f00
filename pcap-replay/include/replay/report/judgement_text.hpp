#pragma once
// The words of a judgement: one sentence with its numbers, for the text and
// HTML reports and the JSON "message". The analysis writes values
// (judgement.hpp); this is the one place that says them.

#include <chrono>
#include <string>

#include <replay/analysis/interval.hpp>
#include <replay/analysis/judgement.hpp>
#include <replay/analysis/options.hpp>

namespace replay {

/// One sentence saying what `j` found, with its numbers in ms. `o`: the
/// options the capture was judged under (the profile's title, its floor).
std::string describe(const Judgement& j, const Options& o);

/// A wait or window in ms: "204.1 ms", or "[204.1, 212.3] ms" for an interval.
std::string format_ms(const Interval& i);
/// A duration in ms, one decimal: "204.1 ms".
std::string format_ms(std::chrono::microseconds d);
/// A table cell in ms, no unit: "412.0", "[412.0, 413.0]", ">= 412.0".
std::string interval_text(const Interval& i);

}  // namespace replay

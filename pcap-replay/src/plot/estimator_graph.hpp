#pragma once
// The replayed estimator of one sender over time, under its time-sequence
// graph on the same time axis: SRTT, RTTVAR and RTO (RFC 6298 2.2-2.5, the
// RTO with its 5.5 backoff) as step lines after every event, each observed
// expiry's wait as a dot, and each backoff step labelled (x2, x4, ...). The
// value axis is in ms, logarithmic when the values span
// limits::kPlotLogRatio or more (svg::use_log_scale).
//
// Markers: class="wait" data-frame (one per expiry); class="backoff"
// data-backoff="k" (one per rise of the backoff count).

#include <string>
#include <vector>

#include <replay/analysis/flow_report.hpp>
#include <replay/plot/svg_plot.hpp>

namespace replay {

/// Series colours (legend and drawing agree).
namespace colour {
inline constexpr std::string_view kSrtt = "#1f77b4";    ///< SRTT
inline constexpr std::string_view kRttvar = "#17becf";  ///< RTTVAR
inline constexpr std::string_view kRto = "#d62728";     ///< RTO with backoff
inline constexpr std::string_view kWait = "#222222";    ///< observed expiry wait
}  // namespace colour

/// Draws the estimator graph of `s` (with its timeline) into `box`, time
/// along `time` (seconds since `origin`). Appends the SVG to `out`; a
/// decimated series (limits::kPlotMaxPoints) adds a sentence to `notes`.
/// Returns true when the value axis is logarithmic.
bool draw_estimator(std::string& out, std::vector<std::string>& notes, const SenderReport& s, CaptureTime origin,
                    const svg::Axis& time, const svg::Box& box);

}  // namespace replay

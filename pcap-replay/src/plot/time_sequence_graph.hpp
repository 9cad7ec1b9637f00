#pragma once
// One sender's time-sequence graph (as Wireshark's Stevens / tcptrace
// graph): relative sequence number against time, each transmission a
// vertical bar over the bytes it carried, coloured by kind (SendKind), the
// peer's cumulative ACK as a step line and its SACK blocks as bars; over
// it the replayed timer: for each observed expiry the arming it counted
// from as a bar to the predicted expiry with the accepted window, the
// expiry itself, and each finding labelled with its level, rule and frame.
//
// Markers carry data attributes for tests and tools: class="tx"
// data-kind="rto" data-frame="180"; class="expiry" data-kind="rto|syn-rto"
// data-frame data-verdict; class="arm" data-frame data-cause; class="window";
// class="finding" data-level data-rule data-frame.

#include <string>
#include <string_view>
#include <vector>

#include <replay/analysis/flow_report.hpp>
#include <replay/plot/svg_plot.hpp>

namespace replay {

/// The colour a transmission kind is drawn in (an SVG colour, "#rrggbb").
std::string_view kind_colour(SendKind k);
/// The legend's name of a kind: "first transmission", "RTO retransmission", ...
std::string_view kind_label(SendKind k);

/// Colours of the other marks of the graph (legend and drawing agree).
namespace colour {
inline constexpr std::string_view kAck = "#2a9d3c";      ///< cumulative ACK line
inline constexpr std::string_view kSack = "#17a2b8";     ///< SACK blocks
inline constexpr std::string_view kArm = "#1f5fbf";      ///< timer arming bar
inline constexpr std::string_view kExpiry = "#d62728";   ///< observed expiry
inline constexpr std::string_view kMust = "#c0001a";     ///< MUST finding
inline constexpr std::string_view kShould = "#e07b00";   ///< SHOULD finding
inline constexpr std::string_view kOther = "#6b6b6b";    ///< MAY and INFO findings
}  // namespace colour

/// The colour of a finding of level l.
std::string_view level_colour(Level l);

/// Draws the graph of `s` (a SenderReport with its timeline) into `box`,
/// time along `time` (seconds since `origin`). Appends the SVG elements to
/// `out` and, when a series was decimated (limits::kPlotMaxPoints), one
/// sentence per series to `notes` ("ACKs: 1 in 3 drawn (2000 of 5999)").
void draw_time_sequence(std::string& out, std::vector<std::string>& notes, const SenderReport& s,
                        const Options& options, CaptureTime origin, const svg::Axis& time, const svg::Box& box);

/// Seconds from origin to t.
double seconds_since(CaptureTime t, CaptureTime origin);

}  // namespace replay

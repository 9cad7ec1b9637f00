#pragma once
// Small SVG building blocks for every picture the project draws (pcap-replay's
// report_html and `plot --svg`, bench's backoff-sim and reconnect-storm
// charts): XML escaping, coordinates, linear and log axes with readable
// ticks, a plot frame and its axis labels, decimation of long series.
// Coordinates are SVG user units (pixels).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace replay::svg {

/// `s` with &, <, >, " and ' replaced by entities: safe in XML text and in
/// a double- or single-quoted attribute (SVG 1.1 / XML 1.0 section 2.4).
std::string escape(std::string_view s);

/// A number as an SVG coordinate: one decimal ("12.5"), no exponent.
std::string num(double v);

/// Every n-th point of a series of `count` points keeps it within `cap`
/// points: n = ceil(count / cap), at least 1 (1 = nothing dropped). cap 0 is
/// taken as 1.
std::size_t decimation_stride(std::size_t count, std::size_t cap);

/// True when values from `min_positive` to `max` (same unit, min_positive >
/// 0) span at least limits::kPlotLogRatio: the estimator graph then uses a
/// log scale. False when min_positive <= 0.
bool use_log_scale(double min_positive, double max);

/// A data range mapped onto a pixel range, linear or base-10 logarithmic.
/// `lo` < `hi` (a log axis: 0 < lo). Pixel ends may be reversed (a y axis
/// grows downwards in SVG: px_lo > px_hi).
struct Axis {
  double lo = 0, hi = 1;        ///< data range
  double px_lo = 0, px_hi = 1;  ///< where lo and hi land
  bool log = false;

  /// Whether data value v is inside [lo, hi] (what the axis shows).
  bool contains(double v) const { return v >= lo && v <= hi; }
  /// The pixel coordinate of data value v (clamped to the range first; a log
  /// axis maps v <= 0 to lo).
  double map(double v) const;
  /// Tick values inside [lo, hi]: about `target` multiples of 1, 2 or 5 x
  /// 10^k (linear), or the powers of ten (log; with 2 and 5 x 10^k added when
  /// the range spans fewer than three decades).
  std::vector<double> ticks(std::size_t target = 8) const;
};

/// A plot area in SVG user units: left < right, top < bottom.
struct Box {
  double left = 0, top = 0, right = 1, bottom = 1;
};

/// A tick label: "0", "0.25", "0.00002", "40", "1.5k", "131k", "2M" (k =
/// 10^3, M = 10^6); at most 3 significant digits from 1 up, fixed point (up
/// to 9 decimals, no exponent) below 1.
std::string tick_label(double v);

/// A data range made drawable: [lo, hi] widened when empty (lo == hi) and,
/// for a linear axis, by `pad` x its width on both sides (lo not below
/// `floor`), for a log axis to the enclosing powers of ten.
struct Range {
  double lo, hi;
};
/// See Range.
Range padded(double lo, double hi, bool log, double pad = 0.03, double floor = 0);

/// Appends a graph's frame to `out`: the white plot box, a light grid line
/// and a label at each of about `y_ticks` ticks of `y` and a grid line at
/// each of about `x_ticks` ticks of `x`, and `y_title` rotated along the left
/// edge. `y_title` is written as given (escape it first if it is not
/// literal text).
void draw_frame(std::string& out, const Box& box, const Axis& x, std::size_t x_ticks, const Axis& y,
                std::size_t y_ticks, std::string_view y_title);

/// Appends the x axis's words under the box: the label of each of about
/// `x_ticks` ticks of `x` (at box.bottom + 15) and `x_title` centred under
/// them (at box.bottom + 34), written as given (escape it first if it is not
/// literal text); no title when it is empty.
void draw_x_labels(std::string& out, const Box& box, const Axis& x, std::size_t x_ticks, std::string_view x_title);

/// The start of a standalone SVG document `width` x `height` user units
/// (viewBox the same), sans-serif 12, on a white background; close it with
/// "</svg>\n".
std::string document_open(double width, double height);

}  // namespace replay::svg

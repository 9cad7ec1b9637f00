// SVG rendering for backoff-sim (see svg.hpp).

#include "svg.hpp"

#include <replay/plot/svg_plot.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>

namespace backoff_sim {

namespace {

namespace svg = replay::svg;

constexpr double kWidth = 800, kHeight = 480;
// The plot area; the legend goes to its right.
constexpr svg::Box kBox{80, 40, 800 - 190, 480 - 60};
constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#17becf", "#bcbd22"};
constexpr std::size_t kXTicks = 8, kYTicks = 6;
constexpr double kYPad = 0.05;  // headroom above the highest value (a share of the range)

std::string header(const std::string& title) {
  return svg::document_open(kWidth, kHeight) +
         fmt::format("<text x=\"{}\" y=\"24\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">{}</text>\n",
                     svg::num(kWidth / 2), svg::escape(title));
}

std::string legend(const std::vector<std::string>& names, bool bars) {
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const double y = kBox.top + 10 + 20.0 * static_cast<double>(i);
    const double x = kBox.right + 15;
    const char* c = kColours[i % std::size(kColours)];
    if (bars)
      s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"16\" height=\"10\" fill=\"{}\"/>\n", svg::num(x),
                       svg::num(y - 8), c);
    else
      s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"2.5\"/>\n",
                       svg::num(x), svg::num(y - 3), svg::num(x + 18), c);
    s += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", svg::num(x + 24), svg::num(y + 1), svg::escape(names[i]));
  }
  return s;
}

// The y axis over [0 or the lowest value, the highest], on the plot area.
svg::Axis y_axis(double lo, double hi, bool log) {
  const svg::Range r = svg::padded(lo, hi, log, kYPad, log ? 0.0 : std::min(0.0, lo));
  return svg::Axis{log ? r.lo : std::min(0.0, r.lo), r.hi, kBox.bottom, kBox.top, log};
}

}  // namespace

std::string render(const LineChart& chart) {
  double x0 = std::numeric_limits<double>::max(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const auto& s : chart.series)
    for (auto [x, y] : s.points) {
      x0 = std::min(x0, x);
      x1 = std::max(x1, x);
      y0 = std::min(y0, y);
      y1 = std::max(y1, y);
    }
  if (x0 > x1) x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  if (x1 == x0) x1 = x0 + 1;
  const svg::Axis x{x0, x1, kBox.left, kBox.right, false};
  const svg::Axis y = y_axis(y0, y1, chart.log_y);
  std::string s = header(chart.title);
  svg::draw_frame(s, kBox, x, kXTicks, y, kYTicks, svg::escape(chart.y_label));
  svg::draw_x_labels(s, kBox, x, kXTicks, svg::escape(chart.x_label));
  std::vector<std::string> names;
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const auto& ser = chart.series[i];
    names.push_back(ser.name);
    std::string pts;
    for (auto [px, py] : ser.points) pts += svg::num(x.map(px)) + "," + svg::num(y.map(py)) + " ";
    s += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" points=\"{}\"/>\n",
                     kColours[i % std::size(kColours)], pts);
  }
  s += legend(names, false);
  return s + "</svg>\n";
}

std::string render(const BarChart& chart) {
  double y1 = 0;
  for (const auto& g : chart.groups)
    for (double v : g.second) y1 = std::max(y1, v);
  const svg::Axis y = y_axis(0, std::max(y1, 1e-9), false);
  const svg::Axis none{0, 1, kBox.left, kBox.right, false};
  std::string s = header(chart.title);
  svg::draw_frame(s, kBox, none, 0, y, kYTicks, svg::escape(chart.y_label));
  const double group_w = (kBox.right - kBox.left) / static_cast<double>(std::max<std::size_t>(1, chart.groups.size()));
  const std::size_t n = std::max<std::size_t>(1, chart.series_names.size());
  const double bar_w = group_w * 0.8 / static_cast<double>(n);
  for (std::size_t g = 0; g < chart.groups.size(); ++g) {
    const double gx = kBox.left + group_w * static_cast<double>(g) + group_w * 0.1;
    for (std::size_t i = 0; i < chart.groups[g].second.size(); ++i) {
      const double v = chart.groups[g].second[i];
      const double top = y.map(v), bottom = y.map(0);
      const double bx = gx + bar_w * static_cast<double>(i);
      s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>\n", svg::num(bx),
                       svg::num(top), svg::num(bar_w * 0.92), svg::num(bottom - top), kColours[i % std::size(kColours)]);
      s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"10\">{}</text>\n",
                       svg::num(bx + bar_w * 0.46), svg::num(top - 3), svg::tick_label(std::round(v * 10) / 10));
    }
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", svg::num(gx + group_w * 0.4),
                     svg::num(kBox.bottom + 18), svg::escape(chart.groups[g].first));
  }
  s += legend(chart.series_names, true);
  return s + "</svg>\n";
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) {
    std::fprintf(stderr, "backoff-sim: cannot write %s\n", path.c_str());
    return false;
  }
  return true;
}

}  // namespace backoff_sim

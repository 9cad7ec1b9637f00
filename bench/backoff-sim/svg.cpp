// SVG rendering for backoff-sim (see svg.hpp).

#include "svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>

namespace backoff_sim {

namespace {

constexpr double kWidth = 800, kHeight = 480;
constexpr double kLeft = 80, kRight = 190, kTop = 40, kBottom = 60;  // margins; legend on the right
constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#17becf", "#bcbd22"};

std::string esc(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;  // safe inside attributes too (XML 1.0 2.4)
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

// A "nice" tick step (1, 2 or 5 x 10^k) giving about `target` intervals over span.
double nice_step(double span, int target) {
  if (span <= 0) return 1;
  const double raw = span / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

std::string fmt_tick(double v) {
  if (v == 0) return "0";
  if (std::fabs(v) >= 1e6 || std::fabs(v) < 1e-3) return fmt::format("{:.0e}", v);
  std::string s = fmt::format("{:.3f}", v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

struct Frame {
  double x0, x1, y0, y1;
  bool log_y;
  double px(double x) const { return kLeft + (x - x0) / (x1 - x0) * (kWidth - kLeft - kRight); }
  double py(double y) const {
    const double a = log_y ? std::log10(y0) : y0, b = log_y ? std::log10(y1) : y1;
    const double v = log_y ? std::log10(std::max(y, y0)) : y;
    return kHeight - kBottom - (v - a) / (b - a) * (kHeight - kTop - kBottom);
  }
};

std::string header(const std::string& title) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"24\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\">{3}</text>\n",
      kWidth, kHeight, kWidth / 2, esc(title));
}

std::string axes(const Frame& f, const std::string& x_label, const std::string& y_label, bool x_ticks) {
  std::string s;
  const double bx = kHeight - kBottom, lx = kLeft, rx = kWidth - kRight;
  s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"black\"/>\n", lx, bx, rx);
  s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"black\"/>\n", lx, kTop, bx);
  // y ticks
  if (f.log_y) {
    for (double v = std::pow(10.0, std::floor(std::log10(f.y0))); v <= f.y1 * 1.0001; v *= 10) {
      if (v < f.y0 * 0.9999) continue;
      const double y = f.py(v);
      s += fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/>\n", lx, y, rx);
      s += fmt::format("<text x=\"{0}\" y=\"{1:.1f}\" text-anchor=\"end\" dy=\"4\">{2}</text>\n", lx - 6, y,
                       fmt_tick(v));
    }
  } else {
    const double step = nice_step(f.y1 - f.y0, 6);
    for (double v = std::ceil(f.y0 / step) * step; v <= f.y1 + step * 1e-9; v += step) {
      const double y = f.py(v);
      s += fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/>\n", lx, y, rx);
      s += fmt::format("<text x=\"{0}\" y=\"{1:.1f}\" text-anchor=\"end\" dy=\"4\">{2}</text>\n", lx - 6, y,
                       fmt_tick(v));
    }
  }
  if (x_ticks) {
    const double step = nice_step(f.x1 - f.x0, 8);
    for (double v = std::ceil(f.x0 / step) * step; v <= f.x1 + step * 1e-9; v += step) {
      const double x = f.px(v);
      s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"black\"/>\n", x, bx,
                       bx + 5);
      s += fmt::format("<text x=\"{0:.1f}\" y=\"{1}\" text-anchor=\"middle\">{2}</text>\n", x, bx + 19, fmt_tick(v));
    }
  }
  s += fmt::format("<text x=\"{0}\" y=\"{1}\" text-anchor=\"middle\">{2}</text>\n", (lx + rx) / 2, kHeight - 14,
                   esc(x_label));
  s += fmt::format(
      "<text x=\"18\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 18 {0})\">{1}</text>\n",
      (kTop + bx) / 2, esc(y_label));
  return s;
}

std::string legend(const std::vector<std::string>& names, bool bars) {
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const double y = kTop + 10 + 20.0 * static_cast<double>(i);
    const double x = kWidth - kRight + 15;
    const char* c = kColours[i % std::size(kColours)];
    if (bars)
      s += fmt::format("<rect x=\"{0}\" y=\"{1}\" width=\"16\" height=\"10\" fill=\"{2}\"/>\n", x, y - 8, c);
    else
      s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"2.5\"/>\n", x,
                       y - 3, x + 18, c);
    s += fmt::format("<text x=\"{0}\" y=\"{1}\">{2}</text>\n", x + 24, y + 1, esc(names[i]));
  }
  return s;
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
  Frame f{x0, x1, 0, 0, chart.log_y};
  if (chart.log_y) {
    f.y0 = std::pow(10.0, std::floor(std::log10(std::max(y0, 1e-9))));
    f.y1 = std::pow(10.0, std::ceil(std::log10(std::max(y1, f.y0 * 10))));
  } else {
    f.y0 = std::min(0.0, y0);
    const double step = nice_step(y1 - f.y0, 6);
    f.y1 = std::ceil(y1 / step) * step;
    if (f.y1 <= f.y0) f.y1 = f.y0 + 1;
  }
  std::string s = header(chart.title) + axes(f, chart.x_label, chart.y_label, true);
  std::vector<std::string> names;
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const auto& ser = chart.series[i];
    names.push_back(ser.name);
    std::string pts;
    for (auto [x, y] : ser.points) pts += fmt::format("{:.1f},{:.1f} ", f.px(x), f.py(y));
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
  const double step = nice_step(y1, 6);
  Frame f{0, 1, 0, std::max(step, std::ceil(y1 / step) * step), false};
  std::string s = header(chart.title) + axes(f, "", chart.y_label, false);
  const double plot_w = kWidth - kLeft - kRight;
  const double group_w = plot_w / static_cast<double>(std::max<std::size_t>(1, chart.groups.size()));
  const std::size_t n = std::max<std::size_t>(1, chart.series_names.size());
  const double bar_w = group_w * 0.8 / static_cast<double>(n);
  for (std::size_t g = 0; g < chart.groups.size(); ++g) {
    const double gx = kLeft + group_w * static_cast<double>(g) + group_w * 0.1;
    for (std::size_t i = 0; i < chart.groups[g].second.size(); ++i) {
      const double v = chart.groups[g].second[i];
      const double top = f.py(v), bottom = f.py(0);
      const double x = gx + bar_w * static_cast<double>(i);
      s += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"/>\n", x, top,
                       bar_w * 0.92, bottom - top, kColours[i % std::size(kColours)]);
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" font-size=\"10\">{}</text>\n",
                       x + bar_w * 0.46, top - 3, fmt_tick(std::round(v * 10) / 10));
    }
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", gx + group_w * 0.4,
                     kHeight - kBottom + 18, esc(chart.groups[g].first));
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

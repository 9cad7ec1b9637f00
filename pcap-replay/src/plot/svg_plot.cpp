#include <replay/plot/svg_plot.hpp>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include <replay/analysis/thresholds.hpp>

namespace replay::svg {

std::string escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string num(double v) {
  if (!std::isfinite(v)) v = 0;
  std::string s = fmt::format("{:.1f}", v);
  if (s == "-0.0") s = "0.0";
  return s;
}

std::size_t decimation_stride(std::size_t count, std::size_t cap) {
  cap = std::max<std::size_t>(cap, 1);
  return std::max<std::size_t>(1, (count + cap - 1) / cap);
}

bool use_log_scale(double min_positive, double max) {
  if (!(min_positive > 0) || !std::isfinite(max)) return false;
  return max / min_positive >= limits::kPlotLogRatio;
}

double Axis::map(double v) const {
  double f;
  if (log) {
    const double a = std::log10(lo), b = std::log10(hi);
    const double x = std::log10(std::clamp(v > 0 ? v : lo, lo, hi));
    f = b > a ? (x - a) / (b - a) : 0.0;
  } else {
    f = hi > lo ? (std::clamp(v, lo, hi) - lo) / (hi - lo) : 0.0;
  }
  return px_lo + f * (px_hi - px_lo);
}

std::vector<double> Axis::ticks(std::size_t target) const {
  std::vector<double> t;
  if (!(hi > lo)) return {lo};
  if (log) {
    const int a = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
    const int b = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
    const bool fine = b - a < 3;
    for (int e = a; e <= b; ++e) {
      const double p = std::pow(10.0, e);
      for (double m : {1.0, 2.0, 5.0}) {
        if (m != 1.0 && !fine) continue;
        const double v = m * p;
        if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) t.push_back(v);
      }
    }
    return t;
  }
  const double raw = (hi - lo) / static_cast<double>(std::max<std::size_t>(target, 1));
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step)
    t.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
  return t;
}

std::string tick_label(double v) {
  const double a = std::abs(v);
  std::string s;
  if (a >= 1e6)
    s = fmt::format("{:.3g}M", v / 1e6);
  else if (a >= 1e3)
    s = fmt::format("{:.3g}k", v / 1e3);
  else if (a >= 1 || a == 0)
    s = fmt::format("{:.3g}", v);
  else {  // below 1: fixed point (no exponent), trailing zeros dropped
    s = fmt::format("{:.9f}", v);
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  return s;
}

Range padded(double lo, double hi, bool log, double pad, double floor) {
  if (log) {
    lo = std::max(lo, 1e-9);
    hi = std::max(hi, lo);
    return {std::pow(10.0, std::floor(std::log10(lo))), std::pow(10.0, std::ceil(std::log10(hi) + (hi == lo ? 1 : 0)))};
  }
  if (hi <= lo) {
    const double w = lo == 0 ? 1.0 : std::abs(lo) * 0.1;
    return {std::max(floor, lo - w), hi + w};
  }
  const double w = (hi - lo) * pad;
  return {std::max(floor, lo - w), hi + w};
}

void draw_frame(std::string& out, const Box& box, const Axis& x, std::size_t x_ticks, const Axis& y,
                std::size_t y_ticks, std::string_view y_title) {
  auto o = std::back_inserter(out);
  fmt::format_to(o, "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#ffffff\" stroke=\"#888\"/>\n", num(box.left),
                 num(box.top), num(box.right - box.left), num(box.bottom - box.top));
  for (double v : y.ticks(y_ticks)) {
    const double py = y.map(v);
    fmt::format_to(o, "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#e6e6e6\"/>"
                      "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" font-size=\"11\">{}</text>\n",
                   num(box.left), num(py), num(box.right), num(py), num(box.left - 5), num(py + 4), tick_label(v));
  }
  for (double v : x.ticks(x_ticks)) {
    const double px = x.map(v);
    fmt::format_to(o, "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#e6e6e6\"/>\n", num(px), num(box.top),
                   num(px), num(box.bottom));
  }
  fmt::format_to(o, "<text transform=\"translate({} {}) rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">{}</text>\n",
                 num(box.left - 58), num((box.top + box.bottom) / 2), y_title);
}

void draw_x_labels(std::string& out, const Box& box, const Axis& x, std::size_t x_ticks, std::string_view x_title) {
  auto o = std::back_inserter(out);
  for (double v : x.ticks(x_ticks))
    fmt::format_to(o, "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"11\">{}</text>\n", num(x.map(v)),
                   num(box.bottom + 15), tick_label(v));
  if (x_title.empty()) return;
  fmt::format_to(o, "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"12\">{}</text>\n",
                 num((box.left + box.right) / 2), num(box.bottom + 34), x_title);
}

std::string document_open(double width, double height) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
      num(width), num(height));
}

}  // namespace replay::svg

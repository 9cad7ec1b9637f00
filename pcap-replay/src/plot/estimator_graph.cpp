#include "plot/estimator_graph.hpp"

#include <algorithm>
#include <iterator>
#include <limits>

#include <fmt/format.h>

#include <replay/analysis/thresholds.hpp>
#include "plot/time_sequence_graph.hpp"
#include <replay/analysis/milliseconds.hpp>

namespace replay {

namespace {

using svg::num;


}  // namespace

bool draw_estimator(std::string& out, std::vector<std::string>& notes, const SenderReport& s, CaptureTime origin,
                    const svg::Axis& time, const svg::Box& box) {
  auto o = std::back_inserter(out);
  // What the time axis shows (all of it, or an episode zoomed: sender_graph.hpp).
  const auto in_view = [&](CaptureTime t) { return time.contains(seconds_since(t, origin)); };
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  const auto widen = [&](double v) {
    if (v > 0) lo = std::min(lo, v);
    hi = std::max(hi, v);
  };
  for (const auto& e : s.timeline) {
    if (!in_view(e.time)) continue;
    widen(ms(e.rto));
    if (e.srtt) widen(ms(*e.srtt));
    if (e.rttvar) widen(ms(*e.rttvar));
  }
  for (const auto& t : s.timeouts)
    if (!t.wait_unknown && in_view(t.time)) widen(ms(t.wait.lo));
  if (!std::isfinite(lo)) lo = hi > 0 ? hi : 1;
  const bool log = svg::use_log_scale(lo, hi);
  const svg::Range r = log ? svg::padded(lo, hi, true) : svg::padded(0, hi, false, 0.06, 0);
  const svg::Axis val{r.lo, r.hi, box.bottom, box.top, log};
  const auto X = [&](CaptureTime t) { return time.map(seconds_since(t, origin)); };

  fmt::format_to(o, "<g class=\"estimator\" data-scale=\"{}\">\n", log ? "log" : "linear");
  svg::draw_frame(out, box, time, 10, val, 5, log ? "ms (log scale)" : "ms");

  // Step lines; decimated by stride, but every change of the backoff kept
  // (the steps are what the graph is for).
  const std::size_t stride = svg::decimation_stride(s.timeline.size(), limits::kPlotMaxPoints);
  std::string srtt, rttvar, rto, steps;
  std::optional<double> psrtt, prttvar, prto;
  std::size_t drawn = 0;
  unsigned prev_backoff = 0;
  const auto step = [](std::string& pts, std::optional<double>& prev, double x, std::optional<double> y) {
    if (!y) return;
    if (prev) fmt::format_to(std::back_inserter(pts), "{},{} ", num(x), num(*prev));
    fmt::format_to(std::back_inserter(pts), "{},{} ", num(x), num(*y));
    prev = y;
  };
  const TimelineEvent* before = nullptr;  // the latest row before the view: its values enter at the left edge
  for (std::size_t i = 0; i < s.timeline.size(); ++i) {
    const auto& e = s.timeline[i];
    const bool rise = e.backoff > prev_backoff;
    const bool change = e.backoff != prev_backoff;
    prev_backoff = e.backoff;
    if (seconds_since(e.time, origin) < time.lo) {
      before = &e;
      continue;
    }
    if (!in_view(e.time)) break;
    if (before != nullptr) {
      const double x0 = time.px_lo;
      if (before->srtt) step(srtt, psrtt, x0, val.map(ms(*before->srtt)));
      if (before->rttvar) step(rttvar, prttvar, x0, val.map(ms(*before->rttvar)));
      step(rto, prto, x0, val.map(ms(before->rto)));
      before = nullptr;
    }
    if (i % stride != 0 && !change && i + 1 != s.timeline.size()) continue;
    ++drawn;
    const double x = X(e.time);
    std::optional<double> ys, yv;
    if (e.srtt) ys = val.map(ms(*e.srtt));
    if (e.rttvar) yv = val.map(ms(*e.rttvar));
    step(srtt, psrtt, x, ys);
    step(rttvar, prttvar, x, yv);
    const double yr = val.map(ms(e.rto));
    step(rto, prto, x, yr);
    if (rise)
      fmt::format_to(std::back_inserter(steps),
                     "<g class=\"backoff\" data-backoff=\"{}\"><circle cx=\"{}\" cy=\"{}\" r=\"2.5\" fill=\"{}\"/>"
                     "<text x=\"{}\" y=\"{}\" font-size=\"10\" fill=\"{}\">x{}</text></g>\n",
                     e.backoff, num(x), num(yr), colour::kRto, num(x + 3), num(yr - 4), colour::kRto,
                     e.backoff < 63 ? (std::uint64_t{1} << e.backoff) : 0);
  }
  const auto finish = [&](std::string& pts, const std::optional<double>& prev, std::string_view cls,
                          std::string_view col, double width) {
    if (pts.empty()) return;
    if (prev) fmt::format_to(std::back_inserter(pts), "{},{}", num(box.right), num(*prev));
    fmt::format_to(o, "<polyline class=\"{}\" points=\"{}\" stroke=\"{}\" stroke-width=\"{}\" fill=\"none\"/>\n", cls, pts,
                   col, width);
  };
  finish(rttvar, prttvar, "rttvar", colour::kRttvar, 1.2);
  finish(srtt, psrtt, "srtt", colour::kSrtt, 1.5);
  finish(rto, prto, "rto", colour::kRto, 1.8);
  out += steps;
  if (stride > 1)
    notes.push_back(fmt::format("estimator steps: 1 in {} drawn, every backoff change kept ({} of {})", stride, drawn,
                                s.timeline.size()));
  for (const auto& t : s.timeouts)
    if (!t.wait_unknown && in_view(t.time))
    fmt::format_to(o,
                   "<circle class=\"wait\" data-frame=\"{}\" cx=\"{}\" cy=\"{}\" r=\"3.5\" fill=\"{}\">"
                   "<title>frame {}: waited {:.1f} ms (predicted {:.1f} ms)</title></circle>\n",
                   t.frame, num(X(t.time)), num(val.map(ms(t.wait.lo))), colour::kWait, t.frame, ms(t.wait.lo),
                   ms(t.predicted.lo));
  out += "</g>\n";
  return log;
}

}  // namespace replay

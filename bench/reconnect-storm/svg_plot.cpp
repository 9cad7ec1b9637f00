#include "svg_plot.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include <replay/plot/svg_plot.hpp>

namespace storm {

namespace {
constexpr double kPanelW = 520, kPanelH = 96, kLeft = 130, kTop = 56, kGapX = 40, kGapY = 26, kAxisH = 30;
constexpr std::size_t kTimeTicks = 6;  // about as many time labels under each column
}

void write_svg(std::ostream& os, const std::vector<StormResult>& results, std::chrono::microseconds bin,
               std::chrono::microseconds opens_at) {
  std::vector<std::string> rows;
  for (const auto& r : results)
    if (std::find(rows.begin(), rows.end(), r.strategy) == rows.end()) rows.push_back(r.strategy);
  const OutageMode modes[] = {OutageMode::refuse, OutageMode::silent};
  const double bin_s = std::chrono::duration<double>(bin).count();
  double span_s[2] = {1, 1};
  for (const auto& r : results) {
    const int col = r.mode == OutageMode::refuse ? 0 : 1;
    span_s[col] = std::max(span_s[col], static_cast<double>(r.syns_per_bin.size()) * bin_s);
  }
  for (double& s : span_s) s = std::ceil(s / 10.0) * 10.0;
  const double width = kLeft + 2 * kPanelW + kGapX + 20;
  const double height = kTop + static_cast<double>(rows.size()) * (kPanelH + kGapY) + kAxisH + 10;
  os << replay::svg::document_open(width, height);
  os << fmt::format(R"(<text x="{:.0f}" y="20" font-size="15" font-weight="bold">Reconnect storm: SYNs arriving at the server per {:.0f} ms</text>)",
                    kLeft, bin_s * 1000)
     << "\n";
  for (int col = 0; col < 2; ++col) {
    const double x0 = kLeft + col * (kPanelW + kGapX);
    os << fmt::format(R"(<text x="{:.0f}" y="44" font-weight="bold">port {} for {:.0f} s, then open</text>)", x0,
                      col == 0 ? "closed (RST)" : "silent (SYNs dropped)",
                      std::chrono::duration<double>(opens_at).count())
       << "\n";
  }
  for (std::size_t row = 0; row < rows.size(); ++row) {
    const double y0 = kTop + static_cast<double>(row) * (kPanelH + kGapY);
    os << fmt::format(R"(<text x="10" y="{:.0f}" font-weight="bold">{}</text>)", y0 + kPanelH / 2,
                      replay::svg::escape(rows[row]))
       << "\n";
    for (int col = 0; col < 2; ++col) {
      const double x0 = kLeft + col * (kPanelW + kGapX);
      const auto it = std::find_if(results.begin(), results.end(),
                                   [&](const StormResult& r) { return r.strategy == rows[row] && r.mode == modes[col]; });
      os << fmt::format(R"(<rect x="{:.0f}" y="{:.0f}" width="{:.0f}" height="{:.0f}" fill="#f7f7f7" stroke="#999"/>)",
                        x0, y0, kPanelW, kPanelH)
         << "\n";
      const double xs = kPanelW / span_s[col];  // px per second
      const double xo = x0 + std::chrono::duration<double>(opens_at).count() * xs;
      os << fmt::format(R"(<line x1="{:.1f}" y1="{:.0f}" x2="{:.1f}" y2="{:.0f}" stroke="#c00" stroke-dasharray="4,3"/>)",
                        xo, y0, xo, y0 + kPanelH)
         << "\n";
      if (it == results.end()) continue;
      const double peak = std::max<double>(1, it->peak());
      std::string path;
      for (std::size_t b = 0; b < it->syns_per_bin.size(); ++b) {
        if (it->syns_per_bin[b] == 0) continue;
        // Bin 0 (every client's first SYN) is outside the peak: clipped at the top.
        const double h = std::min(1.0, it->syns_per_bin[b] / peak) * (kPanelH - 14);
        const double x = x0 + static_cast<double>(b) * bin_s * xs;
        path += fmt::format("M{:.2f} {:.2f}h{:.2f}v{:.2f}h{:.2f}z", x, y0 + kPanelH - h, std::max(0.6, bin_s * xs),
                            h, -std::max(0.6, bin_s * xs));
      }
      os << fmt::format(R"(<path d="{}" fill="#2060b0"/>)", path) << "\n";
      os << fmt::format(R"(<text x="{:.0f}" y="{:.0f}" text-anchor="end" fill="#333">peak {} / bin after 0.1 s, CV {:.2f}{}</text>)",
                        x0 + kPanelW - 6, y0 + 13, it->peak(), it->cv(),
                        it->all_connected ? fmt::format(", all connected at {:.1f} s",
                                                        std::chrono::duration<double>(*it->all_connected).count())
                                          : std::string(", not all connected"))
         << "\n";
    }
  }
  const double ya = kTop + static_cast<double>(rows.size()) * (kPanelH + kGapY) - kGapY;
  for (int col = 0; col < 2; ++col) {
    const double x0 = kLeft + col * (kPanelW + kGapX);
    const replay::svg::Axis time{0, span_s[col], x0, x0 + kPanelW, false};
    for (double s : time.ticks(kTimeTicks)) {
      const double x = time.map(s);
      os << fmt::format(R"(<line x1="{:.1f}" y1="{:.0f}" x2="{:.1f}" y2="{:.0f}" stroke="#333"/>)", x, ya, x, ya + 5)
         << "\n";
      os << fmt::format(R"(<text x="{:.1f}" y="{:.0f}" text-anchor="middle">{}</text>)", x, ya + 18,
                        replay::svg::tick_label(s))
         << "\n";
    }
    os << fmt::format(R"(<text x="{:.0f}" y="{:.0f}" text-anchor="end">time (s)</text>)", x0 + kPanelW, ya + 30)
       << "\n";
  }
  os << "</svg>\n";
}

}  // namespace storm

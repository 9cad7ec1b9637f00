#pragma once
// backoff-sim's charts: line charts and grouped bar charts with a legend,
// laid out on the project's SVG blocks (replay::svg, pcap-replay/plot):
// escaping, axes and their ticks, the plot frame.

#include <string>
#include <utility>
#include <vector>

namespace backoff_sim {

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y), in x order
};

struct LineChart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<Series> series;
  bool log_y = false;  // logarithmic y axis (values must be > 0)
};

struct BarChart {
  std::string title;
  std::string y_label;
  std::vector<std::string> series_names;  // one bar per series in each group
  std::vector<std::pair<std::string, std::vector<double>>> groups;  // (group label, value per series)
};

/// The chart as a standalone SVG document (800 x 480 px).
std::string render(const LineChart& chart);
std::string render(const BarChart& chart);

/// Writes `text` to `path`; returns false (and prints to stderr) on failure.
bool write_file(const std::string& path, const std::string& text);

}  // namespace backoff_sim

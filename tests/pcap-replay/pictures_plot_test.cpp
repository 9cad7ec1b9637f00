// The building blocks of the pictures (svg_plot.hpp): escaping, axes,
// ticks, and the two thresholds of the pictures at their boundaries
// (limits::kPlotMaxPoints through decimation_stride, limits::kPlotLogRatio
// through use_log_scale).

#include <doctest/doctest.h>

#include <replay/plot/svg_plot.hpp>
#include <replay/analysis/thresholds.hpp>

using replay::svg::Axis;

TEST_CASE("pictures: escape makes text and attributes safe") {
  CHECK(replay::svg::escape("a<b&\"c'>") == "a&lt;b&amp;&quot;c&#39;&gt;");
  CHECK(replay::svg::escape("plain 198.18.0.1:5001") == "plain 198.18.0.1:5001");
}

TEST_CASE("pictures: decimation keeps a series of kPlotMaxPoints whole and halves one more") {
  constexpr auto cap = replay::limits::kPlotMaxPoints;
  CHECK(replay::svg::decimation_stride(0, cap) == 1);
  CHECK(replay::svg::decimation_stride(cap, cap) == 1);        // at the limit: every point
  CHECK(replay::svg::decimation_stride(cap + 1, cap) == 2);    // ceil((cap + 1) / cap) = 2
  CHECK(replay::svg::decimation_stride(2 * cap, cap) == 2);
  CHECK(replay::svg::decimation_stride(2 * cap + 1, cap) == 3);
  CHECK(replay::svg::decimation_stride(5, 0) == 5);            // cap 0 taken as 1
}

TEST_CASE("pictures: the estimator axis turns logarithmic at kPlotLogRatio") {
  constexpr double k = replay::limits::kPlotLogRatio;
  CHECK(replay::svg::use_log_scale(1.0, k));              // exactly the ratio: log
  CHECK_FALSE(replay::svg::use_log_scale(1.0, k * 0.999));  // just under it: linear
  CHECK(replay::svg::use_log_scale(0.01, 0.01 * k));
  CHECK_FALSE(replay::svg::use_log_scale(0.0, 1000.0));   // no positive minimum
}

TEST_CASE("pictures: axes map data to pixels, linear and log") {
  const Axis lin{0, 10, 100, 200, false};
  CHECK(lin.map(5) == doctest::Approx(150));   // halfway
  CHECK(lin.map(-3) == doctest::Approx(100));  // clamped
  const Axis y{0, 10, 300, 100, false};        // an SVG y axis grows downwards
  CHECK(y.map(10) == doctest::Approx(100));
  const Axis log{1, 1000, 0, 300, true};
  CHECK(log.map(10) == doctest::Approx(100));  // log10(10) / log10(1000) x 300 = 1/3 x 300
  CHECK(log.map(0) == doctest::Approx(0));     // <= 0 maps to lo
}

TEST_CASE("pictures: ticks are 1-2-5 steps (linear) and decades (log)") {
  CHECK(Axis{0, 10, 0, 1, false}.ticks(5) == std::vector<double>{0, 2, 4, 6, 8, 10});  // raw step 2
  CHECK(Axis{0, 1, 0, 1, false}.ticks(4) == std::vector<double>{0, 0.5, 1});          // raw 0.25 -> 0.5
  CHECK(Axis{1, 1000, 0, 1, true}.ticks() == std::vector<double>{1, 10, 100, 1000});  // three decades
  CHECK(Axis{1, 100, 0, 1, true}.ticks() == std::vector<double>{1, 2, 5, 10, 20, 50, 100});  // two: 2 and 5 added
}

TEST_CASE("pictures: tick labels") {
  CHECK(replay::svg::tick_label(0) == "0");
  CHECK(replay::svg::tick_label(200) == "200");
  CHECK(replay::svg::tick_label(1500) == "1.5k");
  CHECK(replay::svg::tick_label(131072) == "131k");
  CHECK(replay::svg::tick_label(2e6) == "2M");
  CHECK(replay::svg::tick_label(0.25) == "0.25");
  CHECK(replay::svg::tick_label(0.00002) == "0.00002");  // no exponent
}

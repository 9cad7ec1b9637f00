// The building blocks of the pictures (svg_plot.hpp): escaping, axes,
// ticks, and the two thresholds of the pictures at their boundaries
// (limits::kPlotMaxPoints through decimation_stride, limits::kPlotLogRatio
// through use_log_scale).

#include <doctest/doctest.h>

#include <replay/plot/svg_plot.hpp>

#include "plot/clock_shift.hpp"
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

TEST_CASE("pictures: the x axis's words go under the box, the title centred (every chart's, bench's too)") {
  // Box 100..300 wide, bottom 200; x from 0 to 10 over 100..300 px: ticks
  // 0, 5, 10 (target 2: raw 5, a 5 x 10^0 step) at 100, 200, 300.
  const replay::svg::Box box{100, 50, 300, 200};
  const Axis x{0, 10, 100, 300, false};
  std::string out;
  replay::svg::draw_x_labels(out, box, x, 2, "time (s)");
  CHECK(out ==
        "<text x=\"100.0\" y=\"215.0\" text-anchor=\"middle\" font-size=\"11\">0</text>\n"
        "<text x=\"200.0\" y=\"215.0\" text-anchor=\"middle\" font-size=\"11\">5</text>\n"
        "<text x=\"300.0\" y=\"215.0\" text-anchor=\"middle\" font-size=\"11\">10</text>\n"
        "<text x=\"200.0\" y=\"234.0\" text-anchor=\"middle\" font-size=\"12\">time (s)</text>\n");
  std::string bare;
  replay::svg::draw_x_labels(bare, box, x, 2, "");
  CHECK(bare.find("234.0") == std::string::npos);  // no title line
  CHECK(replay::svg::document_open(800, 480) ==
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800.0\" height=\"480.0\" viewBox=\"0 0 800.0 480.0\" "
        "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
}

TEST_CASE("pictures: a capture time moved by a wait, and held at the event past the clock's range") {
  using std::chrono::microseconds;
  using std::chrono::nanoseconds;
  const replay::CaptureTime t{nanoseconds{5'000'000'000}};  // 5 s
  CHECK(replay::before_by(t, microseconds{1'500'000}) == replay::CaptureTime{nanoseconds{3'500'000'000}});
  CHECK(replay::after_by(t, microseconds{250}) == replay::CaptureTime{nanoseconds{5'000'250'000}});
  // An unbounded wait (microseconds::max) is past nanoseconds: the event itself.
  CHECK(replay::before_by(t, microseconds::max()) == t);
  CHECK(replay::after_by(t, microseconds::max()) == t);
  // In nanoseconds but past the clock's end: the event itself.
  const replay::CaptureTime late{nanoseconds{INT64_MAX - 10}};
  CHECK(replay::after_by(late, microseconds{1}) == late);
}

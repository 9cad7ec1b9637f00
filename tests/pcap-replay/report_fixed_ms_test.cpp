// FixedMs (report/fixed_ms.hpp): a duration's milliseconds with three
// decimals by integer arithmetic, checked against the C library's printf
// "%.3f" of the same double the reports printed before (ms(d)) as the
// independent oracle, and against values worked by hand.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>

#include <fmt/compile.h>
#include <fmt/format.h>

#include <replay/report/fixed_ms.hpp>

namespace {
using std::chrono::microseconds;

std::string printf_ms(microseconds d) {
  char text[64];
  std::snprintf(text, sizeof text, "%.3f", replay::ms(d));
  return text;
}
std::string fixed(microseconds d) { return fmt::format("{}", replay::FixedMs{d}); }
}  // namespace

TEST_CASE("FixedMs: worked by hand (the microseconds' last three digits after the point)") {
  CHECK(fixed(microseconds{0}) == "0.000");
  CHECK(fixed(microseconds{1}) == "0.001");
  CHECK(fixed(microseconds{-1}) == "-0.001");
  CHECK(fixed(microseconds{999}) == "0.999");
  CHECK(fixed(microseconds{1000}) == "1.000");
  CHECK(fixed(microseconds{12345}) == "12.345");        // 12345 us = 12.345 ms
  CHECK(fixed(microseconds{-200000}) == "-200.000");    // -200 ms
  CHECK(fixed(microseconds{120000000}) == "120000.000");  // Linux's 120 s cap
  CHECK(fmt::format(FMT_COMPILE("RTO {} ms"), replay::FixedMs{microseconds{224000}}) == "RTO 224.000 ms");
}

TEST_CASE("FixedMs: as printf's %.3f of ms(d), at every magnitude and at the exact range's boundary") {
  const std::int64_t edge = static_cast<std::int64_t>(replay::kFixedMsExactBelow);
  for (std::int64_t n : {edge - 1, edge, edge + 1, -edge + 1, -edge, -edge - 1, std::int64_t{1} << 53,
                         (std::int64_t{1} << 53) + 1, std::numeric_limits<std::int64_t>::max(),
                         std::numeric_limits<std::int64_t>::min(), std::int64_t{999999999999999}})
    CHECK_MESSAGE(fixed(microseconds{n}) == printf_ms(microseconds{n}), n);
  std::mt19937_64 rng(11);
  for (int bits = 1; bits <= 63; ++bits) {
    for (int i = 0; i < 400; ++i) {
      const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
      std::int64_t n = static_cast<std::int64_t>(rng() & mask);
      if (i % 2) n = -n;
      REQUIRE_MESSAGE(fixed(microseconds{n}) == printf_ms(microseconds{n}), n);
    }
  }
}

TEST_CASE("FixedMs: the exact range cannot reach where the double has lost microseconds") {
  // Just past 2^53 us the double ms(d) steps by more than 0.001 ms (an ulp of
  // values near 9.007e12 ms is 2^-9 = 0.00195 ms): the integer digits and
  // printf's differ somewhere there, so the exact range must end below it.
  bool differs = false;
  for (std::int64_t n = (std::int64_t{1} << 53) + 1; n < (std::int64_t{1} << 53) + 50 && !differs; ++n) {
    char text[64];
    std::snprintf(text, sizeof text, "%lld.%03lld", static_cast<long long>(n / 1000), static_cast<long long>(n % 1000));
    differs = printf_ms(microseconds{n}) != text;
  }
  CHECK(differs);
  CHECK(replay::kFixedMsExactBelow <= (std::uint64_t{1} << 53));
}

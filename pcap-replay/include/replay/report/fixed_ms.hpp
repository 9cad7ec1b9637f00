#pragma once
// A duration in whole microseconds printed as milliseconds with three
// decimals: the text "{:.3f}" gives of ms(d) ("12.345" for 12345 us), made
// with integer arithmetic. The reports print several per sender; fmt's
// fixed-precision float formatting of each cost about 900 instructions
// (bench/README.md, "The text report's cost").
//
// Exact: ms(d) is d.count() / 1000.0 rounded once, within half an ulp of
// d.count() / 1000; below 2^50 us (35 years) the value is under 2^41 ms,
// where an ulp is at most 2^-12 ms (0.00024), inside the 0.0005 either side
// that rounding to three decimals keeps: fmt's three decimals are
// d.count()'s last three digits. From 2^50 on, the text is fmt's own of
// ms(d).
#include <algorithm>
#include <chrono>
#include <cstdint>

#include <fmt/format.h>

#include <replay/analysis/milliseconds.hpp>

namespace replay {

struct FixedMs {
  std::chrono::microseconds d;
};

/// Below this magnitude (2^50 us, about 35 years), FixedMs's digits are
/// d.count()'s; at or above it, fmt formats ms(d).
inline constexpr std::uint64_t kFixedMsExactBelow = std::uint64_t{1} << 50;

}  // namespace replay

template <>
struct fmt::formatter<replay::FixedMs> {
  // No format spec: "{}" only (the three decimals are the type's).
  constexpr auto parse(format_parse_context& ctx) -> decltype(ctx.begin()) {
    auto it = ctx.begin();
    if (it != ctx.end() && *it != '}') throw format_error("FixedMs takes no format spec");
    return it;
  }
  template <typename FormatContext>
  auto format(const replay::FixedMs& m, FormatContext& ctx) const -> decltype(ctx.out()) {
    const std::int64_t n = m.d.count();
    const std::uint64_t mag = n < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
    if (mag >= replay::kFixedMsExactBelow) return fmt::format_to(ctx.out(), "{:.3f}", replay::ms(m.d));
    // "-" (only for n < 0: fmt prints "0.000" for 0), the whole
    // milliseconds, ".", the three digits of the microseconds.
    char text[24];
    char* end = text + sizeof text;
    char* p = end;
    std::uint64_t frac = mag % 1000, whole = mag / 1000;
    for (int i = 0; i < 3; ++i, frac /= 10) *--p = static_cast<char>('0' + frac % 10);
    *--p = '.';
    do {
      *--p = static_cast<char>('0' + whole % 10);
      whole /= 10;
    } while (whole != 0);
    if (n < 0) *--p = '-';
    return std::copy(p, end, ctx.out());
  }
};

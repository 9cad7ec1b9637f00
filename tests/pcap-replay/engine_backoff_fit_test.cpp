// The backoff fit (analysis/engine/backoff_fit.cpp) with two waits known
// only by their sum (a held frame between them): each waits' RTO and the
// lateness constant s added once per wait, at the cap or below it. Waits
// made by hand, microseconds; the arithmetic in each comment.

#include <doctest/doctest.h>

#include <chrono>
#include <optional>
#include <vector>

#include <replay/analysis/options.hpp>

#include "analysis/engine/backoff_fit.hpp"
#include "analysis/engine/lateness.hpp"

namespace {

using replay::Interval;
using replay::engine::fit;
using replay::engine::FitBounds;
using replay::engine::FitWait;
using std::chrono::microseconds;

FitWait at(std::int64_t us, unsigned doublings) { return {Interval::point(microseconds{us}), doublings, std::nullopt, 0}; }
// A wait the capture bounds only from above (its end held), or unknown.
FitWait loose(std::int64_t hi_us, unsigned doublings) {
  return {Interval{microseconds{0}, microseconds{hi_us}}, doublings, std::nullopt, 0};
}
// `w` with the sum of it and the `span` - 1 waits before it.
FitWait with_sum(FitWait w, std::int64_t sum_us, unsigned span = 2) {
  w.span_sum = Interval::point(microseconds{sum_us});
  w.span = span;
  return w;
}

}  // namespace

TEST_CASE("backoff fit: two waits together add the slop twice") {
  // FreeBSD: an RTO R fires in [R + 200 ms, R (1 + 1/32) + 200 ms]. First
  // wait 1200 ms: R in [1200 - 200] / (1 + 1/32) .. 1000 = [969.7, 1000]
  // ms. The next two (2R, 4R) together take 6R + 2 x 200 ms, at least
  // 6 x 969.7 + 400 = 6218.2 ms: 6250 fits, 6100 does not (6100 - 400 =
  // 5700 = 6R gives R = 950). With s counted once (6R + 200 = 6100: R =
  // 983) it would.
  const replay::Options o = replay::Options::for_profile("freebsd");
  const auto models = replay::engine::lateness_models(o, false);
  REQUIRE(models.size() == 1);
  const auto chain = [](std::int64_t sum) {
    return std::vector<FitWait>{at(1'200'000, 0), loose(10'000'000, 1), with_sum(loose(10'000'000, 2), sum)};
  };
  CHECK(fit(chain(6'250'000), models.front(), FitBounds{}).has_value());
  CHECK_FALSE(fit(chain(6'100'000), models.front(), FitBounds{}).has_value());
  // Alone, each loose wait fits: the sum is what refutes it.
  CHECK(fit(std::vector<FitWait>{at(1'200'000, 0), loose(10'000'000, 1), loose(10'000'000, 2)}, models.front(),
            FitBounds{})
            .has_value());
}

TEST_CASE("backoff fit: two waits together at a cap, and a pair that reaches it") {
  // RFC 6298 profile (10 % late, no constant), a cap below 60 s allowed.
  // Waits 1 s, 2 s (R in [909.1, 1000] ms), two loose waits, then 4 s or
  // 6 s held at the cap C: C in [4000 / 1.1, 4000] = [3636.4, 4000], or
  // [5454.5, 6000].
  const replay::Options o = replay::Options::for_profile("rfc6298");
  const auto model = replay::engine::lateness_models(o, false).front();
  const FitBounds b{microseconds{1}, Interval{microseconds{1}, microseconds{59'999'999}}, 2};
  const auto chain = [](std::int64_t sum, std::int64_t cap) {
    return std::vector<FitWait>{at(1'000'000, 0), at(2'000'000, 1), loose(20'000'000, 2),
                                with_sum(loose(20'000'000, 3), sum), at(cap, 4)};
  };
  // Both at the cap (from the third): 2C. With C about 4 s: 8 s fits (the
  // doubling, 4R + 8R >= 10.9 s, does not), 7 s does not (2C >= 7272.7 ms).
  const auto both = fit(chain(8'000'000, 4'000'000), model, b);
  REQUIRE(both);
  REQUIRE(both->capped_from);
  CHECK(*both->capped_from == 2);
  CHECK_FALSE(fit(chain(7'000'000, 4'000'000), model, b).has_value());
  // The cap reached at the fourth: 4R + C, with C about 6 s: at least
  // 3636.4 + 5454.5 = 9090.9 ms. 10 s fits (R = 1 s, C = 6 s); 8 s does
  // not (nor 2C >= 10.9 s, nor the doubling).
  const auto mixed = fit(chain(10'000'000, 6'000'000), model, b);
  REQUIRE(mixed);
  REQUIRE(mixed->capped_from);
  CHECK(*mixed->capped_from == 3);
  CHECK_FALSE(fit(chain(8'000'000, 6'000'000), model, b).has_value());
}

TEST_CASE("backoff fit: three waits together add the slop three times") {
  // FreeBSD as above, R in [969.7, 1000] ms from the first wait; the next
  // three (2R, 4R, 8R) together take 14R + 3 x 200 ms, at least 14 x 969.7
  // + 600 = 14 176 ms: 14 300 fits, 14 000 does not (14 000 - 600 = 13 400
  // = 14R gives R = 957). With the slop counted twice (14R + 400 = 14 000:
  // R = 971) it would.
  const replay::Options o = replay::Options::for_profile("freebsd");
  const auto model = replay::engine::lateness_models(o, false).front();
  const auto chain = [](std::int64_t sum) {
    return std::vector<FitWait>{at(1'200'000, 0), loose(20'000'000, 1), loose(20'000'000, 2),
                                with_sum(loose(20'000'000, 3), sum, 3)};
  };
  CHECK(fit(chain(14'300'000), model, FitBounds{}).has_value());
  CHECK_FALSE(fit(chain(14'000'000), model, FitBounds{}).has_value());
}

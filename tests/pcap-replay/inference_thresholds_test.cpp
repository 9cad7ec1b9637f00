// The thresholds infer_settings (pcap-replay/src/analysis/inference.cpp)
// reads a sender's settings with, each at its boundary: two waits "the
// same" within kSameWaitPercent (10 %) of the larger plus kSameWaitTicks
// (4 ms); a chain "grew" from kDoublingExpected (3/2) on; the 2.4 floor read
// as on the sum when the least first wait reaches kRfcMinRto (1 s) within
// the tolerance.

#include <doctest/doctest.h>

#include <chrono>
#include <vector>

#include "analysis/inference.hpp"

namespace {

using std::chrono::milliseconds;

// A data chain of expiries 1, 2, ... with these waits (ms).
replay::SenderReport data_chain(const std::vector<std::int64_t>& waits_ms) {
  replay::SenderReport s;
  std::int64_t at = 0;
  unsigned k = 0;
  for (const std::int64_t w : waits_ms) {
    at += w;
    replay::TimeoutRecord t;
    t.frame = 10 + k;
    t.time = replay::CaptureTime{milliseconds{1'700'000'000'000 + at}};
    t.expiry = ++k;
    t.wait = replay::Interval::point(milliseconds{w});
    s.timeouts.push_back(t);
  }
  replay::infer_settings(s, replay::Options::for_profile("rfc6298"));
  return s;
}

}  // namespace

TEST_CASE("inference: two waits are the same within 10 % of the larger plus 4 ms") {
  // 1000 ms and 1000 + d ms: the same while 100 d <= 10 (1000 + d) + 400,
  // i.e. d <= 10400 / 90 = 115.6 ms: 1115 ms is, 1116 ms is not. (Neither
  // grew by 3/2.)
  CHECK(data_chain({1000, 1115}).inferred.linear_data == 1);
  CHECK(data_chain({1000, 1116}).inferred.linear_data == 0);
}

TEST_CASE("inference: a chain grew when a wait is at least 3/2 of the one before") {
  // 1000, 1000 (the same: one linear expiry), then 1499 ms: never grew by
  // 3/2, a linear chain; 1500 ms grew: a backoff, no linear expiries read.
  CHECK(data_chain({1000, 1000, 1499}).inferred.linear_data == 1);
  CHECK(data_chain({1000, 1000, 1500}).inferred.linear_data == 0);
}

TEST_CASE("inference: the floor is on the sum only where a first wait at 1 s shows it") {
  // Tolerance at 1 s: 1 ms + 10 % = 101 ms. 898 ms: below 1 s less it, a
  // floor on the variance term (or none). 899 + 101 = 1000 ms reaches 1 s:
  // no floor below it is shown, but a floor on the sum only where the wait
  // was on time against the floored RTO and outside the window the same
  // arithmetic gives without the floor ([150, 250] ms here); a wait in
  // both windows, or not judged on time, shows no floor.
  CHECK(data_chain({898}).inferred.floor == replay::RtoFloor::variance);
  CHECK(data_chain({899}).inferred.floor == replay::RtoFloor::unknown);
  const auto shown = [](std::int64_t lo_ms, std::int64_t hi_ms, replay::Verdict v) {
    replay::SenderReport s = data_chain({899});
    s.timeouts[0].basis = replay::Basis::profile_rto;
    s.timeouts[0].verdict = v;
    s.timeouts[0].alternative = replay::Interval{milliseconds{lo_ms}, milliseconds{hi_ms}};
    s.inferred = {};
    replay::infer_settings(s, replay::Options::for_profile("rfc6298"));
    return s.inferred.floor;
  };
  CHECK(shown(150, 250, replay::Verdict::ok) == replay::RtoFloor::sum);
  CHECK(shown(150, 250, replay::Verdict::cannot_tell) == replay::RtoFloor::unknown);
  CHECK(shown(850, 950, replay::Verdict::ok) == replay::RtoFloor::unknown);
}

// infer_settings (pcap-replay/src/analysis/inference.cpp): an expiry whose
// wait is unknown (it spans a step of the capture clock) is no evidence of a
// setting, nor is the rest of its chain; the next chain's first expiry is.

#include <doctest/doctest.h>

#include <chrono>

#include "analysis/inference.hpp"

namespace {

using std::chrono::milliseconds;

replay::TimeoutRecord expiry(std::uint64_t frame, std::int64_t at_ms, unsigned backoff, std::int64_t waited_ms,
                             bool unknown) {
  replay::TimeoutRecord t;
  t.frame = frame;
  t.time = replay::CaptureTime{milliseconds{1'700'000'000'000 + at_ms}};
  t.expiry = backoff;
  t.wait = replay::Interval::point(milliseconds{waited_ms});
  t.wait_unknown = unknown;
  if (unknown) t.verdict = replay::Verdict::unchecked;
  return t;
}

}  // namespace

TEST_CASE("inference: an expiry whose wait is unknown, and the rest of its chain, tell no setting") {
  const replay::Options o = replay::Options::for_profile("rfc6298");
  replay::SenderReport s;
  // Chain 1: its first expiry spans a clock step (its wait reads 0), then the
  // doubled one 2 s later: neither is evidence. Chain 2, later: 1 s, then 2 s.
  s.timeouts = {expiry(10, 0, 1, 0, true), expiry(11, 2'000, 2, 2'000, false), expiry(20, 100'000, 1, 1'000, false),
                expiry(21, 102'000, 2, 2'000, false)};
  replay::infer_settings(s, o);
  REQUIRE(s.inferred.min_first_wait.has_value());
  CHECK(*s.inferred.min_first_wait == milliseconds(1'000));  // chain 2's, not the unknown 0
  CHECK(s.inferred.evidence == std::vector<std::uint64_t>{20, 21});
}

TEST_CASE("inference: only an unknown wait: no first RTO at all") {
  replay::SenderReport s;
  s.timeouts = {expiry(10, 0, 1, 0, true)};
  replay::infer_settings(s, replay::Options::for_profile("rfc6298"));
  CHECK_FALSE(s.inferred.min_first_wait.has_value());
  CHECK(s.inferred.evidence.empty());
}

TEST_CASE("inference: a wait a documented setting explains is not the timer's lateness") {
  // A first expiry 3 s after the SYN against the initial RTO of 1 s (predicted
  // [1, 1] s): Windows' InitialRto, verdict "setting". Read as lateness it
  // would say the timer fires 2 s late; an "ok" expiry 12 ms past its
  // prediction is the timer's lateness (3012 - 3000 = 12 ms).
  const replay::Options o = replay::Options::for_profile("windows");
  auto first = [](replay::Verdict v, std::int64_t waited_ms, std::int64_t predicted_ms) {
    replay::TimeoutRecord t = expiry(10, 0, 1, waited_ms, false);
    t.basis = replay::Basis::initial_rto;
    t.predicted = replay::Interval::point(milliseconds{predicted_ms});
    t.verdict = v;
    return t;
  };
  replay::SenderReport setting;
  setting.timeouts = {first(replay::Verdict::setting, 3'000, 1'000)};
  replay::infer_settings(setting, o);
  CHECK_FALSE(setting.inferred.lateness.has_value());
  replay::SenderReport ok;
  ok.timeouts = {first(replay::Verdict::ok, 3'012, 3'000)};
  replay::infer_settings(ok, o);
  REQUIRE(ok.inferred.lateness.has_value());
  CHECK(*ok.inferred.lateness == milliseconds{12});
}

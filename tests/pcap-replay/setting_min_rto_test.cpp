// Linux's minimum RTO is a setting (ip route ... rto_min, tcp_rto_min_us):
// an RTO below the default 200 ms floor on the variance term, but not below
// what the same arithmetic gives with the least minimum, is a documented
// setting (INFO), not a departure; below that it still is one, and with the
// user's own --rto-min the setting is known, so the floor is the rule.

#include <doctest/doctest.h>

#include "replay_scenario.hpp"

using namespace replaytest;
using replay::Outcome;
using replay::SettingUse;
using replay::Topic;
using replay::Verdict;
using std::chrono::microseconds;

namespace {

constexpr std::int64_t ms = 1000;  // microseconds per millisecond

// Handshake at 0 / 10 ms: one sample R = 10 ms. Linux (tcp_rtt_estimator's
// first sample): SRTT 10 ms, mdev 2R = 20 ms, rttvar max(mdev, rto_min):
// with rto_min 200 ms, RTO 10 + 200 = 210 ms, 52.5 jiffies of 4 ms up to
// 53: 212 ms; accepted from 212 less 10 % and 1 ms = 189.8 ms. With the
// least rto_min (1 us): 10 + 20 = 30 ms, up to 32 ms; from 32 - 3.2 - 1 =
// 27.8 ms. RFC 6298: RTO max(1 s, 10 + 4 x 5 = 30 ms) = 1 s.
// A [1,1001) alone at 1000 ms (no SACK: no probe), resent `wait_ms` later.
Scenario lone_segment(std::int64_t wait_us) {
  Scenario s;
  s.handshake(0, 10 * ms);
  s.data(1000 * ms, 1);
  s.data(1000 * ms + wait_us, 1);
  s.ack(1000 * ms + wait_us + 10 * ms, 1001);
  return s;
}

replay::Report analyze_with(const Scenario& sc, const std::string& name, replay::Options o) {
  const std::string path = sc.write(name);
  std::vector<std::string> errors;
  replay::Report r = replay::analyze_files({path}, o, false, errors);
  CHECK(errors.empty());
  std::filesystem::remove(path);
  return r;
}

const replay::Judgement* setting_note(const replay::SenderReport& s) {
  for (const auto& j : s.findings)
    if (j.topic == Topic::setting) return &j;
  return nullptr;
}

}  // namespace

TEST_CASE("Linux rto_min: 100 ms is below the default's RTO (212 ms) and above the least minimum's (32 ms): a setting") {
  auto r = analyze(lone_segment(100 * ms), "min-rto-setting", Profile::linux_kernel);
  const auto& c = client(r);
  REQUIRE(c.timeouts.size() == 1);
  // Below the window the defaults give (189.8 ms on), where the setting puts
  // it: the verdict says so, not "ok" beside a window the wait is not in.
  CHECK(c.timeouts[0].verdict == Verdict::setting);
  CHECK(c.timeouts[0].wait.hi < c.timeouts[0].accepted.lo);
  CHECK(us(c.timeouts[0].accepted.lo) == 189'800);
  CHECK(musts(c) == 0);
  const auto* n = setting_note(c);
  REQUIRE(n);
  CHECK(n->setting.kind == SettingUse::Kind::min_rto);
  CHECK(us(n->setting.value.lo) == 32'000);  // the least RTO the setting allows here
  CHECK(n->frame == 5);
}

TEST_CASE("Linux rto_min: the boundary is the least minimum's window (27.8 ms), below it 5.3/5.6") {
  auto below = analyze(lone_segment(27'700), "min-rto-below", Profile::linux_kernel);
  CHECK(client(below).timeouts.at(0).verdict == Verdict::early);
  const auto js = findings(client(below), "5.3/5.6");
  REQUIRE(js.size() == 1);
  CHECK(js[0].outcome == Outcome::broken);
  CHECK(setting_note(client(below)) == nullptr);
  auto at = analyze(lone_segment(27'900), "min-rto-at", Profile::linux_kernel);
  CHECK(client(at).timeouts.at(0).verdict == Verdict::setting);
  CHECK(musts(client(at)) == 0);
  CHECK(setting_note(client(at)) != nullptr);
}

TEST_CASE("Linux rto_min: on the default's time no setting is named") {
  auto r = analyze(lone_segment(212 * ms), "min-rto-default", Profile::linux_kernel);
  CHECK(client(r).timeouts.at(0).verdict == Verdict::ok);
  CHECK(setting_note(client(r)) == nullptr);
  CHECK(musts(client(r)) == 0);
}

TEST_CASE("--rto-min 200ms pins the minimum: 100 ms is then MUST 5.3/5.6") {
  replay::Options o = replay::Options::for_profile(Profile::linux_kernel);
  o.user_min_rto = true;
  o.config.min_rto = std::chrono::milliseconds{200};
  auto r = analyze_with(lone_segment(100 * ms), "min-rto-pinned", o);
  const auto js = findings(client(r), "5.3/5.6");
  REQUIRE(js.size() == 1);
  CHECK(js[0].outcome == Outcome::broken);
  CHECK(setting_note(client(r)) == nullptr);
}

TEST_CASE("RFC 6298: 100 ms is above the floorless RTO (30 ms): the 1 s floor's SHOULD (2.4), no setting") {
  auto r = analyze(lone_segment(100 * ms), "min-rto-rfc", Profile::rfc6298);
  CHECK(musts(client(r)) == 0);
  CHECK(findings(client(r), "2.4").size() == 1);
  CHECK(setting_note(client(r)) == nullptr);
}

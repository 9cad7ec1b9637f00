// The chain judge's named limits (analysis/engine/judge_limits.hpp) and the
// timers' lateness (analysis/engine/lateness.cpp), each at its boundary:
// chains of expiries made by hand, judged by ChainJudge::settle as the
// sender engine hands them over. Times in seconds unless said; the default
// tolerance is the 1 ms granularity plus --slack 10 %.

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <vector>

#include <replay/analysis/options.hpp>
#include <replay/analysis/rules.hpp>

#include "analysis/engine/chain_judge.hpp"
#include "analysis/engine/lateness.hpp"

namespace {

using replay::Interval;
using replay::Outcome;
using replay::RuleId;
using replay::engine::ChainJudge;
using replay::engine::ObservedExpiry;
using replay::engine::SettledChain;
using std::chrono::microseconds;
using std::chrono::milliseconds;

// A data chain of expiries with these waits (us), each captured at the
// sender (a point), the first compared with an RTO of `first_rto` us from
// the replayed estimator (up to `first_rto_hi` where its readings differ).
std::vector<ObservedExpiry> chain(const std::vector<std::int64_t>& waits, std::int64_t first_rto,
                                  std::int64_t first_rto_hi = 0) {
  std::vector<ObservedExpiry> out;
  std::int64_t t = 1'000'000;
  std::uint64_t frame = 10;
  for (const std::int64_t w : waits) {
    t += w;
    ObservedExpiry x;
    x.frame = frame++;
    x.time = replay::CaptureTime{std::chrono::microseconds{t}};
    x.armed_by = out.empty() ? replay::ArmCause::send : replay::ArmCause::timeout;
    x.wait = Interval::point(microseconds{w});
    x.expect.basis = replay::Basis::profile_rto;
    x.expect.rto = {microseconds{first_rto}, microseconds{std::max(first_rto, first_rto_hi)}};
    out.push_back(x);
  }
  return out;
}

SettledChain settle(const std::vector<ObservedExpiry>& events, std::string_view profile) {
  const replay::Options o = replay::Options::for_profile(profile);
  return ChainJudge(o).settle(events, false);
}

// The judgements of rule `r` with outcome `out` at `frame`.
std::size_t count(const SettledChain& c, RuleId r, Outcome out, std::uint64_t frame) {
  std::size_t n = 0;
  for (const auto& j : c.judgements) n += j.rule == r && j.outcome == out && j.frame == frame ? 1 : 0;
  return n;
}
std::size_t count(const SettledChain& c, RuleId r) {
  std::size_t n = 0;
  for (const auto& j : c.judgements) n += j.rule == r ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("lateness: a slop stack's timer fires within 1/32 of the RTO after RTO + slop") {
  // FreeBSD tcp_rexmit_slop / Darwin TCPTV_REXMTSLOP: 200 ms at every arm,
  // then the callout's own tick: an RTO of 1 s fires in
  // [1 s + 200 ms, 1 s + 1 s / 32 + 200 ms] = [1.2 s, 1.23125 s].
  for (const char* p : {"freebsd", "macos"}) {
    CAPTURE(p);
    const replay::Options o = replay::Options::for_profile(p);
    const auto models = replay::engine::lateness_models(o, false);
    REQUIRE(models.size() == 1);
    const Interval w = replay::engine::fire_window(models.front(), milliseconds{1000});
    CHECK(w.lo.count() == 1'200'000);
    CHECK(w.hi.count() == 1'231'250);
    // The SYN schedule has no slop: the bare tick, [1 s, 1.03125 s].
    const Interval s = replay::engine::fire_window(replay::engine::lateness_models(o, true).front(), milliseconds{1000});
    CHECK(s.lo.count() == 1'000'000);
    CHECK(s.hi.count() == 1'031'250);
  }
}

TEST_CASE("lateness: Linux's wheel, up to 8/63 of the timeout plus 2 jiffies late") {
  // kernel/time/timer.c: an RTO of 630 ms is rounded up by at most
  // 630 x 8 / 63 = 80 ms, plus 2 jiffies of 4 ms: fires in [630, 718] ms.
  const replay::Options o = replay::Options::for_profile("linux");
  const Interval w = replay::engine::fire_window(replay::engine::timer_jitter(o), milliseconds{630});
  CHECK(w.lo.count() == 630'000);
  CHECK(w.hi.count() == 718'000);
}

TEST_CASE("late note: only past 3/2 of the prediction plus the granularity") {
  // RFC 6298 profile, RTO 1 s: accepted up to 1 s + 10 % + 1 ms = 1.101 s;
  // later is "late" (never a departure). The INFO note comes only past
  // ceil(1 s x 3/2) + 1 ms = 1.501 s.
  auto at = settle(chain({1'501'000}, 1'000'000), "rfc6298");
  REQUIRE(at.records.size() == 1);
  CHECK(at.records[0].verdict == replay::Verdict::late);
  CHECK(count(at, RuleId::late) == 0);
  auto past = settle(chain({1'502'000}, 1'000'000), "rfc6298");
  CHECK(past.records[0].verdict == replay::Verdict::late);
  CHECK(count(past, RuleId::late, Outcome::note, 10) == 1);
}

TEST_CASE("RFC6298-2.5 a chain held below 60 s departs; at 60 s it keeps the rule") {
  // Waits 10, 20, 40 s (doubling), then two at the same value: a cap. At
  // 60 s it is 2.5's least maximum: nothing to say. At 59 s the cap is
  // below it: 2.5 broken at both waits held there (frames 13 and 14).
  const auto kept = settle(chain({10'000'000, 20'000'000, 40'000'000, 60'000'000, 60'000'000}, 10'000'000), "rfc6298");
  CHECK(kept.judgements.empty());
  const auto low = settle(chain({10'000'000, 20'000'000, 40'000'000, 59'000'000, 59'000'000}, 10'000'000), "rfc6298");
  CHECK(count(low, RuleId::rfc6298_2_5, Outcome::broken, 13) == 1);
  CHECK(count(low, RuleId::rfc6298_2_5, Outcome::broken, 14) == 1);
  CHECK(count(low, RuleId::rfc6298_5_5) == 0);
}

TEST_CASE("RFC6298-2.5 a cap is read only after a doubling and from two waits held at it") {
  // 10 s then 12 s: the RTO did not double (5.5), whatever follows; a cap
  // reached without a doubling before it is not read (the fit's capped
  // expiries start at the third).
  const auto no_doubling = settle(chain({10'000'000, 12'000'000, 12'000'000}, 10'000'000), "rfc6298");
  CHECK(count(no_doubling, RuleId::rfc6298_5_5, Outcome::broken, 11) == 1);
  CHECK(count(no_doubling, RuleId::rfc6298_2_5) == 0);
  // One wait at 50 s after the doubling 10, 20, 40: one shorter wait at the
  // end is as much a missing doubling as a cap (kCapEstablishedWaits = 2).
  const auto one = settle(chain({10'000'000, 20'000'000, 40'000'000, 50'000'000}, 10'000'000), "rfc6298");
  CHECK(count(one, RuleId::rfc6298_5_5, Outcome::broken, 13) == 1);
  CHECK(count(one, RuleId::rfc6298_2_5) == 0);
}

TEST_CASE("an inferred constant lateness: relied on from three waits, up to 200 ms") {
  // RTO R = 310 ms plus a constant s = 190 ms at every arm: waits R + s,
  // 2R + s, 4R + s = 500, 810, 1430 ms. The replayed estimator's readings
  // of the RTO span [310, 460] ms: the first wait is on time (accepted up to
  // 460 x 1.1 + 1 = 507 ms), and the chain's R is at least
  // 310 - 31 - 1 = 278 ms. A proportional lateness cannot explain 810 ms
  // after 500 ms (R >= 499 / 1.1 = 453.6 ms, doubled 907 ms); the constant
  // does.
  const auto three = settle(chain({500'000, 810'000, 1'430'000}, 310'000, 460'000), "rfc6298");
  CHECK(three.judgements.empty());
  REQUIRE(three.additive);
  CHECK(three.additive->lo <= milliseconds{190});
  CHECK(three.additive->hi >= milliseconds{190});
  // Two waits do not pin it (kInferredAdditiveWaits = 3): cannot tell.
  const auto two = settle(chain({500'000, 810'000}, 310'000, 460'000), "rfc6298");
  CHECK(count(two, RuleId::rfc6298_5_5, Outcome::cannot_tell, 11) == 1);
  CHECK(count(two, RuleId::rfc6298_5_5, Outcome::broken, 11) == 0);
  // s = 250 ms (R = 250 ms: 500, 750, 1250 ms) is more than any stack adds
  // (kMaxInferredSlop 200 ms): with s <= 200 ms, R + s >= 499 ms needs
  // R >= 299 ms / (33/32) = 289.9 ms, and 2R + s <= 751 ms R <= 275.5 ms.
  // Nor is it half of R or less (kMaxSlopOfBase): with s <= R / 2, R + s >=
  // 499 ms needs R (33/32 + 1/2) >= 499, R >= 327.3 ms, and 2R + s <= 751
  // with s >= 499 - R 33/32 needs R <= 252 / (31/32) = 260.1 ms.
  const auto big = settle(chain({500'000, 750'000, 1'250'000}, 310'000, 460'000), "rfc6298");
  CHECK(count(big, RuleId::rfc6298_5_5, Outcome::broken, 11) == 1);
}

TEST_CASE("an inferred constant lateness beyond 200 ms: up to half of the chain's first RTO") {
  // R = 1 s and s = 500 ms (a slop set high, as FreeBSD's rexmit_slop can
  // be): waits 1.5, 2.5, 4.5, 8.5 s. The first is late against the 1 s
  // RTO (accepted up to 1.101 s: a bound from above only, from 899 ms
  // below); 2.5 and 4.5 s give 2R = 2 s, s = 500 ms = R / 2. The fourth is
  // predicted from the three: the least 8R + s over s <= R / 2 and the
  // waits +-1 ms (each firing in [c R + s, c R 33/32 + s]) is 8289.8 ms
  // (at R = 975.3, s = 487.4 ms; found by enumerating R in 0.1 ms steps).
  const auto half = settle(chain({1'500'000, 2'500'000, 4'500'000, 8'500'000}, 1'000'000), "rfc6298");
  CHECK(count(half, RuleId::rfc6298_5_5) == 0);
  REQUIRE(half.additive);
  CHECK(half.additive->lo <= milliseconds{500});
  CHECK(half.additive->hi >= milliseconds{500});
  // s = 600 ms > R / 2: waits 1.6, 2.6, 4.6, 8.6 s. The three first fit
  // only with R >= 1014.3 ms (s = R / 2 = 507 ms, the timer up to 1/32
  // late), and then 8R + s is at least 8621.4 ms (enumerated as above): the
  // 8.6 s wait (frame 13) is short under every reading; the 4.6 s one is not.
  const auto more = settle(chain({1'600'000, 2'600'000, 4'600'000, 8'600'000}, 1'000'000), "rfc6298");
  CHECK(count(more, RuleId::rfc6298_5_5, Outcome::broken, 13) == 1);
  CHECK(count(more, RuleId::rfc6298_5_5, Outcome::broken, 12) == 0);
}

TEST_CASE("an inferred constant lateness is the chain's: a run after a late expiry keeps what the first showed") {
  // Waits 1, 3, 2.75 s; the estimator's RTO readings span [600, 1000] ms
  // (the chain's R at least 600 - 60 - 1 = 539 ms). The first is on time.
  // Under s <= R / 2, R + s in [999, 1001] ms gives R >= 652.4 ms and
  // s <= 333.7 ms (at R = 667.3). The second (3 s) is late under every
  // reading: the next run starts there, its RTO bounded below by the least
  // 2R + s predicted, 1631.1 ms (R = 652.4) less 1 ms. Its next wait, 2R' +
  // s after R' + s >= 1630.1: with s <= R' / 2 alone at least 2661.4 ms, so
  // 2.75 s would fit; with the constant still at most 333.7 ms, at least
  // 2848.0 ms (R' >= 1257), and at least 2963.6 (proportional) and 2973.3
  // (s <= 200 ms): 2.75 s is short under every reading, the RTO not doubled
  // (4R + s = 3R + 1 s >= 2957 ms for the first run's R).
  const auto c = settle(chain({1'000'000, 3'000'000, 2'750'000}, 600'000, 1'000'000), "rfc6298");
  CHECK(count(c, RuleId::rfc6298_5_5, Outcome::broken, 12) == 1);
  // 2.9 s: above 2848.0 ms, the R / 2 reading's least; not a departure.
  const auto kept = settle(chain({1'000'000, 3'000'000, 2'900'000}, 600'000, 1'000'000), "rfc6298");
  CHECK(count(kept, RuleId::rfc6298_5_5, Outcome::broken, 12) == 0);
}

namespace {

// A SYN chain: each wait after the initial RTO (1 s) armed at the SYN.
std::vector<ObservedExpiry> syn_chain(const std::vector<std::int64_t>& waits) {
  auto c = chain(waits, 1'000'000);
  for (auto& x : c) {
    x.syn = true;
    x.expect.basis = replay::Basis::initial_rto;
  }
  return c;
}

SettledChain settle_syn(const std::vector<ObservedExpiry>& events, std::string_view profile) {
  const replay::Options o = replay::Options::for_profile(profile);
  return ChainJudge(o).settle(events, true);
}

bool all_ok(const SettledChain& c) {
  for (const auto& r : c.records)
    if (r.verdict != replay::Verdict::ok) return false;
  return !c.records.empty();
}

std::size_t settings(const SettledChain& c, replay::SettingUse::Kind k) {
  std::size_t n = 0;
  for (const auto& j : c.judgements)
    n += j.rule == RuleId::stack_setting && j.setting.kind == k ? 1 : 0;
  return n;
}

std::vector<std::int64_t> doubling(std::int64_t first, std::size_t n, std::int64_t add = 0) {
  std::vector<std::int64_t> w;
  for (std::size_t k = 0; k < n; ++k) w.push_back((first << k) + add);
  return w;
}

}  // namespace

TEST_CASE("SYN schedules: FreeBSD and Darwin 1,1,1,1,1,2,4 (tcp_syn_backoff); Windows doubles from the first") {
  // Five waits of the initial 1 s, then 2 s, 4 s: every one on time.
  const std::vector<std::int64_t> bsd{1'000'000, 1'000'000, 1'000'000, 1'000'000, 1'000'000, 2'000'000, 4'000'000};
  for (const char* p : {"freebsd", "macos"}) {
    CAPTURE(p);
    const auto c = settle_syn(syn_chain(bsd), p);
    CHECK(all_ok(c));
    CHECK(c.judgements.empty());
  }
  // Windows (no linear SYN expiries): 1, 2, 4 s.
  const auto w = settle_syn(syn_chain({1'000'000, 2'000'000, 4'000'000}), "windows");
  CHECK(all_ok(w));
  CHECK(w.judgements.empty());
  // Linux 6.5+ (tcp_syn_linear_timeouts 4): the same schedule as the BSDs,
  // by default: no setting to note.
  const auto l = settle_syn(syn_chain(bsd), "linux");
  CHECK(all_ok(l));
  CHECK(l.judgements.empty());
  // tcp_syn_linear_timeouts up to 16: eleven waits of 1 s, then 2 s and
  // 4 s, need 10 linear expiries: a setting (INFO), no departure. (The flat
  // part alone reads as tcp_rto_max_ms = 1 s as well; the doubling after it
  // refutes that.)
  std::vector<std::int64_t> w12(11, 1'000'000);
  w12.push_back(2'000'000);
  w12.push_back(4'000'000);
  const auto l12 = settle_syn(syn_chain(w12), "linux");
  CHECK(count(l12, RuleId::rfc6298_5_5) == 0);
  CHECK(all_ok(l12));
}

TEST_CASE("Windows InitialRto: a first SYN expiry at 3 s is the setting (1 s to 3 s), not late") {
  const auto c = settle_syn(syn_chain({3'000'000}), "windows");
  REQUIRE(c.records.size() == 1);
  // Past the window the default 1 s gives, where the setting puts it.
  CHECK(c.records[0].verdict == replay::Verdict::setting);
  CHECK(c.records[0].wait.lo > c.records[0].accepted.hi);
  CHECK(settings(c, replay::SettingUse::Kind::initial_rto) == 1);
}

TEST_CASE("RFC6298-2.5 caps: FreeBSD and Darwin 64 s (TCPTV_REXMTMAX), Windows at least 60 s") {
  // RTO 1 s doubling to the cap, plus the slop of 200 ms at every arm:
  // 1.2, 2.2, 4.2, ..., 32.2, then 64.2 s twice.
  for (const char* p : {"freebsd", "macos"}) {
    CAPTURE(p);
    auto w = doubling(1'000'000, 7, 200'000);
    w.push_back(64'200'000);
    const auto c = settle(chain(w, 1'000'000), p);
    CHECK(all_ok(c));
    CHECK(c.judgements.empty());
  }
  // Windows: 1, 2, ..., 32 s, then 60 s twice: 2.5's least maximum.
  auto w = doubling(1'000'000, 6);
  w.push_back(60'000'000);
  w.push_back(60'000'000);
  const auto c = settle(chain(w, 1'000'000), "windows");
  CHECK(all_ok(c));
  CHECK(c.judgements.empty());
}

TEST_CASE("Linux tcp_rto_max_ms: a cap from 1 s to 120 s is a setting, below 60 s an INFO, not 2.5") {
  // RTO 400 ms (on time: Linux's wheel fires it in [400, 458.8] ms), then
  // 800 ms and two waits of 1 s: held at a cap of about 1 s, the least
  // tcp_rto_max_ms allows.
  const auto one = settle(chain({400'000, 800'000, 1'000'000, 1'000'000}, 400'000), "linux");
  CHECK(count(one, RuleId::rfc6298_2_5) == 0);
  CHECK(settings(one, replay::SettingUse::Kind::max_rto) == 1);
  // 400 ms doubling to 51.2 s, then 90 s twice: above TCP_RTO_MAX's 60 s
  // floor of 2.5, below 120 s: the setting again.
  auto w = doubling(400'000, 8);
  w.push_back(90'000'000);
  w.push_back(90'000'000);
  const auto ninety = settle(chain(w, 400'000), "linux");
  CHECK(count(ninety, RuleId::rfc6298_5_5) == 0);
  CHECK(settings(ninety, replay::SettingUse::Kind::max_rto) == 1);
}

TEST_CASE("Linux thin streams: 6 linear expiries (TCP_THIN_LINEAR_RETRIES) before doubling") {
  // Fewer than 4 segments in flight: 7 waits of 400 ms (the first and 6
  // that keep the RTO), then 800 ms.
  auto c = chain({400'000, 400'000, 400'000, 400'000, 400'000, 400'000, 400'000, 800'000}, 400'000);
  for (auto& x : c) x.thin = true;
  const auto s = settle(c, "linux");
  CHECK(count(s, RuleId::rfc6298_5_5) == 0);
  CHECK(settings(s, replay::SettingUse::Kind::thin_linear) == 1);
  CHECK(all_ok(s));
}

TEST_CASE("probe readings: up to three maybe-probes of a chain are weighed, each as probe and as expiry") {
  // Two repeats of the lone segment at a probe's time (frames 10, 11),
  // then an expiry (12): waits 1, 2, 4 s. Read as expiries, the three
  // double exactly; a probe re-arms the RTO undoubled, so read as probes
  // the wait after each (4 s after 1 s, 4 s after 2 s) fits neither. Both
  // are weighed (kMaxProbeReadings = 3) and read as expiries.
  auto c = chain({1'000'000, 2'000'000, 4'000'000}, 1'000'000);
  c[0].maybe_probe = c[1].maybe_probe = true;
  const auto s = settle(c, "linux");
  REQUIRE(s.kinds.size() == 2);
  for (const auto& [frame, kind] : s.kinds) {
    CAPTURE(frame);
    CHECK(kind == replay::SendKind::timeout);
  }
  CHECK(s.judgements.empty());
}

TEST_CASE("probe readings: a next wait the capture bounds only from below is weighed as unbounded") {
  // A repeat at a probe's time (frame 10, 1 s), then an expiry whose wait
  // the capture knows only to be at least 0.9 s (frame 11). Read as a
  // probe, the RTO re-armed undoubled (1 s) falls in [0.9 s, unbounded);
  // read as an expiry, the doubled 2 s does too: a tie, and a tie reads
  // the probe as a probe. (The unbounded end plus the tolerance once
  // overflowed: 2^63 - 1 us + 1 ms, undefined behaviour, which make test
  // SAN=1 stops at.)
  auto c = chain({1'000'000, 900'000}, 1'000'000);
  c[0].maybe_probe = true;
  c[1].wait = Interval::at_least(microseconds{900'000});
  const auto s = settle(c, "linux");
  REQUIRE(s.kinds.size() == 1);
  CHECK(s.kinds.front().first == 10);
  CHECK(s.kinds.front().second == replay::SendKind::tlp);
}

TEST_CASE("Linux TCP_RTO_MAX: a chain held at 120 s is the default, no setting") {
  // include/net/tcp.h TCP_RTO_MAX = 120 s: 400 ms doubling to 102.4 s, then
  // 120 s twice (the cap: 204.8 s capped).
  auto w = doubling(400'000, 9);
  w.push_back(120'000'000);
  w.push_back(120'000'000);
  const auto c = settle(chain(w, 400'000), "linux");
  CHECK(all_ok(c));
  CHECK(c.judgements.empty());
  // The kernel's RTO never exceeds it: a chain held at 150 s instead is
  // not on time at a higher cap (120 s is known), and breaks no rule (a
  // timer may fire late).
  auto high = doubling(400'000, 9);
  high.push_back(150'000'000);
  high.push_back(150'000'000);
  const auto h = settle(chain(high, 400'000), "linux");
  REQUIRE(h.records.size() == 11);
  CHECK(h.records[9].verdict != replay::Verdict::ok);
  for (const auto& j : h.judgements) CHECK(j.outcome != Outcome::broken);
}

TEST_CASE("RFC6298-3-karn a backoff collapsed after an ACK without a valid sample: broken, unless a SACK gave one") {
  // 1 s, then 1 s again after an ACK of retransmitted data (no valid sample,
  // section 3): the backoff must survive it, 2 s was due. After a SACK of
  // never-retransmitted data a stack that samples it (Linux) had a valid
  // sample: cannot tell.
  auto c = chain({1'000'000, 1'000'000}, 1'000'000);
  c[1].after_ambiguous_ack = true;
  const auto karn = settle(c, "rfc6298");
  CHECK(count(karn, RuleId::rfc6298_3_karn, Outcome::broken, 11) == 1);
  c[1].after_sack_sample = true;
  const auto sack = settle(c, "rfc6298");
  CHECK(count(sack, RuleId::rfc6298_3_karn, Outcome::cannot_tell, 11) == 1);
  CHECK(count(sack, RuleId::rfc6298_3_karn, Outcome::broken, 11) == 0);
}

TEST_CASE("the chain's RTO may be the replayed one less the tolerance (the sender's samples may differ)") {
  // Replayed RTO 1 s; the sender's own may be as low as 1000 - 10 % - 1 =
  // 899 ms. Waits 920 ms (on time) then 1840 ms: R in [899, 921] ms doubles
  // to it.
  const auto c = settle(chain({920'000, 1'840'000}, 1'000'000), "rfc6298");
  CHECK(all_ok(c));
  CHECK(c.judgements.empty());
}

TEST_CASE("RFC6298-2.4 a first wait where the floored and the floorless RTO's windows overlap: cannot tell") {
  // RTO 1 s (floored), without the floor 950 ms: windows [1000 - 100 - 1,
  // 1000 + 100 + 1] = [899, 1101] and [950 - 95 - 1, 950 + 95 + 1] = [854,
  // 1046] ms overlap. 1000 ms is what the floored RTO gives, and what the
  // floorless one gives too: an "ok" there would be one the departure
  // earned as well, so the capture cannot tell (wait-straddles). 1047 ms
  // is the floored RTO's alone: ok.
  auto c = chain({1'000'000}, 1'000'000);
  c[0].expect.floorless = Interval::point(microseconds{950'000});
  const auto both = settle(c, "rfc6298");
  CHECK(both.records[0].verdict == replay::Verdict::cannot_tell);
  REQUIRE(both.judgements.size() == 1);
  CHECK(both.judgements[0].rule == RuleId::rfc6298_2_4);
  CHECK(both.judgements[0].outcome == Outcome::cannot_tell);
  CHECK(both.judgements[0].topic == replay::Topic::wait_straddles);
  auto at_edge = chain({1'046'000}, 1'000'000);
  at_edge[0].expect.floorless = Interval::point(microseconds{950'000});
  CHECK(settle(at_edge, "rfc6298").records[0].verdict == replay::Verdict::cannot_tell);
  auto floored = chain({1'047'000}, 1'000'000);
  floored[0].expect.floorless = Interval::point(microseconds{950'000});
  const auto on_time = settle(floored, "rfc6298");
  CHECK(on_time.records[0].verdict == replay::Verdict::ok);
  CHECK(on_time.judgements.empty());
}

TEST_CASE("RFC6298-2.5 an expiry at the cap whose wait also holds the doubled RTO: cannot tell there") {
  // As above at 59 s (frames 13 and 14 held at the cap: 2.5 broken at both),
  // then a sixth expiry (frame 15) whose wait the capture bounds only from
  // below, at 59 s or more (its arm captured in a flushed burst): it holds
  // 59 s and the doubled 118 s alike. The cap stands on 13 and 14; at 15
  // the capture cannot tell.
  auto c = chain({10'000'000, 20'000'000, 40'000'000, 59'000'000, 59'000'000, 59'000'000}, 10'000'000);
  c[5].wait = Interval::at_least(microseconds{59'000'000});
  const auto s = settle(c, "rfc6298");
  CHECK(count(s, RuleId::rfc6298_2_5, Outcome::broken, 13) == 1);
  CHECK(count(s, RuleId::rfc6298_2_5, Outcome::broken, 14) == 1);
  CHECK(count(s, RuleId::rfc6298_2_5, Outcome::broken, 15) == 0);
  CHECK(count(s, RuleId::rfc6298_2_5, Outcome::cannot_tell, 15) == 1);
  CHECK(s.records[5].verdict == replay::Verdict::cannot_tell);
}

TEST_CASE("RFC6298-5.5 after a late expiry the run doubles the RTO, not the late wait") {
  // RFC 6298 profile, first RTO 1 s: expiry 1 waits 1 s, so the RTO it
  // shows is in [1000 - 1, 1000 + 1] / 1.1 .. [909, 1001] ms; expiry 2 is
  // due at twice that, and fires 3 s after (late: past 2 x 1001 x 1.1 + 1 ms
  // = 2203 ms). A late timer's wait bounds its RTO from above only: the RTO
  // expiry 3 doubles is 2 x [909, 3001] ms, not twice the 3 s waited.
  // Compliant: RTO 2 s fired 1 s late, then 4 s: ok (read from the late wait
  // it would be "not doubled", 4 s < 2 x 3 s / 1.1).
  const auto on_time = settle(chain({1'000'000, 3'000'000, 4'000'000}, 1'000'000), "rfc6298");
  CHECK(on_time.records[1].verdict == replay::Verdict::late);
  CHECK(on_time.records[2].verdict == replay::Verdict::ok);
  CHECK(count(on_time, RuleId::rfc6298_5_5) == 0);
  // The departure: 3 s again, below the doubled RTO's least, 2 x 2 x 909 ms
  // = 3636 ms, less the tolerance: broken.
  const auto kept = settle(chain({1'000'000, 3'000'000, 3'000'000}, 1'000'000), "rfc6298");
  CHECK(count(kept, RuleId::rfc6298_5_5, Outcome::broken, 12) == 1);
}

TEST_CASE("RFC6298-5.5 two waits split by a held frame are judged by their sum") {
  // RTO 1 s, 2 s (frames 10, 11); expiry 3 (frame 12) captured in a burst
  // its host held: its wait is [0, captured] and expiry 4's (frame 13)
  // [captured, captured + expiry 3's], but the two together are the time
  // from frame 11 to frame 13 (sender_chains.cpp). The doubling allows the
  // two at least 2 x R2 + 4 x R2 with R2 >= 2 x 909 ms: 10 908 ms, less
  // the tolerances. `then`: a fifth expiry's wait (captured at the sender).
  const auto held = [](std::int64_t w3_captured, std::int64_t w4_captured, bool joint, std::int64_t then) {
    std::vector<std::int64_t> w{1'000'000, 2'000'000, w3_captured, w4_captured};
    if (then) w.push_back(then);
    auto c = chain(w, 1'000'000);
    c[2].wait = Interval{microseconds{0}, microseconds{w3_captured}};
    c[3].wait = Interval{microseconds{w4_captured}, microseconds{w4_captured + w3_captured}};
    if (joint) {
      c[3].span_sum = Interval::point(microseconds{w3_captured + w4_captured});
      c[3].span_from = c[2].frame;
    }
    return settle(c, "rfc6298");
  };
  // Compliant: sent 4 s and 8 s apart, expiry 3 captured 1 s late: 5 s
  // and 7 s captured, 12 s together, then 16 s. No rule broken.
  const auto doubled = held(5'000'000, 7'000'000, true, 16'000'000);
  CHECK(count(doubled, RuleId::rfc6298_5_5, Outcome::broken, 13) == 0);
  CHECK(count(doubled, RuleId::rfc6298_2_5, Outcome::broken, 13) == 0);
  // Held at 4 s (a cap): 4 s and 4 s (captured 5 s and 3 s), 8 s together,
  // below the doubling's least for the two (10 908 ms): the reading that
  // expiry 4 doubled is refuted, the cap below 60 s stands: 2.5 broken at
  // frame 13. Each wait alone holds the doubled RTO: without the sum,
  // cannot tell there.
  CHECK(count(held(5'000'000, 3'000'000, true, 0), RuleId::rfc6298_2_5, Outcome::broken, 13) == 1);
  CHECK(count(held(5'000'000, 3'000'000, false, 0), RuleId::rfc6298_2_5, Outcome::broken, 13) == 0);
  // Then 6 s: no cap of 4 s (a cap holds the RTO, 6 s > 4 s x 1.1), and a
  // cap C >= 6 s / 1.1 leaves R3 + C >= 3636 + 5454 ms, above the 8 s: no
  // reading keeps the sum. 5.5 broken at frame 13, naming frame 12 and the
  // sum (the webex capture's stream 50, 1038-1072, in small).
  const auto flat = held(5'000'000, 3'000'000, true, 6'000'000);
  REQUIRE(count(flat, RuleId::rfc6298_5_5, Outcome::broken, 13) == 1);
  for (const auto& j : flat.judgements)
    if (j.frame == 13 && j.outcome == Outcome::broken) {
      CHECK(j.other_frame == 12);
      REQUIRE(j.joint_waited);
      CHECK(j.joint_waited->lo.count() == 8'000'000);
      REQUIRE(j.joint_accepted);
      CHECK(j.joint_accepted->lo > microseconds{8'001'000});
    }
  CHECK(count(held(5'000'000, 3'000'000, false, 6'000'000), RuleId::rfc6298_5_5, Outcome::broken, 13) == 0);
  // Near the edge: 9 s together (captured 5 s and 4 s) still breaks it
  // (R3 + C >= 3636 + 5454 = 9090 ms, less 1 ms each); 10 s is R3 = 4 s and
  // a cap of 6 s reached at expiry 4: no 5.5, the cap's 2.5 instead.
  CHECK(count(held(5'000'000, 4'000'000, true, 6'000'000), RuleId::rfc6298_5_5, Outcome::broken, 13) == 1);
  const auto capped = held(5'000'000, 5'000'000, true, 6'000'000);
  CHECK(count(capped, RuleId::rfc6298_5_5, Outcome::broken, 13) == 0);
  CHECK(count(capped, RuleId::rfc6298_2_5) >= 1);
  // Later than both doublings allow (at most 2 x 2 x 1001 x 1.1 + 4 x 2 x
  // 1001 x 1.1 ms plus the tolerances, about 13.2 s): 30 s together, one of
  // them late, never a departure: the expiry is late, and 5.5 is not
  // questioned there (alone, its wait [25, 30] s is no doubling either).
  const auto slow = held(5'000'000, 25'000'000, true, 0);
  CHECK(slow.records[3].verdict == replay::Verdict::late);
  CHECK(count(slow, RuleId::rfc6298_5_5, Outcome::broken, 13) == 0);
  CHECK(count(slow, RuleId::rfc6298_5_5, Outcome::cannot_tell, 13) == 0);
  // The same where expiry 4's own wait holds its doubling: 20 s and 1 s
  // captured (expiry 4's wait [1, 21] s), 21 s together. A sum held up
  // shows no RTO (either wait may have been late, its host holding its
  // frames): it pins nothing, and expiry 4's wait holds the doubled RTO
  // and the one not doubled alike: cannot tell, never broken.
  const auto slow_sum = held(20'000'000, 1'000'000, true, 0);
  CHECK(slow_sum.records[3].verdict == replay::Verdict::cannot_tell);
  CHECK(count(slow_sum, RuleId::rfc6298_5_5, Outcome::broken, 13) == 0);
}

TEST_CASE("RFC6298-5.5 two waits together: the least the doubling allows them, at its edge") {
  // As above with a fifth expiry 16 s after the fourth (16 R: R in [909,
  // 1001] ms), which no cap below 14.5 s explains (16 s / 1.1): the two
  // held waits together are due at (4 + 8) R, at least 12 x 908.6 ms =
  // 10 903 ms (R >= (2000 - 1) / 2 / 1.1 from expiry 2; less 1 ms each
  // side). 10 s together (captured 5 s and 5 s): broken at frame 13; 11 s:
  // kept (R = 916 ms fits all four).
  const auto held = [](std::int64_t w3_captured, std::int64_t w4_captured) {
    auto c = chain({1'000'000, 2'000'000, w3_captured, w4_captured, 16'000'000}, 1'000'000);
    c[2].wait = Interval{microseconds{0}, microseconds{w3_captured}};
    c[3].wait = Interval{microseconds{w4_captured}, microseconds{w4_captured + w3_captured}};
    c[3].span_sum = Interval::point(microseconds{w3_captured + w4_captured});
    c[3].span_from = c[2].frame;
    return settle(c, "rfc6298");
  };
  CHECK(count(held(5'000'000, 5'000'000), RuleId::rfc6298_5_5, Outcome::broken, 13) == 1);
  CHECK(count(held(5'000'000, 6'000'000), RuleId::rfc6298_5_5, Outcome::broken, 13) == 0);
}

TEST_CASE("an inferred constant beyond 200 ms at the cap: the expiry after the first one held there") {
  // R = 970 ms, s = 450 ms (<= R / 2): waits 2^k R + s for k = 0..5 (1420
  // to 31490 ms); 64 R = 62080 ms is past a 60 s cap: the seventh fires at
  // 60 s + s + 1.2 s of the timer's lateness (up to 60 s / 32 = 1875 ms):
  // 61650 ms; the eighth holds at the cap: 60450 ms. Fitted on all seven
  // waits uncapped (R about 946 ms, a larger constant), the eighth would be
  // due no sooner than 64 x 946.5 = 60573 ms; the reading with the seventh
  // at the cap (C >= 60 s) has it due from max(60000 + the least s the six
  // waits before allow, (61649 - 0) x 32/33 = 59781) ms: 60.45 s is on time.
  const std::vector<std::int64_t> doubling{1'420'000, 2'390'000, 4'330'000, 8'210'000, 15'970'000, 31'490'000, 61'650'000};
  auto held = doubling;
  held.push_back(60'450'000);
  const auto ok = settle(chain(held, 1'000'000, 1'500'000), "rfc6298");
  CHECK(count(ok, RuleId::rfc6298_5_5, Outcome::broken, 17) == 0);
  // 59.7 s: below both (the RTO at the cap is at least 59781 ms): short.
  auto short_of_cap = doubling;
  short_of_cap.push_back(59'700'000);
  const auto early = settle(chain(short_of_cap, 1'000'000, 1'500'000), "rfc6298");
  CHECK(count(early, RuleId::rfc6298_5_5, Outcome::broken, 17) + count(early, RuleId::rfc6298_2_5, Outcome::broken, 17) == 1);
  // The seventh at 62.5 s: if it was at the cap, C x 33/32 + s >= 62499 ms
  // puts C + s at least 62499 x 32/33 = 60605 ms, and 60.5 s is short of it.
  auto later = doubling;
  later.back() = 62'500'000;
  later.push_back(60'500'000);
  const auto after_late = settle(chain(later, 1'000'000, 1'500'000), "rfc6298");
  CHECK(count(after_late, RuleId::rfc6298_5_5, Outcome::broken, 17) == 1);
}

TEST_CASE("probe readings: where the stack may not re-arm at a probe, a third reading keeps the old deadline") {
  // RFC 6298's profile re-arms nothing at a probe (rearm_from_head false):
  // a repeat at a probe's time (frame 10) may have left the deadline as it
  // was, the next expiry (11) waiting from frame 10's own arm. 2.4 takes
  // the chain's first expiry from 1000 - 10 % - 1 ms = 899 ms on; without
  // the floor the sender's estimator gives 220 ms (as the engine hands it
  // over: the departure 2.4 catches).
  // A chain whose first repeat (frame 10) is a probe at the RTO's own time,
  // the next expiry (11) armed by it.
  const auto probe_chain = [](const std::vector<std::int64_t>& waits, std::int64_t first_rto) {
    auto c = chain(waits, first_rto);
    c[0].maybe_probe = true;
    c[1].armed_by = replay::ArmCause::probe;
    return c;
  };
  // Rule 2.4's judgement under rfc6298 of the probe, the next expiry after
  // it and the one after that (doubled), if any.
  const auto rule_24 = [&](std::int64_t probe_wait, std::int64_t next_wait) -> std::optional<replay::Judgement> {
    auto c = probe_chain({probe_wait, next_wait, 2 * next_wait}, 1'000'000);
    for (auto& x : c) x.expect.floorless = Interval::point(microseconds{220'000});
    for (const auto& j : settle(c, "rfc6298").judgements)
      if (j.rule == RuleId::rfc6298_2_4) return j;
    return std::nullopt;
  };
  SUBCASE("220 and 220 ms: the first expiry below 899 ms in all three (220; 220 after the probe; 440 from its arm)") {
    const auto j = rule_24(220'000, 220'000);
    REQUIRE(j);
    CHECK(j->outcome == Outcome::broken);
    CHECK(j->level == replay::Level::should);
    REQUIRE(j->readings.size() == 3);
    CHECK(j->readings[2].reading == replay::Reading::probe_deadline_kept);
    for (const auto& r : j->readings) CHECK_FALSE(r.keeps);
  }
  SUBCASE("450 and 449 ms: kept from the probe's arm (899 ms): cannot tell") {
    const auto j = rule_24(450'000, 449'000);
    REQUIRE(j);
    CHECK(j->outcome == Outcome::cannot_tell);
    CHECK(j->level == replay::Level::info);
  }
  SUBCASE("450 and 448.999 ms: 898.999 from the probe's arm, below 899: broken in all three") {
    const auto j = rule_24(450'000, 448'999);
    REQUIRE(j);
    CHECK(j->outcome == Outcome::broken);
  }
  SUBCASE("FreeBSD's RACK stack sends up to two probes a flight (rack_tlp_limit): no third reading") {
    // 80, 80, 240 ms against an RTO of 230 ms (30 ms floor, 200 ms slop):
    // the chain's first expiry early at frame 11 read as a probe, at frame
    // 10 read as an expiry, and 160 ms from frame 10's arm with the deadline
    // kept. But frame 11 may be the second probe, and 12 the first expiry
    // (240 ms, on time): a reading the three do not hold. Cannot tell.
    const auto s = settle(probe_chain({80'000, 80'000, 240'000}, 230'000), "freebsd");
    std::size_t broken = 0;
    for (const auto& j : s.judgements) {
      broken += j.outcome == Outcome::broken ? 1 : 0;
      for (const auto& r : j.readings) CHECK(r.reading != replay::Reading::probe_deadline_kept);
    }
    CHECK(broken == 0);
    CHECK(count(s, RuleId::rfc6298_5_3_5_6, Outcome::cannot_tell, 11) == 1);
  }
  SUBCASE("Linux re-arms at a probe: two readings, no third") {
    // 220, 220, 440 ms against an RTO of 1 s: the chain's first expiry
    // early, at frame 11 read as a probe, at frame 10 read as an expiry:
    // broken by both at different frames, the two readings named (the third
    // is no reading of a stack that re-arms at a probe).
    const auto s = settle(probe_chain({220'000, 220'000, 440'000}, 1'000'000), "linux");
    const replay::Judgement* j = nullptr;
    for (const auto& x : s.judgements)
      if (x.outcome == Outcome::broken && !x.readings.empty()) j = &x;
    REQUIRE(j);
    REQUIRE(j->readings.size() == 2);
    for (const auto& r : j->readings) CHECK(r.reading != replay::Reading::probe_deadline_kept);
  }
}

// The shared cases (../shared/cases) of kind timer-management (B08, B09, B10,
// B12, B13) and sender (B15), each as a small sender built from RttSampler,
// Estimator and RetransmissionTimer. The estimator cases (B01, B02, B04, B05,
// B06) are in estimator_rfc6298_test.cpp and sampler_test.cpp under their ids.

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "rto/estimator.hpp"
#include "rto/retransmission_timer.hpp"
#include "rto/rtt_sampler.hpp"
#include "rto/seq.hpp"
#include "test_util.hpp"

using rto::Config;
using rto::Estimator;
using rto::Instant;
using rto::RetransmissionTimer;
using rto::RttSampler;
using rto_test::at_ms;
using rto_test::sample;
using rto_test::syn_expire;
using std::chrono::milliseconds;
using std::chrono::seconds;

namespace {

// The three components wired the way section 5 describes, no timestamps; the
// sender keeps SND.UNA and SND.MAX and tells the sampler.
struct MiniSender {
  Estimator est;
  RetransmissionTimer timer;
  RttSampler sampler;
  std::uint32_t snd_una = 0, snd_max = 0;
  bool started = false;
  int retransmissions = 0;

  explicit MiniSender(Config c = Config::rfc6298()) : est(c), timer(c, rto_test::kNoRetryLimits) {}

  void send(std::uint32_t seq, std::uint32_t len, Instant now) {
    if (!started) {  // the first segment starts the sequence space
      started = true;
      snd_una = snd_max = seq;
    }
    sampler.on_send(seq, len, snd_max, now);
    snd_max = rto::seq_max(snd_max, seq + len);
    timer.on_data_sent(now);  // 5.1
  }
  void retransmit(std::uint32_t seq, std::uint32_t len, Instant now) {
    ++retransmissions;
    send(seq, len, now);
  }
  // Returns true when the ACK acknowledged new data.
  bool ack(std::uint32_t ack, Instant now) {
    if (auto r = sampler.on_ack(ack, snd_una, snd_max, now)) sample(est, timer, *r);  // 2.2/2.3
    if (!rto::seq_gt(ack, snd_una) || rto::seq_gt(ack, snd_max)) return false;  // duplicate: no timer change (B10 b)
    snd_una = ack;
    if (snd_una == snd_max) {
      timer.on_all_acked();  // 5.2
    } else {
      timer.on_new_data_acked(now);  // 5.3
    }
    return true;
  }
  // 5.4-5.6: handle an expiry, retransmitting [seq, seq+len).
  void expire(std::uint32_t seq, std::uint32_t len, Instant now) {
    REQUIRE(timer.expired(now));
    sampler.on_timeout();
    rto_test::expire(est, timer, now);
    retransmit(seq, len, now);
  }
};

}  // namespace

TEST_CASE("B08 RFC6298-5.5 RFC6298-5-collapse the doubled RTO persists until a fresh sample (1040 ms path, exactly one spurious retransmission)") {
  MiniSender s;
  s.send(0, 100, at_ms(0));
  CHECK(s.timer.deadline() == at_ms(1000));
  CHECK_FALSE(s.timer.expired(at_ms(999)));
  s.expire(0, 100, at_ms(1000));  // RTO 2000, timer for 3.000
  CHECK(s.timer.rto() == milliseconds{2000});
  CHECK(s.timer.deadline() == at_ms(3000));
  s.ack(100, at_ms(1040));  // ambiguous (Karn): no sample; all acked: timer stops
  CHECK_FALSE(s.est.srtt().has_value());
  CHECK_FALSE(s.timer.running());
  CHECK(s.timer.rto() == milliseconds{2000});  // persists
  s.send(100, 100, at_ms(1040));
  CHECK(s.timer.deadline() == at_ms(3040));
  CHECK_FALSE(s.timer.expired(at_ms(2080)));
  s.ack(200, at_ms(2080));  // fresh sample 1040: SRTT 1040, RTTVAR 520, RTO 1040 + 2080 = 3120
  CHECK(s.est.srtt() == milliseconds{1040});
  CHECK(s.est.rttvar() == milliseconds{520});
  CHECK(s.timer.rto() == milliseconds{3120});
  CHECK(s.timer.backoff() == 0u);
  s.send(200, 100, at_ms(2080));
  s.ack(300, at_ms(3120));  // RTTVAR 3/4*520 = 390, RTO 1040 + 1560 = 2600
  CHECK(s.est.rttvar() == milliseconds{390});
  CHECK(s.timer.rto() == milliseconds{2600});
  // Ten more rounds: nothing expires any more.
  for (std::uint32_t i = 3; i < 13; ++i) {
    const auto t0 = at_ms(1040 * i);
    s.send(i * 100, 100, t0);
    CHECK_FALSE(s.timer.expired(at_ms(1040 * (i + 1))));
    s.ack((i + 1) * 100, at_ms(1040 * (i + 1)));
  }
  CHECK(s.retransmissions == 1);
}

TEST_CASE("B09 RFC6298-5.6 the timer is re-armed after every expiry: retransmissions at 1, 3, 7, 15, 31, 63, 123, 183, 243 s") {
  MiniSender s;
  s.send(0, 100, at_ms(0));
  const long long expect_at_s[] = {1, 3, 7, 15, 31, 63, 123, 183, 243};
  const long long expect_rto_s[] = {2, 4, 8, 16, 32, 60, 60, 60, 60};  // in use after each
  for (int i = 0; i < 9; ++i) {
    REQUIRE(s.timer.running());
    const Instant when = s.timer.deadline();
    CHECK(when == Instant{seconds{expect_at_s[i]}});
    s.expire(0, 100, when);
    CHECK(s.timer.rto() == seconds{expect_rto_s[i]});
  }
  CHECK(s.retransmissions == 9);
  CHECK(s.timer.deadline() == Instant{seconds{303}});
}

TEST_CASE("B10 a RFC6298-5.3 an ACK of new data restarts the timer: 0.9 + 2.7 = 3.6 s, then 5.2 stops it") {
  MiniSender s;
  s.send(0, 100, at_ms(0));      // S1, timed
  s.send(100, 100, at_ms(500));  // S2: 5.1, timer already running
  CHECK(s.timer.deadline() == at_ms(1000));
  s.ack(100, at_ms(900));  // sample 900: SRTT 900, RTTVAR 450, RTO 900 + 1800 = 2700
  CHECK(s.timer.rto() == milliseconds{2700});
  CHECK(s.timer.deadline() == at_ms(3600));
  CHECK_FALSE(s.timer.expired(at_ms(1000)));
  s.ack(200, at_ms(1400));
  CHECK_FALSE(s.timer.running());
  CHECK(s.retransmissions == 0);
}

TEST_CASE("B10 b RFC6298-5.1 RFC6298-5.3 duplicate ACKs and further sends do not move the deadline: expiry at 1.0 s") {
  MiniSender s;
  s.send(0, 100, at_ms(0));  // S1, lost
  s.send(100, 100, at_ms(100));
  s.send(200, 100, at_ms(200));
  CHECK_FALSE(s.ack(0, at_ms(500)));  // duplicate ACKs
  CHECK_FALSE(s.ack(0, at_ms(600)));
  CHECK(s.timer.deadline() == at_ms(1000));
  CHECK_FALSE(s.timer.expired(at_ms(999)));
  s.expire(0, 100, at_ms(1000));
  CHECK(s.timer.rto() == milliseconds{2000});
  CHECK(s.timer.deadline() == at_ms(3000));
}

TEST_CASE("B12 RFC6298-5.5 a fast retransmit does not back off the RTO; only an expiry does") {
  MiniSender s;
  for (int i = 0; i < 3; ++i) sample(s.est, s.timer, milliseconds{100});
  // SRTT 100, RTTVAR 50 -> 37.5 -> 28.125, raw 212.5, RTO 1000.
  CHECK(s.est.rttvar() == std::chrono::microseconds{28'125});
  CHECK(s.timer.rto() == milliseconds{1000});
  for (std::uint32_t i = 0; i < 5; ++i) s.send(i * 1000, 1000, at_ms(10'000));  // S1..S5, S1 timed
  s.ack(1000, at_ms(10'100));  // sample 100: RTTVAR = 3/4*28.125 = 21.09375, RTO 1000
  CHECK(s.est.rttvar() == std::chrono::microseconds{21'094});
  CHECK(s.timer.rto() == milliseconds{1000});
  CHECK(s.timer.deadline() == at_ms(11'100));
  for (int i = 1; i <= 3; ++i) CHECK_FALSE(s.ack(1000, at_ms(10'100 + i)));  // 3 dup ACKs
  s.retransmit(1000, 1000, at_ms(10'103));  // fast retransmit of S2: not a timer expiry
  CHECK(s.timer.rto() == milliseconds{1000});
  CHECK(s.timer.backoff() == 0u);
  CHECK(s.timer.deadline() == at_ms(11'100));  // running timer not restarted (5.1)

  SUBCASE("ACK through S5: timer stops, no sample from the retransmitted S2") {
    const auto srtt = s.est.srtt();
    const auto rttvar = s.est.rttvar();
    s.ack(5000, at_ms(10'203));
    CHECK_FALSE(s.timer.running());
    CHECK(s.est.srtt() == srtt);
    CHECK(s.est.rttvar() == rttvar);
  }
  SUBCASE("extension: the retransmitted S2 is lost too: expiry at 11.1 s, RTO 2000") {
    s.expire(1000, 1000, at_ms(11'100));
    CHECK(s.timer.rto() == milliseconds{2000});
    CHECK(s.timer.backoff() == 1u);
  }
}

TEST_CASE("B13 RFC6298-5.5 RFC6298-2.5 40 expiries: 1, 2, 4, ..., 32, 60, 60 s with a 60 s cap; ..., 64, 120 with 120 s") {
  for (long long cap_s : {60LL, 120LL}) {
    Config c = Config::rfc6298();
    c.max_rto = seconds{cap_s};
    MiniSender s(c);
    s.send(0, 100, at_ms(0));
    std::vector<long long> in_use_s{1};
    for (int i = 0; i < 40; ++i) {
      s.expire(0, 100, s.timer.deadline());
      in_use_s.push_back(s.timer.rto().get().count() / 1'000'000);
      CHECK(s.timer.rto().get().count() % 1'000'000 == 0);
    }
    for (std::size_t k = 0; k < in_use_s.size(); ++k) {
      const long long want = k < 63 && (1LL << k) < cap_s ? (1LL << k) : cap_s;
      CHECK(in_use_s[k] == want);
      if (k > 0) CHECK(in_use_s[k] >= in_use_s[k - 1]);
    }
    CHECK(s.timer.backoff() == 40u);
  }
}

TEST_CASE("B15 RFC6298-5.7 after a SYN timeout data starts with RTO 3 s, and the first sample is still a 2.2 first sample") {
  MiniSender s;
  s.send(1000, 1, at_ms(0));  // SYN, lost
  // t = 1.000: the SYN timer expires; retransmit (RTO -> 2 s).
  REQUIRE(s.timer.expired(at_ms(1000)));
  s.sampler.on_timeout();
  syn_expire(s.est, s.timer, at_ms(1000));
  s.retransmit(1000, 1, at_ms(1000));
  CHECK(s.timer.rto() == seconds{2});
  s.ack(1001, at_ms(1100));  // SYN-ACK: no sample (Karn: the SYN was retransmitted)
  CHECK_FALSE(s.est.srtt().has_value());
  s.timer.on_handshake_complete(true, s.est.has_sample());  // 5.7
  CHECK(s.timer.rto() == seconds{3});
  s.send(1001, 100, at_ms(1100));  // D1
  CHECK(s.timer.deadline() == at_ms(4100));  // not 2.1 or 3.1 s
  s.ack(1101, at_ms(1200));
  // First measurement (2.2): SRTT 100, RTTVAR 50, raw 300 -> RTO 1000 ms. A build that
  // seeded RTTVAR with 3 s would give RTTVAR >= 2250 and an RTO near 9.1 s.
  CHECK(s.est.srtt() == milliseconds{100});
  CHECK(s.est.rttvar() == milliseconds{50});
  CHECK(s.timer.rto() == milliseconds{1000});
}

TEST_CASE("RFC6298-5.7 without a SYN timeout the RTO is left at 1 s; after two SYN timeouts it is re-initialized to 3 s; a base RTO >= 3 s is left alone") {
  Estimator e;
  RetransmissionTimer et;
  et.on_handshake_complete(false, e.has_sample());
  CHECK(et.rto() == seconds{1});
  Estimator f;
  RetransmissionTimer ft;
  syn_expire(f, ft);  // 5.5: 1 s -> 2 s
  syn_expire(f, ft);  // 5.5: 2 s -> 4 s
  CHECK(ft.rto() == seconds{4});
  // The implementation uses a 1 s RTO (2.1), below 3 s: 5.7 re-initializes the
  // RTO to 3 s when data begins, replacing the backed-off 4 s; backoff ends.
  ft.on_handshake_complete(true, f.has_sample());
  CHECK(ft.rto() == seconds{3});
  CHECK(ft.backoff() == 0);
  Estimator h;
  RetransmissionTimer ht;
  sample(h, ht, seconds{2});  // 2.2: SRTT 2 s, RTTVAR 1 s, RTO 2 + 4*1 = 6 s
  syn_expire(h, ht);          // 5.5: 12 s
  ht.on_handshake_complete(true, h.has_sample());  // the RTO in use (6 s) is not below 3 s: left as it is
  CHECK(ht.rto() == seconds{12});
  Estimator g;
  RetransmissionTimer gt;
  sample(g, gt, milliseconds{40});  // e.g. from a timestamp echo
  syn_expire(g, gt);                // 2 s
  gt.on_handshake_complete(true, g.has_sample());  // 2 s < 3 s: RTO = 3 s until the next sample
  CHECK(gt.rto() == seconds{3});
  CHECK(g.srtt() == milliseconds{40});
  sample(g, gt, milliseconds{40});
  CHECK(gt.rto() == seconds{1});
}

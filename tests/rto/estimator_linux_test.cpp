// rto::LinuxEstimator (Config::linux_default()): hand-computed steps of
// the kernel's tcp_rtt_estimator()/__tcp_set_rto() arithmetic (integer us,
// srtt held as 8*SRTT, mdev as 4*mean deviation), checked against values the
// kernel itself reported (see linux_truth_test.cpp for the trace comparisons).

#include <doctest/doctest.h>

#include "rto/linux_estimator.hpp"
#include "rto/retransmission_timer.hpp"
#include "test_util.hpp"

using rto::Config;
using rto::LinuxEstimator;
using rto::RetransmissionTimer;
using rto_test::expire;
using rto_test::sample;
using rto_test::syn_expire;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::seconds;

TEST_CASE("Linux 2.1: initial RTO 1 s, no sample yet") {
  LinuxEstimator e;
  CHECK(e.rto() == seconds{1});
  CHECK_FALSE(e.srtt().has_value());
  CHECK_FALSE(e.linux_rttvar().has_value());
}

TEST_CASE("Linux first sample 40 ms: srtt 40, rttvar 20, rto 240 (kernel truth, syn-loss.truth.csv)") {
  LinuxEstimator e;
  RetransmissionTimer t(Config::linux_default());
  sample(e, t, milliseconds{40});
  // srtt = 40; mdev = 2R = 80 (tcpi_rttvar = mdev/4 = 20);
  // rttvar_us = max(80, rto_min 200) = 200; RTO = 40 + 200 = 240 ms (a multiple of 4 ms).
  CHECK(e.srtt() == milliseconds{40});
  CHECK(e.rttvar() == milliseconds{20});
  CHECK(e.linux_rttvar() == milliseconds{200});
  CHECK(e.rto() == milliseconds{240});
  CHECK(t.rto() == milliseconds{240});
  CHECK(t.backoff() == 0u);
}

TEST_CASE("Linux first sample 150 ms: mdev 2R = 300 ms exceeds rto_min, RTO = 3R = 450 -> 452 ms (4 ms jiffies)") {
  LinuxEstimator e;
  REQUIRE(e.on_rtt_sample(milliseconds{150}));
  CHECK(e.linux_rttvar() == milliseconds{300});
  CHECK(e.rttvar() == milliseconds{75});
  CHECK(e.rto() == milliseconds{452});  // 450 rounded up to a 4 ms jiffy
}

TEST_CASE("Linux rising then falling RTT (every sample ends an RTT window), incl. the 1/32 gain below SRTT") {
  LinuxEstimator e;
  REQUIRE(e.on_rtt_sample(milliseconds{40}));  // srtt8 320 ms, mdev 80, rttvar 200, RTO 240
  // 80 ms: err = 80 - 40 = 40; srtt8 = 360 -> srtt 45; mdev += 40 - 80/4 = 20 -> 100.
  // mdev 100 < mdev_max 200: rttvar stays 200. RTO = 45 + 200 = 245 -> up to 4 ms: 248.
  REQUIRE(e.on_rtt_sample(milliseconds{80}));
  CHECK(e.srtt() == milliseconds{45});
  CHECK(e.rttvar() == milliseconds{25});
  CHECK(e.linux_rttvar() == milliseconds{200});
  CHECK(e.rto() == milliseconds{248});
  // 200 ms: err = 200 - 45 = 155; srtt8 = 515 -> srtt 64.375; mdev += 155 - 25 = 130 -> 230.
  // mdev 230 > mdev_max 200: mdev_max = rttvar = 230 (rises at once).
  // RTO = 64.375 + 230 = 294.375 -> 296 ms.
  REQUIRE(e.on_rtt_sample(milliseconds{200}));
  CHECK(e.srtt() == microseconds{64'375});
  CHECK(e.rttvar() == microseconds{57'500});
  CHECK(e.linux_rttvar() == milliseconds{230});
  CHECK(e.rto() == milliseconds{296});
  // 40 ms (falling): err = 40000 - 64375 = -24375 us; srtt8 = 515000 - 24375 = 490625
  // -> srtt 61328 us. Below SRTT: 24375 - 230000/4 = -33125 (not > 0, no /8):
  // mdev = 196875. Window end: rttvar 230000 > mdev_max 200000, so rttvar -= 30000/4:
  // 222500. RTO = 61328 + 222500 = 283828 -> 284 ms.
  REQUIRE(e.on_rtt_sample(milliseconds{40}));
  CHECK(e.srtt() == microseconds{61'328});
  CHECK(e.rttvar() == microseconds{49'218});  // 196875 / 4, truncated
  CHECK(e.linux_rttvar() == microseconds{222'500});
  CHECK(e.rto() == milliseconds{284});
  // 5 ms (far below): err = 5000 - 61328 = -56328; srtt8 = 490625 - 56328 = 434297
  // -> srtt 54287. |err| - mdev/4 = 56328 - 49218 = 7110 > 0, so gain 1/32: 7110/8 = 888.
  // mdev = 196875 + 888 = 197763. Window end: rttvar -= (222500 - 200000)/4 = 5625 -> 216875.
  // RTO = 54287 + 216875 = 271162 -> 272 ms.
  REQUIRE(e.on_rtt_sample(milliseconds{5}));
  CHECK(e.srtt() == microseconds{54'287});
  CHECK(e.rttvar() == microseconds{49'440});  // 197763 / 4
  CHECK(e.linux_rttvar() == microseconds{216'875});
  CHECK(e.rto() == milliseconds{272});
}

TEST_CASE("Linux end of an RTT window: rttvar decays only when SND.UNA passes the recorded SND.NXT") {
  LinuxEstimator e;
  REQUIRE(e.on_rtt_sample(milliseconds{100}, 0, 1000));  // srtt 100, mdev 200, rttvar 200; window ends at 1000
  // 300 ms (una 500: same window): err 200; srtt8 = 800 + 200 = 1000 -> 125;
  // mdev += 200 - 50 = 150 -> 350 > mdev_max: rttvar = 350. RTO = 125 + 350 = 475 -> 476.
  REQUIRE(e.on_rtt_sample(milliseconds{300}, 500, 2000));
  CHECK(e.srtt() == milliseconds{125});
  CHECK(e.linux_rttvar() == milliseconds{350});
  CHECK(e.rto() == milliseconds{476});
  // 100 ms (una 900, still the window of 1000): err -25; srtt8 975 -> 121.875;
  // 25 - 350/4 = -62.5 -> mdev 287.5. No window end: rttvar stays 350.
  // RTO = 121.875 + 350 = 471.875 -> 472.
  REQUIRE(e.on_rtt_sample(milliseconds{100}, 900, 2000));
  CHECK(e.srtt() == microseconds{121'875});
  CHECK(e.linux_rttvar() == milliseconds{350});
  CHECK(e.rto() == milliseconds{472});
  // 100 ms (una 1500 passes 1000: window end; next window ends at 3000):
  // err = 100000 - 121875 = -21875; srtt8 = 975000 - 21875 = 953125 -> 119140;
  // 21875 - 71875 = -50000 -> mdev 237500. mdev_max (350000) == rttvar: no decay;
  // mdev_max restarts at 200000. RTO = 119140 + 350000 = 469140 -> 472 ms.
  REQUIRE(e.on_rtt_sample(milliseconds{100}, 1500, 3000));
  CHECK(e.srtt() == microseconds{119'140});
  CHECK(e.linux_rttvar() == milliseconds{350});
  CHECK(e.rto() == milliseconds{472});
  // 100 ms (una 3500 passes 3000: window end): err = 100000 - 119140 = -19140;
  // srtt8 = 953125 - 19140 = 933985 -> 116748; 19140 - 59375 < 0 -> mdev 197265.
  // Decay: rttvar -= (350000 - 200000)/4 = 37500 -> 312500. RTO = 116748 + 312500
  // = 429248 -> 432 ms.
  REQUIRE(e.on_rtt_sample(milliseconds{100}, 3500, 4000));
  CHECK(e.srtt() == microseconds{116'748});
  CHECK(e.rttvar() == microseconds{49'316});  // 197265 / 4
  CHECK(e.linux_rttvar() == microseconds{312'500});
  CHECK(e.rto() == milliseconds{432});
}

TEST_CASE("Linux RTT windows compare SND.UNA modulo 2^32") {
  LinuxEstimator e;
  REQUIRE(e.on_rtt_sample(milliseconds{100}, 0xFFFFFF00u, 0xFFFFFFF0u));
  REQUIRE(e.on_rtt_sample(milliseconds{300}, 0xFFFFFF80u, 0x00000100u));  // not past 0xFFFFFFF0
  CHECK(e.linux_rttvar() == milliseconds{350});
  REQUIRE(e.on_rtt_sample(milliseconds{100}, 0x00000010u, 0x00000200u));  // past it across the wrap
  REQUIRE(e.on_rtt_sample(milliseconds{100}, 0x00000210u, 0x00000300u));  // past 0x200: decays
  CHECK(e.linux_rttvar() < milliseconds{350});
}

TEST_CASE("Linux 200 ms floor through RTTVAR: constant 10 ms samples keep RTO at 212 ms, no 1 s floor") {
  LinuxEstimator e;
  REQUIRE(e.on_rtt_sample(milliseconds{10}));
  // srtt 10, mdev 20, rttvar max(20, 200) = 200; RTO 210 -> 212 ms (4 ms jiffies).
  CHECK(e.rto() == milliseconds{212});
  for (int i = 0; i < 50; ++i) REQUIRE(e.on_rtt_sample(milliseconds{10}));
  // mdev decays toward 0, but rttvar never drops below mdev_max = rto_min = 200.
  CHECK(e.srtt() == milliseconds{10});
  CHECK(e.linux_rttvar() == milliseconds{200});
  CHECK(*e.rttvar() < milliseconds{1});
  CHECK(e.rto() == milliseconds{212});
}

TEST_CASE("Linux 120 s cap: a 50 s sample gives 50 + 100 s -> 120 s; backoff caps at 120 s (B13)") {
  LinuxEstimator e;
  REQUIRE(e.on_rtt_sample(seconds{50}));
  CHECK(e.rto() == seconds{120});
  RetransmissionTimer b(Config::linux_default());
  const long long expect_s[] = {2, 4, 8, 16, 32, 64, 120, 120, 120};
  for (long long s : expect_s) {
    expire(b);
    CHECK(b.rto() == seconds{s});
  }
}

TEST_CASE("Linux tcp_syn_linear_timeouts: the first 4 SYN expiries keep 1 s, then it doubles (syn-loss truth)") {
  LinuxEstimator e;
  RetransmissionTimer t(Config::linux_default());
  // syn-loss.truth.csv: rto after each SYN expiry 1000,1000,1000,1000,2000,4000; backoff 0,0,0,0,1,2.
  const long long rto_ms[] = {1000, 1000, 1000, 1000, 2000, 4000};
  const unsigned backoff[] = {0, 0, 0, 0, 1, 2};
  for (int i = 0; i < 6; ++i) {
    syn_expire(e, t);
    CHECK(t.rto() == milliseconds{rto_ms[i]});
    CHECK(t.backoff() == backoff[i]);
  }
  // The SYN-ACK's timestamp echo gives a valid 40 ms sample: srtt 40, rttvar 20, rto 240.
  sample(e, t, milliseconds{40});
  t.on_handshake_complete(true, e.has_sample());  // a sample was taken: no 3 s fallback in Linux
  CHECK(e.srtt() == milliseconds{40});
  CHECK(e.rttvar() == milliseconds{20});
  CHECK(t.rto() == milliseconds{240});
  CHECK(t.backoff() == 0u);
}

TEST_CASE("Linux 5.7: the 3 s fallback applies only when the handshake gave no RTT sample") {
  LinuxEstimator e;
  RetransmissionTimer t(Config::linux_default());
  syn_expire(e, t);
  t.on_handshake_complete(true, e.has_sample());
  CHECK(t.rto() == seconds{3});
  CHECK(t.backoff() == 0u);
  sample(e, t, milliseconds{40});  // first sample proper: 240 ms
  CHECK(t.rto() == milliseconds{240});
}

TEST_CASE("Linux: a sample collapses the backoff (tcp_ack_update_rtt); negative samples are refused") {
  LinuxEstimator e;
  RetransmissionTimer t(Config::linux_default());
  sample(e, t, milliseconds{40});
  expire(e, t);
  expire(e, t);
  CHECK(t.rto() == milliseconds{960});
  CHECK(t.backoff() == 2u);
  CHECK_FALSE(sample(e, t, microseconds{-1}));
  CHECK(t.backoff() == 2u);
  sample(e, t, milliseconds{40});
  // err 0: srtt 40, mdev = 80 - 20 = 60; window end: rttvar 200 (== mdev_max): RTO 240.
  CHECK(t.backoff() == 0u);
  CHECK(t.rto() == milliseconds{240});
  CHECK(e.rttvar() == milliseconds{15});
}

TEST_CASE("Linux RTO is SRTT + rttvar_us rounded up to the jiffy and capped, never below rto_min: random configs and samples") {
  // rto() builds its Rto without clamping it again, on the strength of
  // rttvar_us >= mdev_max_us >= rto_min. Checked here against the kernel's
  // formula from the read-outs, for configs from a 1 us rto_min to one equal
  // to the cap, ticks of 0, 1, 3 us, 4 ms and 1 s, samples from 0 to past
  // the longest held exactly, and now and then forget() (xorshift; seeded).
  std::uint64_t s = 0x2545f4914f6cdd1du;
  const auto next = [&s] { s ^= s << 13, s ^= s >> 7, s ^= s << 17; return s; };
  const std::int64_t mins[] = {1, 1000, 200'000, 5'000'000, 120'000'000};
  const std::int64_t ticks[] = {0, 1, 3, 4000, 1'000'000};
  int checked = 0;
  for (const std::int64_t min_us : mins)
    for (const std::int64_t tick_us : ticks) {
      Config c = Config::linux_default();
      c.min_rto = microseconds{min_us};
      c.tick = microseconds{tick_us};
      c.initial_rto = std::max(c.initial_rto, c.min_rto);
      c.syn_fallback_rto = std::max(c.syn_fallback_rto, c.min_rto);
      LinuxEstimator e{c};
      for (int i = 0; i < 2000; ++i) {
        const std::uint64_t r = next();
        // Mostly near a base RTT, sometimes 0, sometimes huge (above the exact range).
        const std::int64_t us = r % 50 == 0 ? 0 : r % 97 == 0 ? 700'000'000 : 1000 + static_cast<std::int64_t>(r % 400'000);
        const auto una = static_cast<std::uint32_t>(next()), nxt = static_cast<std::uint32_t>(next());
        if (r % 331 == 0) {  // forgotten (a restarted connection): the initial RTO until the next sample
          e.forget();
          CHECK(e.rto().get() == c.initial_rto);
        }
        REQUIRE(e.on_rtt_sample(microseconds{us}, una, nxt));
        const std::int64_t sum = e.srtt()->count() + e.linux_rttvar()->count();
        std::int64_t expected = std::min<std::int64_t>(sum, c.max_rto.count());
        if (tick_us > 1) expected = std::min<std::int64_t>((expected + tick_us - 1) / tick_us * tick_us, c.max_rto.count());
        CHECK(e.linux_rttvar()->count() >= min_us);
        CHECK(e.rto().get().count() == expected);
        CHECK(e.rto().get() >= c.min_rto);
        CHECK(e.rto().get() <= c.max_rto);
        ++checked;
      }
    }
  CHECK(checked == 5 * 5 * 2000);
}

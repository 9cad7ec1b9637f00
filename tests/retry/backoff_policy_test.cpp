// rto::BackoffPolicy and rto::Backoff: exact waits of every policy with a
// scripted generator (the arithmetic in each comment), the ceiling's
// saturation for any n, attempt limits and deadlines at their boundaries,
// validation, and the named client-library presets.

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>

#include "backoff_util.hpp"
#include "rto/retry/backoff.hpp"

using rto::Backoff;
using rto::BackoffPolicy;
using rto::GiveUp;
using rto::Jitter;
using rto_test::kHalf;
using rto_test::kQuarter;
using rto_test::kTop;
using rto_test::ScriptedGenerator;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::seconds;

TEST_CASE("exponential: min(cap, base * 2^n) with n counting failures from 0, no draw") {
  Backoff b(BackoffPolicy::exponential(seconds{1}, seconds{30}));
  ScriptedGenerator g{kHalf};
  // n = 0..6: 1, 2, 4, 8, 16, then 32 > 30 -> 30, 64 -> 30 s.
  const seconds expected[] = {seconds{1}, seconds{2}, seconds{4}, seconds{8}, seconds{16}, seconds{30}, seconds{30}};
  for (auto e : expected) {
    auto d = b.next_delay(g);
    REQUIRE(d.has_value());
    CHECK(*d == e);
  }
  CHECK(g.draws == 0);  // no jitter: the generator is never called
  CHECK(b.attempt() == 7u);
  CHECK(b.waited() == seconds{1 + 2 + 4 + 8 + 16 + 30 + 30});
}

TEST_CASE("full jitter: U[0, c(n)] drawn exactly (Lemire: floor(x * span / 2^64))") {
  Backoff b(BackoffPolicy::full_jitter(seconds{1}, seconds{30}));
  ScriptedGenerator g{kHalf, kQuarter, kTop};
  // n=0: c = 1 000 000 us, span 1 000 001 (odd, so the low word of 2^63*span is 2^63 >= span):
  //      floor(1 000 001 / 2) = 500 000 us.
  CHECK(b.next_delay(g) == microseconds{500'000});
  // n=1: c = 2 000 000, span 2 000 001 (= 1 mod 4: low word 2^62 >= span): floor(2 000 001 / 4) = 500 000.
  CHECK(b.next_delay(g) == microseconds{500'000});
  // n=2: c = 4 000 000; x = 2^64-1 gives span - 1 = c: the top of the closed interval.
  CHECK(b.next_delay(g) == microseconds{4'000'000});
}

TEST_CASE("equal jitter: c/2 + U(0, c/2) = U[floor(c/2), c]") {
  Backoff b(BackoffPolicy::equal_jitter(seconds{1}, seconds{30}));
  ScriptedGenerator g{kHalf, kTop};
  // n=0: c = 1 000 000: [500 000, 1 000 000], span 500 001: 500 000 + floor(500 001/2) = 750 000.
  CHECK(b.next_delay(g) == microseconds{750'000});
  // n=1: c = 2 000 000: [1 000 000, 2 000 000], top -> 2 000 000.
  CHECK(b.next_delay(g) == microseconds{2'000'000});
}

TEST_CASE("decorrelated jitter: min(cap, U[base, 3 * previous]), previous starting at base") {
  Backoff b(BackoffPolicy::decorrelated_jitter(milliseconds{5}, milliseconds{20}));
  ScriptedGenerator g{kHalf, kHalf, kTop};
  // 1st: [5000, 15000] us, span 10 001: 5000 + 5000 = 10 000 us; previous = 10 000.
  CHECK(b.next_delay(g) == microseconds{10'000});
  // 2nd: [5000, 30000], span 25 001: 5000 + 12 500 = 17 500 us.
  CHECK(b.next_delay(g) == microseconds{17'500});
  // 3rd: [5000, 52500], top = 52 500 -> min(cap 20 000, 52 500) = 20 000 us.
  CHECK(b.next_delay(g) == microseconds{20'000});
  // 4th: previous = 20 000: upper bound min(cap, 60 000) = cap.
  CHECK(b.current_ceiling() == microseconds{20'000});
}

TEST_CASE("proportional jitter (gRPC through Backoff): U[c - c/5, c + c/5], x1.6") {
  Backoff b(BackoffPolicy::grpc_connection());
  ScriptedGenerator g{kHalf, kQuarter, kTop};
  // n=0: c = 1 s, j = 200 000: [800 000, 1 200 000], span 400 001: 800 000 + 200 000 = 1 000 000.
  CHECK(b.next_delay(g) == microseconds{1'000'000});
  // n=1: c = 1 600 000, j = 320 000: [1 280 000, 1 920 000], span 640 001 (= 1 mod 4):
  //      1 280 000 + floor(640 001 / 4) = 1 280 000 + 160 000 = 1 440 000.
  CHECK(b.next_delay(g) == microseconds{1'440'000});
  // n=2: c = 2 560 000, j = 512 000: top = 3 072 000.
  CHECK(b.next_delay(g) == microseconds{3'072'000});
}

TEST_CASE("ceiling with x1.6: each step rounded up to a whole us, then the 120 s cap") {
  const BackoffPolicy p = BackoffPolicy::grpc_connection();
  // Exact while 1.6^n * 1e6 is an integer (n <= 6): 1, 1.6, 2.56, 4.096, 6.5536, 10.48576, 16.777216 s.
  CHECK(p.ceiling(0) == microseconds{1'000'000});
  CHECK(p.ceiling(1) == microseconds{1'600'000});
  CHECK(p.ceiling(2) == microseconds{2'560'000});
  CHECK(p.ceiling(3) == microseconds{4'096'000});
  CHECK(p.ceiling(4) == microseconds{6'553'600});
  CHECK(p.ceiling(5) == microseconds{10'485'760});
  CHECK(p.ceiling(6) == microseconds{16'777'216});
  // 16 777 216 * 8/5 = 26 843 545.6 -> 26 843 546; * 8/5 = 42 949 673.6 -> 42 949 674;
  // * 8/5 = 68 719 478.4 -> 68 719 479; * 8/5 = 109 951 166.4 -> 109 951 167; * 8/5 = 175.9 s -> cap 120 s.
  CHECK(p.ceiling(7) == microseconds{26'843'546});
  CHECK(p.ceiling(8) == microseconds{42'949'674});
  CHECK(p.ceiling(9) == microseconds{68'719'479});
  CHECK(p.ceiling(10) == microseconds{109'951'167});
  CHECK(p.ceiling(11) == seconds{120});
  CHECK(p.ceiling(4'000'000'000u) == seconds{120});
}

TEST_CASE("ceiling never overflows: 1 us doubling to a 366-day cap saturates for every n") {
  const microseconds cap{366LL * 86400 * 1'000'000};  // 31 622 400 000 000 us, between 2^44 and 2^45
  const BackoffPolicy p = BackoffPolicy::exponential(microseconds{1}, cap);
  CHECK(p.ceiling(44) == microseconds{std::int64_t{1} << 44});  // 17 592 186 044 416 < cap
  CHECK(p.ceiling(45) == cap);                                  // 2^45 = 35 184 372 088 832 > cap
  CHECK(p.ceiling(63) == cap);  // 2^63 would overflow int64
  CHECK(p.ceiling(64) == cap);
  CHECK(p.ceiling(~0u) == cap);
  Backoff b(p);
  ScriptedGenerator g{kHalf};
  microseconds last{0};
  for (int i = 0; i < 10'000; ++i) {
    auto d = b.next_delay(g);
    REQUIRE(d.has_value());
    REQUIRE(*d <= cap);
    REQUIRE(*d >= last);
    last = *d;
  }
  CHECK(last == cap);
}

TEST_CASE("a multiplier above 1 grows even from 1 us (rounding up), multiplier 1 stays constant") {
  // x1.6 from 1 us: ceil(1.6) = 2, ceil(3.2) = 4, ceil(6.4) = 7, ceil(11.2) = 12.
  const BackoffPolicy p = BackoffPolicy::exponential(microseconds{1}, seconds{1}).with_multiplier(8, 5);
  CHECK(p.ceiling(1) == microseconds{2});
  CHECK(p.ceiling(2) == microseconds{4});
  CHECK(p.ceiling(3) == microseconds{7});
  CHECK(p.ceiling(4) == microseconds{12});
  const BackoffPolicy flat = BackoffPolicy::exponential(milliseconds{250}, seconds{1}).with_multiplier(1, 1);
  CHECK(flat.ceiling(1000) == milliseconds{250});
}

TEST_CASE("attempt limit exactly: max_attempts 3 = the first try and 2 retries, so 2 waits") {
  Backoff b(BackoffPolicy::exponential(seconds{1}, seconds{30}).with_max_attempts(3));
  ScriptedGenerator g{kHalf};
  CHECK(b.next_delay(g) == seconds{1});  // attempt 1 failed
  CHECK(b.next_delay(g) == seconds{2});  // attempt 2 failed
  CHECK(b.gave_up() == GiveUp::none);
  CHECK_FALSE(b.next_delay(g).has_value());  // attempt 3 failed: that was the last
  CHECK(b.gave_up() == GiveUp::attempts);
  CHECK(b.attempt() == 3u);
  CHECK_FALSE(b.next_delay(g).has_value());  // stays given up
  b.reset();
  CHECK(b.attempt() == 0u);
  CHECK(b.next_delay(g) == seconds{1});
}

TEST_CASE("max_attempts 1: no retry at all; 0: no limit") {
  ScriptedGenerator g{kHalf};
  Backoff once(BackoffPolicy::exponential(seconds{1}, seconds{30}).with_max_attempts(1));
  CHECK_FALSE(once.next_delay(g).has_value());
  Backoff unlimited(BackoffPolicy::exponential(seconds{1}, seconds{30}));
  for (int i = 0; i < 1000; ++i) REQUIRE(unlimited.next_delay(g).has_value());
}

TEST_CASE("deadline exactly reached is allowed, exceeded by 1 us gives up (sum of waits)") {
  ScriptedGenerator g{kHalf};
  Backoff b(BackoffPolicy::exponential(seconds{1}, seconds{30}).with_deadline(seconds{3}));
  CHECK(b.next_delay(g) == seconds{1});  // ends at 1 s
  CHECK(b.next_delay(g) == seconds{2});  // ends at 1 + 2 = 3 s = the deadline: allowed
  CHECK_FALSE(b.next_delay(g).has_value());  // 3 + 4 = 7 s > 3 s
  CHECK(b.gave_up() == GiveUp::deadline);

  Backoff c(BackoffPolicy::exponential(seconds{1}, seconds{30}).with_deadline(microseconds{2'999'999}));
  CHECK(c.next_delay(g) == seconds{1});
  CHECK_FALSE(c.next_delay(g).has_value());  // 1 + 2 = 3 s > 2.999999 s
  CHECK(c.gave_up() == GiveUp::deadline);
}

TEST_CASE("deadline with the caller's elapsed time: attempts' own durations count") {
  ScriptedGenerator g{kHalf};
  Backoff b(BackoffPolicy::exponential(seconds{1}, seconds{30}).with_deadline(seconds{10}));
  // First attempt took 4 s: 4 + 1 = 5 <= 10.
  CHECK(b.next_delay(g, seconds{4}) == seconds{1});
  // Second attempt ended at 8 s: 8 + 2 = 10 = deadline, allowed.
  CHECK(b.next_delay(g, seconds{8}) == seconds{2});
  // Third ended at 10.5 s: already past the deadline.
  CHECK_FALSE(b.next_delay(g, milliseconds{10'500}).has_value());
}

TEST_CASE("the common loop: 5 attempts, base 1 s, cap 30 s, full jitter waits at most 15 s, 7.5 s on average") {
  // "5 attempts" = the first try and 4 retries: 4 waits, n = 0..3, U[0, 1], U[0, 2], U[0, 4], U[0, 8] s.
  // Maximum 1 + 2 + 4 + 8 = 15 s; mean (1 + 2 + 4 + 8) / 2 = 7.5 s.
  const BackoffPolicy p = BackoffPolicy::full_jitter(seconds{1}, seconds{30}).with_max_attempts(5);
  {
    Backoff b(p);
    ScriptedGenerator top{kTop};
    int waits = 0;
    while (auto d = b.next_delay(top)) ++waits;
    CHECK(waits == 4);
    CHECK(b.waited() == seconds{15});
  }
  std::mt19937_64 rng(12345);
  constexpr int kTrials = 20'000;
  std::int64_t total_us = 0;
  microseconds most{0};
  for (int t = 0; t < kTrials; ++t) {
    Backoff b(p);
    while (b.next_delay(rng)) {
    }
    REQUIRE(b.waited() <= seconds{15});
    most = std::max(most, b.waited());
    total_us += b.waited().count();
  }
  const double mean_s = static_cast<double>(total_us) / kTrials / 1e6;
  // sd of one sum = sqrt((1 + 4 + 16 + 64) / 12) = 2.66 s; over 20 000 trials 0.019 s, 0.25 % of 7.5.
  CHECK(mean_s == doctest::Approx(7.5).epsilon(0.01));
  CHECK(most > seconds{12});
}

TEST_CASE("validation names the field") {
  auto bad = [](BackoffPolicy p) {
    try {
      p.validate();
    } catch (const rto::BackoffPolicyError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(bad(BackoffPolicy::exponential(seconds{2}, seconds{1})).find("cap") != std::string::npos);
  CHECK(bad(BackoffPolicy::exponential(microseconds{0}, seconds{1})).find("base") != std::string::npos);
  CHECK(bad(BackoffPolicy::exponential(seconds{1}, seconds{2}).with_multiplier(1, 2)).find("multiplier_num") !=
        std::string::npos);
  CHECK(bad(BackoffPolicy::exponential(seconds{1}, seconds{2}).with_multiplier(70'000, 1)).find("multiplier_num") !=
        std::string::npos);
  CHECK(bad(BackoffPolicy::exponential(seconds{1}, seconds{2}).with_multiplier(2, 0)).find("multiplier_den") !=
        std::string::npos);
  CHECK(bad(BackoffPolicy::exponential(seconds{1}, std::chrono::hours{24 * 367})).find("cap") != std::string::npos);
  CHECK(bad(BackoffPolicy::exponential(seconds{1}, seconds{2}).with_deadline(seconds{0})).find("deadline") !=
        std::string::npos);
  BackoffPolicy p = BackoffPolicy::grpc_connection();
  p.jitter_permille = 1001;
  CHECK(bad(p).find("jitter_permille") != std::string::npos);
  CHECK_THROWS_AS(Backoff(BackoffPolicy::exponential(seconds{2}, seconds{1})), rto::BackoffPolicyError);
  CHECK(bad(BackoffPolicy::grpc_connection()).empty());
}

TEST_CASE("preset gRPC connection: 1 s, x1.6, cap 120 s, +-20 %, min connect timeout 20 s") {
  const BackoffPolicy p = BackoffPolicy::grpc_connection();
  CHECK(p.base == seconds{1});
  CHECK(p.multiplier_num * 5 == p.multiplier_den * 8);  // 8/5 = 1.6
  CHECK(p.cap == seconds{120});
  CHECK(p.jitter == Jitter::proportional);
  CHECK(p.jitter_permille == 200u);
  CHECK(p.min_connect_timeout == seconds{20});
  CHECK(p.max_attempts == 0u);
  CHECK_FALSE(p.deadline.has_value());
}

TEST_CASE("preset Cloud Storage Python: 1 s, x2, 60 s max, 120 s deadline") {
  const BackoffPolicy p = BackoffPolicy::gcs_python();
  // ceilings 1, 2, 4, 8, 16, 32, then 64 -> 60 s.
  CHECK(p.ceiling(0) == seconds{1});
  CHECK(p.ceiling(5) == seconds{32});
  CHECK(p.ceiling(6) == seconds{60});
  CHECK(p.deadline == seconds{120});
  CHECK(p.jitter == Jitter::full);
  // At the top of every jitter interval: 1+2+4+8+16+32 = 63 s, + 60 = 123 s > 120 s: 6 waits, then give up.
  Backoff b(p);
  ScriptedGenerator top{kTop};
  int waits = 0;
  while (b.next_delay(top)) ++waits;
  CHECK(waits == 6);
  CHECK(b.waited() == seconds{63});
  CHECK(b.gave_up() == GiveUp::deadline);
}

TEST_CASE("preset Cloud Storage C++: 1 s, x2, 5 min max, 15 min deadline") {
  const BackoffPolicy p = BackoffPolicy::gcs_cpp();
  // 2^8 = 256 s < 300 s; 2^9 = 512 -> 300 s.
  CHECK(p.ceiling(8) == seconds{256});
  CHECK(p.ceiling(9) == seconds{300});
  CHECK(p.deadline == std::chrono::minutes{15});
  // Top of each interval: 1+2+...+256 = 511 s, + 300 = 811 s <= 900, + 300 = 1111 > 900: 10 waits.
  Backoff b(p);
  ScriptedGenerator top{kTop};
  int waits = 0;
  while (b.next_delay(top)) ++waits;
  CHECK(waits == 10);
  CHECK(b.waited() == seconds{811});
}

TEST_CASE("preset gcloud: truncated binary exponential, 32 retries (33 attempts), 32 s max") {
  const BackoffPolicy p = BackoffPolicy::gcloud();
  CHECK(p.ceiling(5) == seconds{32});
  CHECK(p.ceiling(6) == seconds{32});
  CHECK(p.max_attempts == 33u);
  Backoff b(p);
  ScriptedGenerator top{kTop};
  int waits = 0;
  while (b.next_delay(top)) ++waits;
  CHECK(waits == 32);
  // 1+2+4+8+16 = 31 s, then 27 waits of 32 s = 864 s: 895 s.
  CHECK(b.waited() == seconds{895});
}

TEST_CASE("next_delay_instead, ServerDelay::clamp_to_cap: the server's wait, clamped to the cap, still counted and limited") {
  ScriptedGenerator g{kHalf};
  Backoff b(BackoffPolicy::full_jitter(seconds{1}, seconds{30})
                .with_max_attempts(3)
                .with_deadline(seconds{100})
                .with_server_delay(rto::ServerDelay::clamp_to_cap));
  CHECK(b.next_delay_instead(g, seconds{0}, seconds{7}) == seconds{7});
  CHECK(b.attempt() == 1u);
  CHECK(g.draws == 1u);  // the jitter draw is made and discarded
  CHECK(b.next_delay_instead(g, seconds{7}, seconds{3600}) == seconds{30});  // clamped to cap
  CHECK_FALSE(b.next_delay_instead(g, seconds{37}, seconds{1}).has_value());  // 3rd attempt was the last
  Backoff c(BackoffPolicy::full_jitter(seconds{1}, seconds{30}).with_deadline(seconds{10}));
  CHECK_FALSE(c.next_delay_instead(g, seconds{5}, seconds{6}).has_value());  // 5 + 6 > 10
  CHECK(c.gave_up() == GiveUp::deadline);
}

TEST_CASE("next_delay_instead, ServerDelay::honour (the default): beyond the cap, up to the deadline exactly") {
  ScriptedGenerator g{kHalf};
  const auto p = BackoffPolicy::full_jitter(seconds{1}, seconds{5}).with_deadline(seconds{60});
  CHECK(p.server_delay == rto::ServerDelay::honour);
  Backoff b(p);
  // A 30 s wait with a 5 s cap: honoured, 30 s.
  CHECK(b.next_delay_instead(g, seconds{0}, seconds{30}) == seconds{30});
  // Elapsed 30 s, the server asks 30 s more: ends at 60 s = the deadline: allowed.
  CHECK(b.next_delay_instead(g, seconds{30}, seconds{30}) == seconds{30});
  CHECK(b.waited() == seconds{60});
  // Elapsed 60 s, 1 us more ends after the deadline: give up.
  CHECK_FALSE(b.next_delay_instead(g, seconds{60}, microseconds{1}).has_value());
  CHECK(b.gave_up() == GiveUp::deadline);
  // Without a deadline nothing bounds it; the sum saturates instead of overflowing.
  Backoff unbounded(BackoffPolicy::full_jitter(seconds{1}, seconds{5}));
  CHECK(unbounded.next_delay_instead(g, seconds{0}, microseconds::max()) == microseconds::max());
  CHECK(unbounded.next_delay_instead(g, seconds{0}, seconds{1}) == seconds{1});
  CHECK(unbounded.waited() == microseconds::max());
}

TEST_CASE("restart_ceiling: the next wait comes from c(0) again; failures and time waited are kept (gRFC A6 pushback)") {
  ScriptedGenerator g{kTop};
  Backoff b(BackoffPolicy::full_jitter(milliseconds{100}, seconds{10}));
  CHECK(b.next_delay(g) == milliseconds{100});  // top of U[0, 100 ms]; c(1) = 200 ms
  CHECK(b.next_delay(g) == milliseconds{200});  // c(2) = 400 ms
  b.restart_ceiling();
  CHECK(b.current_ceiling() == milliseconds{100});
  CHECK(b.next_delay(g) == milliseconds{100});  // from 100 ms again, not 400 ms
  CHECK(b.attempt() == 3u);
  CHECK(b.waited() == milliseconds{400});
}

TEST_CASE("grpc_retry: A6 retryPolicy, full jitter from initialBackoff x multiplier up to maxBackoff, at most 5 attempts") {
  // initialBackoff 0.1 s, maxBackoff 1 s, multiplier 1.3 = 13/10, maxAttempts 4.
  const auto p = BackoffPolicy::grpc_retry(milliseconds{100}, seconds{1}, 13, 10, 4);
  CHECK(p.jitter == Jitter::full);
  CHECK(p.max_attempts == 4u);
  CHECK(p.server_delay == rto::ServerDelay::honour);
  // Ceilings: 100 ms, 130 ms, 169 ms, 219.7 ms (ceil of 169 000 * 1.3 = 219 700 us exactly).
  CHECK(p.ceiling(0) == milliseconds{100});
  CHECK(p.ceiling(1) == milliseconds{130});
  CHECK(p.ceiling(2) == milliseconds{169});
  CHECK(p.ceiling(3) == microseconds{219'700});
  Backoff b(p);
  ScriptedGenerator top{kTop};
  int waits = 0;
  while (b.next_delay(top)) ++waits;
  CHECK(waits == 3);  // 4 attempts: 3 waits
  // A service config asking 6 attempts gets the client's limit, 5.
  CHECK(BackoffPolicy::grpc_retry(milliseconds{100}, seconds{1}, 2, 1, 6).max_attempts == 5u);
  CHECK(BackoffPolicy::grpc_retry(milliseconds{100}, seconds{1}, 2, 1, 5).max_attempts == 5u);
}

// rto::uniform_below and friends (exact, unbiased integer draws), and the
// distributions of the jittered waits over 10^5 draws.

#include <doctest/doctest.h>

#include <cstdint>
#include <random>

#include "backoff_util.hpp"
#include "rto/retry/backoff.hpp"
#include "rto/retry/uniform.hpp"

using rto::Backoff;
using rto::BackoffPolicy;
using rto_test::kHalf;
using rto_test::kQuarter;
using rto_test::kTop;
using rto_test::ScriptedGenerator;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::seconds;

TEST_CASE("multiply_64x64 gives the 128-bit product") {
  // (2^64 - 1)^2 = 2^128 - 2^65 + 1: high 2^64 - 2, low 1.
  auto p = rto::detail::multiply_64x64(kTop, kTop);
  CHECK(p.high == kTop - 1);
  CHECK(p.low == 1u);
  // 2^63 * 6 = 3 * 2^64: high 3, low 0.
  p = rto::detail::multiply_64x64(kHalf, 6);
  CHECK(p.high == 3u);
  CHECK(p.low == 0u);
  // 0xffffffff * 0xffffffff = 0xfffffffe00000001.
  p = rto::detail::multiply_64x64(0xffffffffu, 0xffffffffu);
  CHECK(p.high == 0u);
  CHECK(p.low == 0xfffffffe00000001u);
}

TEST_CASE("uniform_below: floor(x * n / 2^64) for accepted x; the low word below 2^64 mod n is redrawn") {
  ScriptedGenerator g{kHalf};
  CHECK(rto::uniform_below(g, 7) == 3u);  // floor(7/2); low word 2^63 >= 7
  ScriptedGenerator q{kQuarter};
  CHECK(rto::uniform_below(q, 101) == 25u);  // floor(101/4); 101 = 1 mod 4, low word 2^62
  // x = 0 gives low word 0 < 2^64 mod 3 = 1: rejected; the next word 2^63 gives floor(3/2) = 1.
  ScriptedGenerator r{0, kHalf};
  CHECK(rto::uniform_below(r, 3) == 1u);
  CHECK(r.draws == 2u);
  // n = 2^k never rejects (2^64 mod 2^k = 0): x = 0 gives 0.
  ScriptedGenerator z{0};
  CHECK(rto::uniform_below(z, 8) == 0u);
  CHECK(z.draws == 1u);
  ScriptedGenerator t{kTop};
  CHECK(rto::uniform_between(t, 10, 20) == 20u);  // closed interval: top word gives hi
}

TEST_CASE("random_u64 from a 32-bit generator: two draws, most significant first") {
  struct Gen32 {  // full 32-bit range, returns 0x11111111 then 0x22222222, ...
    using result_type = std::uint32_t;
    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return 0xffffffffu; }
    std::uint32_t next = 0;
    result_type operator()() { return (++next) * 0x11111111u; }
  } g;
  CHECK(rto::random_u64(g) == 0x1111111122222222u);
}

TEST_CASE("random_u64 from a generator whose range is not a power of two rejects the excess") {
  struct Gen3 {  // values 1..3 (range 3): 2^1 is the largest power of two below, so v = g() - 1 >= 2 is rejected
    using result_type = std::uint32_t;
    static constexpr result_type min() { return 1; }
    static constexpr result_type max() { return 3; }
    int i = 0;
    result_type operator()() { return (i++ % 2 == 0) ? 3 : 2; }  // 3 -> v=2 rejected, 2 -> v=1 kept
  } g;
  // 64 kept bits, all 1: 2^64 - 1, from 128 draws.
  CHECK(rto::random_u64(g) == kTop);
  CHECK(g.i == 128);
}

TEST_CASE("a generator stuck on a rejected value is answered after kMaxRedraws (64) more draws, not spun on") {
  // x = 0 for n = 3: low word 0 < 2^64 mod 3 = 1, rejected each time; after the
  // first draw and 64 redraws the last one's high word, floor(0 * 3 / 2^64) = 0.
  ScriptedGenerator zero{0};
  CHECK(rto::uniform_below(zero, 3) == 0u);
  CHECK(zero.draws == 65u);
  // The narrow generator stuck at 3 (v = 2 >= 2^1): each of the 64 bits takes
  // 1 + 64 draws and is then v & 1 = 0.
  struct Stuck3 {
    using result_type = std::uint32_t;
    static constexpr result_type min() { return 1; }
    static constexpr result_type max() { return 3; }
    int i = 0;
    result_type operator()() { ++i; return 3; }
  } g;
  CHECK(rto::random_u64(g) == 0u);
  CHECK(g.i == 64 * 65);
  // A full-jitter backoff over a generator of zeros: waits of 0, not a hang.
  Backoff b(BackoffPolicy::full_jitter(seconds{1}, seconds{5}));
  ScriptedGenerator zeros{0};
  CHECK(b.next_delay(zeros) == microseconds{0});  // U[0, 1 000 000]: 1 000 001 values, x = 0 -> 0
}

TEST_CASE("uniform_below is unbiased for a small range: counts over 6 values stay within 5 % (5 sd)") {
  std::mt19937 g(7);  // 32-bit generator: two draws per word
  int counts[6] = {};
  for (int i = 0; i < 60'000; ++i) ++counts[rto::uniform_below(g, 6)];
  for (int c : counts) CHECK(c == doctest::Approx(10'000).epsilon(0.05));
}

TEST_CASE("full jitter: mean of 10^5 draws within 1 % of c/2, every draw in [0, c]") {
  std::mt19937_64 rng(1);
  const microseconds c{8'000'000};  // n = 3 with base 1 s
  double sum = 0;
  for (int i = 0; i < 100'000; ++i) {
    Backoff b(BackoffPolicy::full_jitter(seconds{1}, seconds{30}));
    for (int k = 0; k < 3; ++k) (void)b.next_delay(rng);
    REQUIRE(b.current_ceiling() == c);
    auto d = b.next_delay(rng);
    REQUIRE(d.has_value());
    REQUIRE(*d >= microseconds{0});
    REQUIRE(*d <= c);
    sum += static_cast<double>(d->count());
  }
  // sd of U[0, c] = c / sqrt(12) = 0.29 c; of the mean over 10^5: 0.0009 c, i.e. 0.18 % of c/2.
  CHECK(sum / 100'000 == doctest::Approx(c.count() / 2.0).epsilon(0.01));
}

TEST_CASE("equal jitter: every draw in [c/2, c], mean 3c/4") {
  std::mt19937_64 rng(2);
  Backoff b(BackoffPolicy::equal_jitter(milliseconds{100}, milliseconds{100}));  // c = 100 ms for every n
  double sum = 0;
  for (int i = 0; i < 100'000; ++i) {
    auto d = b.next_delay(rng);
    REQUIRE(d.has_value());
    REQUIRE(*d >= milliseconds{50});
    REQUIRE(*d <= milliseconds{100});
    sum += static_cast<double>(d->count());
  }
  CHECK(sum / 100'000 == doctest::Approx(75'000.0).epsilon(0.01));
}

TEST_CASE("decorrelated jitter: every draw in [base, min(cap, 3 * previous)]") {
  std::mt19937_64 rng(3);
  const microseconds base{5'000}, cap{2'000'000};
  Backoff b(BackoffPolicy::decorrelated_jitter(base, cap));
  microseconds prev = base;
  bool reached_cap = false;
  for (int i = 0; i < 100'000; ++i) {
    const microseconds hi = std::min(cap, 3 * prev);
    REQUIRE(b.current_ceiling() == hi);
    auto d = b.next_delay(rng);
    REQUIRE(d.has_value());
    REQUIRE(*d >= base);
    REQUIRE(*d <= hi);
    reached_cap = reached_cap || *d == cap;
    prev = *d;
    if (i % 50 == 49) {  // restart now and then so the early, uncapped draws are covered too
      b.reset();
      prev = base;
    }
  }
  CHECK(reached_cap);
}

TEST_CASE("proportional (gRPC) jitter: every draw in [0.8 c, 1.2 c], mean c") {
  std::mt19937_64 rng(4);
  BackoffPolicy p = BackoffPolicy::grpc_connection();
  p.base = seconds{120};  // c = cap = 120 s for every n
  Backoff b(p);
  double sum = 0;
  for (int i = 0; i < 100'000; ++i) {
    auto d = b.next_delay(rng);
    REQUIRE(*d >= seconds{96});
    REQUIRE(*d <= seconds{144});
    sum += static_cast<double>(d->count());
  }
  CHECK(sum / 100'000 == doctest::Approx(120e6).epsilon(0.01));
}

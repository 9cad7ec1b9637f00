// rto::Rto: an RTO that can only hold a value between its floor and cap
// (RFC 6298 2.4, 2.5), and its 5.5 doubling, at each boundary.

#include <doctest/doctest.h>

#include <chrono>
#include <type_traits>

#include "rto/clamped_rto.hpp"

using rto::Rto;
using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::seconds;

TEST_CASE("RFC6298-2.4 RFC6298-2.5 Rto::clamped: below the floor is the floor, above the cap the cap, negative included") {
  const auto rto = [](microseconds v) { return Rto::clamped(v, seconds{1}, seconds{60}); };
  CHECK(rto(microseconds{-1}) == seconds{1});  // a negative RTO cannot be written
  CHECK(rto(microseconds{0}) == seconds{1});
  CHECK(rto(microseconds{999'999}) == seconds{1});  // 1 us under the floor
  CHECK(rto(seconds{1}) == seconds{1});
  CHECK(rto(microseconds{1'000'001}) == microseconds{1'000'001});
  CHECK(rto(seconds{60}) == seconds{60});
  CHECK(rto(microseconds{60'000'001}) == seconds{60});  // 1 us over the cap
  CHECK(rto(microseconds::max()) == seconds{60});
  CHECK(rto(microseconds::min()) == seconds{1});
  CHECK(rto(seconds{7}).cap() == seconds{60});
}

TEST_CASE("Rto::clamped: the bounds themselves are kept within 1 us .. 1 h, and a floor above the cap is lowered to it") {
  CHECK(Rto::kMin == microseconds{1});
  CHECK(Rto::kMax == hours{1});
  CHECK(Rto::clamped(microseconds{0}, microseconds{0}, seconds{60}) == microseconds{1});  // never 0: 5.5 could not double it
  CHECK(Rto::clamped(microseconds{-5}, microseconds{-5}, microseconds{-5}) == microseconds{1});
  CHECK(Rto::clamped(hours{2}, microseconds{1}, hours{2}) == hours{1});
  CHECK(Rto::clamped(hours{2}, microseconds{1}, hours{2}).cap() == hours{1});
  CHECK(Rto::clamped(seconds{1}, seconds{90}, seconds{60}) == seconds{60});  // floor 90 s > cap 60 s: 60 s
}

TEST_CASE("RFC6298-5.5 Rto::doubled and backed_off: RTO * 2^n saturating at the cap, for any n") {
  const Rto one = Rto::clamped(seconds{1}, seconds{1}, seconds{60});
  CHECK(one.doubled() == seconds{2});
  CHECK(one.doubled().doubled() == seconds{4});
  CHECK(one.backed_off(0) == seconds{1});
  CHECK(one.backed_off(5) == seconds{32});
  CHECK(one.backed_off(6) == seconds{60});  // 64 s: capped
  CHECK(one.backed_off(31) == seconds{60});
  CHECK(one.backed_off(32) == seconds{60});  // past the 64-bit shift's range
  CHECK(one.backed_off(65'535) == seconds{60});
  CHECK(one.backed_off(~0u) == seconds{60});
  // The largest RTO and cap: 1 h doubled stays 1 h.
  const Rto hour = Rto::clamped(hours{1}, microseconds{1}, hours{1});
  CHECK(hour.doubled() == hours{1});
  // 1 us doubles to 2 us; 2^31 us at a 1 h cap: 2^32 us > 1 h, so 1 h.
  const Rto us = Rto::clamped(microseconds{1}, microseconds{1}, hours{1});
  CHECK(us.doubled() == microseconds{2});
  CHECK(us.backed_off(31) == microseconds{2'147'483'648});
  CHECK(us.backed_off(32) == hours{1});
  CHECK(one.doubled().cap() == seconds{60});
}

TEST_CASE("Rto compares by duration, with Rtos and std::chrono durations alike, and reads as microseconds") {
  const Rto a = Rto::clamped(milliseconds{300}, microseconds{1}, seconds{60});
  const Rto b = Rto::clamped(milliseconds{300}, microseconds{1}, seconds{120});  // same duration, another cap
  CHECK(a == b);
  CHECK(a < a.doubled());
  CHECK(a > milliseconds{299});
  CHECK(milliseconds{301} > a);
  CHECK(a.get() == microseconds{300'000});
  const microseconds read = a;  // implicit read
  CHECK(read.count() == 300'000);
  static_assert(!std::is_constructible_v<Rto, microseconds>, "an Rto is never made from a bare duration");
  static_assert(!std::is_convertible_v<long long, Rto>);
  static_assert(std::is_trivially_copyable_v<Rto>);
}

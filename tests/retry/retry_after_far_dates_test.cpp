// rto::parse_retry_after on HTTP-dates past 2262, where a date no longer fits
// system_clock's nanoseconds (found by tests/fuzz/retry_after: the comparison
// with `now` converted the date to nanoseconds, a signed overflow).

#include <doctest/doctest.h>

#include "rto/retry/retry_after.hpp"

using std::chrono::milliseconds;
using std::chrono::seconds;
using std::chrono::sys_seconds;

namespace {
// RFC 9110's example date, Sun, 06 Nov 1994 08:49:37 GMT: 784 111 777 s since
// 1970 (derived in backoff_retry_after_test.cpp).
constexpr sys_seconds kExample{seconds{784'111'777}};
}  // namespace

TEST_CASE("Retry-After: an HTTP-date in 9999 is the whole wait, no overflow") {
  // 9999-12-31 23:59:59 UTC = 253 402 300 799 s since 1970 (the largest
  // 4DIGIT date; 2 932 896 days * 86 400 + 86 399). From the example date:
  // 253 402 300 799 - 784 111 777 = 252 618 189 022 s.
  CHECK(rto::parse_retry_after("Fri, 31 Dec 9999 23:59:59 GMT", kExample) == seconds{252'618'189'022});
  // now 0.25 s later: 252 618 189 021.75 s, rounded up (never early) to the same.
  CHECK(rto::parse_retry_after("Fri, 31 Dec 9999 23:59:59 GMT", kExample + milliseconds{250}) ==
        seconds{252'618'189'022});
}

TEST_CASE("Retry-After: the fuzzer's date, 29 Feb 3040 23:59:60 (a leap second: 1 Mar 3040 00:00:00)") {
  // 1970-01-01 .. 3040-03-01: 1070 years * 365 = 390 550 days, plus the
  // leap days of 1970..3039: multiples of 4 from 1972 to 3036, (3036 - 1972)
  // / 4 + 1 = 267, minus the 8 centuries 2100..3000 not divisible by 400
  // (11 centuries 2000..3000 less 2000, 2400, 2800) = 259 -> 390 809 days to
  // 3040-01-01; + 31 (Jan) + 29 (Feb: 3040 is a leap year) = 390 869 days
  // * 86 400 = 33 771 081 600 s. Minus the example date's 784 111 777 s:
  // 32 986 969 823 s.
  CHECK(rto::parse_retry_after("Wed, 29 Feb 3040 23:59:60 GMT", kExample) == seconds{32'986'969'823});
}

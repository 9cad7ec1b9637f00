// rto::parse_retry_after and rto::parse_http_date (RFC 9110 10.2.3 and 5.6.7).

#include <doctest/doctest.h>

#include "rto/retry/retry_after.hpp"

using rto::parse_http_date;
using rto::parse_retry_after;
using std::chrono::milliseconds;
using std::chrono::seconds;
using std::chrono::sys_seconds;
using std::chrono::system_clock;

namespace {
// RFC 9110's example date, Sun, 06 Nov 1994 08:49:37 GMT, in seconds since 1970:
// 1970-01-01..1994-01-01 = 24 * 365 + 6 leap days (72 76 80 84 88 92) = 8766 days;
// Jan 1 -> Nov 6 = 31+28+31+30+31+30+31+31+30+31 + 5 = 309 days; 9075 days * 86400 = 784 080 000;
// 08:49:37 = 28 800 + 2940 + 37 = 31 777 s. Total 784 111 777.
constexpr sys_seconds kExample{seconds{784'111'777}};
const system_clock::time_point kTwoMinutesBefore = kExample - seconds{120};
// 2026-01-01 00:00:00 UTC: 56 years, 14 leap days (72..2024) -> 20 454 days * 86400.
constexpr sys_seconds k2026{seconds{20'454LL * 86'400}};
}  // namespace

TEST_CASE("Retry-After delay-seconds: 1*DIGIT seconds") {
  CHECK(parse_retry_after("120", kExample) == seconds{120});
  CHECK(parse_retry_after("0", kExample) == seconds{0});
  CHECK(parse_retry_after("007", kExample) == seconds{7});
  CHECK(parse_retry_after(" \t120 ", kExample) == seconds{120});  // OWS around the value
}

TEST_CASE("Retry-After IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT two minutes ahead is 120 s") {
  CHECK(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT", kExample) == kExample);
  CHECK(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", kTwoMinutesBefore) == seconds{120});
}

TEST_CASE("Retry-After RFC 850 date: Sunday, 06-Nov-94 08:49:37 GMT") {
  CHECK(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT", kExample) == kExample);
  CHECK(parse_retry_after("Sunday, 06-Nov-94 08:49:37 GMT", kTwoMinutesBefore) == seconds{120});
}

TEST_CASE("Retry-After asctime date: Sun Nov  6 08:49:37 1994 (day padded with a space)") {
  CHECK(parse_http_date("Sun Nov  6 08:49:37 1994", kExample) == kExample);
  CHECK(parse_retry_after("Sun Nov  6 08:49:37 1994", kTwoMinutesBefore) == seconds{120});
  // two-digit day: Nov 16 is 10 days later, 864 000 s.
  CHECK(parse_http_date("Wed Nov 16 08:49:37 1994", kExample) == kExample + seconds{864'000});
}

TEST_CASE("RFC 850 two-digit year: more than 50 years ahead means the previous century (5.6.7)") {
  // now = 2026: "94" would be 2094, 68 years ahead: 1994, in the past, so Retry-After 0.
  CHECK(parse_retry_after("Sunday, 06-Nov-94 08:49:37 GMT", k2026) == seconds{0});
  // "76": 2076 is exactly 50 years ahead, not more: 2076. 2076-01-01 - 2026-01-01 = 50 * 365 + 12 leap
  // days (2028..2072 step 4; 2076's Feb 29 comes after Jan 1) = 18 262 days.
  CHECK(parse_http_date("Wednesday, 01-Jan-76 00:00:00 GMT", k2026) == k2026 + seconds{18'262LL * 86'400});
  // "77": 2077 is 51 years ahead: 1977. 1977-01-01 = 7 * 365 + 2 leap days (72, 76) = 2557 days.
  CHECK(parse_http_date("Saturday, 01-Jan-77 00:00:00 GMT", k2026) == sys_seconds{seconds{2'557LL * 86'400}});
  // "26" in 2026 is this year.
  CHECK(parse_http_date("Thursday, 01-Jan-26 00:00:00 GMT", k2026) == k2026);
}

TEST_CASE("Retry-After: a date in the past (or now) means 0; a fraction of a second ahead rounds up") {
  CHECK(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", kExample + seconds{1}) == seconds{0});
  CHECK(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", kExample) == seconds{0});
  CHECK(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", kExample - milliseconds{500}) == seconds{1});
  CHECK(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", kExample - milliseconds{1'500}) == seconds{2});
}

TEST_CASE("Retry-After garbage gives nullopt") {
  for (const char* v : {"", "  ", "abc", "12abc", "1.5", "1,5", "1 2", "0x10", "Soon",
                        "Sun, 06 Nov 1994 08:49:37 UTC",    // zone must be GMT
                        "Sun, 06 Nov 1994 08:49:37",        // no zone
                        "sun, 06 Nov 1994 08:49:37 GMT",    // case-sensitive
                        "Sun, 6 Nov 1994 08:49:37 GMT",     // IMF day is 2DIGIT
                        "Sun, 06 Nov 94 08:49:37 GMT",      // IMF year is 4DIGIT
                        "Sun, 06 Nov 1994 08:49 GMT",       // no seconds
                        "Sun, 06 Nov 1994 24:00:00 GMT",    // hour 00-23
                        "Sun, 06 Nov 1994 08:60:00 GMT",    // minute 00-59
                        "Sun, 06 Nov 1994 08:49:61 GMT",    // second 00-60
                        "Sun, 31 Nov 1994 08:49:37 GMT",    // Nov has 30 days
                        "Tue, 29 Feb 2022 00:00:00 GMT",    // 2022 is not a leap year
                        "Sun, 06 Foo 1994 08:49:37 GMT",    // month
                        "Sunday, 06 Nov 1994 08:49:37 GMT", // long name with the IMF form
                        "Sun, 06-Nov-94 08:49:37 GMT",      // short name with the RFC 850 form
                        "Sun Nov 6 08:49:37 1994",          // asctime day is SP DIGIT or 2DIGIT
                        "Sun, 06 Nov 1994 08:49:37 GMT x"}) {
    CAPTURE(v);
    CHECK_FALSE(parse_retry_after(v, kExample).has_value());
  }
  // Feb 29 of a leap year is a date.
  CHECK(parse_http_date("Tue, 29 Feb 2028 00:00:00 GMT", k2026).has_value());
}

TEST_CASE("Retry-After negative or signed gives nullopt") {
  CHECK_FALSE(parse_retry_after("-5", kExample).has_value());
  CHECK_FALSE(parse_retry_after("-0", kExample).has_value());
  CHECK_FALSE(parse_retry_after("+5", kExample).has_value());
}

TEST_CASE("Retry-After overflow gives nullopt: the largest accepted is INT64_MAX / 10^6 s") {
  // INT64_MAX = 9 223 372 036 854 775 807 us: 9 223 372 036 854 whole seconds fit in microseconds.
  CHECK(parse_retry_after("9223372036854", kExample) == seconds{9'223'372'036'854});
  CHECK_FALSE(parse_retry_after("9223372036855", kExample).has_value());
  CHECK_FALSE(parse_retry_after("99999999999999999999999999", kExample).has_value());
}

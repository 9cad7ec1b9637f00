#pragma once
// HTTP Retry-After (RFC 9110 section 10.2.3) and HTTP-date (RFC 9110 5.6.7)
// parsing, for a client that lets a 503 or 429 (RFC 6585 section 4) response
// set its next wait.

#include <chrono>
#include <optional>
#include <string_view>

#include "rto/retry/export.h"

namespace rto {

/// Parses an HTTP-date (RFC 9110 5.6.7) into a UTC time point (whole seconds).
///
/// Accepts the three forms a recipient MUST accept, case-sensitively:
///   IMF-fixdate  "Sun, 06 Nov 1994 08:49:37 GMT"
///   RFC 850      "Sunday, 06-Nov-94 08:49:37 GMT" (obsolete)
///   asctime      "Sun Nov  6 08:49:37 1994"       (obsolete; day padded with a space, or 2 digits)
/// The day name must be a valid one for its form but is not checked against
/// the date. The date must exist (Feb 29 only in leap years); hour 00-23,
/// minute 00-59, second 00-60 (a leap second counts as the next second).
/// RFC 850's two-digit year: the year with those last two digits that is at
/// most 50 years after `now`'s year, i.e. a year that appears more than 50
/// years in the future is the most recent past year with the same digits
/// (RFC 9110 5.6.7): with now in 2026, "94" is 1994, "76" is 2076, "77" is 1977.
/// Returns nullopt for anything else (the grammar has no leading or trailing
/// text; whitespace around the whole value is for parse_retry_after to trim).
RTO_RETRY_API std::optional<std::chrono::sys_seconds> parse_http_date(std::string_view text,
                                                        std::chrono::system_clock::time_point now);

/// Parses a Retry-After field value (RFC 9110 10.2.3:
/// Retry-After = HTTP-date / delay-seconds) into the wait it asks for.
///
/// delay-seconds (1*DIGIT): that many seconds; values whose microseconds do
/// not fit std::chrono::microseconds (above 9'223'372'036'854 s, ~292 000
/// years) give nullopt, so the result can always be converted. HTTP-date: the
/// time from `now` to the date, rounded up to a whole second (never early); a
/// date at or before `now` gives 0. Leading and trailing spaces and tabs (OWS)
/// are ignored. Empty, negative ("-5"), signed ("+5"), fractional ("1.5"),
/// garbage or overflowing values give nullopt.
RTO_RETRY_API std::optional<std::chrono::seconds> parse_retry_after(std::string_view field,
                                                      std::chrono::system_clock::time_point now);

}  // namespace rto

// Fuzz harness: rto's Retry-After and HTTP-date parsers (retry_after.hpp,
// RFC 9110 10.2.3 and 5.6.7). Bytes 0-3 move `now` (up to ~136 years after
// 1970, with a sub-second part); the rest is the field value. Invariants:
//  - a wait is never negative and always converts to microseconds;
//  - delay-seconds: a value of digits only (spaces and tabs around it) is
//    exactly that number of seconds, checked against a decimal parse done
//    here, nullopt past the microseconds limit (9'223'372'036'854 s);
//  - an HTTP-date: the time point is whole seconds, and written back as an
//    IMF-fixdate (formatted here with std::chrono) it parses to the same
//    instant; as a Retry-After it asks for the time from now to the date
//    rounded up to a second, 0 when the date has passed (OWS around it ignored).
#include <rto/retry/retry_after.hpp>

#include <chrono>
#include <cstdio>
#include <string>

#include "common/memory_file.hpp"

namespace {

using namespace std::chrono;

constexpr std::uint64_t kMaxDelaySeconds = 9'223'372'036'854;  // retry_after.hpp: microseconds must fit int64

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// "Sun, 06 Nov 1994 08:49:37 GMT" for a time point (RFC 9110 5.6.7 IMF-fixdate).
std::string imf_fixdate(sys_seconds t) {
  static const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const sys_days day = floor<days>(t);
  const year_month_day ymd{day};
  const hh_mm_ss<seconds> hms{t - day};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s, %02u %s %04d %02ld:%02ld:%02ld GMT", kDays[weekday{day}.c_encoding()],
                static_cast<unsigned>(ymd.day()), kMonths[static_cast<unsigned>(ymd.month()) - 1],
                static_cast<int>(ymd.year()), static_cast<long>(hms.hours().count()),
                static_cast<long>(hms.minutes().count()), static_cast<long>(hms.seconds().count()));
  return buf;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  const std::uint32_t shift = std::uint32_t{data[0]} << 24 | std::uint32_t{data[1]} << 16 | data[2] << 8 | data[3];
  const system_clock::time_point now = system_clock::time_point{seconds{shift}} + milliseconds{data[3] * 3};
  const std::string_view field(reinterpret_cast<const char*>(data + 4), size - 4);

  const auto wait = rto::parse_retry_after(field, now);
  if (wait) {
    fuzz::check(wait->count() >= 0, "a wait is never negative");
    fuzz::check(static_cast<std::uint64_t>(wait->count()) <= kMaxDelaySeconds, "a wait converts to microseconds");
  }
  const std::string_view t = trim(field);
  bool digits = !t.empty();
  for (char c : t) digits = digits && c >= '0' && c <= '9';
  if (digits) {
    std::uint64_t v = 0;
    bool over = false;
    for (char c : t) {
      over = over || v > (kMaxDelaySeconds - static_cast<std::uint64_t>(c - '0')) / 10;
      if (!over) v = v * 10 + static_cast<std::uint64_t>(c - '0');
    }
    fuzz::check(over ? !wait : (wait && static_cast<std::uint64_t>(wait->count()) == v),
                "delay-seconds is the number written, nullopt past the limit");
  }
  const auto date = rto::parse_http_date(t, now);
  if (date) {
    const std::string again = imf_fixdate(*date);
    const auto back = rto::parse_http_date(again, now);
    fuzz::check(back && *back == *date, "an HTTP-date written back as IMF-fixdate parses to the same instant: " + again);
    // The time until the date in 128-bit nanoseconds (a date up to 9999 does
    // not fit int64 ns), rounded up to a second.
    __extension__ using i128 = __int128;
    const i128 diff = static_cast<i128>(date->time_since_epoch().count()) * 1'000'000'000 -
                      static_cast<i128>(duration_cast<nanoseconds>(now.time_since_epoch()).count());
    const i128 until = diff <= 0 ? 0 : (diff + 999'999'999) / 1'000'000'000;
    fuzz::check(wait && static_cast<i128>(wait->count()) == until, "Retry-After of a date: the time until it, rounded up");
  }
  return 0;
}

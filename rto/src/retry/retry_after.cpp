// Retry-After and HTTP-date parsing (RFC 9110 10.2.3 and 5.6.7).

#include "rto/retry/retry_after.hpp"

#include <array>
#include <cstdint>
#include <limits>

namespace rto {

namespace {

using std::chrono::seconds;

constexpr std::array<std::string_view, 7> kDayShort = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
constexpr std::array<std::string_view, 7> kDayLong = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                                                      "Friday", "Saturday", "Sunday"};
constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

// A cursor over the field value; every take_* consumes on success only.
struct Cursor {
  std::string_view s;
  bool done() const { return s.empty(); }
  bool lit(std::string_view l) {
    if (s.substr(0, l.size()) != l) return false;
    s.remove_prefix(l.size());
    return true;
  }
  // Exactly n ASCII digits.
  bool digits(std::size_t n, int& out) {
    if (s.size() < n) return false;
    int v = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      v = v * 10 + (s[i] - '0');
    }
    s.remove_prefix(n);
    out = v;
    return true;
  }
  template <std::size_t N>
  bool one_of(const std::array<std::string_view, N>& names, int& index) {
    for (std::size_t i = 0; i < N; ++i) {
      // Longest names first is not needed: no name is a prefix of another in one list
      // ("Sun" vs "Sunday" live in different lists).
      if (s.substr(0, names[i].size()) == names[i]) {
        s.remove_prefix(names[i].size());
        index = static_cast<int>(i);
        return true;
      }
    }
    return false;
  }
};

bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int days_in_month(int y, int m) {  // m 1..12
  constexpr int d[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : d[m - 1];
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
std::int64_t days_from_civil(int y, int m, int d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t yoe = y - era * 400;
  const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

int year_of(std::chrono::system_clock::time_point now) {
  const auto days = std::chrono::floor<std::chrono::days>(now);
  return static_cast<int>(std::chrono::year_month_day{days}.year());
}

// time-of-day = hour ":" minute ":" second
bool time_of_day(Cursor& c, int& h, int& mi, int& sec) {
  return c.digits(2, h) && c.lit(":") && c.digits(2, mi) && c.lit(":") && c.digits(2, sec) && h <= 23 &&
         mi <= 59 && sec <= 60;
}

std::optional<std::chrono::sys_seconds> make(int y, int mo, int d, int h, int mi, int sec) {
  if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo)) return std::nullopt;
  const std::int64_t t = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
  return std::chrono::sys_seconds{seconds{t}};
}

std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<std::chrono::sys_seconds> parse_http_date(std::string_view text,
                                                        std::chrono::system_clock::time_point now) {
  int day_name = 0, day = 0, month = 0, year = 0, h = 0, mi = 0, sec = 0;
  {  // IMF-fixdate: day-name "," SP 2DIGIT SP month SP 4DIGIT SP time-of-day SP "GMT"
    Cursor c{text};
    if (c.one_of(kDayShort, day_name) && c.lit(", ") && c.digits(2, day) && c.lit(" ") &&
        c.one_of(kMonths, month) && c.lit(" ") && c.digits(4, year) && c.lit(" ") && time_of_day(c, h, mi, sec) &&
        c.lit(" GMT") && c.done())
      return make(year, month + 1, day, h, mi, sec);
  }
  {  // rfc850-date: day-name-l "," SP 2DIGIT "-" month "-" 2DIGIT SP time-of-day SP "GMT"
    Cursor c{text};
    if (c.one_of(kDayLong, day_name) && c.lit(", ") && c.digits(2, day) && c.lit("-") &&
        c.one_of(kMonths, month) && c.lit("-") && c.digits(2, year) && c.lit(" ") && time_of_day(c, h, mi, sec) &&
        c.lit(" GMT") && c.done()) {
      // RFC 9110 5.6.7: a year more than 50 years in the future is the most
      // recent past year with the same last two digits. The candidates are
      // the years y = year (mod 100); keep the one in (now - 50, now + 50].
      const int now_year = year_of(now);
      const int lowest = now_year - 49;
      const int full = lowest + (((year - lowest) % 100) + 100) % 100;
      return make(full, month + 1, day, h, mi, sec);
    }
  }
  {  // asctime-date: day-name SP month SP ( 2DIGIT / ( SP 1DIGIT ) ) SP time-of-day SP 4DIGIT
    Cursor c{text};
    if (c.one_of(kDayShort, day_name) && c.lit(" ") && c.one_of(kMonths, month) && c.lit(" ")) {
      bool ok = c.lit(" ") ? c.digits(1, day) : c.digits(2, day);
      if (ok && c.lit(" ") && time_of_day(c, h, mi, sec) && c.lit(" ") && c.digits(4, year) && c.done())
        return make(year, month + 1, day, h, mi, sec);
    }
  }
  return std::nullopt;
}

std::optional<std::chrono::seconds> parse_retry_after(std::string_view field,
                                                      std::chrono::system_clock::time_point now) {
  const std::string_view v = trim_ows(field);
  if (v.empty()) return std::nullopt;
  if (v.front() >= '0' && v.front() <= '9') {  // delay-seconds = 1*DIGIT
    // The largest count whose microseconds fit an int64.
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max() / 1'000'000;
    std::int64_t n = 0;
    for (char ch : v) {
      if (ch < '0' || ch > '9') return std::nullopt;
      const int digit = ch - '0';
      if (n > (kMax - digit) / 10) return std::nullopt;  // n * 10 + digit > kMax
      n = n * 10 + digit;
    }
    return seconds{n};
  }
  const auto date = parse_http_date(v, now);
  if (!date) return std::nullopt;
  // In whole seconds: a date past 2262 (4DIGIT years run to 9999) does not
  // fit `now`'s nanoseconds, so the date is never converted to them. With
  // now = s + f (s whole seconds, 0 <= f < 1 s), the wait rounded up (the
  // client must not come back before the date) is date - s when the date
  // is after s, and 0 otherwise (then the date is at or before now).
  const std::chrono::sys_seconds now_s = std::chrono::floor<seconds>(now);
  if (*date <= now_s) return seconds{0};
  return *date - now_s;
}

}  // namespace rto

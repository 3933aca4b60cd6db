#include "base/instant.h"

#include <cstdio>

namespace affordance {

namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

bool Leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysIn(int y, int m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && Leap(y) ? 29 : kDays[m - 1];
}

// `n` ASCII digits at `at`.
bool Digits(std::string_view s, size_t at, size_t n, int* out) {
  if (at + n > s.size()) return false;
  int v = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

std::optional<int64_t> Fail(std::string* why, std::string reason) {
  if (why) *why = std::move(reason);
  return std::nullopt;
}

constexpr const char* kMonths[] = {"January",   "February", "March",    "April",
                                   "May",       "June",     "July",     "August",
                                   "September", "October",  "November", "December"};

// The date part: `YYYY-MM-DD` at the start of `s`; days since the epoch.
std::optional<int64_t> Day(std::string_view s, std::string* why) {
  int y = 0, m = 0, d = 0;
  if (!Digits(s, 0, 4, &y) || s.size() < 10 || s[4] != '-' || !Digits(s, 5, 2, &m) || s[7] != '-' ||
      !Digits(s, 8, 2, &d)) {
    return Fail(why, "it is not written YYYY-MM-DD");
  }
  if (y < 1) return Fail(why, "year 0000 is out of range");
  if (m < 1 || m > 12) return Fail(why, "month " + std::to_string(m) + " is out of range");
  if (d < 1 || d > DaysIn(y, m)) {
    if (d >= 1 && d <= 31) {
      return Fail(why, std::to_string(d) + " " + kMonths[m - 1] + " " + std::to_string(y) +
                           " does not exist");
    }
    return Fail(why, "day " + std::to_string(d) + " is out of range");
  }
  return DaysFromCivil(y, m, d);
}

}  // namespace

std::optional<int64_t> ParseDay(std::string_view text, std::string* why) {
  if (text.size() != 10) return Fail(why, "it is not written YYYY-MM-DD");
  auto days = Day(text, why);
  if (!days) return std::nullopt;
  return *days * 86400;
}

std::optional<int64_t> ParseInstant(std::string_view s, std::string* why) {
  auto days = Day(s, why);
  if (!days) return std::nullopt;
  int h = 0, mi = 0, sec = 0;
  if (s.size() < 19 || s[10] != 'T' || !Digits(s, 11, 2, &h) || s[13] != ':' ||
      !Digits(s, 14, 2, &mi) || s[16] != ':' || !Digits(s, 17, 2, &sec)) {
    return Fail(why, "it is not written YYYY-MM-DDTHH:MM:SS with Z or an offset");
  }
  if (h > 23) return Fail(why, "hour " + std::to_string(h) + " is out of range");
  if (mi > 59) return Fail(why, "minute " + std::to_string(mi) + " is out of range");
  if (sec == 60) return Fail(why, "a leap second (:60) cannot be written to a source");
  if (sec > 59) return Fail(why, "second " + std::to_string(sec) + " is out of range");
  size_t at = 19;
  if (at < s.size() && s[at] == '.') {
    size_t digits = ++at;
    while (at < s.size() && s[at] >= '0' && s[at] <= '9') ++at;
    if (at == digits) return Fail(why, "a '.' must be followed by digits");
  }
  int64_t offset = 0;
  const std::string_view zone = s.substr(at);
  if (zone == "Z") {
    offset = 0;
  } else if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && zone[3] == ':') {
    int oh = 0, om = 0;
    if (!Digits(zone, 1, 2, &oh) || !Digits(zone, 4, 2, &om) || oh > 23 || om > 59) {
      return Fail(why, "the offset " + std::string(zone) + " is out of range");
    }
    offset = (zone[0] == '-' ? -1 : 1) * (oh * 3600 + om * 60);
  } else if (zone.empty()) {
    return Fail(why, "it has no Z or offset, so which instant it names is not known");
  } else {
    return Fail(why, "it ends in \"" + std::string(zone) + "\", not Z or an offset like +01:00");
  }
  return *days * 86400 + h * 3600 + mi * 60 + sec - offset;
}

std::string FormatInstant(int64_t seconds) {
  int64_t days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400;
  int64_t rest = seconds - days * 86400;
  // civil_from_days (H. Hinnant).
  const int64_t z = days + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const int64_t m = mp < 10 ? mp + 3 : mp - 9;
  const int64_t y = yoe + era * 400 + (m <= 2);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ",
                static_cast<long long>(y), static_cast<long long>(m), static_cast<long long>(d),
                static_cast<long long>(rest / 3600), static_cast<long long>(rest % 3600 / 60),
                static_cast<long long>(rest % 60));
  return buf;
}

}  // namespace affordance

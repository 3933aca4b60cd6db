// Instants and days written as ISO 8601 text, read strictly: a field out of its range is an
// error, never carried into the next field. `2026-12-03T99:00:00Z` is not "03:00 four days later";
// it is no time at all. This is the one reader of such text for every door that lets a value
// through to a source or shows it to a person (staging, the calendar write, the effect card), so
// what the card shows and what the write does can never disagree about which instant a text names.
//
// Accepted (RFC 3339 `date-time`): YYYY-MM-DDTHH:MM:SS, an optional fraction `.d+` (dropped), and
// `Z` or an offset `+HH:MM` / `-HH:MM`. Year 0001-9999; month 01-12; day 01 to the month's last day
// (29 February only in a leap year); hour 00-23; minute 00-59; second 00-59. A leap second (`:60`)
// is refused: neither time_t nor an iCalendar UTC time can name it, so accepting it would mean
// normalising it. Offsets up to ±23:59. Lower-case `t` / `z`, a space for `T`, signs, missing
// digits and trailing text are refused.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace affordance {

// Seconds since 1970-01-01T00:00:00Z of `text`, or nullopt. `why`, when given, receives a short
// reason on failure ("hour 99 is out of range", "30 February does not exist").
std::optional<int64_t> ParseInstant(std::string_view text, std::string* why = nullptr);

// A day `YYYY-MM-DD` (same ranges): seconds at its 00:00 UTC, or nullopt.
std::optional<int64_t> ParseDay(std::string_view text, std::string* why = nullptr);

// `seconds` as `YYYY-MM-DDTHH:MM:SSZ`.
std::string FormatInstant(int64_t seconds);

}  // namespace affordance

// Private to src/connect: what a calendar update does to the VEVENTs of one UID, as text, so that
// the effect card (the scope a person approves), the write (calendar_write.cpp) and the read that
// verifies it all follow one definition.
//
// Scopes of an update (docs/CONNECTORS.md "Recurring events"):
//   event       the UID is not recurring: its VEVENT gets the values.
//   occurrence  `occurrence` names one occurrence of a recurring UID (its original start, i.e. the
//               RECURRENCE-ID, or the current start of an already changed occurrence): only that
//               occurrence changes. A changed occurrence's own VEVENT is rewritten; otherwise one
//               is added after the series (a copy of the series' own properties with
//               RECURRENCE-ID, DTSTART and DTEND of that occurrence, then the values).
//   series      a recurring UID without `occurrence`: the series (the VEVENT without
//               RECURRENCE-ID) gets the values. When its start or end changes, the separately
//               changed occurrences (RECURRENCE-ID VEVENTs) are removed: they name occurrences of
//               the old times, and return to the series at its new time. When only text changes,
//               they get the new text too and keep their own times.
#pragma once

#include "base/result.h"
#include "connect/internal/ics_text.h"
#include "connect/manifest.h"

#include <libical/ical.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace affordance::connect::ics {

// The event properties a write sets, in the order a new event lists them.
struct Field {
  const char* arg;
  const char* property;
  bool time;
};

// One property a write sets: `value` is a time in iCalendar UTC form or the unescaped text.
struct Setting {
  const Field* field;
  std::string value;
};

// The args' settings; times must be "YYYY-MM-DDTHH:MM:SSZ" naming a real instant. Error:
// "connect.bad_args" (kInvalid).
Result<std::vector<Setting>> Settings(const nlohmann::json& args);

// A property line of a new event (unfolded).
std::string NewProperty(const Setting& s);

// A new VEVENT with that UID and settings, lines ending in `eol`.
std::string NewEvent(const std::string& uid, const std::vector<Setting>& settings,
                     const std::string& eol);

// `event` (the bytes of one VEVENT) with `settings` applied: a property the event has is rewritten
// in place (only when its value changes), one it lacks is added after its last property (before a
// VALARM or END:VEVENT). Every other byte stays.
std::string UpdatedEvent(std::string_view event, const std::vector<Setting>& settings,
                         const std::string& eol);

struct ComponentDeleter {
  void operator()(icalcomponent* c) const { icalcomponent_free(c); }
};
using Component = std::unique_ptr<icalcomponent, ComponentDeleter>;

// The instant of a libical time (UTC when it has no zone) and of a VEVENT's RECURRENCE-ID, with its
// TZID resolved against the calendar (calendar.cpp).
time_t ToUtc(icaltimetype t);
time_t RecurrenceIdUtc(icalcomponent* event);

// Every VEVENT of one UID in a calendar's text, read by libical and mapped to its bytes.
struct Series {
  Component calendar;                      // libical's reading of the whole text
  std::vector<EventSpan> spans;            // the UID's VEVENTs, in file order
  std::vector<icalcomponent*> components;  // the same VEVENTs as libical reads them
  int master = -1;                         // the one without RECURRENCE-ID (-1: none)
  std::vector<int64_t> recurrence_ids;     // per VEVENT; 0 for the master
  bool recurring = false;                  // RRULE / RDATE on the master, or any RECURRENCE-ID
  bool all_day = false;                    // the master's DTSTART is a DATE
  int64_t duration = 0;                    // the master's DTEND - DTSTART, seconds
  size_t overrides() const { return spans.size() - (master >= 0 ? 1 : 0); }
};
// Errors: "connect.not_found" (no VEVENT has the UID), "connect.ics_invalid" (libical and the
// text map disagree about the VEVENTs).
Result<Series> ReadSeries(const std::string& text, const CalendarLayout& layout,
                          const std::string& uid);

// Starts of the series' occurrences in [from, to) (EXDATEs excluded; an occurrence replaced by a
// changed one still counts once, at its original start).
std::vector<int64_t> OccurrenceStarts(const Series& s, int64_t from, int64_t to);

// The scope an update of `args` has on `s`: "event", "occurrence" or "series"; for "occurrence"
// `recurrence_id` is the occurrence it changes and `index` the VEVENT that already holds it (-1:
// none yet). Errors (kInvalid "connect.bad_args"): `occurrence` on an event that does not recur,
// on an all-day series, or naming no occurrence of the series.
struct UpdateScope {
  std::string kind;
  int64_t recurrence_id = 0;
  int index = -1;
  bool moves = false;  // a series update that changes its start or end
};
Result<UpdateScope> ScopeOf(const Series& s, const std::string& text,
                            const std::vector<Setting>& settings, const nlohmann::json& args);

// `text` with the update applied as `scope` says (see the file comment).
std::string ApplyUpdate(const std::string& text, const Series& s, const UpdateScope& scope,
                        const std::vector<Setting>& settings, const std::string& eol);

}  // namespace affordance::connect::ics

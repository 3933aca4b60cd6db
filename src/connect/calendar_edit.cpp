// The calendar edits (internal/calendar_edit.h): the settings an update writes, the VEVENTs of one
// UID as libical and the text map both read them, and the scope of an update on a recurring event.
#include "connect/internal/calendar_edit.h"

#include "base/instant.h"
#include "connect/mutate.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <optional>

namespace affordance::connect::ics {

namespace {

using nlohmann::json;

constexpr Field kFields[] = {{"start", "DTSTART", true},
                             {"end", "DTEND", true},
                             {"summary", "SUMMARY", false},
                             {"location", "LOCATION", false},
                             {"description", "DESCRIPTION", false}};

// A time argument as iCalendar UTC ("20261203T150000Z"): exactly "YYYY-MM-DDTHH:MM:SSZ" naming a
// real instant (base/instant.h). Nothing out of range is normalised: the card shows the text the
// person approves, so the file must get that instant or nothing.
Result<std::string> UtcStamp(const json& args, const char* name) {
  const json& v = args[name];
  std::string text = v.is_string() ? v.get<std::string>() : v.dump();
  std::string why;
  std::optional<int64_t> t = ParseInstant(text, &why);
  if (t && (text.size() != 20 || text.back() != 'Z')) {
    why = "it must be UTC, written with Z and no fraction";
    t.reset();
  }
  if (!t) {
    return MakeError(ErrorKind::kInvalid, "connect.bad_args",
                     std::string("/") + name + ": \"" + text +
                         "\" is not an ISO 8601 UTC time like 2026-12-03T15:00:00Z (" + why + ")");
  }
  std::string iso = FormatInstant(*t);  // YYYY-MM-DDTHH:MM:SSZ
  std::string out;
  for (char c : iso) {
    if (c != '-' && c != ':') out += c;
  }
  return out;
}

// A replacement of the bytes [begin, end) of an event's text; begin == end inserts.
struct Splice {
  size_t begin, end;
  std::string text;
};

// The unfolded line that gives `existing` (a line of the same property) the setting's value,
// or nothing when it already has that value. Text keeps the line's parameters (LANGUAGE, ...);
// a time replaces them, since TZID and VALUE=DATE describe the old value's form.
std::optional<std::string> Rewritten(const ics::ContentLine& existing, const Setting& s) {
  if (s.field->time) {
    std::string line = NewProperty(s);
    return existing.unfolded == line ? std::nullopt : std::optional(line);
  }
  if (ics::UnescapeText(existing.value()) == s.value) return std::nullopt;
  return existing.unfolded.substr(0, existing.value_at) + EscapeText(s.value);
}

}  // namespace

Result<std::vector<Setting>> Settings(const json& args) {
  std::vector<Setting> out;
  for (const Field& f : kFields) {
    if (!args.contains(f.arg)) continue;
    if (f.time) {
      auto stamp = UtcStamp(args, f.arg);
      if (!stamp) return stamp.error();
      out.push_back({&f, *stamp});
    } else if (!args[f.arg].is_string()) {
      return MakeError(ErrorKind::kInvalid, "connect.bad_args",
                       std::string("/") + f.arg + " must be a string");
    } else {
      out.push_back({&f, args[f.arg].get<std::string>()});
    }
  }
  return out;
}

// A property line of a new event (unfolded).
std::string NewProperty(const Setting& s) {
  return std::string(s.field->property) + ":" + (s.field->time ? s.value : EscapeText(s.value));
}

std::string NewEvent(const std::string& uid, const std::vector<Setting>& settings,
                     const std::string& eol) {
  std::string out = "BEGIN:VEVENT" + eol;
  out += FoldLine("UID:" + EscapeText(uid), eol);
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  out += "DTSTAMP:" + std::string(stamp) + eol;
  for (const Setting& s : settings) out += FoldLine(NewProperty(s), eol);
  return out + "END:VEVENT" + eol;
}

// `event` (the bytes of one VEVENT) with `settings` applied: a property the event has is rewritten
// in place (only when its value changes), one it lacks is added after its last property (before a
// VALARM or END:VEVENT). Every other byte stays.
std::string UpdatedEvent(std::string_view event, const std::vector<Setting>& settings,
                         const std::string& eol) {
  std::vector<ContentLine> lines = SplitContentLines(event);
  std::vector<const ContentLine*> own;  // the VEVENT's own properties, not its VALARMs'
  size_t append_at = event.size();
  int depth = 0;
  for (const auto& line : lines) {
    if (line.name == "BEGIN" || line.name == "END") {
      if (depth == 1 && append_at == event.size()) append_at = line.begin;
      depth += line.name == "BEGIN" ? 1 : -1;
    } else if (depth == 1) {
      own.push_back(&line);
    }
  }
  auto find = [&](std::string_view name) -> const ContentLine* {
    for (const auto* line : own) {
      if (line->name == name) return line;
    }
    return nullptr;
  };
  std::vector<Splice> splices;
  for (const Setting& s : settings) {
    const ContentLine* line = find(s.field->property);
    if (!line && std::string_view(s.field->property) == "DTEND") {
      line = find("DURATION");  // an end replaces a duration: an event has one or the other
    }
    if (!line) {
      splices.push_back({append_at, append_at, FoldLine(NewProperty(s), eol)});
      continue;
    }
    std::optional<std::string> text =
        line->name == "DURATION" ? std::optional(NewProperty(s)) : Rewritten(*line, s);
    if (text) splices.push_back({line->begin, line->end, FoldLine(*text, eol)});
  }
  std::stable_sort(splices.begin(), splices.end(),
                   [](const Splice& a, const Splice& b) { return a.begin < b.begin; });
  std::string out;
  size_t at = 0;
  for (const Splice& s : splices) {
    out.append(event.substr(at, s.begin - at));
    out += s.text;
    at = s.end;
  }
  out.append(event.substr(at));
  return out;
}

namespace {

std::string IcalUtc(int64_t t) {
  std::string iso = FormatInstant(t), out;
  for (char c : iso) {
    if (c != '-' && c != ':') out += c;
  }
  return out;
}

bool Recurs(icalcomponent* c) {
  return icalcomponent_get_first_property(c, ICAL_RRULE_PROPERTY) != nullptr ||
         icalcomponent_get_first_property(c, ICAL_RDATE_PROPERTY) != nullptr;
}

struct Starts {
  std::vector<int64_t> out;
};
void CollectStart(icalcomponent*, icaltime_span* span, void* data) {
  static_cast<Starts*>(data)->out.push_back(static_cast<int64_t>(span->start));
}

// The current DTSTART of one VEVENT, in UTC seconds (0 when it has none).
int64_t StartOf(icalcomponent* c) {
  icaltimetype t = icalcomponent_get_dtstart(c);
  return icaltime_is_null_time(t) ? 0 : static_cast<int64_t>(ToUtc(t));
}

// The master's own properties without the ones that make it a series or place it in time: the
// body of a new occurrence VEVENT (its nested components, e.g. VALARMs, stay).
std::string OccurrenceOf(std::string_view master, int64_t recurrence_id, int64_t duration,
                         const std::string& eol) {
  static constexpr std::string_view kDropped[] = {"RRULE",   "RDATE", "EXDATE",   "EXRULE",
                                                  "DTSTART", "DTEND", "DURATION", "RECURRENCE-ID"};
  std::string out;
  int depth = 0;
  for (const auto& line : SplitContentLines(master)) {
    const std::string_view bytes = master.substr(line.begin, line.end - line.begin);
    if (line.name == "BEGIN" || line.name == "END") {
      depth += line.name == "BEGIN" ? 1 : 0;
      out.append(bytes);
      if (line.name == "BEGIN" && depth == 1) {
        out += "RECURRENCE-ID:" + IcalUtc(recurrence_id) + eol;
        out += "DTSTART:" + IcalUtc(recurrence_id) + eol;
        out += "DTEND:" + IcalUtc(recurrence_id + duration) + eol;
      }
      depth -= line.name == "END" ? 1 : 0;
      continue;
    }
    if (depth == 1 &&
        std::find(std::begin(kDropped), std::end(kDropped), line.name) != std::end(kDropped)) {
      continue;
    }
    out.append(bytes);
  }
  return out;
}

}  // namespace

Result<Series> ReadSeries(const std::string& text, const CalendarLayout& layout,
                          const std::string& uid) {
  Series s;
  s.calendar.reset(icalparser_parse_string(text.c_str()));
  if (!s.calendar || icalcomponent_isa(s.calendar.get()) != ICAL_VCALENDAR_COMPONENT) {
    return MakeError("connect.ics_invalid", "the calendar file cannot be parsed");
  }
  std::vector<icalcomponent*> all;
  for (icalcomponent* c =
           icalcomponent_get_first_component(s.calendar.get(), ICAL_VEVENT_COMPONENT);
       c; c = icalcomponent_get_next_component(s.calendar.get(), ICAL_VEVENT_COMPONENT)) {
    all.push_back(c);
  }
  if (all.size() != layout.events.size()) {
    return MakeError("connect.ics_invalid",
                     "libical and the text map disagree about the calendar's events");
  }
  for (size_t i = 0; i < all.size(); ++i) {
    if (layout.events[i].uid != uid) continue;
    const bool is_override = !icaltime_is_null_time(icalcomponent_get_recurrenceid(all[i]));
    if (!is_override && s.master < 0) s.master = static_cast<int>(s.spans.size());
    s.spans.push_back(layout.events[i]);
    s.components.push_back(all[i]);
    s.recurrence_ids.push_back(is_override ? static_cast<int64_t>(RecurrenceIdUtc(all[i])) : 0);
  }
  if (s.spans.empty()) {
    return MakeError(ErrorKind::kNotFound, "connect.not_found",
                     "the calendar has no event with UID \"" + uid + "\"");
  }
  s.recurring = s.spans.size() > 1;
  if (s.master >= 0) {
    icalcomponent* m = s.components[static_cast<size_t>(s.master)];
    s.recurring = s.recurring || Recurs(m);
    icaltimetype start = icalcomponent_get_dtstart(m);
    icaltimetype end = icalcomponent_get_dtend(m);
    s.all_day = start.is_date;
    if (!icaltime_is_null_time(start) && !icaltime_is_null_time(end)) {
      s.duration = std::max<int64_t>(0, static_cast<int64_t>(ToUtc(end) - ToUtc(start)));
    }
  }
  return s;
}

std::vector<int64_t> OccurrenceStarts(const Series& s, int64_t from, int64_t to) {
  Starts starts;
  if (s.master < 0) {
    for (auto* c : s.components) {
      int64_t t = static_cast<int64_t>(RecurrenceIdUtc(c));
      if (t >= from && t < to) starts.out.push_back(t);
    }
    return starts.out;
  }
  icalcomponent* m = s.components[static_cast<size_t>(s.master)];
  icaltimezone* utc = icaltimezone_get_utc_timezone();
  icalcomponent_foreach_recurrence(m, icaltime_from_timet_with_zone(from, 0, utc),
                                   icaltime_from_timet_with_zone(to, 0, utc), CollectStart,
                                   &starts);
  std::vector<int64_t>& out = starts.out;
  out.erase(std::remove_if(out.begin(), out.end(), [&](int64_t t) { return t < from || t >= to; }),
            out.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Result<UpdateScope> ScopeOf(const Series& s, const std::string& text,
                            const std::vector<Setting>& settings, const json& args) {
  (void)text;
  UpdateScope scope;
  if (!args.contains("occurrence")) {
    scope.kind = s.recurring ? "series" : "event";
    if (s.recurring && s.master >= 0) {
      icalcomponent* m = s.components[static_cast<size_t>(s.master)];
      for (const Setting& st : settings) {
        if (!st.field->time) continue;
        icaltimetype now = std::string_view(st.field->property) == "DTSTART"
                               ? icalcomponent_get_dtstart(m)
                               : icalcomponent_get_dtend(m);
        const int64_t current = icaltime_is_null_time(now) ? -1 : ToUtc(now);
        scope.moves = scope.moves || IcalUtc(current) != st.value;
      }
    }
    return scope;
  }
  const json& occ = args["occurrence"];
  std::string why;
  std::optional<int64_t> at =
      occ.is_string() ? ParseInstant(occ.get<std::string>(), &why) : std::optional<int64_t>();
  const std::string shown = occ.is_string() ? occ.get<std::string>() : occ.dump();
  if (!at || shown.size() != 20 || shown.back() != 'Z') {
    return MakeError(ErrorKind::kInvalid, "connect.bad_args",
                     "/occurrence: \"" + shown +
                         "\" is not an ISO 8601 UTC time like 2026-12-03T15:00:00Z" +
                         (why.empty() ? "" : " (" + why + ")"));
  }
  if (!s.recurring) {
    return MakeError(ErrorKind::kInvalid, "connect.bad_args",
                     "/occurrence: the event does not recur; leave occurrence out to change it");
  }
  if (s.all_day) {
    return MakeError(ErrorKind::kInvalid, "connect.bad_args",
                     "/occurrence: one occurrence of an all-day series cannot be changed here");
  }
  scope.kind = "occurrence";
  // A changed occurrence is named by its RECURRENCE-ID or by where it is now.
  for (size_t i = 0; i < s.spans.size(); ++i) {
    if (static_cast<int>(i) == s.master) continue;
    if (s.recurrence_ids[i] == *at || StartOf(s.components[i]) == *at) {
      scope.recurrence_id = s.recurrence_ids[i];
      scope.index = static_cast<int>(i);
      return scope;
    }
  }
  std::vector<int64_t> one =
      s.master >= 0 ? OccurrenceStarts(s, *at, *at + 1) : std::vector<int64_t>();
  if (one.empty()) {
    return MakeError(ErrorKind::kInvalid, "connect.bad_args",
                     "/occurrence: the series has no occurrence starting at " + shown +
                         "; give the start of one of its occurrences");
  }
  scope.recurrence_id = *at;
  return scope;
}

std::string ApplyUpdate(const std::string& text, const Series& s, const UpdateScope& scope,
                        const std::vector<Setting>& settings, const std::string& eol) {
  struct Edit {
    size_t begin, end;
    std::string text;
  };
  std::vector<Edit> edits;
  auto span_text = [&](size_t i) {
    return std::string_view(text).substr(s.spans[i].begin, s.spans[i].end - s.spans[i].begin);
  };
  if (scope.kind == "occurrence") {
    if (scope.index >= 0) {
      const size_t i = static_cast<size_t>(scope.index);
      edits.push_back(
          {s.spans[i].begin, s.spans[i].end, UpdatedEvent(span_text(i), settings, eol)});
    } else {
      const size_t m = static_cast<size_t>(s.master);
      std::string copy = OccurrenceOf(span_text(m), scope.recurrence_id, s.duration, eol);
      edits.push_back({s.spans[m].end, s.spans[m].end, UpdatedEvent(copy, settings, eol)});
    }
  } else {
    std::vector<Setting> text_only;
    for (const Setting& st : settings) {
      if (!st.field->time) text_only.push_back(st);
    }
    for (size_t i = 0; i < s.spans.size(); ++i) {
      const bool is_master =
          static_cast<int>(i) == s.master || scope.kind == "event" || s.master < 0;
      if (is_master) {
        edits.push_back(
            {s.spans[i].begin, s.spans[i].end, UpdatedEvent(span_text(i), settings, eol)});
      } else if (scope.moves) {
        edits.push_back({s.spans[i].begin, s.spans[i].end, ""});  // returns to the series
      } else {
        edits.push_back(
            {s.spans[i].begin, s.spans[i].end, UpdatedEvent(span_text(i), text_only, eol)});
      }
    }
  }
  std::sort(edits.begin(), edits.end(),
            [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
  std::string out;
  size_t at = 0;
  for (const Edit& e : edits) {
    out.append(text, at, e.begin - at);
    out += e.text;
    at = e.end;
  }
  out.append(text, at, std::string::npos);
  return out;
}

}  // namespace affordance::connect::ics

namespace affordance::connect {

Status CheckCalendarArgs(const Operation& op, const nlohmann::json& args) {
  auto settings = ics::Settings(args);
  if (!settings) return settings.error();
  if (args.contains("start") && args.contains("end") &&
      args["end"].get<std::string>() <= args["start"].get<std::string>()) {
    // Both are "YYYY-MM-DDTHH:MM:SSZ" here, so text order is time order.
    return MakeError(ErrorKind::kInvalid, "connect.bad_args",
                     "/end: \"" + args["end"].get<std::string>() + "\" is not after /start \"" +
                         args["start"].get<std::string>() + "\"");
  }
  if (args.contains("occurrence") && op.effect != "update") {
    return MakeError(ErrorKind::kInvalid, "connect.bad_args",
                     "/occurrence: only an update changes one occurrence");
  }
  return {};
}

}  // namespace affordance::connect

#include "connect/calendar.h"

#include "connect/internal/calendar_edit.h"

#include <libical/ical.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

namespace affordance::connect {
namespace {

namespace fs = std::filesystem;

// libical keeps global state (error flags, the builtin time zone cache): one sync at a time.
std::mutex& IcalMutex() {
  static std::mutex m;
  return m;
}

struct ComponentDeleter {
  void operator()(icalcomponent* c) const { icalcomponent_free(c); }
};
using Component = std::unique_ptr<icalcomponent, ComponentDeleter>;

std::string Iso(time_t t, bool date_only) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, date_only ? "%Y-%m-%d" : "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string Text(const char* s) { return s ? s : ""; }

std::string PropertyText(icalcomponent* c, icalproperty_kind kind) {
  icalproperty* p = icalcomponent_get_first_property(c, kind);
  if (!p) return "";
  const char* v = icalproperty_get_value_as_string(p);
  return v ? v : "";
}

Result<std::vector<fs::path>> IcsFiles(const std::vector<std::string>& paths) {
  std::vector<fs::path> files;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<fs::path> found;
      for (const auto& e : fs::directory_iterator(p, ec)) {
        if (e.path().extension() == ".ics") found.push_back(e.path());
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(p, ec)) {
      files.emplace_back(p);
    } else {
      return MakeError("connect.source_missing", "a calendar source path does not exist", p);
    }
  }
  return files;
}

struct Calendar {
  std::string name;  // file stem
  Component root;
};

struct Writer {
  sqlite3_stmt* insert = nullptr;
  int64_t rows = 0;
  Status status;
  // Instances of recurring events that an override (RECURRENCE-ID) replaces: (uid, start).
  std::set<std::pair<std::string, time_t>> overridden;
  // Current component.
  std::string uid, calendar;
  bool recurring = false, all_day = false, is_override = false;
  int64_t duration = 0;  // DTEND - DTSTART (or DURATION); libical's span end rounds DATE values
  icalcomponent* comp = nullptr;
};

void WriteInstance(icalcomponent*, icaltime_span* span, void* data) {
  auto* w = static_cast<Writer*>(data);
  if (!w->status) return;
  if (w->recurring && !w->is_override && w->overridden.count({w->uid, span->start})) return;
  time_t end = span->start + static_cast<time_t>(w->duration);
  std::string start_text = Iso(span->start, w->all_day);
  std::string id =
      (w->recurring || w->is_override) ? w->uid + "/" + Iso(span->start, false) : w->uid;
  icalcomponent* c = w->comp;
  std::string values[] = {id,
                          w->uid,
                          Text(icalcomponent_get_summary(c)),
                          Text(icalcomponent_get_description(c)),
                          Text(icalcomponent_get_location(c)),
                          PropertyText(c, ICAL_STATUS_PROPERTY),
                          PropertyText(c, ICAL_ORGANIZER_PROPERTY),
                          w->calendar,
                          start_text,
                          Iso(end, w->all_day)};
  sqlite3_stmt* s = w->insert;
  sqlite3_reset(s);
  for (int i = 0; i < 10; ++i) {
    sqlite3_bind_text(s, i + 1, values[i].data(), static_cast<int>(values[i].size()),
                      SQLITE_TRANSIENT);
  }
  sqlite3_bind_int64(s, 11, span->start);
  sqlite3_bind_int64(s, 12, end);
  sqlite3_bind_int(s, 13, w->all_day);
  sqlite3_bind_int(s, 14, w->recurring || w->is_override);
  if (sqlite3_step(s) != SQLITE_DONE) {
    w->status = MakeError("connect.mirror_write_failed", "cannot write an event",
                          sqlite3_errmsg(sqlite3_db_handle(s)));
    return;
  }
  ++w->rows;
}

std::vector<icalcomponent*> Events(icalcomponent* root) {
  std::vector<icalcomponent*> out;
  if (icalcomponent_isa(root) == ICAL_VEVENT_COMPONENT) {
    out.push_back(root);
    return out;
  }
  for (icalcomponent* c = icalcomponent_get_first_component(root, ICAL_VEVENT_COMPONENT); c;
       c = icalcomponent_get_next_component(root, ICAL_VEVENT_COMPONENT)) {
    out.push_back(c);
  }
  return out;
}

}  // namespace

namespace ics {

time_t ToUtc(icaltimetype t) {
  const icaltimezone* zone = t.zone ? t.zone : icaltimezone_get_utc_timezone();
  return icaltime_as_timet_with_zone(t, zone);
}

// The instant a RECURRENCE-ID names. libical resolves the TZID of DTSTART and DTEND against the
// calendar's VTIMEZONEs but leaves a RECURRENCE-ID's unresolved (its time would read as UTC, and
// the override would not replace its instance): resolve it the same way, falling back to libical's
// builtin zone of that name.
time_t RecurrenceIdUtc(icalcomponent* event) {
  icalproperty* p = icalcomponent_get_first_property(event, ICAL_RECURRENCEID_PROPERTY);
  icaltimetype t = icalproperty_get_recurrenceid(p);
  icalparameter* tzid = icalproperty_get_first_parameter(p, ICAL_TZID_PARAMETER);
  if (tzid && !t.zone && !icaltime_is_utc(t)) {
    const char* name = icalparameter_get_tzid(tzid);
    icalcomponent* calendar = icalcomponent_get_parent(event);
    icaltimezone* zone = calendar ? icalcomponent_get_timezone(calendar, name) : nullptr;
    if (!zone) zone = icaltimezone_get_builtin_timezone(name);
    if (zone) t = icaltime_set_timezone(&t, zone);
  }
  return ToUtc(t);
}

}  // namespace ics

const std::string& CalendarSchema() {
  static const std::string schema =
      "CREATE TABLE IF NOT EXISTS events("
      " id TEXT PRIMARY KEY, uid TEXT NOT NULL, summary TEXT, description TEXT, location TEXT,"
      " status TEXT, organizer TEXT, calendar TEXT, start TEXT NOT NULL, end TEXT NOT NULL,"
      " start_ts INTEGER NOT NULL, end_ts INTEGER NOT NULL, all_day INTEGER NOT NULL,"
      " recurring INTEGER NOT NULL);"
      "CREATE INDEX IF NOT EXISTS events_start ON events(start_ts);"
      "CREATE INDEX IF NOT EXISTS events_uid ON events(uid);";
  return schema;
}

Result<int64_t> SyncCalendar(const ConnectorManifest& manifest, const std::string& mirror_path,
                             int64_t now, const ProgressFn& progress) {
  auto started = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(IcalMutex());
  icalerror_set_errors_are_fatal(0);
  auto files = IcsFiles(manifest.source.paths);
  if (!files) return files.error();

  std::vector<Calendar> calendars;
  int64_t index = 0;
  for (const auto& file : *files) {
    if (progress) progress({"read", index++, static_cast<int64_t>(files->size())});
    std::ifstream in(file, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      return MakeError("connect.source_missing", "cannot read a calendar file", file.string());
    }
    Component root(icalparser_parse_string(text.c_str()));
    icalcomponent_kind kind = root ? icalcomponent_isa(root.get()) : ICAL_NO_COMPONENT;
    if (kind != ICAL_VCALENDAR_COMPONENT && kind != ICAL_VEVENT_COMPONENT &&
        kind != ICAL_XROOT_COMPONENT) {
      return MakeError("connect.ics_invalid", "the file is not an iCalendar (VCALENDAR) file",
                       file.string());
    }
    calendars.push_back({file.stem().string(), std::move(root)});
  }

  Writer w;
  std::vector<std::pair<Calendar*, icalcomponent*>> events;
  for (auto& cal : calendars) {
    std::vector<icalcomponent*> roots;
    if (icalcomponent_isa(cal.root.get()) == ICAL_XROOT_COMPONENT) {
      for (icalcomponent* c =
               icalcomponent_get_first_component(cal.root.get(), ICAL_VCALENDAR_COMPONENT);
           c; c = icalcomponent_get_next_component(cal.root.get(), ICAL_VCALENDAR_COMPONENT)) {
        roots.push_back(c);
      }
    } else {
      roots.push_back(cal.root.get());
    }
    for (icalcomponent* r : roots) {
      for (icalcomponent* e : Events(r)) {
        events.push_back({&cal, e});
        if (!icaltime_is_null_time(icalcomponent_get_recurrenceid(e))) {
          w.overridden.insert({Text(icalcomponent_get_uid(e)), ics::RecurrenceIdUtc(e)});
        }
      }
    }
  }

  icaltimezone* utc = icaltimezone_get_utc_timezone();
  time_t from = static_cast<time_t>(now - manifest.sync.past_days * 86400);
  time_t to = static_cast<time_t>(now + manifest.sync.future_days * 86400);
  icaltimetype window_start = icaltime_from_timet_with_zone(from, 0, utc);
  icaltimetype window_end = icaltime_from_timet_with_zone(to, 0, utc);

  auto writer = MirrorWriter::Open(mirror_path, CalendarSchema());
  if (!writer) return writer.error();
  auto fill = [&](sqlite3* db) -> Result<int64_t> {
    if (auto s = Exec(db, "DELETE FROM events"); !s) return s.error();
    sqlite3_prepare_v2(db,
                       "INSERT OR REPLACE INTO events(id, uid, summary, description, location, "
                       "status, organizer, calendar, start, end, start_ts, end_ts, all_day, "
                       "recurring) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                       -1, &w.insert, nullptr);
    int64_t total = static_cast<int64_t>(events.size());
    for (int64_t i = 0; i < total && w.status; ++i) {
      auto [cal, e] = events[static_cast<size_t>(i)];
      if (progress && (i % 1000 == 0)) progress({"write", i, total});
      icaltimetype dtstart = icalcomponent_get_dtstart(e);
      if (icaltime_is_null_time(dtstart)) continue;  // no start: not a scheduled event
      w.comp = e;
      w.calendar = cal->name;
      w.uid = Text(icalcomponent_get_uid(e));
      if (w.uid.empty()) w.uid = cal->name + "#" + std::to_string(i);
      w.all_day = dtstart.is_date;
      icaltimetype dtend = icalcomponent_get_dtend(e);
      w.duration = icaltime_is_null_time(dtend) ? (w.all_day ? 86400 : 0)
                                                : ics::ToUtc(dtend) - ics::ToUtc(dtstart);
      if (w.duration < 0) w.duration = 0;
      w.is_override = !icaltime_is_null_time(icalcomponent_get_recurrenceid(e));
      w.recurring = icalcomponent_get_first_property(e, ICAL_RRULE_PROPERTY) != nullptr ||
                    icalcomponent_get_first_property(e, ICAL_RDATE_PROPERTY) != nullptr;
      icalcomponent_foreach_recurrence(e, window_start, window_end, WriteInstance, &w);
    }
    sqlite3_finalize(w.insert);
    w.insert = nullptr;
    if (!w.status) return w.status.error();
    if (progress) progress({"commit", total, total});
    return w.rows;
  };
  return writer->Replace(fill, now, "ics", started);
}

}  // namespace affordance::connect

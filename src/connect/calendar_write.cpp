// The calendar write path (mutate.h): one VEVENT created, updated or deleted by splicing the
// file's text (internal/ics_text.h), so that every byte outside the touched VEVENTs stays as it
// was; libical, which the read side uses, must read the file before and after. The file is
// replaced atomically. An advisory lock (flock on "<file>.lock") serializes writers of one file
// across processes; readers never see a partial file because rename(2) is atomic.
#include "connect/mutate.h"

#include "connect/internal/ics_text.h"

#include <fcntl.h>
#include <libical/ical.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

namespace affordance::connect {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::mutex& WriteMutex() {
  static std::mutex m;
  return m;
}

struct ComponentDeleter {
  void operator()(icalcomponent* c) const { icalcomponent_free(c); }
};
using Component = std::unique_ptr<icalcomponent, ComponentDeleter>;

// The file writes go to: the first path that is a file, else "<first folder>/affordance.ics".
std::string TargetFile(const ConnectorManifest& m) {
  for (const auto& p : m.source.paths) {
    if (fs::is_regular_file(p)) return p;
  }
  return m.source.paths.empty() ? "" : (fs::path(m.source.paths[0]) / "affordance.ics").string();
}

class FileLock {
 public:
  explicit FileLock(const std::string& path) {
    fd_ = ::open((path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  bool ok() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

// What a calendar file that does not exist yet reads as.
constexpr char kEmptyCalendar[] =
    "BEGIN:VCALENDAR\r\n"
    "VERSION:2.0\r\n"
    "PRODID:-//affordance//authority//EN\r\n"
    "END:VCALENDAR\r\n";

Result<std::string> ReadCalendar(const std::string& file) {
  if (!fs::exists(file)) return std::string(kEmptyCalendar);
  std::ifstream in(file, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) return MakeError("connect.write_failed", "cannot read " + file);
  return text;
}

// True when libical, which the read side uses (calendar.cpp), reads `text` as one VCALENDAR.
bool LibicalReads(const std::string& text) {
  Component cal(icalparser_parse_string(text.c_str()));
  return cal && icalcomponent_isa(cal.get()) == ICAL_VCALENDAR_COMPONENT;
}

// The calendar's layout, where both libical and the text map read it the same way.
Result<ics::CalendarLayout> MapReadable(const std::string& text, const std::string& file) {
  if (!LibicalReads(text)) {
    return MakeError("connect.ics_invalid", "the calendar file cannot be parsed", file);
  }
  auto layout = ics::MapCalendar(text);
  if (!layout) return MakeError(layout.error().code, layout.error().message, file);
  return layout;
}

std::vector<ics::EventSpan> EventsWithUid(const ics::CalendarLayout& layout,
                                          const std::string& uid) {
  std::vector<ics::EventSpan> out;
  for (const auto& e : layout.events) {
    if (e.uid == uid) out.push_back(e);
  }
  return out;
}

Result<std::string> UtcStamp(const json& args, const char* name) {
  std::string text = args.value(name, "");
  std::tm tm{};
  char z = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &z) != 7 ||
      z != 'Z' || text.size() != 20) {
    return MakeError(ErrorKind::kInvalid, "connect.bad_args",
                     std::string("/") + name + ": \"" + text +
                         "\" is not an ISO 8601 UTC time like "
                         "2026-12-03T15:00:00Z");
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  time_t t = timegm(&tm);  // normalizes out-of-range fields, as libical's reading of it would
  std::tm utc{};
  gmtime_r(&t, &utc);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &utc);
  return std::string(buf);
}

// The event properties a write sets, in the order a new event lists them.
struct Field {
  const char* arg;
  const char* property;
  bool time;
};
constexpr Field kFields[] = {{"start", "DTSTART", true},
                             {"end", "DTEND", true},
                             {"summary", "SUMMARY", false},
                             {"location", "LOCATION", false},
                             {"description", "DESCRIPTION", false}};

// One property a write sets: `value` is a time in iCalendar UTC form or the unescaped text.
struct Setting {
  const Field* field;
  std::string value;
};

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
  return std::string(s.field->property) + ":" +
         (s.field->time ? s.value : ics::EscapeText(s.value));
}

std::string NewEvent(const std::string& uid, const std::vector<Setting>& settings,
                     const std::string& eol) {
  std::string out = "BEGIN:VEVENT" + eol;
  out += ics::FoldLine("UID:" + ics::EscapeText(uid), eol);
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  out += "DTSTAMP:" + std::string(stamp) + eol;
  for (const Setting& s : settings) out += ics::FoldLine(NewProperty(s), eol);
  return out + "END:VEVENT" + eol;
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
  return existing.unfolded.substr(0, existing.value_at) + ics::EscapeText(s.value);
}

// `event` (the bytes of one VEVENT) with `settings` applied: a property the event has is rewritten
// in place (only when its value changes), one it lacks is added after its last property (before a
// VALARM or END:VEVENT). Every other byte stays.
std::string UpdatedEvent(std::string_view event, const std::vector<Setting>& settings,
                         const std::string& eol) {
  std::vector<ics::ContentLine> lines = ics::SplitContentLines(event);
  std::vector<const ics::ContentLine*> own;  // the VEVENT's own properties, not its VALARMs'
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
  auto find = [&](std::string_view name) -> const ics::ContentLine* {
    for (const auto* line : own) {
      if (line->name == name) return line;
    }
    return nullptr;
  };
  std::vector<Splice> splices;
  for (const Setting& s : settings) {
    const ics::ContentLine* line = find(s.field->property);
    if (!line && std::string_view(s.field->property) == "DTEND") {
      line = find("DURATION");  // an end replaces a duration: an event has one or the other
    }
    if (!line) {
      splices.push_back({append_at, append_at, ics::FoldLine(NewProperty(s), eol)});
      continue;
    }
    std::optional<std::string> text =
        line->name == "DURATION" ? std::optional(NewProperty(s)) : Rewritten(*line, s);
    if (text) splices.push_back({line->begin, line->end, ics::FoldLine(*text, eol)});
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

// `text` with each span replaced by what `replace` makes of its bytes (spans in file order).
template <typename Replace>
std::string ReplaceSpans(const std::string& text, const std::vector<ics::EventSpan>& spans,
                         Replace replace) {
  std::string out;
  size_t at = 0;
  for (const auto& span : spans) {
    out.append(text, at, span.begin - at);
    out += replace(std::string_view(text).substr(span.begin, span.end - span.begin));
    at = span.end;
  }
  out.append(text, at, std::string::npos);
  return out;
}

// Temporary file in the same folder, fsync, rename over the target, fsync the folder. The new
// file keeps the old one's permission bits.
Status AtomicReplace(const std::string& file, const std::string& text) {
  std::string tmp = file + ".tmp-" + std::to_string(::getpid());
  struct stat st {};
  mode_t mode = ::stat(file.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0644;
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return MakeError("connect.write_failed", "cannot create " + tmp);
  ::fchmod(fd, mode);
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) {
      ::close(fd);
      ::unlink(tmp.c_str());
      return MakeError("connect.write_failed", "cannot write " + tmp);
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(tmp.c_str());
    return MakeError("connect.write_failed", "cannot flush " + tmp);
  }
  if (::rename(tmp.c_str(), file.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return MakeError("connect.write_failed", "cannot replace " + file);
  }
  int dir = ::open(fs::path(file).parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
  return {};
}

}  // namespace

std::string CalendarUidFor(const std::string& key) { return "aff-" + key + "@affordance"; }

Result<bool> CalendarHasUid(const ConnectorManifest& m, const std::string& uid) {
  std::lock_guard guard(WriteMutex());
  std::string file = TargetFile(m);
  FileLock lock(file);
  auto text = ReadCalendar(file);
  if (!text) return text.error();
  auto layout = MapReadable(*text, file);
  if (!layout) return layout.error();
  return !EventsWithUid(*layout, uid).empty();
}

Result<std::optional<json>> ReadCalendarEvent(const ConnectorManifest& m, const std::string& uid) {
  std::lock_guard guard(WriteMutex());
  std::string file = TargetFile(m);
  FileLock lock(file);
  auto body = ReadCalendar(file);
  if (!body) return body.error();
  Component cal(icalparser_parse_string(body->c_str()));
  if (!cal || icalcomponent_isa(cal.get()) != ICAL_VCALENDAR_COMPONENT) {
    return MakeError("connect.ics_invalid", "the calendar file cannot be parsed", file);
  }
  std::vector<icalcomponent*> events;
  for (icalcomponent* c = icalcomponent_get_first_component(cal.get(), ICAL_VEVENT_COMPONENT); c;
       c = icalcomponent_get_next_component(cal.get(), ICAL_VEVENT_COMPONENT)) {
    const char* u = icalcomponent_get_uid(c);
    if (u && uid == u) events.push_back(c);
  }
  if (events.empty()) return std::optional<json>();
  icalcomponent* master = events.front();  // the one without RECURRENCE-ID, when there is one
  for (icalcomponent* e : events) {
    if (icaltime_is_null_time(icalcomponent_get_recurrenceid(e))) {
      master = e;
      break;
    }
  }
  auto text = [](const char* s) { return std::string(s ? s : ""); };
  auto time = [](icaltimetype t) -> json {
    if (icaltime_is_null_time(t)) return nullptr;
    char buf[32];
    if (t.is_date) {
      std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", t.year, t.month, t.day);
      return std::string(buf);
    }
    std::time_t secs =
        icaltime_as_timet_with_zone(t, t.zone ? t.zone : icaltimezone_get_utc_timezone());
    std::tm tm{};
    gmtime_r(&secs, &tm);
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return std::string(buf);
  };
  json row = {
      {"uid", uid},
      {"summary", text(icalcomponent_get_summary(master))},
      {"start", time(icalcomponent_get_dtstart(master))},
      {"end", time(icalcomponent_get_dtend(master))},
      {"recurring", icalcomponent_get_first_property(master, ICAL_RRULE_PROPERTY) != nullptr}};
  if (const char* l = icalcomponent_get_location(master)) row["location"] = l;
  if (const char* d = icalcomponent_get_description(master)) row["description"] = d;
  return std::optional<json>(std::move(row));
}

Result<json> WriteCalendar(const ConnectorManifest& m, const Operation& op, const json& args,
                           const std::string& key) {
  std::lock_guard guard(WriteMutex());
  std::string file = TargetFile(m);
  if (file.empty()) return MakeError("connect.write_failed", "the calendar has no file");
  FileLock lock(file);
  if (!lock.ok()) return MakeError("connect.write_failed", "cannot lock " + file);
  auto text = ReadCalendar(file);
  if (!text) return text.error();
  auto layout = MapReadable(*text, file);
  if (!layout) return layout.error();
  std::string uid =
      op.effect == "create" ? args.value("uid", CalendarUidFor(key)) : args.value("uid", "");
  std::vector<ics::EventSpan> events = EventsWithUid(*layout, uid);
  json response = {{"uid", uid}, {"file", file}};
  std::string out;
  if (op.effect == "create") {
    if (!events.empty()) {
      // The key's event is already there: this key's effect happened before. Change nothing.
      response["already_applied"] = true;
      return response;
    }
    if (!args.contains("start") || !args.contains("end")) {
      return MakeError(ErrorKind::kInvalid, "connect.bad_args", "a new event needs start and end");
    }
    auto settings = Settings(args);
    if (!settings) return settings.error();
    out = *text;
    out.insert(layout->calendar_end, NewEvent(uid, *settings, layout->line_ending));
  } else if (events.empty()) {
    return MakeError("connect.not_found", "the calendar has no event with UID \"" + uid + "\"",
                     file);
  } else if (op.effect == "update") {
    auto settings = Settings(args);
    if (!settings) return settings.error();
    out = ReplaceSpans(*text, events, [&](std::string_view event) {
      return UpdatedEvent(event, *settings, layout->line_ending);
    });
  } else {
    out = ReplaceSpans(*text, events, [](std::string_view) { return std::string(); });
    response["removed"] = events.size();
  }
  if (out == *text) return response;  // an update to the values the event has: nothing to write
  if (!LibicalReads(out) || !ics::MapCalendar(out)) {
    return MakeError("connect.write_failed", "the edited calendar would not parse", file);
  }
  if (Status s = AtomicReplace(file, out); !s) return s.error();
  return response;
}

}  // namespace affordance::connect

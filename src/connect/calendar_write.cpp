// The calendar write path (mutate.h): one VEVENT created, updated or deleted by splicing the
// file's text (internal/ics_text.h), so that every byte outside the touched VEVENTs stays as it
// was; libical, which the read side uses, must read the file before and after. The file is
// replaced atomically. An advisory lock (flock on "<file>.lock") serializes writers of one file
// across processes; readers never see a partial file because rename(2) is atomic.
#include "connect/mutate.h"

#include "base/instant.h"
#include "connect/internal/calendar_edit.h"
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

namespace {

// The file's text and layout under the lock, for a read that must see what a write would.
struct Snapshot {
  std::string file, text;
  ics::CalendarLayout layout;
};
Result<Snapshot> ReadSnapshot(const ConnectorManifest& m) {
  Snapshot snap;
  snap.file = TargetFile(m);
  auto text = ReadCalendar(snap.file);
  if (!text) return text.error();
  snap.text = std::move(*text);
  auto layout = MapReadable(snap.text, snap.file);
  if (!layout) return layout.error();
  snap.layout = std::move(*layout);
  return snap;
}

std::string Iso(int64_t t) { return FormatInstant(t); }

}  // namespace

Result<std::optional<json>> DescribeCalendarScope(const ConnectorManifest& m, const Operation& op,
                                                  const json& args, int64_t now_s) {
  if (op.effect != "update" && op.effect != "delete") return std::optional<json>();
  std::lock_guard guard(WriteMutex());
  FileLock lock(TargetFile(m));
  auto snap = ReadSnapshot(m);
  if (!snap) return snap.error();
  auto series = ics::ReadSeries(snap->text, snap->layout, args.value("uid", ""));
  if (!series) {
    if (series.error().code == "connect.not_found") return std::optional<json>();
    return series.error();
  }
  const int64_t from = now_s - m.sync.past_days * 86400;
  const int64_t to = now_s + m.sync.future_days * 86400;
  json scope = {{"window", {{"from", Iso(from)}, {"to", Iso(to)}}},
                {"overrides", series->overrides()}};
  const size_t before = ics::OccurrenceStarts(*series, from, to).size();
  if (op.effect == "delete") {
    scope["kind"] = series->recurring ? "series" : "event";
    scope["occurrences"] = {{"before", before}, {"after", 0}};
    return std::optional<json>(std::move(scope));
  }
  auto settings = ics::Settings(args);
  if (!settings) return settings.error();
  auto what = ics::ScopeOf(*series, snap->text, *settings, args);
  if (!what) return what.error();
  scope["kind"] = what->kind;
  if (what->kind == "occurrence") {
    scope["occurrence"] = Iso(what->recurrence_id);
    scope["changed_before"] = what->index >= 0;  // it was already changed on its own
    // The occurrence as it is now, for the card's before values (not the series' first one).
    icalcomponent* c =
        series->components[static_cast<size_t>(what->index >= 0 ? what->index : series->master)];
    auto text_of = [](const char* v) { return std::string(v ? v : ""); };
    int64_t start = what->recurrence_id, end = what->recurrence_id + series->duration;
    if (what->index >= 0) {
      start = ics::ToUtc(icalcomponent_get_dtstart(c));
      icaltimetype e = icalcomponent_get_dtend(c);
      end = icaltime_is_null_time(e) ? start : ics::ToUtc(e);
    }
    json current = {{"uid", args.value("uid", "")},
                    {"summary", text_of(icalcomponent_get_summary(c))},
                    {"start", Iso(start)},
                    {"end", Iso(end)},
                    {"recurring", true}};
    if (const char* l = icalcomponent_get_location(c)) current["location"] = l;
    if (const char* d = icalcomponent_get_description(c)) current["description"] = d;
    scope["current"] = current;
    return std::optional<json>(std::move(scope));
  }
  if (what->kind == "series") {
    // A dry run of the write: how many occurrences the series has after it, in the same window.
    std::string out =
        ics::ApplyUpdate(snap->text, *series, *what, *settings, snap->layout.line_ending);
    size_t after = before;
    if (auto layout = ics::MapCalendar(out)) {
      if (auto next = ics::ReadSeries(out, *layout, args.value("uid", ""))) {
        after = ics::OccurrenceStarts(*next, from, to).size();
      }
    }
    scope["occurrences"] = {{"before", before}, {"after", after}};
    scope["moves"] = what->moves;
    scope["overrides_after"] = what->moves ? 0 : series->overrides();
  }
  return std::optional<json>(std::move(scope));
}

Result<json> ReadCalendarUpdate(const ConnectorManifest& m, const json& args,
                                const json& response) {
  std::lock_guard guard(WriteMutex());
  FileLock lock(TargetFile(m));
  auto snap = ReadSnapshot(m);
  if (!snap) return snap.error();
  const std::string uid = args.value("uid", "");
  json evidence = {{"read", "the calendar file"}, {"uid", uid}};
  auto series = ics::ReadSeries(snap->text, snap->layout, uid);
  if (!series) {
    if (series.error().code != "connect.not_found") return series.error();
    evidence["found"] = false;
    evidence["shows"] = false;
    return evidence;
  }
  auto settings = ics::Settings(args);
  if (!settings) return settings.error();
  auto scope = ics::ScopeOf(*series, snap->text, *settings, args);
  if (!scope) return scope.error();
  std::vector<size_t> targets;
  if (scope->kind == "occurrence") {
    if (scope->index >= 0) targets.push_back(static_cast<size_t>(scope->index));
  } else if (scope->kind == "event" || series->master < 0) {
    for (size_t i = 0; i < series->spans.size(); ++i) targets.push_back(i);
  } else {
    targets.push_back(static_cast<size_t>(series->master));
  }
  bool shows = !targets.empty() && !scope->moves;
  json checked = json::array();
  for (size_t i : targets) {
    icalcomponent* c = series->components[i];
    for (const ics::Setting& st : *settings) {
      std::string now;
      const std::string_view prop = st.field->property;
      if (prop == "DTSTART" || prop == "DTEND") {
        icaltimetype t =
            prop == "DTSTART" ? icalcomponent_get_dtstart(c) : icalcomponent_get_dtend(c);
        if (!icaltime_is_null_time(t)) {
          now = Iso(ics::ToUtc(t));
          now.erase(std::remove(now.begin(), now.end(), '-'), now.end());
          now.erase(std::remove(now.begin(), now.end(), ':'), now.end());
        }
      } else {
        const char* v = prop == "SUMMARY"    ? icalcomponent_get_summary(c)
                        : prop == "LOCATION" ? icalcomponent_get_location(c)
                                             : icalcomponent_get_description(c);
        now = v ? v : "";
      }
      const bool same = now == st.value;
      shows = shows && same;
      checked.push_back({{"property", st.field->property}, {"expected", st.value}, {"found", now}});
    }
  }
  if (response.value("overrides_removed", 0) > 0) {
    evidence["overrides"] = series->overrides();
    shows = shows && series->overrides() == 0;
  }
  evidence["scope"] = scope->kind;
  evidence["checked"] = checked;
  evidence["found"] = true;
  evidence["shows"] = shows;
  return evidence;
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
    auto settings = ics::Settings(args);
    if (!settings) return settings.error();
    out = *text;
    out.insert(layout->calendar_end, ics::NewEvent(uid, *settings, layout->line_ending));
  } else if (events.empty()) {
    return MakeError("connect.not_found", "the calendar has no event with UID \"" + uid + "\"",
                     file);
  } else if (op.effect == "update") {
    auto settings = ics::Settings(args);
    if (!settings) return settings.error();
    auto series = ics::ReadSeries(*text, *layout, uid);
    if (!series)
      return MakeError(series.error().kind, series.error().code, series.error().message, file);
    auto scope = ics::ScopeOf(*series, *text, *settings, args);
    if (!scope) return scope.error();
    out = ics::ApplyUpdate(*text, *series, *scope, *settings, layout->line_ending);
    response["scope"] = scope->kind;
    if (scope->kind == "series" && scope->moves)
      response["overrides_removed"] = series->overrides();
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

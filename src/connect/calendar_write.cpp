// The calendar write path (mutate.h): one VEVENT created, updated or deleted with libical, the
// file replaced atomically. An advisory lock (flock on "<file>.lock") serializes writers of one
// file across processes; readers never see a partial file because rename(2) is atomic.
#include "connect/mutate.h"

#include <fcntl.h>
#include <libical/ical.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
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

Result<Component> Load(const std::string& file) {
  if (!fs::exists(file)) {
    Component cal(icalcomponent_new_vcalendar());
    icalcomponent_add_property(cal.get(), icalproperty_new_version("2.0"));
    icalcomponent_add_property(cal.get(), icalproperty_new_prodid("-//affordance//authority//EN"));
    return cal;
  }
  std::ifstream in(file, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Component cal(icalparser_parse_string(text.c_str()));
  if (!cal || icalcomponent_isa(cal.get()) != ICAL_VCALENDAR_COMPONENT) {
    return MakeError("connect.ics_invalid", "the calendar file cannot be parsed", file);
  }
  return cal;
}

std::vector<icalcomponent*> EventsWithUid(icalcomponent* cal, const std::string& uid) {
  std::vector<icalcomponent*> out;
  for (icalcomponent* c = icalcomponent_get_first_component(cal, ICAL_VEVENT_COMPONENT); c;
       c = icalcomponent_get_next_component(cal, ICAL_VEVENT_COMPONENT)) {
    const char* u = icalcomponent_get_uid(c);
    if (u && uid == u) out.push_back(c);
  }
  return out;
}

Result<icaltimetype> UtcTime(const json& args, const char* name) {
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
  return icaltime_from_timet_with_zone(timegm(&tm), 0, icaltimezone_get_utc_timezone());
}

Status SetFields(icalcomponent* ev, const json& args) {
  if (args.contains("summary"))
    icalcomponent_set_summary(ev, args["summary"].get<std::string>().c_str());
  if (args.contains("location")) {
    icalcomponent_set_location(ev, args["location"].get<std::string>().c_str());
  }
  if (args.contains("description")) {
    icalcomponent_set_description(ev, args["description"].get<std::string>().c_str());
  }
  for (const char* field : {"start", "end"}) {
    if (!args.contains(field)) continue;
    auto t = UtcTime(args, field);
    if (!t) return t.error();
    if (std::string(field) == "start") {
      icalcomponent_set_dtstart(ev, *t);
    } else {
      icalcomponent_set_dtend(ev, *t);
    }
  }
  return {};
}

// Temporary file in the same folder, fsync, rename over the target, fsync the folder.
Status AtomicReplace(const std::string& file, const std::string& text) {
  std::string tmp = file + ".tmp-" + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return MakeError("connect.write_failed", "cannot create " + tmp);
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
  auto cal = Load(file);
  if (!cal) return cal.error();
  return !EventsWithUid(cal->get(), uid).empty();
}

Result<std::optional<json>> ReadCalendarEvent(const ConnectorManifest& m, const std::string& uid) {
  std::lock_guard guard(WriteMutex());
  std::string file = TargetFile(m);
  FileLock lock(file);
  auto cal = Load(file);
  if (!cal) return cal.error();
  std::vector<icalcomponent*> events = EventsWithUid(cal->get(), uid);
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
  auto loaded = Load(file);
  if (!loaded) return loaded.error();
  icalcomponent* cal = loaded->get();
  std::string uid =
      op.effect == "create" ? args.value("uid", CalendarUidFor(key)) : args.value("uid", "");
  std::vector<icalcomponent*> events = EventsWithUid(cal, uid);
  json response = {{"uid", uid}, {"file", file}};
  if (op.effect == "create") {
    if (!events.empty()) {
      // The key's event is already there: this key's effect happened before. Change nothing.
      response["already_applied"] = true;
      return response;
    }
    if (!args.contains("start") || !args.contains("end")) {
      return MakeError(ErrorKind::kInvalid, "connect.bad_args", "a new event needs start and end");
    }
    icalcomponent* ev = icalcomponent_new_vevent();
    icalcomponent_set_uid(ev, uid.c_str());
    icalcomponent_set_dtstamp(
        ev, icaltime_from_timet_with_zone(std::time(nullptr), 0, icaltimezone_get_utc_timezone()));
    if (Status s = SetFields(ev, args); !s) {
      icalcomponent_free(ev);
      return s.error();
    }
    icalcomponent_add_component(cal, ev);
  } else if (events.empty()) {
    return MakeError("connect.not_found", "the calendar has no event with UID \"" + uid + "\"",
                     file);
  } else if (op.effect == "update") {
    for (icalcomponent* ev : events) {
      if (Status s = SetFields(ev, args); !s) return s.error();
    }
  } else {
    for (icalcomponent* ev : events) {
      icalcomponent_remove_component(cal, ev);
      icalcomponent_free(ev);
    }
    response["removed"] = events.size();
  }
  char* text = icalcomponent_as_ical_string_r(cal);
  std::string out = text ? text : "";
  std::free(text);
  if (Status s = AtomicReplace(file, out); !s) return s.error();
  return response;
}

}  // namespace affordance::connect

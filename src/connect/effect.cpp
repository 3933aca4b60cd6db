#include "connect/effect.h"

#include "base/instant.h"
#include "connect/printed_cli.h"
#include "text/display_width.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>

namespace affordance::connect {

namespace {

using nlohmann::json;

// The calendar write path's arguments, in the order a person reads an event.
struct CalendarField {
  const char* name;
  const char* label;
  const char* kind;
};
constexpr CalendarField kCalendarFields[] = {
    {"summary", "Title", "text"},
    {"start", "Starts", "datetime"},
    {"end", "Ends", "datetime"},
    {"location", "Where", "text"},
    {"description", "Notes", "text"},
    {"uid", "Event UID", "text"},
    {"occurrence", "Occurrence", "datetime"},
};

std::string Plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

bool IsCalendar(const ConnectorManifest& m, const Operation& op) {
  return m.source.kind == SourceKind::kIcs && !op.effect.empty();
}

std::string Humanize(const std::string& name) {
  std::string out = name;
  for (char& c : out) {
    if (c == '_' || c == '-') c = ' ';
  }
  if (!out.empty() && out[0] >= 'a' && out[0] <= 'z') out[0] = static_cast<char>(out[0] - 32);
  return out;
}

std::string Display(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return v.dump();
}

// "{name}" placeholders replaced by the args' values; an unknown name stays as written.
std::string FillTemplate(const std::string& text, const json& args) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    size_t close = text[i] == '{' ? text.find('}', i) : std::string::npos;
    if (close != std::string::npos) {
      std::string name = text.substr(i + 1, close - i - 1);
      if (args.is_object() && args.contains(name)) {
        out += Display(args[name]);
        i = close;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

std::string SourceName(const ConnectorManifest& m) {
  namespace fs = std::filesystem;
  switch (m.source.kind) {
    case SourceKind::kIcs:
      return m.source.paths.empty() ? "" : fs::path(m.source.paths[0]).filename().string();
    case SourceKind::kSqlite:
      return fs::path(m.source.path).filename().string();
    case SourceKind::kPrintedCli:
      return fs::path(m.source.command).filename().string();
    case SourceKind::kMcp:
      return m.source.url.empty() ? "MCP server " + fs::path(m.source.command).filename().string()
                                  : "MCP server " + m.source.url;
  }
  return "";
}

std::string KindOf(const json& schema) {
  const std::string format = schema.value("format", "");
  if (format == "date-time") return "datetime";
  if (format == "date") return "date";
  const json type = schema.value("type", json());
  const std::string t = type.is_string() ? type.get<std::string>() : "";
  if (t == "integer" || t == "number") return "number";
  if (t == "boolean") return "boolean";
  if (t == "object" || t == "array") return "json";
  return "text";
}

// The argument names of a generic mutation: required ones in their order, then the rest.
std::vector<std::string> ArgOrder(const json& schema) {
  std::vector<std::string> names;
  const json required = schema.value("required", json::array());
  const json props = schema.value("properties", json::object());
  for (const auto& r : required) {
    if (r.is_string()) names.push_back(r.get<std::string>());
  }
  for (const auto& [k, v] : props.items()) {
    if (std::find(names.begin(), names.end(), k) == names.end()) names.push_back(k);
  }
  return names;
}

json Field(const std::string& name, const std::string& label, const std::string& kind) {
  return {{"name", name}, {"label", label}, {"kind", kind}};
}

}  // namespace

std::optional<BeforeRead> BeforeReadOf(const Operation& op, const json& args) {
  if (!op.before_operation.empty()) {
    BeforeRead r;
    r.operation = op.before_operation;
    for (const auto& [k, v] : op.before_args.items()) {
      const bool bound = v.is_string() && v.get<std::string>().size() > 1 &&
                         v.get<std::string>()[0] == '$' &&
                         args.contains(v.get<std::string>().substr(1));
      r.args[k] = bound ? args[v.get<std::string>().substr(1)] : v;
    }
    return r;
  }
  if ((op.effect == "update" || op.effect == "delete") && args.contains("uid")) {
    return BeforeRead{"", {{"uid", args["uid"]}}};
  }
  return std::nullopt;
}

json DescribeMutation(const ConnectorManifest& m, const Operation& op, const json& args,
                      const std::optional<json>& before, const json& scope) {
  const bool calendar = IsCalendar(m, op);
  const std::string verb = op.effect.empty() ? "write" : op.effect;
  const bool removes = verb == "delete";
  json fields = json::array();
  auto add = [&](const std::string& name, const std::string& label, const std::string& kind) {
    json f = Field(name, label, kind);
    const bool given = args.contains(name);
    if (!removes && given) f["after"] = args[name];
    if (before && before->contains(name)) {
      f["before"] = (*before)[name];
      if (!removes && given) f["changed"] = (*before)[name] != args[name];
    }
    if (f.contains("after") || f.contains("before")) fields.push_back(std::move(f));
  };
  if (calendar) {
    for (const auto& f : kCalendarFields) add(f.name, f.label, f.kind);
  } else {
    const json props = op.args_schema.value("properties", json::object());
    for (const auto& name : ArgOrder(op.args_schema)) {
      const json schema = props.value(name, json::object());
      add(name, schema.value("title", Humanize(name)), KindOf(schema));
    }
    if (removes && before && before->is_object()) {
      // A delete shows what goes away: every field of the row the fresh read found.
      for (const auto& [k, v] : before->items()) {
        if (!props.contains(k)) add(k, Humanize(k), "text");
      }
    }
  }

  std::string summary;
  if (!op.summary.empty()) {
    summary = FillTemplate(op.summary, args);
  } else if (calendar) {
    std::string name =
        verb == "create" ? args.value("summary", "") : (before ? before->value("summary", "") : "");
    if (name.empty()) name = args.value("uid", "");
    summary = (verb == "create"   ? "Create"
               : verb == "update" ? "Change"
                                  : "Delete") +
              std::string(" event “") + name + "”";
    const std::string kind = scope.is_object() ? scope.value("kind", "") : "";
    const size_t overrides = scope.is_object() ? scope.value("overrides", size_t{0}) : 0;
    if (removes && before && before->value("recurring", false)) {
      summary += ", every occurrence";
    } else if (kind == "occurrence") {
      summary = "Change one occurrence of “" + name + "”; the rest of the series stays as it is";
    } else if (kind == "series") {
      summary = "Change every occurrence of “" + name + "” (the whole series)";
      if (overrides > 0) {
        summary += scope.value("moves", false)
                       ? "; its " +
                             Plural(overrides, "separately changed occurrence returns",
                                    "separately changed occurrences return") +
                             " to the series"
                       : "; its " +
                             Plural(overrides, "separately changed occurrence keeps its",
                                    "separately changed occurrences keep their") +
                             " own time and takes the new text";
      }
    }
    if (kind == "series" && scope.contains("occurrences")) {
      // How many occurrences there are in the calendar's window, now and after the write.
      const json& n = scope["occurrences"];
      json f = Field("occurrences", "Occurrences in the window", "number");
      f["before"] = n.value("before", 0);
      if (!removes) {
        f["after"] = n.value("after", 0);
        f["changed"] = f["before"] != f["after"];
      }
      fields.push_back(std::move(f));
      if (overrides > 0 && !removes) {
        json o = Field("overrides", "Separately changed", "number");
        o["before"] = overrides;
        o["after"] = scope.value("overrides_after", overrides);
        o["changed"] = o["before"] != o["after"];
        fields.push_back(std::move(o));
      }
    }
  } else {
    summary = Humanize(op.name) + " in " + (m.title.empty() ? m.slug : m.title);
  }
  std::string where = m.title.empty() ? m.slug : m.title;
  const std::string source = SourceName(m);
  if (!source.empty()) where += " (" + source + ")";
  json effect = {{"verb", verb}, {"summary", summary}, {"target", where}, {"fields", fields}};
  if (scope.is_object()) effect["scope"] = scope;
  return effect;
}

std::string LocalTime(const std::string& iso) {
  // Read strictly (base/instant.h): a text that names no real instant is shown as written, never
  // as the instant a lenient reader would carry it into.
  char buf[96];
  if (std::optional<int64_t> day = ParseDay(iso)) {
    std::time_t t = static_cast<std::time_t>(*day + 12 * 3600);
    std::tm tm{};
    gmtime_r(&t, &tm);
    std::strftime(buf, sizeof buf, "%a %d %b %Y", &tm);
  } else if (std::optional<int64_t> at = ParseInstant(iso)) {
    std::time_t t = static_cast<std::time_t>(*at);
    std::tm local{};
    localtime_r(&t, &local);
    std::strftime(buf, sizeof buf, "%a %d %b %Y, %H:%M %Z", &local);
  } else {
    return iso;
  }
  std::string out = buf;
  // "Thu 03 Dec" reads as "Thu 3 Dec".
  if (out.size() > 5 && out[4] == '0') out.erase(4, 1);
  return out;
}

namespace {

std::string Value(const json& field, const char* which) {
  if (!field.contains(which)) return "";
  const json& v = field[which];
  const std::string kind = field.value("kind", "text");
  if ((kind == "datetime" || kind == "date") && v.is_string())
    return LocalTime(v.get<std::string>());
  std::string text = Display(v);
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return text;
}

std::string Cap(std::string line, size_t width) {
  if (width == 0) return line;
  size_t points = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    if ((static_cast<unsigned char>(line[i]) & 0xC0) == 0x80) continue;
    if (++points == width) {
      size_t end = i;
      while (end < line.size() && (static_cast<unsigned char>(line[end]) & 0xC0) == 0x80) ++end;
      if (end + 1 < line.size()) return line.substr(0, i) + "…";
    }
  }
  return line;
}

// How long until an expiry, in the one rounding rule every door uses (the web's expiry() in
// web/src/message.tsx says the same): whole seconds under 90 s, then minutes under 90 min, hours
// under 36 h, else days, each rounded to the nearest (a half rounds up).
std::string Ago(int64_t delta_ms) {
  const int64_t s = delta_ms / 1000;
  if (s < 90) return std::to_string(s) + " s";
  if (s < 90 * 60) return std::to_string((s + 30) / 60) + " min";
  if (s < 36 * 3600) return std::to_string((s + 1800) / 3600) + " h";
  return std::to_string((s + 43200) / 86400) + " days";
}

std::string IsoOf(int64_t ms) {
  std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

std::vector<std::string> EffectLines(const json& effect, int64_t expires_ms, int64_t now_ms,
                                     size_t width) {
  std::vector<std::string> lines;
  if (!effect.is_object() || !effect.contains("summary")) {
    lines.push_back("(no effect recorded: staged before effects were described; see the args)");
    return lines;
  }
  lines.push_back(Cap(effect.value("summary", ""), width));
  std::string where = "  in " + effect.value("target", "");
  if (expires_ms > 0) {
    where += expires_ms > now_ms ? " · expires " + LocalTime(IsoOf(expires_ms)) + " (in " +
                                       Ago(expires_ms - now_ms) + ")"
                                 : " · expired " + LocalTime(IsoOf(expires_ms));
  }
  lines.push_back(Cap(where, width));
  size_t label_width = 0;
  for (const auto& f : effect.value("fields", json::array())) {
    label_width = std::max(label_width, f.value("label", "").size());
  }
  const bool removes = effect.value("verb", "") == "delete";
  for (const auto& f : effect.value("fields", json::array())) {
    std::string label = f.value("label", "");
    label.resize(label_width, ' ');
    std::string value;
    if (removes) {
      value = Value(f, "before") + "  (removed)";
    } else if (f.value("changed", false)) {
      value = Value(f, "before") + " → " + Value(f, "after");
    } else {
      value = Value(f, f.contains("after") ? "after" : "before");
      if (f.contains("before") && f.contains("after")) value += "  (unchanged)";
    }
    lines.push_back(Cap("  " + label + "  " + value, width));
  }
  if (effect.contains("argv") && effect["argv"].is_array()) {
    std::vector<std::string> argv;
    for (const auto& w : effect["argv"]) argv.push_back(Display(w));
    lines.push_back(Cap("  runs " + ArgvText(argv), width));
  }
  const json before = effect.value("before", json::object());
  if (before.contains("error")) {
    lines.push_back(
        Cap("  the current values could not be read: " + Display(before["error"]), width));
  } else if (before.contains("found") && !before.value("found", false)) {
    lines.push_back(
        Cap("  a fresh read found nothing to change: it would fail or do nothing", width));
  }
  // Titles and values come from the source and the model: printed, they move no cursor.
  for (auto& l : lines) l = text::Printable(l);
  return lines;
}

}  // namespace affordance::connect

#include "connect/internal/ics_text.h"

#include <algorithm>

namespace affordance::connect::ics {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";
constexpr size_t kMaxOctets = 75;  // per physical line, terminator excluded (RFC 5545 3.1)

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

// One physical line: [begin, content_end) is its content, [content_end, end) its terminator.
struct PhysicalLine {
  size_t begin = 0, content_end = 0, end = 0;
};

PhysicalLine NextPhysicalLine(std::string_view text, size_t at) {
  size_t nl = text.find('\n', at);
  if (nl == std::string_view::npos) return {at, text.size(), text.size()};
  size_t content_end = (nl > at && text[nl - 1] == '\r') ? nl - 1 : nl;
  return {at, content_end, nl + 1};
}

// Fills `name` and `value_at` from `unfolded`.
void ParseName(ContentLine& line) {
  const std::string& u = line.unfolded;
  size_t name_end = u.find_first_of(";:");
  line.name = Upper(std::string_view(u).substr(0, name_end));
  line.value_at = u.size();
  bool quoted = false;
  for (size_t i = name_end == std::string::npos ? u.size() : name_end; i < u.size(); ++i) {
    if (u[i] == '"') quoted = !quoted;
    if (u[i] == ':' && !quoted) {
      line.value_at = i + 1;
      return;
    }
  }
}

bool IsUtf8Continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

std::vector<ContentLine> SplitContentLines(std::string_view text) {
  std::vector<ContentLine> lines;
  for (size_t at = 0; at < text.size();) {
    PhysicalLine p = NextPhysicalLine(text, at);
    size_t from = at == 0 && text.substr(0, kBom.size()) == kBom ? kBom.size() : p.begin;
    std::string_view content = text.substr(from, p.content_end - from);
    bool continues =
        !lines.empty() && !content.empty() && (content[0] == ' ' || content[0] == '\t');
    if (continues) {
      lines.back().unfolded.append(content.substr(1));
      lines.back().end = p.end;
    } else {
      lines.push_back({p.begin, p.end, std::string(content), "", 0});
    }
    at = p.end;
  }
  for (ContentLine& line : lines) ParseName(line);
  return lines;
}

Result<CalendarLayout> MapCalendar(std::string_view text) {
  CalendarLayout layout;
  PhysicalLine first = NextPhysicalLine(text, 0);
  layout.line_ending =
      first.end > first.content_end
          ? std::string(text.substr(first.content_end, first.end - first.content_end))
          : "\r\n";
  std::vector<std::string> open;  // the components the current line is inside, outermost first
  bool seen_calendar = false;
  for (const ContentLine& line : SplitContentLines(text)) {
    if (line.name == "BEGIN") {
      std::string component = Upper(line.value());
      if (open.empty() && component != "VCALENDAR") continue;  // text before the calendar
      seen_calendar = true;
      if (open.size() == 1 && component == "VEVENT") layout.events.push_back({line.begin, 0, ""});
      open.push_back(std::move(component));
    } else if (line.name == "END" && !open.empty()) {
      std::string component = Upper(line.value());
      if (open.back() != component) {
        return MakeError("connect.ics_invalid",
                         "the calendar's " + open.back() + " is closed by END:" + component);
      }
      open.pop_back();
      if (open.size() == 1 && component == "VEVENT") layout.events.back().end = line.end;
      if (open.empty()) {
        layout.calendar_end = line.begin;
        return layout;
      }
    } else if (line.name == "UID" && open.size() == 2 && open.back() == "VEVENT" &&
               layout.events.back().uid.empty()) {
      layout.events.back().uid = UnescapeText(line.value());
    }
  }
  if (!seen_calendar) return MakeError("connect.ics_invalid", "the file has no BEGIN:VCALENDAR");
  return MakeError("connect.ics_invalid", "the calendar has no END:VCALENDAR line");
}

std::string EscapeText(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (size_t i = 0; i < value.size(); ++i) {
    char c = value[i];
    if (c == '\\' || c == ';' || c == ',') {
      out += '\\';
      out += c;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < value.size() && value[i + 1] == '\n') ++i;
      out += "\\n";
    } else if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7F) {
      continue;
    } else {
      out += c;
    }
  }
  return out;
}

std::string UnescapeText(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (size_t i = 0; i < value.size(); ++i) {
    char c = value[i];
    char next = i + 1 < value.size() ? value[i + 1] : '\0';
    if (c == '\\' && (next == '\\' || next == ';' || next == ',')) {
      out += next;
      ++i;
    } else if (c == '\\' && (next == 'n' || next == 'N')) {
      out += '\n';
      ++i;
    } else {
      out += c;
    }
  }
  return out;
}

std::string FoldLine(std::string_view line, std::string_view eol) {
  std::string out;
  size_t at = 0;
  bool first = true;
  do {
    size_t room = first ? kMaxOctets : kMaxOctets - 1;  // a continuation spends one on its space
    size_t cut = std::min(line.size(), at + room);
    // Back up to the start of a UTF-8 sequence; a run of stray continuation bytes longer than a
    // line (not UTF-8 at all) is cut where it must be.
    size_t safe = cut;
    while (safe < line.size() && safe > at && IsUtf8Continuation(line[safe])) --safe;
    if (safe > at) cut = safe;
    if (!first) out += ' ';
    out.append(line.substr(at, cut - at));
    out.append(eol);
    at = cut;
    first = false;
  } while (at < line.size());
  return out;
}

}  // namespace affordance::connect::ics

#include "cli/terminal.h"

#include "connect/effect.h"
#include "harness/harness.h"
#include "store/store.h"
#include "text/display_width.h"

#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace affordance::cli {

bool IsTty(int fd) { return isatty(fd) == 1; }

size_t TerminalWidth(int fd) {
  if (const char* columns = std::getenv("COLUMNS"); columns != nullptr && *columns != '\0') {
    char* end = nullptr;
    long n = std::strtol(columns, &end, 10);
    if (*end == '\0' && n > 0 && n < 100000) return static_cast<size_t>(n);
  }
  winsize ws{};
  if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

bool ColorWanted(int fd) {
  const char* no_color = std::getenv("NO_COLOR");
  return IsTty(fd) && (no_color == nullptr || *no_color == '\0');
}

namespace {
const char* kFrames[] = {"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"};

std::string Shorten(const std::string& s, size_t n);

// `key: value, key: value` with short scalar values and {…} / […] for nested ones: what a person
// needs to recognise a call at a glance.
std::string ArgsSummary(const nlohmann::ordered_json& input) {
  if (!input.is_object()) return input.is_null() ? "" : Shorten(input.dump(), 40);
  std::string out;
  for (const auto& [key, value] : input.items()) {
    std::string v;
    if (value.is_string()) {
      v = Shorten(value.get<std::string>(), 28);
      for (char& c : v)
        if (c == '\n') c = ' ';
    } else if (value.is_object()) {
      auto op = value.find("operation");
      v = op != value.end() && op->is_string() ? op->get<std::string>() + "(…)" : "{…}";
    } else if (value.is_array()) {
      v = value.size() <= 3 ? Shorten(value.dump(), 28) : "[" + std::to_string(value.size()) + "]";
    } else {
      v = value.dump();
    }
    out += (out.empty() ? "" : ", ") + key + ": " + v;
  }
  return out;
}

// What a connector result served of what its source held, when that is less than all of it or
// when some of its reads failed: "5 of 30 rows, cut by the limit", "11 of 12 rows, 1 read failed:
// get_item id 7". "" for a whole result (and for anything that is not a connector result).
std::string ServedNote(const nlohmann::ordered_json& out) {
  if (!out.is_object() || !out.contains("returned_rows") || !out.contains("total_rows")) return "";
  const auto returned = out.value("returned_rows", int64_t{0});
  const auto total = out.value("total_rows", int64_t{0});
  const bool truncated = out.value("truncated", false);
  const bool partial = out.value("status", "") == "partial";
  if (!truncated && !partial && returned == total) return "";
  std::string note = std::to_string(returned) + " of " + std::to_string(total) +
                     (out.value("total_rows_exact", true) ? "" : "+") + " rows";
  if (truncated) {
    const std::string reason = out.value("truncated_reason", "");
    note += reason == "limit"      ? ", cut by the limit"
            : reason == "char_cap" ? ", cut at the result's size cap"
                                   : ", the source stopped at its row cap";
  }
  if (partial) {
    int64_t failed = 0;
    std::string which;
    for (const auto& entry : out.value("operation_ledger", nlohmann::ordered_json::array())) {
      const auto& fan = entry.value("fan_out", nlohmann::ordered_json());
      if (!fan.is_object()) continue;
      failed += fan.value("failed", int64_t{0});
      for (const auto& e : fan.value("errors", nlohmann::ordered_json::array())) {
        if (which.size() > 60) break;
        const auto& id = e.value("id", nlohmann::ordered_json());
        which += (which.empty() ? ": " + e.value("operation", "") + " id " : ", ") +
                 (id.is_string() ? id.get<std::string>() : id.dump());
      }
    }
    note += failed > 0 ? ", " + std::to_string(failed) + (failed == 1 ? " read" : " reads") +
                             " failed" + which
                       : ", partial: the source failed part of the request";
  }
  return note;
}

std::string Shorten(const std::string& s, size_t n) {
  if (s.size() <= n) return s;
  size_t cut = n - 1;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "…";
}
}  // namespace

TerminalView::TerminalView(std::ostream& out, bool tty, SurfaceSource surfaces)
    : out_(out),
      tty_(tty),
      color_(tty && ColorWanted(1)),
      surfaces_(surfaces),
      columns_(TerminalWidth(1)) {
  if (!tty_) return;
  if (columns_ > 20) width_ = columns_ - 1;
  spinner_ = std::thread([this] {
    size_t frame = 0;
    while (!quit_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(90));
      std::lock_guard<std::mutex> lock(mu_);
      if (!spinning_ || !at_line_start_) continue;
      auto secs = std::chrono::duration_cast<std::chrono::seconds>(
                      std::chrono::steady_clock::now() - step_started_)
                      .count();
      out_ << "\r\033[K" << Color("36", kFrames[frame++ % 10]) << " "
           << Dim(spin_label_ + (secs > 0 ? " " + std::to_string(secs) + "s" : "")) << std::flush;
      spinner_drawn_ = true;
    }
  });
}

TerminalView::~TerminalView() {
  quit_ = true;
  if (spinner_.joinable()) spinner_.join();
  std::lock_guard<std::mutex> lock(mu_);
  if (spinner_drawn_) out_ << "\r\033[K" << std::flush;
}

std::string TerminalView::Dim(const std::string& s) const {
  return color_ ? "\033[2m" + s + "\033[0m" : s;
}

std::string TerminalView::Color(const char* code, const std::string& s) const {
  return color_ ? std::string("\033[") + code + "m" + s + "\033[0m" : s;
}

std::string TerminalView::Fit(const std::string& text) const {
  if (!tty_ || columns_ < 8) return text;  // a file or a pipe keeps whole lines
  std::string out;
  for (size_t start = 0;;) {
    size_t nl = text.find('\n', start);
    std::string rest = text.substr(start, nl == std::string::npos ? nl : nl - start);
    // Folded, not cut: a command to type (approve, deny) must stay whole. Continuations are
    // indented two more than the line and break at the last space that fits (inside a word only
    // when no space lies in the last two thirds of the room).
    const size_t indent = std::min(rest.find_first_not_of(' '), columns_ / 2);
    const std::string more(indent + 2, ' ');
    for (bool first = true; text::DisplayWidth(rest) > (first ? columns_ : columns_ - more.size());
         first = false) {
      const size_t room = first ? columns_ : columns_ - more.size();
      size_t cut = std::max<size_t>(text::FittingPrefix(rest, room), 1);
      size_t space = rest.rfind(' ', cut);
      if (space != std::string::npos && space > indent && space >= cut / 3) cut = space;
      out += rest.substr(0, cut) + "\n" + more;
      rest = rest.substr(std::min(rest.find_first_not_of(' ', cut), rest.size()));
    }
    out += rest;
    if (nl == std::string::npos) return out;
    out += '\n';
    start = nl + 1;
  }
}

void TerminalView::Write(const std::string& text) {
  std::lock_guard<std::mutex> lock(mu_);
  if (spinner_drawn_) {
    out_ << "\r\033[K";
    spinner_drawn_ = false;
  }
  out_ << text << std::flush;
  if (!text.empty()) at_line_start_ = text.back() == '\n';
}

void TerminalView::FlushWord() {
  if (word_.empty()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (at_line_start_) column_ = 0;
  }
  size_t n = text::DisplayWidth(word_);
  if (width_ > 0 && column_ > 0 && column_ + n > width_) {
    Write("\n");
    column_ = 0;
  }
  Write(word_);
  column_ += n;
  word_.clear();
}

void TerminalView::Prose(const std::string& delta) {
  if (width_ == 0) {
    Write(delta);
    return;
  }
  for (char ch : delta) {
    if (ch == ' ' || ch == '\n') {
      FlushWord();
      Write(std::string(1, ch));
      column_ = ch == '\n' ? 0 : column_ + 1;
    } else {
      word_.push_back(ch);
    }
  }
}

void TerminalView::Line(const std::string& text) {
  FlushWord();
  column_ = 0;
  bool start;
  {
    std::lock_guard<std::mutex> lock(mu_);
    start = at_line_start_;
  }
  Write((start ? "" : "\n") + Fit(text) + "\n");
}

void TerminalView::Spin(const std::string& label) {
  std::lock_guard<std::mutex> lock(mu_);
  if (replaying_) return;
  spin_label_ = label;
  spinning_ = true;
}

void TerminalView::StopSpin() {
  std::lock_guard<std::mutex> lock(mu_);
  spinning_ = false;
  if (spinner_drawn_) {
    out_ << "\r\033[K" << std::flush;
    spinner_drawn_ = false;
  }
}

void TerminalView::ShowEffect(const nlohmann::ordered_json& approval) {
  const nlohmann::json a = nlohmann::json::parse(approval.dump());
  const size_t cap = width_ > 4 ? width_ - 4 : 0;
  bool first = true;
  for (const auto& line :
       connect::EffectLines(a.value("effect", nlohmann::json::object()),
                            a.value("expiresMs", int64_t{0}), store::NowMs(), cap)) {
    Line("    " + (first ? Color("1", line) : line));
    first = false;
  }
  std::string digest = a.value("digest", "");
  Line("    " + Dim("approve: affordance approvals approve " + a.value("approvalId", "") +
                    (digest.empty() ? "" : " --digest " + digest.substr(0, 12)) +
                    "   deny: affordance approvals deny " + a.value("approvalId", "")));
}

namespace {

// Every string of `v` (keys too) made printable (text::Printable).
nlohmann::ordered_json PrintableJson(const nlohmann::ordered_json& v) {
  if (v.is_string()) return text::Printable(v.get_ref<const std::string&>());
  if (v.is_array()) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& e : v) out.push_back(PrintableJson(e));
    return out;
  }
  if (v.is_object()) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (auto it = v.begin(); it != v.end(); ++it) {
      out[text::Printable(it.key())] = PrintableJson(it.value());
    }
    return out;
  }
  return v;
}

}  // namespace

namespace {

// The mark a citation gets inline, and its colour: the weakest class among its references.
struct Mark {
  const char* glyph;
  const char* color;
};
Mark MarkOf(std::string_view cls) {
  if (cls == "source") return {"◦", "36"};      // ◦
  if (cls == "effect") return {"✓", "32"};      // ✓
  if (cls == "unresolved") return {"!", "33"};  // !
  return {"✗", "31"};                           // ✗ invalid
}
int Weakness(std::string_view cls) {
  return cls == "invalid" ? 3 : cls == "unresolved" ? 2 : cls == "effect" ? 1 : 0;
}

std::string Ago(int64_t then) {
  const int64_t s = std::chrono::duration_cast<std::chrono::seconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count() -
                    then;
  if (s < 120) return std::to_string(std::max<int64_t>(s, 0)) + " s ago";
  if (s < 7200) return std::to_string(s / 60) + " min ago";
  if (s < 172800) return std::to_string(s / 3600) + " h ago";
  return std::to_string(s / 86400) + " days ago";
}

}  // namespace

void TerminalView::Cite(const nlohmann::ordered_json& citation) {
  std::string weakest = "source";
  for (const auto& facts : citation.value("refs", nlohmann::ordered_json::array())) {
    if (!facts.is_object()) continue;
    const std::string cls = facts.value("class", "invalid");
    if (Weakness(cls) > Weakness(weakest)) weakest = cls;
    const std::string ref = facts.value("ref", "");
    const bool seen = std::any_of(cited_.begin(), cited_.end(),
                                  [&](const auto& c) { return c.value("ref", "") == ref; });
    if (!seen) cited_.push_back(nlohmann::json::parse(facts.dump()));
  }
  const Mark mark = MarkOf(weakest);
  if (width_ == 0) {
    Write(Color(mark.color, mark.glyph));
  } else {
    word_ += Color(mark.color, mark.glyph);
  }
}

void TerminalView::EndOfTurn(std::string_view status, size_t steps, const std::string& weakest,
                             const std::string& claims, int64_t prompt, int64_t cached) {
  std::vector<std::string> facts = {"— " + std::string(status),
                                    std::to_string(steps) + " step" + (steps == 1 ? "" : "s")};
  if (!weakest.empty()) facts.push_back("evidence " + weakest);
  if (!claims.empty()) facts.push_back(claims);
  Legend();
  facts.push_back(std::to_string(prompt) + " prompt tokens (" + std::to_string(cached) +
                  " cached)");
  // One line when it fits, else broken between facts.
  std::string lines, current;
  for (const auto& f : facts) {
    if (current.empty()) {
      current = f;
    } else if (text::DisplayWidth(current) + 3 + text::DisplayWidth(f) <= columns_) {
      current += " · " + f;
    } else {
      lines += Dim(current) + "\n";
      current = "  " + f;
    }
  }
  Line("");
  Line(lines + Dim(current));
}

std::string TerminalView::ClaimCounts(const std::vector<harness::Claim>& claims) const {
  std::map<harness::ClaimClass, int> n;
  for (const auto& c : claims) ++n[c.cls];
  std::string out = "claims";
  const char* sep = " ";
  for (auto cls : {harness::ClaimClass::kSource, harness::ClaimClass::kEffect,
                   harness::ClaimClass::kUnresolved, harness::ClaimClass::kInference}) {
    if (n[cls] == 0) continue;
    out += sep + std::to_string(n[cls]) + " " + std::string(harness::ClaimClassName(cls));
    sep = ", ";
  }
  return out;
}

void TerminalView::Legend() {
  if (cited_.empty()) return;
  Line("");
  for (const auto& f : cited_) {
    const std::string cls = f.value("class", "invalid");
    const Mark mark = MarkOf(cls);
    std::string facts;
    if (f.contains("toolName")) facts += " · " + f.value("toolName", "");
    if (f.contains("connector")) facts += " · " + f.value("connector", "");
    if (f.contains("dataState")) {
      facts += " · " + f.value("dataState", "");
      const std::string state = f.value("dataState", "");
      if (f.contains("syncedAt") && state != "live" && state != "local") {
        facts += ", synced " + Ago(f.value("syncedAt", int64_t{0}));
      }
    }
    if (f.contains("rows")) {
      const int64_t rows = f.value("rows", int64_t{0});
      facts += " · " + std::to_string(rows) + (rows == 1 ? " row" : " rows");
    }
    if (f.contains("reason")) facts += " · " + f.value("reason", "");
    Line("  " + Color(mark.color, mark.glyph) + " [" + f.value("ref", "") + "] " +
         Color(mark.color, cls) + Dim(facts));
  }
  Line("  " + Color("36", "\u25e6") + Dim(" source  ") + Color("32", "\u2713") + Dim(" effect  ") +
       Color("33", "!") + Dim(" unresolved  ") + Color("31", "\u2717") +
       Dim(" invalid  · unmarked prose is inference"));
  cited_.clear();
}

void TerminalView::Show(const harness::Event& event) {
  // The one boundary: what the model, a connector or a tool wrote reaches the screen only as
  // printable text, so no output can style, move or erase what the person reads (an effect card
  // hidden before they decide); our own colours are added after this.
  using harness::EventKind;
  harness::Event e = event;
  const bool prose = e.kind == EventKind::kTextDelta || e.kind == EventKind::kReasoningDelta;
  e.text = text::Printable(e.text, prose);
  for (std::string* s :
       {&e.id, &e.tool_name, &e.input_text, &e.approval_id, &e.state, &e.data_state, &e.ref}) {
    *s = text::Printable(*s);
  }
  if (!e.value.is_null()) e.value = PrintableJson(e.value);
  switch (e.kind) {
    case EventKind::kStartStep:
      step_started_ = std::chrono::steady_clock::now();
      Spin("thinking");
      return;
    case EventKind::kTextDelta:
      if (gap_before_text_) {
        gap_before_text_ = false;
        Line("");
      }
      Prose(e.text);
      return;
    case EventKind::kReasoningDelta:
      Write(Dim(e.text));
      return;
    case EventKind::kTextEnd:
      FlushWord();
      return;
    case EventKind::kCitation:
      Cite(e.value);
      return;
    case EventKind::kToolInputStart:
      Spin("calling " + e.tool_name);
      return;
    case EventKind::kToolInputAvailable: {
      Call& call = calls_[e.id];
      call.name = e.tool_name;
      call.args = e.value.is_null() ? "" : ArgsSummary(e.value);
      Spin("running " + call.name);
      return;
    }
    case EventKind::kToolInputError:
      StopSpin();
      calls_[e.id].shown = true;
      if (e.state == "cancelled") {
        Line("  " + Dim("○ " + (e.tool_name.empty() ? std::string("call") : e.tool_name) +
                        " · cancelled while the model was writing it"));
      } else {
        Line("  " + Color("31", "✗") + " " +
             (e.tool_name.empty() ? "malformed call" : e.tool_name) +
             Dim(" · " + Shorten(e.text, 100)));
      }
      return;
    case EventKind::kToolOutputAvailable:
      calls_[e.id].ok = true;
      calls_[e.id].served = ServedNote(e.value);
      return;
    case EventKind::kToolApprovalRequest: {
      Call& call = calls_[e.id];
      call.ok = true;
      call.approval = e.approval_id;
      return;
    }
    case EventKind::kApproval:
      StopSpin();
      Line("  " + Color("33", "⚑") + " " + e.value.value("approvalId", "") + " " +
           e.value.value("connector", "") + "." + e.value.value("operation", "") +
           Dim(" · " + e.value.value("state", "")));
      {
        const std::string state = e.value.value("state", "");
        const std::string id = e.value.value("approvalId", "");
        const std::string reason = e.value.value("reason", "");
        if (state == "pending") {
          ShowEffect(e.value);
        } else if (state == "refused") {
          Line("    " + Color("31", "refused before it ran") +
               Dim(": " + (reason.empty() ? "no reason recorded" : reason) +
                   ". Nothing was dispatched."));
        } else if (state == "outcome_unknown" || state == "executing") {
          Line("    " + Color("31", "sent; whether it took effect is not known") +
               Dim(". Nothing retries it: affordance reconcile " + id));
        } else if (state == "denied") {
          Line("    " + Dim("denied" + (reason.empty() ? "" : ": " + reason) + ". Nothing ran."));
        } else if (state == "expired") {
          Line("    " + Color("33", "expired before anyone decided") +
               Dim((reason.empty() ? "" : ": " + reason) + ". Nothing ran."));
        }
      }
      return;
    case EventKind::kToolOutputError:
      calls_[e.id].error = e.text;
      calls_[e.id].unrun = e.state;
      return;
    case EventKind::kTruth: {
      StopSpin();
      Call& call = calls_[e.id];
      if (call.shown) return;
      if (!call.unrun.empty()) {
        // Closed without running: said as what it is, not as a failure.
        if (!call.name.empty()) {
          Line("  " +
               Dim("○ " + call.name + " " + Shorten(call.args, 70) + " · " +
                   (call.unrun == "cancelled" ? "cancelled" : "not run") + " (" + e.state + ")"));
        }
        return;
      }
      std::string state = call.ok ? e.state : "";
      if (!e.data_state.empty()) state += " · " + e.data_state;
      if (call.ok && !call.served.empty()) state += " · " + call.served;
      // The result's reference, as the legend and the prose's citations name it.
      const std::string ref = e.ref.empty() ? "" : " [" + e.ref + "]";
      std::string mark = call.ok ? Color("32", "✓") : Color("31", "✗");
      // An error is folded, never cut: it may end with the command that fixes it ("ask the user
      // to grant it: affordance grants grant …"). Only a runaway one is shortened.
      std::string detail = call.ok ? state : Shorten(call.error, 1000);
      if (!call.approval.empty()) {
        detail = "awaiting approval: affordance approvals approve " + call.approval + " (or deny)";
      }
      // On a narrow terminal the arguments give way first: the state is what the line is for.
      size_t room = 70;
      if (tty_) {
        const size_t fixed = text::DisplayWidth("  ✓ " + call.name + ref + "  · " + detail);
        room = std::min(room, fixed + 8 < columns_ ? columns_ - fixed : 0);
      }
      std::string args = room > 0 ? " " + Shorten(call.args, room) : "";
      Line("  " + mark + " " + call.name + Dim(ref + args + " · " + detail));
      gap_before_text_ = true;
      Spin("thinking");
      return;
    }
    case EventKind::kSurface: {
      StopSpin();
      const auto& d = e.value;
      std::string head =
          "  " + Color("35", "▣") + " surface " + d.value("surfaceId", "") +
          Dim(" · " + d.value("kind", "inline") + " · " +
              (d.value("live", false) ? "live" : "static") + " · " + d.value("state", ""));
      // What the web shows, as text: rows re-read, two columns of indent.
      surface::TextOptions o;
      o.width = columns_ > 2 ? columns_ - 2 : 1;
      o.color = color_;
      std::string body;
      std::istringstream lines(SurfacePartText(d, surfaces_, o));
      for (std::string l; std::getline(lines, l);) body += "\n" + (l.empty() ? l : "  " + l);
      Line(head + body);
      gap_before_text_ = true;
      return;
    }
    case EventKind::kFinishStep:
      StopSpin();
      return;
    case EventKind::kError:
      StopSpin();
      Line(Color("31", "error: ") + e.text);
      return;
    case EventKind::kTurn: {
      StopSpin();
      if (!e.report) return;
      const harness::TurnReport& r = *e.report;
      const auto weakest = harness::WeakestEvidence(r.ledger);
      int64_t prompt = 0, cached = 0;
      for (const auto& s : r.ledger) {
        prompt += s.prompt_tokens;
        cached += s.cached_prompt_tokens;
      }
      EndOfTurn(harness::TurnStatusName(r.status), r.ledger.size(),
                weakest ? std::string(harness::DataStateName(*weakest)) : "",
                r.claims.empty() ? "" : ClaimCounts(r.claims), prompt, cached);
      return;
    }
    default:  // start, text-start, reasoning-*, tool-input-delta, denied, finish, abort
      return;
  }
}

void TerminalView::ShowStored(const store::MessageRecord& m,
                              const std::map<std::string, store::ApprovalRecord>& approvals) {
  using harness::Event;
  using harness::EventKind;
  if (m.role == "user") {
    std::string text;
    for (const auto& p : m.parts) {
      if (p.kind == "text") text += p.data.value("text", "");
    }
    Line("");
    Line((color_ ? "\033[1m›\033[0m " : "› ") + text::Printable(text, true));
    return;
  }
  replaying_ = true;
  const auto ordered = [](const nlohmann::json& j) {
    return nlohmann::ordered_json::parse(j.dump());
  };
  for (const auto& p : m.parts) {
    const nlohmann::json& d = p.data;
    if (p.kind == "text") {
      // The prose in the pieces the stream had: each citation's mark right after its "[rN]".
      const std::string text = d.value("text", "");
      std::vector<std::pair<size_t, nlohmann::json>> cites;
      for (const auto& c : d.value("citations", nlohmann::json::array())) {
        if (!c.is_object() || !c.contains("offset") || !c["offset"].is_number_integer() ||
            c["offset"].get<int64_t>() < 0) {
          continue;
        }
        const size_t end = c["offset"].get<size_t>() + c.value("citedText", "").size();
        if (end <= text.size()) cites.emplace_back(end, c);
      }
      std::stable_sort(cites.begin(), cites.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      size_t at = 0;
      for (const auto& [end, c] : cites) {
        if (end < at) continue;
        Event delta = Event::Of(EventKind::kTextDelta);
        delta.text = text.substr(at, end - at);
        Show(delta);
        Event cite = Event::Of(EventKind::kCitation);
        cite.value = ordered(c);
        Show(cite);
        at = end;
      }
      Event rest = Event::Of(EventKind::kTextDelta);
      rest.text = text.substr(at);
      Show(rest);
      Show(Event::Of(EventKind::kTextEnd));
    } else if (p.kind == "tool") {
      const std::string status = d.value("status", "");
      const std::string name = d.value("toolName", "");
      const std::string code = d.value("errorCode", "");
      const std::string error = d.value("errorText", "");
      Event e;
      e.id = p.key;
      e.tool_name = name;
      if (status == "input-error" || (status == "cancelled" && !d.contains("input"))) {
        // Malformed, or cut off while the model wrote it: the stream's tool-input-error.
        e.kind = EventKind::kToolInputError;
        e.state = status == "cancelled" ? "cancelled" : "";
        e.text = error;
        Show(e);
      } else {
        e.kind = EventKind::kToolInputAvailable;
        e.value = d.contains("input") ? ordered(d["input"]) : nlohmann::ordered_json();
        Show(e);
        Event out;
        out.id = p.key;
        if (status == "output-available" || status == "output-denied") {
          out.kind = EventKind::kToolOutputAvailable;
        } else if (status == "approval-requested") {
          out.kind = EventKind::kToolApprovalRequest;
          out.approval_id = d.value("approvalId", "");
        } else {
          out.kind = EventKind::kToolOutputError;
          if (status == "cancelled") out.state = "cancelled";
          if (status == "not-run") out.state = "not_run";
          out.text = code.empty() ? error : code + ": " + error;
          if (out.text.empty()) out.text = status;
        }
        Show(out);
      }
      Event truth = Event::Of(EventKind::kTruth);
      truth.id = p.key;
      truth.state = p.state;
      truth.data_state = d.value("dataState", "");
      truth.ref = d.value("ref", "");
      Show(truth);
      // The card the person decided on (or still has to), in the state its row is in now.
      if (auto a = approvals.find(d.value("approvalId", "")); a != approvals.end()) {
        const store::ApprovalRecord& r = a->second;
        std::string state = r.status;
        if (const auto o = d.find("output"); o != d.end() && o->is_object() &&
                                             o->value("approvalId", "") == r.id &&
                                             o->value("status", "") == r.status) {
          state = o->value("state", r.status);
        }
        Event card = Event::Of(EventKind::kApproval);
        card.id = r.id;
        card.value = {{"approvalId", r.id},       {"toolCallId", p.key},
                      {"state", state},           {"connector", r.connector},
                      {"operation", r.operation}, {"effect", ordered(r.effect)},
                      {"digest", r.digest},       {"expiresMs", r.expires_ms}};
        if (!r.reason.empty()) card.value["reason"] = r.reason;
        Show(card);
      }
    } else if (p.kind == "surface") {
      Event surface = Event::Of(EventKind::kSurface);
      surface.id = p.key;
      surface.value = ordered(d);
      surface.value["state"] = p.state;
      Show(surface);
    }
  }
  // How the turn ended, as its status line said it, with the reason.
  const nlohmann::json& meta = m.meta;
  std::string status = meta.value("status", m.status);
  int64_t prompt = 0, cached = 0;
  for (const auto& s : m.steps) {
    prompt += s.prompt_tokens;
    cached += s.cached_prompt_tokens;
  }
  std::string claims;
  const nlohmann::json counts = meta.contains("truth")
                                    ? meta["truth"].value("claims", nlohmann::json::object())
                                    : nlohmann::json::object();
  for (const char* cls : {"source", "effect", "unresolved", "inference"}) {
    const int64_t n = counts.is_object() ? counts.value(cls, int64_t{0}) : 0;
    if (n > 0) claims += (claims.empty() ? "claims " : ", ") + std::to_string(n) + " " + cls;
  }
  const std::string weakest =
      meta.contains("truth") ? meta["truth"].value("weakestEvidence", "") : "";
  if (status != "running") {
    EndOfTurn(text::Printable(status), m.steps.size(), text::Printable(weakest), claims, prompt,
              cached);
  }
  std::string why;
  if (const auto err = meta.find("error"); err != meta.end() && err->is_object()) {
    why = err->value("code", "") + ": " + err->value("message", "");
  }
  if (m.status == "interrupted" && !meta.contains("status")) {
    Line(
        Dim("  (interrupted: the process running this turn stopped before it finished; what it "
            "wrote before is kept)"));
  } else if (status == "running") {
    Line(Dim("  (running: this turn has not ended yet)"));
  } else if (!why.empty()) {
    Line(Color("31", "error: ") + text::Printable(why));
  }
  StopSpin();
  replaying_ = false;
}

namespace {
std::atomic<bool> g_interrupted{false};
void OnSigint(int) { g_interrupted = true; }
}  // namespace

InterruptGuard::InterruptGuard(model::CancelToken cancel) : cancel_(std::move(cancel)) {
  g_interrupted = false;
  struct sigaction sa {};
  sa.sa_handler = OnSigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &previous_);
  watcher_ = std::thread([this] {
    while (!done_) {
      if (g_interrupted.exchange(false)) cancel_.Cancel();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
}

InterruptGuard::~InterruptGuard() {
  done_ = true;
  watcher_.join();
  sigaction(SIGINT, &previous_, nullptr);
}

}  // namespace affordance::cli

#include "cli/terminal.h"

#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

namespace affordance::cli {

bool IsTty(int fd) { return isatty(fd) == 1; }

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

std::string Shorten(const std::string& s, size_t n) {
  if (s.size() <= n) return s;
  size_t cut = n - 1;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "…";
}
}  // namespace

TerminalView::TerminalView(std::ostream& out, bool tty) : out_(out), tty_(tty) {
  if (!tty_) return;
  winsize ws{};
  if (ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20) width_ = ws.ws_col - 1;
  spinner_ = std::thread([this] {
    size_t frame = 0;
    while (!quit_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(90));
      std::lock_guard<std::mutex> lock(mu_);
      if (!spinning_ || !at_line_start_) continue;
      auto secs = std::chrono::duration_cast<std::chrono::seconds>(
                      std::chrono::steady_clock::now() - step_started_)
                      .count();
      out_ << "\r\033[K"
           << "\033[36m" << kFrames[frame++ % 10] << "\033[0m "
           << "\033[2m" << spin_label_ << (secs > 0 ? " " + std::to_string(secs) + "s" : "")
           << "\033[0m" << std::flush;
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
  return tty_ ? "\033[2m" + s + "\033[0m" : s;
}

std::string TerminalView::Color(const char* code, const std::string& s) const {
  return tty_ ? std::string("\033[") + code + "m" + s + "\033[0m" : s;
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

namespace {
size_t Columns(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}
}  // namespace

void TerminalView::FlushWord() {
  if (word_.empty()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (at_line_start_) column_ = 0;
  }
  size_t n = Columns(word_);
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
  Write((start ? "" : "\n") + text + "\n");
}

void TerminalView::Spin(const std::string& label) {
  std::lock_guard<std::mutex> lock(mu_);
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

void TerminalView::Show(const harness::Event& event) {
  const auto& c = event.chunk;
  const std::string type = c.value("type", "");
  if (type == "start-step") {
    step_started_ = std::chrono::steady_clock::now();
    Spin("thinking");
  } else if (type == "text-delta") {
    if (gap_before_text_) {
      gap_before_text_ = false;
      Line("");
    }
    Prose(c.value("delta", ""));
  } else if (type == "reasoning-delta") {
    Write(Dim(c.value("delta", "")));
  } else if (type == "text-end") {
    FlushWord();
  } else if (type == "reasoning-end") {
    // the text stays on its line; a tool line or the status starts a new one
  } else if (type == "tool-input-start") {
    Spin("calling " + c.value("toolName", ""));
  } else if (type == "tool-input-available") {
    Call& call = calls_[c.value("toolCallId", "")];
    call.name = c.value("toolName", "");
    call.args = c.contains("input") ? ArgsSummary(c["input"]) : "";
    Spin("running " + call.name);
  } else if (type == "tool-input-error") {
    StopSpin();
    Line("  " + Color("31", "✗") + " " +
         (c.value("toolName", "").empty() ? "malformed call" : c.value("toolName", "")) +
         Dim(" · " + Shorten(c.value("errorText", ""), 100)));
  } else if (type == "tool-output-available") {
    calls_[c.value("toolCallId", "")].ok = true;
  } else if (type == "tool-approval-request") {
    Call& call = calls_[c.value("toolCallId", "")];
    call.ok = true;
    call.approval = c.value("approvalId", "");
  } else if (type == "data-approval") {
    StopSpin();
    const auto& d = c["data"];
    Line("  " + Color("33", "⚑") + " " + d.value("approvalId", "") + " " +
         d.value("connector", "") + "." + d.value("operation", "") +
         Dim(" · " + d.value("state", "")));
  } else if (type == "tool-output-error") {
    calls_[c.value("toolCallId", "")].error = c.value("errorText", "");
  } else if (type == "data-truth") {
    StopSpin();
    const auto& d = c["data"];
    Call& call = calls_[d.value("toolCallId", "")];
    std::string state = call.ok ? d.value("state", "") : "";
    if (d.contains("dataState")) state += " · " + d.value("dataState", "");
    std::string mark = call.ok ? Color("32", "✓") : Color("31", "✗");
    std::string detail = call.ok ? state : Shorten(call.error, 110);
    if (!call.approval.empty()) {
      detail = "awaiting approval: affordance approvals approve " + call.approval + " (or deny)";
    }
    Line("  " + mark + " " + call.name + Dim(" " + Shorten(call.args, 70) + " · " + detail));
    gap_before_text_ = true;
    Spin("thinking");
  } else if (type == "data-surface") {
    StopSpin();
    const auto& d = c["data"];
    std::string head =
        "  " + Color("35", "▣") + " surface " + d.value("surfaceId", "") +
        Dim(" · " + d.value("kind", "inline") + " · " +
            (d.value("live", false) ? "live" : "static") + " · " + d.value("state", ""));
    std::string program = d.value("program", "");
    std::string body;
    size_t start = 0;
    for (int i = 0; i < 6 && start < program.size(); ++i) {
      size_t nl = program.find('\n', start);
      std::string line =
          program.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
      body += "\n    " + Dim(Shorten(line, 96));
      start = nl == std::string::npos ? program.size() : nl + 1;
    }
    if (start < program.size()) body += "\n    " + Dim("…");
    Line(head + body);
    gap_before_text_ = true;
  } else if (type == "finish-step") {
    StopSpin();
  } else if (type == "error") {
    StopSpin();
    Line(Color("31", "error: ") + c.value("errorText", ""));
  } else if (type == "data-turn") {
    StopSpin();
    const auto& d = c["data"];
    std::string status = d.value("status", "");
    std::string line = "— " + status + " · " + std::to_string(d["steps"].size()) + " step" +
                       (d["steps"].size() == 1 ? "" : "s");
    if (d.contains("truth") && d["truth"].contains("weakestEvidence")) {
      line += " · evidence " + d["truth"].value("weakestEvidence", "");
    }
    const auto& u = d["usage"];
    line += " · " + std::to_string(u.value("prompt_tokens", 0)) + " prompt tokens (" +
            std::to_string(u.value("cached_prompt_tokens", 0)) + " cached)";
    Line("");
    Line(Dim(line));
  }
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

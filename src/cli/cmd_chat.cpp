// `affordance chat`: a terminal conversation with the harness.
//
// Each line you type is one turn: the answer streams as it is written, each tool call gets one
// line with its truth state, a composed surface is printed as text (its tables filled with rows
// re-read from their connectors), a spinner shows a running step, and Ctrl-C cancels the running
// step (the turn is kept, marked cancelled). Commands: /threads, /resume N (a number from /threads
// or a thread id), /new, /help, /quit (or end of input). Everything is persisted in the data
// folder.
#include "cli/command.h"
#include "cli/output.h"
#include "cli/session.h"
#include "cli/terminal.h"
#include "text/display_width.h"

#include <ctime>
#include <iostream>

namespace affordance::cli {
namespace {

struct ChatOptions {
  SessionOptions session;
  std::string thread;
};

std::string When(int64_t ms) {
  std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
  return buf;
}

void Help(std::ostream& out, size_t width) {
  const std::string commands = "Commands: /threads  /resume N  /new  /help  /quit";
  const std::string cancel = "(Ctrl-C cancels a running step)";
  out << commands << (commands.size() + 3 + cancel.size() <= width ? "   " : "\n") << cancel
      << "\n";
}

// Prints the last messages of a thread so a resumed conversation has its context on screen, its
// surfaces as text with fresh rows.
void ShowThread(Session& s, const std::string& id, std::ostream& out, bool color) {
  auto messages = s.store->LoadThread(id);
  if (!messages) return;
  surface::TextOptions o;
  o.width = TerminalWidth(1);
  o.color = color;
  const SurfaceSource source{s.store, s.session->road(), &s.harness->authority()};
  size_t from = messages->size() > 6 ? messages->size() - 6 : 0;
  for (size_t i = from; i < messages->size(); ++i) {
    const auto& m = (*messages)[i];
    std::string text;
    for (const auto& p : m.parts) {
      if (p.kind == "text") text += p.data.value("text", "");
      if (p.kind == "surface") out << SurfacePartText(p.data, source, o);
    }
    if (m.role == "user") {
      out << "› " << text << "\n";
    } else {
      out << text << "\n";
      std::string status = m.meta.value("status", m.status);
      out << "  (" << status << ")\n";
    }
  }
}

int Chat(const ChatOptions& o) {
  auto opened = OpenSession(o.session);
  if (!opened) return ReportError(opened.error(), false);
  Session& s = **opened;
  const bool tty = IsTty(0) && IsTty(1);
  const bool color = tty && ColorWanted(1);
  const size_t width = TerminalWidth(1);
  std::ostream& out = std::cout;
  std::string thread = o.thread;
  if (!thread.empty()) {
    if (auto t = s.store->GetThread(thread); !t) return ReportError(t.error(), false, kExitUsage);
  }
  const std::string banner = "affordance chat · " + o.session.model + " · " + ProviderOf(o.session);
  const std::string data = "data " + DataDir(o.session);
  const bool fits = text::DisplayWidth(banner) + 3 + data.size() <= width;
  out << banner << (fits ? " · " : "\n") << data << "\n";
  if (s.recovered > 0) {
    out << s.recovered << " interrupted turn" << (s.recovered == 1 ? " was" : "s were")
        << " recovered (marked interrupted; everything persisted before is kept)\n";
  }
  Help(out, width);
  std::vector<store::ThreadInfo> listed;
  std::string line;
  while (true) {
    out << (color ? "\n\033[1m›\033[0m " : "\n› ") << std::flush;
    if (!std::getline(std::cin, line)) break;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (line == "/quit" || line == "/exit") break;
    if (line == "/help") {
      Help(out, width);
      continue;
    }
    if (line == "/new") {
      thread.clear();
      out << "A new thread starts with your next message.\n";
      continue;
    }
    if (line == "/threads") {
      auto threads = s.store->ListThreads();
      if (!threads) {
        ReportError(threads.error(), false);
        continue;
      }
      listed = *threads;
      if (listed.empty()) out << "No threads yet.\n";
      for (size_t i = 0; i < listed.size(); ++i) {
        const auto& t = listed[i];
        out << (i + 1) << ". " << (t.title.empty() ? "New conversation" : t.title) << "  ("
            << t.messages << " messages, " << When(t.updated_ms) << ")"
            << (t.id == thread ? "  ← current" : "") << "\n";
      }
      continue;
    }
    if (line.rfind("/resume", 0) == 0) {
      std::string arg = line.size() > 8 ? line.substr(8) : "";
      std::string id = arg;
      bool number = !arg.empty() && arg.find_first_not_of("0123456789") == std::string::npos;
      if (number) {
        if (listed.empty()) {
          if (auto threads = s.store->ListThreads(); threads) listed = *threads;
        }
        size_t n = std::stoul(arg);
        if (n == 0 || n > listed.size()) {
          out << "No thread " << arg << " (see /threads).\n";
          continue;
        }
        id = listed[n - 1].id;
      }
      auto t = s.store->GetThread(id);
      if (!t) {
        out << "No thread " << arg << " (see /threads).\n";
        continue;
      }
      thread = t->id;
      out << "Resumed \"" << (t->title.empty() ? "New conversation" : t->title) << "\".\n";
      ShowThread(s, thread, out, color);
      continue;
    }
    if (line[0] == '/') {
      out << "Unknown command " << line << ". ";
      Help(out, width);
      continue;
    }
    if (thread.empty()) {
      auto created = s.store->CreateThread("");  // titled by the harness (ThreadTitle)
      if (!created) {
        ReportError(created.error(), false);
        continue;
      }
      thread = created->id;
    }
    model::CancelToken cancel;
    InterruptGuard guard(cancel);
    TerminalView view(out, tty, {s.store, s.session->road(), &s.harness->authority()});
    auto report = s.harness->RunTurn(
        thread, line, [&](const harness::Event& e) { view.Show(e); }, cancel);
    if (!report) ReportError(report.error(), false);
  }
  out << "\n";
  return kExitOk;
}

const bool registered = RegisterCommand(
    {"chat", "Talk to the harness in the terminal (threads persist in the data folder)",
     [](CLI::App& sub) -> Runner {
       auto o = std::make_shared<ChatOptions>();
       AddSessionOptions(sub, o->session);
       sub.add_option("--thread", o->thread, "Start in this thread");
       return [o] { return Chat(*o); };
     }});

}  // namespace
}  // namespace affordance::cli

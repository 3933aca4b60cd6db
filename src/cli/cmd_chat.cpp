// `affordance chat`: a terminal conversation with the harness.
//
// Each line you type is one turn: the answer streams as it is written, each tool call gets one
// line with its truth state, a composed surface is printed as text (its tables filled with rows
// re-read from their connectors), a spinner shows a running step, and Ctrl-C cancels the running
// step (the turn is kept, marked cancelled). Commands: /threads, /resume N (a number from /threads
// or a thread id), /new, /approve [ID], /deny [ID] [reason], /help, /quit (or end of input).
// Everything is persisted in the data folder.
//
// A staged write is shown as its effect card. On a terminal the person is then asked to approve,
// deny or decide later, and a decision continues the turn at once (Harness::ContinueTurn), as the
// web card's buttons do; /approve and /deny decide a pending write of the current thread at any
// time, piped input included. The approval is for the request the card showed (its digest).
// Only the person at this terminal decides: the model's output is printed, never read back as
// input.
#include "cli/command.h"
#include "cli/output.h"
#include "cli/session.h"
#include "cli/terminal.h"
#include "text/display_width.h"

#include <signal.h>
#include <termios.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>

namespace affordance::cli {
namespace {

struct ChatOptions {
  SessionOptions session;
  std::string thread;
};

// The shell's habits at the chat's prompts, while the chat runs: Ctrl-C at a prompt clears the
// line being typed (the terminal discards it) and asks again, instead of killing the process;
// Ctrl-D (end of input) or /quit leaves. During a step the turn's InterruptGuard takes Ctrl-C
// (it cancels the step) and gives it back after. On a terminal the echo of control characters is
// turned off (ECHOCTL), so a Ctrl-C leaves no "^C" in the text the chat is printing; the
// terminal's settings are restored on the way out.
std::atomic<bool> g_prompt_interrupted{false};
void OnPromptInterrupt(int) { g_prompt_interrupted = true; }

class PromptKeys {
 public:
  PromptKeys() {
    struct sigaction sa {};
    sa.sa_handler = OnPromptInterrupt;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: a read at the prompt returns, so the prompt asks again
    sigaction(SIGINT, &sa, &previous_);
    if (isatty(0) == 1 && tcgetattr(0, &saved_) == 0) {
      termios quiet = saved_;
      quiet.c_lflag &= ~static_cast<tcflag_t>(ECHOCTL);
      restore_ = tcsetattr(0, TCSANOW, &quiet) == 0;
    }
  }
  ~PromptKeys() {
    if (restore_) tcsetattr(0, TCSANOW, &saved_);
    sigaction(SIGINT, &previous_, nullptr);
  }
  PromptKeys(const PromptKeys&) = delete;
  PromptKeys& operator=(const PromptKeys&) = delete;

 private:
  struct sigaction previous_ {};
  termios saved_{};
  bool restore_ = false;
};

enum class Read { kLine, kInterrupted, kEnd };

// A line from standard input: kInterrupted when Ctrl-C ended the read (the input is usable again),
// kEnd at the end of input.
Read ReadLine(std::string& line) {
  g_prompt_interrupted = false;
  if (std::getline(std::cin, line)) return Read::kLine;
  if (g_prompt_interrupted.exchange(false)) {
    std::cin.clear();
    clearerr(stdin);
    return Read::kInterrupted;
  }
  return Read::kEnd;
}

std::string When(int64_t ms) {
  std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
  return buf;
}

void Help(std::ostream& out, size_t width) {
  // Folded between commands to the terminal's width.
  const std::vector<std::string> items = {
      "Commands:",     "/threads",      "/resume N",
      "/new",          "/approve [ID]", "/deny [ID] [reason]",
      "/help",         "/quit",         "(Ctrl-C cancels a running step or clears the line;",
      "Ctrl-D leaves)"};
  size_t column = 0;
  for (const auto& item : items) {
    const size_t gap = column == 0 ? 0 : 2;
    if (column > 0 && column + gap + item.size() > width) {
      out << "\n";
      column = 0;
    } else if (column > 0) {
      out << "  ";
    }
    out << item;
    column += (column == 0 ? 0 : gap) + item.size();
  }
  out << "\n";
}

// Prints the last messages of a thread so a resumed conversation has its context on screen, as it
// read when it streamed (TerminalView::ShowStored): answer text wrapped with its citation marks,
// tool lines, effect cards, surfaces as text with fresh rows, legend, status line and the reason
// of each end state.
void ShowThread(Session& s, const std::string& id, std::ostream& out, bool tty) {
  auto messages = s.store->LoadThread(id);
  if (!messages) return;
  std::map<std::string, store::ApprovalRecord> approvals;
  if (auto listed = s.store->ListApprovals("", id); listed) {
    for (auto& a : *listed) approvals[a.id] = std::move(a);
  }
  TerminalView view(out, tty, {s.store, s.session->road(), &s.harness->authority()});
  // The last three exchanges: from the user message that opens the sixth-last message or after.
  size_t from = messages->size() > 6 ? messages->size() - 6 : 0;
  while (from > 0 && (*messages)[from].role != "user") --from;
  for (size_t i = from; i < messages->size(); ++i) view.ShowStored((*messages)[i], approvals);
}

// Runs turns with their terminal view and Ctrl-C guard, and decides staged writes with the person.
class ChatTurns {
 public:
  using Body = std::function<Result<harness::TurnReport>(const harness::EventSink&,
                                                         const model::CancelToken&)>;
  // `interactive`: stdin is a terminal, so the person can be asked.
  ChatTurns(Session& s, std::ostream& out, bool tty, bool interactive)
      : s_(s), out_(out), tty_(tty), interactive_(interactive) {}

  // One turn (RunTurn or ContinueTurn), shown as it streams. Remembers the digest of each effect
  // card shown, so a decision is for exactly what the person read.
  Result<harness::TurnReport> Run(const Body& body) {
    model::CancelToken cancel;
    InterruptGuard guard(cancel);
    TerminalView view(out_, tty_, {s_.store, s_.session->road(), &s_.harness->authority()});
    return body(
        [&](const harness::Event& e) {
          if (e.kind == harness::EventKind::kApproval && e.value.value("state", "") == "pending") {
            shown_[e.value.value("approvalId", "")] = e.value.value("digest", "");
          }
          view.Show(e);
        },
        cancel);
  }

  // After a turn that ended awaiting approval, on a terminal: asks about each pending write of
  // the thread, then continues the turn when one was decided (and asks again if that ends
  // awaiting another approval).
  void AskAndContinue(const std::string& thread) {
    while (interactive_) {
      bool decided = false;
      const auto pending = Pending(thread);
      for (const auto& a : pending) {
        // The card is just above; with several, each question names its request.
        out_ << "\n  Approve " << (pending.size() == 1 ? "this write" : a.id)
             << "? [y]es, [n]o, [l]ater › " << std::flush;
        std::string answer;
        const Read read = ReadLine(answer);
        if (read == Read::kEnd) return;
        if (read == Read::kInterrupted) {
          out_ << "\n";
          answer.clear();  // Ctrl-C: not decided now
        }
        answer = Lower(Trim(answer));
        if (answer == "y" || answer == "yes") {
          decided |= Decide(a, true, "");
        } else if (answer == "n" || answer == "no") {
          out_ << "  Why (optional) › " << std::flush;
          std::string reason;
          if (ReadLine(reason) != Read::kLine) reason.clear();
          decided |= Decide(a, false, Trim(reason));
        } else {
          const std::string id = pending.size() == 1 ? "" : " " + a.id;
          out_ << "  Left pending: /approve" << id << " or /deny" << id << " decides it.\n";
        }
      }
      if (!decided || !Continue(thread)) return;
    }
  }

  // /approve [ID] and /deny [ID] [reason]: without an id, the one pending write of the thread.
  void DecideCommand(const std::string& thread, const std::string& id, bool approve,
                     const std::string& reason) {
    std::vector<store::ApprovalRecord> pending;
    if (id.empty()) {
      if (!thread.empty()) pending = Pending(thread);
      if (pending.size() != 1) {
        out_ << (pending.empty() ? "No write of this thread waits for a decision.\n"
                                 : "Several writes wait; name one:");
        for (const auto& a : pending) out_ << " " << a.id;
        if (!pending.empty()) out_ << "\n";
        return;
      }
    } else {
      auto a = s_.store->GetApproval(id);
      if (!a) {
        ReportError(a.error(), false);
        return;
      }
      pending.push_back(*a);
    }
    const store::ApprovalRecord& a = pending.front();
    if (!Decide(a, approve, reason)) return;
    if (a.thread_id == thread) {
      if (harness::ContinuableTurn(*s_.store, thread)) {
        if (Continue(thread)) AskAndContinue(thread);
      }
    } else {
      out_ << "  (it belongs to another thread; its turn continues when you /resume it and send a "
              "message)\n";
    }
  }

 private:
  static std::string Trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t\r");
    size_t e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
  }
  static std::string Lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }

  std::vector<store::ApprovalRecord> Pending(const std::string& thread) {
    auto listed = s_.store->ListApprovals("pending", thread);
    return listed ? *listed : std::vector<store::ApprovalRecord>{};
  }

  // The person's decision, for the request the card showed when one was shown this session.
  bool Decide(const store::ApprovalRecord& a, bool approve, const std::string& reason) {
    authority::Authority& auth = s_.harness->authority();
    auto shown = shown_.find(a.id);
    const std::string digest = shown == shown_.end() ? "" : shown->second;
    auto r = approve ? auth.Approve(a.id, authority::Actor::LocalUser(), digest)
                     : auth.Deny(a.id, authority::Actor::LocalUser(), reason);
    if (!r) {
      ReportError(r.error(), false);
      return false;
    }
    out_ << "  " << (approve ? "Approved" : "Denied") << " " << a.id
         << (approve ? "; it runs once, now." : "; nothing will run.") << "\n";
    return true;
  }

  bool Continue(const std::string& thread) {
    auto report = Run([&](const harness::EventSink& sink, const model::CancelToken& cancel) {
      return s_.harness->ContinueTurn(thread, sink, cancel);
    });
    if (!report) {
      ReportError(report.error(), false);
      return false;
    }
    return report->status == harness::TurnStatus::kAwaitingApproval;
  }

  Session& s_;
  std::ostream& out_;
  bool tty_;
  bool interactive_;
  std::map<std::string, std::string> shown_;  // approval id -> digest on the card shown
};

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
  const bool interactive = IsTty(0);
  ChatTurns turns(s, out, tty, interactive);
  std::vector<store::ThreadInfo> listed;
  std::string line;
  PromptKeys keys;
  bool cleared = false;  // the last prompt was cleared by Ctrl-C: ask again on the same line
  while (true) {
    if (cleared && tty) {
      out << "\r\033[K" << (color ? "\033[1m›\033[0m " : "› ") << std::flush;
    } else {
      out << (cleared ? "\n› " : color ? "\n\033[1m›\033[0m " : "\n› ") << std::flush;
    }
    const Read read = ReadLine(line);
    cleared = read == Read::kInterrupted;
    if (cleared) continue;
    if (read == Read::kEnd) break;
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
        const std::string title =
            std::to_string(i + 1) + ". " + (t.title.empty() ? "New conversation" : t.title);
        const std::string about = "(" + std::to_string(t.messages) + " messages, " +
                                  When(t.updated_ms) + ")" + (t.id == thread ? "  ← current" : "");
        // Too wide for the terminal: what it is about goes on its own line, never broken
        // inside its date.
        const bool fold =
            tty && width >= 20 && text::DisplayWidth(title) + 2 + text::DisplayWidth(about) > width;
        out << title << (fold ? "\n   " : "  ") << about << "\n";
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
      ShowThread(s, thread, out, tty);
      continue;
    }
    if (line.rfind("/approve", 0) == 0 || line.rfind("/deny", 0) == 0) {
      const bool approve = line.rfind("/approve", 0) == 0;
      // An approval id first (our own "apr_" ids), then for /deny a reason in the person's words.
      std::string rest = line.substr(approve ? 8 : 5);
      rest.erase(0, std::min(rest.size(), rest.find_first_not_of(' ')));
      std::string id, reason = rest;
      if (rest.rfind("apr_", 0) == 0) {
        const size_t end = std::min(rest.size(), rest.find(' '));
        id = rest.substr(0, end);
        const size_t words = rest.find_first_not_of(' ', end);
        reason = words == std::string::npos ? "" : rest.substr(words);
      }
      if (approve && !reason.empty()) {
        out << "/approve takes an approval id only (see the card above).\n";
        continue;
      }
      turns.DecideCommand(thread, id, approve, reason);
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
    auto report = turns.Run([&](const harness::EventSink& sink, const model::CancelToken& cancel) {
      return s.harness->RunTurn(thread, line, sink, cancel);
    });
    if (!report) {
      ReportError(report.error(), false);
      continue;
    }
    if (report->status == harness::TurnStatus::kAwaitingApproval) {
      turns.AskAndContinue(thread);
    }
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

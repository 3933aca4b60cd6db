// `affordance run`: one harness turn from the command line.
//
//   affordance run --provider replay --script s.json --connectors examples/connectors "question"
//   affordance run --json ...        one JSON line per event (the UI message stream chunks)
//
// Without --thread a new thread is created (titled after the question); --thread ID continues one.
// When that thread's last turn was interrupted (its process died), the run says so first: a line,
// or with --json that message's `data-turn` part (status "interrupted", error harness.interrupted).
// Human mode streams the answer and prints one line per tool call and the turn's status; the exit
// status is 0 for a turn that ended (whatever its status) and non-zero for errors that prevented
// the turn (bad options, unknown thread, a store that cannot open).
#include "cli/command.h"
#include "cli/output.h"
#include "cli/session.h"
#include "cli/terminal.h"
#include "server/protocol.h"
#include "server/ui_message.h"

#include <iostream>
#include <optional>

namespace affordance::cli {
namespace {

struct RunOptions {
  SessionOptions session;
  std::string thread;
  std::string title;
  std::string message;
};

// The data-turn part of the thread's last message when that turn ended interrupted.
std::optional<nlohmann::ordered_json> PreviousTurnInterrupted(store::Store& store,
                                                              const std::string& thread) {
  auto messages = store.LoadThread(thread);
  if (!messages || messages->empty()) return std::nullopt;
  const store::MessageRecord& last = messages->back();
  if (last.role != "assistant" || last.status != "interrupted") return std::nullopt;
  nlohmann::ordered_json message = server::ToUiMessage(last);
  for (auto& part : message["parts"]) {
    if (part.value("type", "") == "data-turn") return part;
  }
  return std::nullopt;
}

int Run(const RunOptions& o) {
  auto session = OpenSession(o.session);
  if (!session) return ReportError(session.error(), o.session.json);
  Session& s = **session;
  std::string thread = o.thread;
  if (thread.empty()) {
    auto created = s.store->CreateThread(o.title);  // "": titled by the harness (ThreadTitle)
    if (!created) return ReportError(created.error(), o.session.json);
    thread = created->id;
  } else if (auto previous = PreviousTurnInterrupted(*s.store, thread)) {
    // Continuing a thread whose last turn was cut off (its process died): said first, in the form
    // a client reading the thread back gets (the message's data-turn part).
    if (o.session.json) {
      std::cout << previous->dump() << "\n";
    } else {
      std::cout << "The previous turn of this thread was interrupted: "
                << (*previous)["data"]["error"].value("message", "") << ".\n";
    }
  }
  model::CancelToken cancel;
  InterruptGuard guard(cancel);
  harness::EventSink sink;
  std::unique_ptr<TerminalView> view;
  if (o.session.json) {
    sink = [](const harness::Event& e) {
      std::cout << server::UiChunk(e).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                << "\n";
      std::cout.flush();
    };
  } else {
    view = std::make_unique<TerminalView>(
        std::cout, IsTty(1), SurfaceSource{s.store, s.session->road(), &s.harness->authority()});
    sink = [&](const harness::Event& e) { view->Show(e); };
  }
  auto report = s.harness->RunTurn(thread, o.message, sink, cancel);
  if (!report) return ReportError(report.error(), o.session.json);
  return ExitForTurn(report->status);
}

const bool registered = RegisterCommand(
    {"run", "Run one harness turn (--json: UI message stream chunks as JSON lines)",
     [](CLI::App& sub) -> Runner {
       auto o = std::make_shared<RunOptions>();
       AddSessionOptions(sub, o->session);
       sub.add_option("--thread", o->thread, "Continue this thread (default: a new one)");
       sub.add_option("--title", o->title, "Title of the new thread");
       sub.add_flag("--json", o->session.json, "Print events as JSON lines");
       sub.add_option("message", o->message, "The user's message")->required();
       return [o] { return Run(*o); };
     }});

}  // namespace
}  // namespace affordance::cli

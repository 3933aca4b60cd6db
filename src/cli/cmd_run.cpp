// `affordance run`: one harness turn from the command line.
//
//   affordance run --provider replay --script s.json --connectors examples/connectors "question"
//   affordance run --json ...        one JSON line per event (the UI message stream chunks)
//
// Without --thread a new thread is created (titled after the question); --thread ID continues one.
// Human mode streams the answer and prints one line per tool call and the turn's status; the exit
// status is 0 for a turn that ended (whatever its status) and non-zero for errors that prevented
// the turn (bad options, unknown thread, a store that cannot open).
#include "cli/command.h"
#include "cli/output.h"
#include "cli/session.h"
#include "cli/terminal.h"
#include "server/protocol.h"

#include <iostream>

namespace affordance::cli {
namespace {

struct RunOptions {
  SessionOptions session;
  std::string thread;
  std::string title;
  std::string message;
};

int Run(const RunOptions& o) {
  auto session = OpenSession(o.session);
  if (!session) return ReportError(session.error(), o.session.json);
  Session& s = **session;
  std::string thread = o.thread;
  if (thread.empty()) {
    auto created = s.store->CreateThread(o.title);  // "": titled by the harness (ThreadTitle)
    if (!created) return ReportError(created.error(), o.session.json);
    thread = created->id;
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

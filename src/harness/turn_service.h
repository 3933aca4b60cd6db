// TurnService: many turns in flight over a small pool of runtimes (DESIGN.md §9, "The turn
// service").
//
// A turn goes through the harness's phases (Harness::Begin, NextStep, AfterStep, Finish). Only a
// phase borrows a runtime: a Session of the factory (its Frame's QuickJS runtime, its connector
// road, its harness), checked out from a pool of `runtimes` for that phase alone. Between phases
// the turn is a TurnRun: plain structures and the store. While the engine streams a step the turn
// holds no runtime and, with a concurrent provider (HTTP: Provider::concurrent()), no thread, so
// the number of turns in flight is bounded by the engine (its continuous batching), not by the
// pool. Providers that are not concurrent (replay, embedded llama.cpp) hold a thread per streaming
// step, still no runtime.
//
//   auto service = TurnService::Create(factory, {.runtimes = 2});
//   (*service)->Start({thread_id, "What is on today?"}, sink, cancel, [](auto report) {...});
//
// A turn whose frame mounts apps returns to the runtime it began on for every phase: an app's
// hook state lives in that runtime's views.
//
// Thread safety: Start() may be called from any thread. Events reach a turn's sink in order and
// never concurrently (from the pool's threads and the provider's), then `done` runs once.
#pragma once

#include "base/result.h"
#include "harness/harness.h"
#include "harness/session.h"
#include "model/provider.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace affordance::harness {

struct TurnServiceOptions {
  int runtimes = 2;  // sessions (QuickJS runtimes, roads) that phases borrow
};

struct TurnStart {
  std::string thread_id;
  std::optional<std::string> user_text;  // nullopt: a continuation (Harness::ContinueTurn)
  // The assistant message id the door chose (a store::NewId("m_"); "" lets the turn make one). A
  // new message's turn was announced with it already (the door emitted `start`); a continuation
  // still emits its own `start` naming the earlier UI message its parts join.
  std::string message_id;
};

using TurnDone = std::function<void(Result<TurnReport>)>;

class TurnService {
 public:
  // Makes `options.runtimes` sessions of `sessions` (which must outlive the service) and their
  // threads. Errors: "harness.bad_option" (no runtime), the sessions' own.
  static Result<std::unique_ptr<TurnService>> Create(SessionFactory& sessions,
                                                     TurnServiceOptions options);
  // Cancels the turns still open, lets each end (persisted, `done` called), joins the threads.
  ~TurnService();

  // Starts a turn and returns at once. `done` gets the report, or the error that kept the turn from
  // starting (Harness::Begin's: nothing half-written). After the service began stopping, `done`
  // gets "harness.stopping" at once.
  void Start(TurnStart start, EventSink sink, model::CancelToken cancel, TurnDone done);

  int runtimes() const { return static_cast<int>(sessions_.size()); }
  // Turns started whose `done` has not run yet, and those of them waiting for a runtime now.
  size_t open() const;
  size_t waiting() const;

 private:
  struct Turn;
  // A phase to run on a runtime; `pinned` >= 0 runs it on that runtime only.
  struct Task {
    std::shared_ptr<Turn> turn;
    std::function<void(Session&, int)> phase;
  };
  TurnService() = default;
  void Post(const std::shared_ptr<Turn>& turn, std::function<void(Session&, int)> phase);
  void Work(int index);
  void Open(const std::shared_ptr<Turn>& turn, Session& session, int index);
  void Step(const std::shared_ptr<Turn>& turn, Session& session);
  void End(const std::shared_ptr<Turn>& turn, Result<TurnReport> report);

  SessionFactory* factory_ = nullptr;
  std::vector<std::unique_ptr<Session>> sessions_;
  std::vector<std::thread> threads_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_;       // a task was posted, or stopping
  std::condition_variable idle_cv_;       // a turn ended
  std::deque<Task> shared_;               // tasks any runtime may run
  std::vector<std::deque<Task>> pinned_;  // tasks for one runtime
  std::set<std::shared_ptr<Turn>> open_;
  size_t waiting_ = 0;
  bool stopping_ = false;  // no new turns
  bool joining_ = false;   // threads end once the queues are empty
};

}  // namespace affordance::harness

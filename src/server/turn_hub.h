// TurnHub: starts the server's harness turns and fans each turn's events out to the clients that
// watch it.
//
// Turns run on a TurnRunner (harness::TurnService in `affordance serve` and `affordance mcp`:
// runtimes are borrowed only for rendering and dispatch, and a turn waiting for the engine holds
// none, so the turns in flight are bounded by the engine and by `max_active`, not by a worker
// count). Submit() announces the turn at once (its `start` event, with the id its assistant
// message will have, even while the turn waits for a runtime) and returns its ActiveTurn; clients
// Subscribe() to it. An ActiveTurn buffers every event of the turn (typed harness::Event; each door
// writes its own form of it: the SSE route through protocol.h UiChunk, MCP ask from the turn's
// TurnReport), so a subscriber that arrives late (a page reload: `GET /api/chat/{id}/stream`)
// first receives the chunks so far, then follows live. A subscriber that goes away (a dropped
// connection) does not stop the turn: it runs to its end and the harness persists it. Only
// Cancel() (the client's explicit abort) stops the running step.
//
// The hub never writes messages or derives state: the harness is the one writer; the hub only
// moves its events.
//
// Thread safety: every method may be called from any thread. Subscribers are called on the
// runner's threads, in chunk order, never concurrently for one turn; they must return quickly
// (queue the bytes, write elsewhere).
#pragma once

#include "base/result.h"
#include "harness/harness.h"
#include "harness/session.h"
#include "harness/turn_service.h"
#include "model/provider.h"
#include "server/turn_log.h"

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace affordance::server {

class ActiveTurn;

// What runs the hub's turns.
class TurnRunner {
 public:
  using Done = std::function<void(Result<harness::TurnReport>)>;
  virtual ~TurnRunner() = default;
  // Starts `turn` (a new user message, or a continuation after an approval decision) and returns
  // at once: its events go to `sink`, then `done` runs once, with the report or the error that
  // kept the turn from starting (nothing half-written).
  virtual void Start(const ActiveTurn& turn, harness::EventSink sink, Done done) = 0;
  // Runtimes that rendering and dispatch borrow, and phases waiting for one now.
  virtual int runtimes() const = 0;
  virtual int64_t waiting() const { return 0; }
};

// The runner of `affordance serve` and `affordance mcp`: `service` (which must outlive it).
std::unique_ptr<TurnRunner> ServiceRunner(harness::TurnService& service);

class TurnSubscriber {
 public:
  virtual ~TurnSubscriber() = default;
  virtual void OnEvent(const harness::Event& event) = 0;
  // The turn ended (its last event was delivered). Called exactly once per subscription.
  virtual void OnEnd() = 0;
};

class ActiveTurn : public std::enable_shared_from_this<ActiveTurn> {
 public:
  // `id`: the turn's id, which its assistant message gets ("" makes a fresh store::NewId("m_")).
  ActiveTurn(std::string thread_id, std::string user_text, bool continuation = false,
             std::string id = "");

  const std::string& id() const { return id_; }
  const std::string& thread_id() const { return thread_id_; }
  const std::string& user_text() const { return user_text_; }
  // A continuation after an approval decision (no user text; TurnRunner::ContinueTurn).
  bool continuation() const { return continuation_; }
  // The UI message id (from the turn's `start` event); empty until it was announced.
  std::string message_id() const;
  bool done() const;
  size_t events() const;

  // Delivers every event so far, then the live ones, then OnEnd (at once when already done).
  void Subscribe(const std::shared_ptr<TurnSubscriber>& subscriber);
  void Unsubscribe(const TurnSubscriber* subscriber);
  // Stops the running step (the turn ends with `abort` and is persisted as cancelled).
  void Cancel() { cancel_.Cancel(); }
  const model::CancelToken& cancel_token() const { return cancel_; }

  // The producer's (the hub's runner): with a TurnLog the event is appended to the turn's durable
  // log first and delivered by the log's writer; without one it is delivered at once.
  void Publish(harness::Event event);
  void End();
  void SetLog(TurnLog* log) { log_ = log; }

  // Hands an event to the subscribers (and the buffer) / ends the turn for them: what Publish and
  // End come to once logged, and what a follower of another node's turn calls.
  void Deliver(harness::Event event);
  void Finish();

 private:
  const std::string id_;
  const std::string thread_id_;
  const std::string user_text_;
  const bool continuation_;
  model::CancelToken cancel_;
  mutable std::mutex mu_;
  std::string message_id_;
  std::vector<harness::Event> events_;
  std::vector<std::shared_ptr<TurnSubscriber>> subscribers_;
  bool done_ = false;
  TurnLog* log_ = nullptr;
};

struct TurnHubOptions {
  size_t max_active = 4096;  // turns in flight at once; more -> "server.busy"
  // The node's durable log and leases (`affordance serve`; must outlive the hub). Without one the
  // turns live in this process only (`affordance mcp`).
  TurnLog* log = nullptr;
};

struct TurnHubStats {
  // `queued`: turn phases waiting for a runtime now; `active`: turns in flight.
  int64_t started = 0, finished = 0, failed = 0, queued = 0, active = 0;
  // Over the finished turns' steps: prompt tokens sent, those the engine reported served from its
  // prefix cache, and steps whose history tokens were re-encoded (no sampled IDs came back).
  int64_t steps = 0, prompt_tokens = 0, cached_prompt_tokens = 0, reencoded_steps = 0;
};

class TurnHub {
 public:
  // Errors: "server.bad_option" (no runner).
  static Result<std::unique_ptr<TurnHub>> Create(std::unique_ptr<TurnRunner> runner,
                                                 TurnHubOptions options = {});
  ~TurnHub();  // cancels the turns in flight and waits until each has ended (persisted)

  // Starts a turn. Errors: "server.turn_active" (the thread already has a turn in flight),
  // "server.busy" (max_active turns are in flight), "server.stopping".
  Result<std::shared_ptr<ActiveTurn>> Submit(const std::string& thread_id,
                                             const std::string& user_text);
  // Starts a continuation of the thread (same errors as Submit).
  Result<std::shared_ptr<ActiveTurn>> SubmitContinuation(const std::string& thread_id);
  // The thread's turn in flight on this node; nullptr when none.
  std::shared_ptr<ActiveTurn> Active(const std::string& thread_id) const;
  // The thread's turn in flight on this node, or one followed from the node running it (with a
  // log); nullptr when none. Errors: "server.busy" (too many followed streams), the store's.
  Result<std::shared_ptr<ActiveTurn>> Watch(const std::string& thread_id);
  // Whether the thread has a turn in flight on any node.
  bool Running(const std::string& thread_id) const;
  // Stops the thread's turn wherever it runs. Errors: "server.no_active_turn".
  Status Stop(const std::string& thread_id);
  TurnLog* log() const { return options_.log; }
  TurnHubStats stats() const;
  int runtimes() const { return runner_->runtimes(); }

 private:
  TurnHub() = default;
  Result<std::shared_ptr<ActiveTurn>> Launch(std::shared_ptr<ActiveTurn> turn);
  void Ended(const std::shared_ptr<ActiveTurn>& turn, const Result<harness::TurnReport>& report);

  mutable std::mutex mu_;
  std::condition_variable idle_;
  std::map<std::string, std::shared_ptr<ActiveTurn>> active_;
  std::unique_ptr<TurnRunner> runner_;
  TurnHubOptions options_;
  TurnHubStats stats_;
  int ending_ = 0;  // turns out of active_ whose subscribers are being told they ended
  bool stopping_ = false;
};

}  // namespace affordance::server

// TurnHub: runs harness turns for the server on a bounded pool of workers and fans each turn's
// events out to the clients that watch it.
//
// A harness runs one turn at a time (its Frame holds a QuickJS runtime, a provider is
// single-threaded), so the hub owns N workers, each with its own TurnRunner, fed by one queue.
// Submit() queues a turn and returns its ActiveTurn at once; clients Subscribe() to it. An
// ActiveTurn buffers every event of the turn (typed harness::Event; each door writes its own form
// of it: the SSE route through protocol.h UiChunk, MCP ask from the turn's TurnReport), so a
// subscriber that arrives late (a page reload: `GET /api/chat/{id}/stream`) first receives the
// chunks so far, then follows live. A subscriber that goes away (a dropped connection) does not
// stop the turn: it runs to its end and the harness persists it. Only Cancel() (the client's
// explicit abort) stops the running step.
//
// The hub never writes messages or derives state: the harness is the one writer; the hub only
// moves its events.
//
// Thread safety: every method may be called from any thread. Subscribers are called on a worker
// thread, in chunk order, never concurrently for one turn; they must return quickly (queue the
// bytes, write elsewhere).
#pragma once

#include "base/result.h"
#include "harness/harness.h"
#include "harness/session.h"
#include "model/provider.h"

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace affordance::server {

// What one worker owns: everything a turn needs that must not be shared between threads.
class TurnRunner {
 public:
  virtual ~TurnRunner() = default;
  virtual Result<harness::TurnReport> RunTurn(const std::string& thread_id,
                                              const std::string& user_text,
                                              const harness::EventSink& sink,
                                              const model::CancelToken& cancel) = 0;
  // A continuation after a person's approval decision (harness::Harness::ContinueTurn).
  virtual Result<harness::TurnReport> ContinueTurn(const std::string& thread_id,
                                                   const harness::EventSink& sink,
                                                   const model::CancelToken& cancel) {
    (void)sink, (void)cancel;
    return MakeError("server.cannot_continue", "this server's turns cannot be continued",
                     thread_id);
  }
};

// Makes the runner of worker `index` (called once per worker, on the thread that creates the hub).
using RunnerFactory = std::function<Result<std::unique_ptr<TurnRunner>>(int index)>;

// One harness::Session per worker, all from `sessions` (one shared store); `sessions` must outlive
// the hub. This is how `affordance serve` and `affordance mcp` run turns.
RunnerFactory SessionRunners(harness::SessionFactory& sessions);

class TurnSubscriber {
 public:
  virtual ~TurnSubscriber() = default;
  virtual void OnEvent(const harness::Event& event) = 0;
  // The turn ended (its last event was delivered). Called exactly once per subscription.
  virtual void OnEnd() = 0;
};

class ActiveTurn {
 public:
  ActiveTurn(std::string thread_id, std::string user_text, bool continuation = false);

  const std::string& thread_id() const { return thread_id_; }
  const std::string& user_text() const { return user_text_; }
  // A continuation after an approval decision (no user text; TurnRunner::ContinueTurn).
  bool continuation() const { return continuation_; }
  // The assistant message id (from the turn's kStart event); empty until it started.
  std::string message_id() const;
  bool done() const;
  size_t events() const;

  // Delivers every event so far, then the live ones, then OnEnd (at once when already done).
  void Subscribe(const std::shared_ptr<TurnSubscriber>& subscriber);
  void Unsubscribe(const TurnSubscriber* subscriber);
  // Stops the running step (the turn ends with `abort` and is persisted as cancelled).
  void Cancel() { cancel_.Cancel(); }
  const model::CancelToken& cancel_token() const { return cancel_; }

  // Used by the hub's worker.
  void Publish(harness::Event event);
  void End();

 private:
  const std::string thread_id_;
  const std::string user_text_;
  const bool continuation_;
  model::CancelToken cancel_;
  mutable std::mutex mu_;
  std::string message_id_;
  std::vector<harness::Event> events_;
  std::vector<std::shared_ptr<TurnSubscriber>> subscribers_;
  bool done_ = false;
};

struct TurnHubOptions {
  int workers = 2;
  size_t max_queued = 4096;  // turns waiting for a worker; more -> "server.busy"
};

struct TurnHubStats {
  int64_t started = 0, finished = 0, failed = 0, queued = 0, active = 0;
  // Over the finished turns' steps: prompt tokens sent, those the engine reported served from its
  // prefix cache, and steps whose history tokens were re-encoded (no sampled IDs came back).
  int64_t steps = 0, prompt_tokens = 0, cached_prompt_tokens = 0, reencoded_steps = 0;
};

class TurnHub {
 public:
  // Creates the workers (each calls `factory` once). Errors: the factory's.
  static Result<std::unique_ptr<TurnHub>> Create(RunnerFactory factory, TurnHubOptions options);
  ~TurnHub();  // cancels running turns, drops queued ones, joins the workers

  // Queues a turn. Errors: "server.turn_active" (the thread already has a turn queued or
  // running), "server.busy" (the queue is full), "server.stopping".
  Result<std::shared_ptr<ActiveTurn>> Submit(const std::string& thread_id,
                                             const std::string& user_text);
  // Queues a continuation of the thread (same errors as Submit).
  Result<std::shared_ptr<ActiveTurn>> SubmitContinuation(const std::string& thread_id);
  // The thread's queued or running turn; nullptr when none.
  std::shared_ptr<ActiveTurn> Active(const std::string& thread_id) const;
  TurnHubStats stats() const;
  int workers() const { return static_cast<int>(threads_.size()); }

 private:
  TurnHub() = default;
  Result<std::shared_ptr<ActiveTurn>> Queue(std::shared_ptr<ActiveTurn> turn);
  void Work(TurnRunner& runner);

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<ActiveTurn>> queue_;
  std::map<std::string, std::shared_ptr<ActiveTurn>> active_;
  std::vector<std::unique_ptr<TurnRunner>> runners_;
  std::vector<std::thread> threads_;
  TurnHubOptions options_;
  TurnHubStats stats_;
  bool stopping_ = false;
};

}  // namespace affordance::server

#include "server/turn_hub.h"

#include <algorithm>

namespace affordance::server {
namespace {

harness::Event ErrorEvent(std::string text) {
  harness::Event e = harness::Event::Of(harness::EventKind::kError);
  e.text = std::move(text);
  return e;
}

// harness::TurnService as the hub's runner.
class ServiceTurnRunner final : public TurnRunner {
 public:
  explicit ServiceTurnRunner(harness::TurnService& service) : service_(service) {}
  void Start(const ActiveTurn& turn, harness::EventSink sink, Done done) override {
    harness::TurnStart start;
    start.thread_id = turn.thread_id();
    if (!turn.continuation()) start.user_text = turn.user_text();
    start.message_id = turn.id();  // a new message's was announced by the hub's `start`
    service_.Start(std::move(start), std::move(sink), turn.cancel_token(), std::move(done));
  }
  int runtimes() const override { return service_.runtimes(); }
  int64_t waiting() const override { return static_cast<int64_t>(service_.waiting()); }

 private:
  harness::TurnService& service_;
};

}  // namespace

std::unique_ptr<TurnRunner> ServiceRunner(harness::TurnService& service) {
  return std::make_unique<ServiceTurnRunner>(service);
}

ActiveTurn::ActiveTurn(std::string thread_id, std::string user_text, bool continuation,
                       std::string id)
    : id_(id.empty() ? store::NewId("m_") : std::move(id)),
      thread_id_(std::move(thread_id)),
      user_text_(std::move(user_text)),
      continuation_(continuation) {}

std::string ActiveTurn::message_id() const {
  std::lock_guard lock(mu_);
  return message_id_;
}

bool ActiveTurn::done() const {
  std::lock_guard lock(mu_);
  return done_;
}

size_t ActiveTurn::events() const {
  std::lock_guard lock(mu_);
  return events_.size();
}

// Subscribers are called under the lock: that is what keeps "buffered, then live" free of gaps and
// duplicates. They only queue bytes (TurnSubscriber's contract), so the lock is held briefly.
void ActiveTurn::Subscribe(const std::shared_ptr<TurnSubscriber>& subscriber) {
  std::lock_guard lock(mu_);
  for (const auto& event : events_) subscriber->OnEvent(event);
  if (done_) {
    subscriber->OnEnd();
    return;
  }
  subscribers_.push_back(subscriber);
}

void ActiveTurn::Unsubscribe(const TurnSubscriber* subscriber) {
  std::lock_guard lock(mu_);
  std::erase_if(subscribers_, [&](const auto& s) { return s.get() == subscriber; });
}

void ActiveTurn::Publish(harness::Event event) {
  if (log_ != nullptr) return log_->Publish(shared_from_this(), std::move(event));
  Deliver(std::move(event));
}

void ActiveTurn::End() {
  if (log_ != nullptr) return log_->End(shared_from_this());
  Finish();
}

void ActiveTurn::Deliver(harness::Event event) {
  std::lock_guard lock(mu_);
  if (done_) return;
  if (message_id_.empty() && event.kind == harness::EventKind::kStart) message_id_ = event.id;
  events_.push_back(std::move(event));
  for (const auto& s : subscribers_) s->OnEvent(events_.back());
}

void ActiveTurn::Finish() {
  std::lock_guard lock(mu_);
  if (done_) return;
  done_ = true;
  for (const auto& s : subscribers_) s->OnEnd();
  subscribers_.clear();
}

Result<std::unique_ptr<TurnHub>> TurnHub::Create(std::unique_ptr<TurnRunner> runner,
                                                 TurnHubOptions options) {
  if (!runner) return MakeError("server.bad_option", "the server needs a turn runner");
  std::unique_ptr<TurnHub> hub(new TurnHub());
  hub->runner_ = std::move(runner);
  hub->options_ = options;
  return hub;
}

TurnHub::~TurnHub() {
  std::unique_lock lock(mu_);
  stopping_ = true;
  for (auto& [id, turn] : active_) turn->Cancel();
  idle_.wait(lock, [&] { return active_.empty() && ending_ == 0; });
}

Result<std::shared_ptr<ActiveTurn>> TurnHub::Submit(const std::string& thread_id,
                                                    const std::string& user_text) {
  return Launch(std::make_shared<ActiveTurn>(thread_id, user_text));
}

Result<std::shared_ptr<ActiveTurn>> TurnHub::SubmitContinuation(const std::string& thread_id) {
  return Launch(std::make_shared<ActiveTurn>(thread_id, "", true));
}

Result<std::shared_ptr<ActiveTurn>> TurnHub::Launch(std::shared_ptr<ActiveTurn> turn) {
  const std::string& thread_id = turn->thread_id();
  {
    std::lock_guard lock(mu_);
    if (stopping_)
      return MakeError(ErrorKind::kUnavailable, "server.stopping", "the server is shutting down");
    if (active_.count(thread_id)) {
      return MakeError(ErrorKind::kConflict, "server.turn_active",
                       "this thread already has a turn running; cancel it or wait for it to end",
                       thread_id);
    }
    if (active_.size() >= options_.max_active) {
      return MakeError(ErrorKind::kUnavailable, "server.busy",
                       "too many turns are in flight; try again shortly",
                       std::to_string(active_.size()) + " in flight");
    }
    active_[thread_id] = turn;
  }
  if (options_.log != nullptr) {
    // The thread's one running turn across every node sharing the store.
    turn->SetLog(options_.log);
    if (Status begun = options_.log->Begin(turn); !begun) {
      std::lock_guard lock(mu_);
      active_.erase(thread_id);
      return begun.error();
    }
  }
  {
    std::lock_guard lock(mu_);
    ++stats_.started;
  }
  // A new message's turn is announced at once, with the id its assistant message will have, so
  // a client hears `start` even while the turn waits for a runtime. A continuation's parts join
  // an earlier UI message, which only the turn itself reads from the store.
  if (!turn->continuation()) turn->Publish(harness::StartEvent(turn->id(), thread_id));
  runner_->Start(
      *turn, [turn](const harness::Event& e) { turn->Publish(e); },
      [this, turn](Result<harness::TurnReport> report) { Ended(turn, report); });
  return turn;
}

void TurnHub::Ended(const std::shared_ptr<ActiveTurn>& turn,
                    const Result<harness::TurnReport>& report) {
  if (!report) {
    // The turn could not start (nothing half-written, harness.h): the client still hears why.
    turn->Publish(ErrorEvent(report.error().code + ": " + report.error().ToString()));
  }
  {
    std::lock_guard lock(mu_);
    active_.erase(turn->thread_id());
    ++ending_;
    ++(report ? stats_.finished : stats_.failed);
    if (report) {
      for (const auto& step : report->ledger) {
        ++stats_.steps;
        stats_.prompt_tokens += step.prompt_tokens;
        stats_.cached_prompt_tokens += step.cached_prompt_tokens;
        if (step.token_source == "reencoded") ++stats_.reencoded_steps;
      }
    }
  }
  turn->End();
  std::lock_guard lock(mu_);
  --ending_;
  idle_.notify_all();
}

std::shared_ptr<ActiveTurn> TurnHub::Active(const std::string& thread_id) const {
  std::lock_guard lock(mu_);
  auto it = active_.find(thread_id);
  return it == active_.end() ? nullptr : it->second;
}

Result<std::shared_ptr<ActiveTurn>> TurnHub::Watch(const std::string& thread_id) {
  if (auto local = Active(thread_id)) return local;
  if (options_.log == nullptr) return std::shared_ptr<ActiveTurn>();
  auto running = options_.log->Running(thread_id);
  if (!running) {
    if (running.error().code == "store.not_found") return std::shared_ptr<ActiveTurn>();
    return running.error();
  }
  return options_.log->Follow(*running);
}

bool TurnHub::Running(const std::string& thread_id) const {
  if (Active(thread_id)) return true;
  return options_.log != nullptr && options_.log->Running(thread_id).ok();
}

Status TurnHub::Stop(const std::string& thread_id) {
  if (auto local = Active(thread_id)) {
    local->Cancel();
    return {};
  }
  if (options_.log != nullptr) {
    Status stopped = options_.log->RequestStop(thread_id);
    if (stopped || stopped.error().code != "store.not_found") return stopped;
  }
  return MakeError(ErrorKind::kNotFound, "server.no_active_turn", "the thread has no running turn",
                   thread_id);
}

TurnHubStats TurnHub::stats() const {
  std::lock_guard lock(mu_);
  TurnHubStats s = stats_;
  s.active = static_cast<int64_t>(active_.size());
  s.queued = runner_->waiting();
  return s;
}

}  // namespace affordance::server

#include "server/turn_hub.h"

#include <algorithm>

namespace affordance::server {
namespace {

harness::Event ErrorEvent(std::string text) {
  harness::Event e = harness::Event::Of(harness::EventKind::kError);
  e.text = std::move(text);
  return e;
}

// A worker's runner: its own harness session.
class SessionRunner final : public TurnRunner {
 public:
  explicit SessionRunner(std::unique_ptr<harness::Session> session)
      : session_(std::move(session)) {}
  Result<harness::TurnReport> RunTurn(const std::string& thread_id, const std::string& user_text,
                                      const harness::EventSink& sink,
                                      const model::CancelToken& cancel) override {
    return session_->RunTurn(thread_id, user_text, sink, cancel);
  }
  Result<harness::TurnReport> ContinueTurn(const std::string& thread_id,
                                           const harness::EventSink& sink,
                                           const model::CancelToken& cancel) override {
    return session_->ContinueTurn(thread_id, sink, cancel);
  }

 private:
  std::unique_ptr<harness::Session> session_;
};

}  // namespace

RunnerFactory SessionRunners(harness::SessionFactory& sessions) {
  return [&sessions](int) -> Result<std::unique_ptr<TurnRunner>> {
    auto session = sessions.NewSession();
    if (!session) return session.error();
    return std::unique_ptr<TurnRunner>(std::make_unique<SessionRunner>(std::move(*session)));
  };
}

ActiveTurn::ActiveTurn(std::string thread_id, std::string user_text, bool continuation)
    : thread_id_(std::move(thread_id)),
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
  std::lock_guard lock(mu_);
  if (done_) return;
  if (message_id_.empty() && event.kind == harness::EventKind::kStart) message_id_ = event.id;
  events_.push_back(std::move(event));
  for (const auto& s : subscribers_) s->OnEvent(events_.back());
}

void ActiveTurn::End() {
  std::lock_guard lock(mu_);
  if (done_) return;
  done_ = true;
  for (const auto& s : subscribers_) s->OnEnd();
  subscribers_.clear();
}

Result<std::unique_ptr<TurnHub>> TurnHub::Create(RunnerFactory factory, TurnHubOptions options) {
  if (options.workers < 1) {
    return MakeError("server.bad_option", "the server needs at least one worker");
  }
  std::unique_ptr<TurnHub> hub(new TurnHub());
  hub->options_ = options;
  for (int i = 0; i < options.workers; ++i) {
    auto runner = factory(i);
    if (!runner) return runner.error();
    hub->runners_.push_back(std::move(*runner));
  }
  for (auto& runner : hub->runners_) {
    hub->threads_.emplace_back([h = hub.get(), r = runner.get()] { h->Work(*r); });
  }
  return hub;
}

TurnHub::~TurnHub() {
  std::deque<std::shared_ptr<ActiveTurn>> dropped;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    dropped.swap(queue_);
    for (auto& [id, turn] : active_) turn->Cancel();
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
  for (auto& turn : dropped) {
    turn->Publish(ErrorEvent("server.stopping: the server shut down"));
    turn->End();
  }
}

Result<std::shared_ptr<ActiveTurn>> TurnHub::Submit(const std::string& thread_id,
                                                    const std::string& user_text) {
  return Queue(std::make_shared<ActiveTurn>(thread_id, user_text));
}

Result<std::shared_ptr<ActiveTurn>> TurnHub::SubmitContinuation(const std::string& thread_id) {
  return Queue(std::make_shared<ActiveTurn>(thread_id, "", true));
}

Result<std::shared_ptr<ActiveTurn>> TurnHub::Queue(std::shared_ptr<ActiveTurn> turn) {
  const std::string& thread_id = turn->thread_id();
  std::lock_guard lock(mu_);
  if (stopping_)
    return MakeError(ErrorKind::kUnavailable, "server.stopping", "the server is shutting down");
  if (active_.count(thread_id)) {
    return MakeError(ErrorKind::kConflict, "server.turn_active",
                     "this thread already has a turn running; cancel it or wait for it to end",
                     thread_id);
  }
  if (queue_.size() >= options_.max_queued) {
    return MakeError(ErrorKind::kUnavailable, "server.busy",
                     "too many turns are waiting; try again shortly",
                     std::to_string(queue_.size()) + " queued");
  }
  active_[thread_id] = turn;
  queue_.push_back(turn);
  ++stats_.queued;
  cv_.notify_one();
  return turn;
}

std::shared_ptr<ActiveTurn> TurnHub::Active(const std::string& thread_id) const {
  std::lock_guard lock(mu_);
  auto it = active_.find(thread_id);
  return it == active_.end() ? nullptr : it->second;
}

TurnHubStats TurnHub::stats() const {
  std::lock_guard lock(mu_);
  TurnHubStats s = stats_;
  s.active = static_cast<int64_t>(active_.size());
  return s;
}

void TurnHub::Work(TurnRunner& runner) {
  for (;;) {
    std::shared_ptr<ActiveTurn> turn;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      turn = queue_.front();
      queue_.pop_front();
      --stats_.queued;
      ++stats_.started;
    }
    const harness::EventSink sink = [&](const harness::Event& e) { turn->Publish(e); };
    auto report =
        turn->continuation()
            ? runner.ContinueTurn(turn->thread_id(), sink, turn->cancel_token())
            : runner.RunTurn(turn->thread_id(), turn->user_text(), sink, turn->cancel_token());
    if (!report) {
      // The turn could not start (nothing half-written, harness.h): the client still hears why.
      turn->Publish(ErrorEvent(report.error().code + ": " + report.error().ToString()));
    }
    {
      std::lock_guard lock(mu_);
      active_.erase(turn->thread_id());
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
  }
}

}  // namespace affordance::server

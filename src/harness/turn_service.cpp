#include "harness/turn_service.h"

namespace affordance::harness {

struct TurnService::Turn {
  TurnStart start;
  EventSink sink;
  model::CancelToken cancel;
  TurnDone done;
  std::unique_ptr<model::Provider> own_provider;  // a per-turn provider (replay), else null
  std::unique_ptr<TurnRun> run;
  int pinned = -1;  // the runtime every phase runs on (a frame with apps), or -1
};

Result<std::unique_ptr<TurnService>> TurnService::Create(SessionFactory& sessions,
                                                         TurnServiceOptions options) {
  if (options.runtimes < 1) {
    return MakeError(ErrorKind::kInvalid, "harness.bad_option",
                     "the turn service needs at least one runtime");
  }
  std::unique_ptr<TurnService> service(new TurnService());
  service->factory_ = &sessions;
  for (int i = 0; i < options.runtimes; ++i) {
    auto session = sessions.NewSession();
    if (!session) return session.error();
    service->sessions_.push_back(std::move(*session));
  }
  service->pinned_.resize(service->sessions_.size());
  for (int i = 0; i < options.runtimes; ++i) {
    service->threads_.emplace_back([s = service.get(), i] { s->Work(i); });
  }
  return service;
}

TurnService::~TurnService() {
  std::unique_lock lock(mu_);
  stopping_ = true;
  for (const auto& turn : open_) turn->cancel.Cancel();
  // A cancelled turn still needs its phases (the step ends with abort, the turn is persisted).
  idle_cv_.wait(lock, [&] { return open_.empty(); });
  joining_ = true;
  work_cv_.notify_all();
  lock.unlock();
  for (auto& t : threads_) t.join();
}

size_t TurnService::open() const {
  std::lock_guard lock(mu_);
  return open_.size();
}

size_t TurnService::waiting() const {
  std::lock_guard lock(mu_);
  return waiting_;
}

void TurnService::Start(TurnStart start, EventSink sink, model::CancelToken cancel, TurnDone done) {
  auto turn = std::make_shared<Turn>();
  turn->start = std::move(start);
  turn->sink = std::move(sink);
  turn->cancel = std::move(cancel);
  turn->done = std::move(done);
  bool accepted = false;
  {
    std::lock_guard lock(mu_);
    accepted = !stopping_;
    if (accepted) open_.insert(turn);
  }
  if (!accepted) {
    turn->done(MakeError(ErrorKind::kUnavailable, "harness.stopping",
                         "the turn service is shutting down"));
    return;
  }
  Post(turn, [this, turn](Session& s, int index) { Open(turn, s, index); });
}

void TurnService::Post(const std::shared_ptr<Turn>& turn,
                       std::function<void(Session&, int)> phase) {
  {
    std::lock_guard lock(mu_);
    Task task{turn, std::move(phase)};
    if (turn->pinned >= 0)
      pinned_[turn->pinned].push_back(std::move(task));
    else
      shared_.push_back(std::move(task));
    ++waiting_;
  }
  // Every runtime may be the one free (or the pinned one): wake them all only when pinned.
  if (turn->pinned >= 0)
    work_cv_.notify_all();
  else
    work_cv_.notify_one();
}

void TurnService::Work(int index) {
  Session& session = *sessions_[index];
  for (;;) {
    Task task;
    {
      std::unique_lock lock(mu_);
      work_cv_.wait(lock, [&] { return joining_ || !pinned_[index].empty() || !shared_.empty(); });
      std::deque<Task>& queue = !pinned_[index].empty() ? pinned_[index] : shared_;
      if (queue.empty()) return;  // joining, nothing left
      task = std::move(queue.front());
      queue.pop_front();
      --waiting_;
    }
    task.phase(session, index);
  }
}

void TurnService::Open(const std::shared_ptr<Turn>& turn, Session& session, int index) {
  const TurnStart& start = turn->start;
  auto own = factory_->TurnProvider(start.thread_id, !start.user_text);
  if (!own) return End(turn, own.error());
  turn->own_provider = std::move(*own);
  model::Provider& provider = turn->own_provider ? *turn->own_provider : *factory_->provider();
  Harness& harness = session.harness();
  if (!start.user_text) {
    if (auto last = ContinuableTurn(session.store(), start.thread_id); !last) {
      return End(turn, last.error());
    }
  } else if (start.user_text->find_first_not_of(" \t\r\n\f\v") == std::string::npos) {
    return End(turn,
               MakeError(ErrorKind::kInvalid, "harness.empty_message", "the message is empty"));
  }
  auto run = harness.Begin(start.thread_id, start.user_text ? &*start.user_text : nullptr,
                           turn->sink, turn->cancel, provider, start.message_id,
                           start.user_text && !start.message_id.empty());
  if (!run) return End(turn, run.error());
  turn->run = std::move(*run);
  if (session.frame().has_apps()) turn->pinned = index;
  Step(turn, session);
}

void TurnService::Step(const std::shared_ptr<Turn>& turn, Session& session) {
  Harness& harness = session.harness();
  auto request = harness.NextStep(*turn->run);
  if (!request) return End(turn, harness.Finish(*turn->run));
  TurnRun* run = turn->run.get();
  run->provider->StreamAsync(
      std::move(*request), [run](const formats::StreamPart& part) { run->OnPart(part); },
      turn->cancel,
      [this, turn](Status) {
        // The terminal part already told the adapter how the step ended.
        Post(turn, [this, turn](Session& s, int) {
          s.harness().AfterStep(*turn->run);
          Step(turn, s);
        });
      });
}

void TurnService::End(const std::shared_ptr<Turn>& turn, Result<TurnReport> report) {
  TurnDone done = std::move(turn->done);
  if (done) done(std::move(report));
  std::lock_guard lock(mu_);
  open_.erase(turn);
  idle_cv_.notify_all();
}

}  // namespace affordance::harness

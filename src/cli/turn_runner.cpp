#include "cli/turn_runner.h"

#include "model/replay_provider.h"

#include <optional>

namespace affordance::cli {
namespace {

// One worker: a session of its own (frame, road, provider) writing to the shared store.
class SessionRunner : public server::TurnRunner {
 public:
  SessionRunner(store::Store& store, std::unique_ptr<Session> session,
                std::optional<model::ReplayScript> replay)
      : store_(store), session_(std::move(session)), replay_(std::move(replay)) {
    options_ = session_->harness->options();
    session_->harness.reset();  // it writes to the session's own store; ours is shared
    if (!replay_) {
      harness_ = std::make_unique<harness::Harness>(store_, *session_->provider, *session_->frame,
                                                    session_->road.get(), options_);
    }
  }

  Result<harness::TurnReport> RunTurn(const std::string& thread, const std::string& text,
                                      const harness::EventSink& sink,
                                      const model::CancelToken& cancel) override {
    if (!replay_) return harness_->RunTurn(thread, text, sink, cancel);
    auto provider = model::ReplayProvider::Create(session_->tokenizer, *replay_);
    if (!provider) return provider.error();
    harness::Harness h(store_, **provider, *session_->frame, session_->road.get(), options_);
    return h.RunTurn(thread, text, sink, cancel);
  }

  Result<harness::TurnReport> ContinueTurn(const std::string& thread,
                                           const harness::EventSink& sink,
                                           const model::CancelToken& cancel) override {
    if (!replay_) return harness_->ContinueTurn(thread, sink, cancel);
    auto provider = model::ReplayProvider::Create(session_->tokenizer, *replay_);
    if (!provider) return provider.error();
    // A continuation is the rest of the same model response: the script goes on from the steps
    // the response's earlier turns played (every step since the last user message).
    auto messages = store_.LoadThread(thread);
    if (!messages) return messages.error();
    size_t played = 0;
    for (auto m = messages->rbegin(); m != messages->rend() && m->role == "assistant"; ++m) {
      played += m->steps.size();
    }
    (*provider)->SkipTo(played);
    harness::Harness h(store_, **provider, *session_->frame, session_->road.get(), options_);
    return h.ContinueTurn(thread, sink, cancel);
  }

 private:
  store::Store& store_;
  std::unique_ptr<Session> session_;
  std::optional<model::ReplayScript> replay_;
  harness::HarnessOptions options_;
  std::unique_ptr<harness::Harness> harness_;
};

}  // namespace

Result<TurnService> OpenTurnService(const SessionOptions& o, int workers) {
  auto first = OpenSession(o);
  if (!first) return first.error();
  TurnService service;
  service.store = std::move((*first)->store);
  std::optional<model::ReplayScript> replay;
  if (o.provider == "replay") {
    auto script = model::LoadReplayScript(o.script);
    if (!script) return script.error();
    replay = std::move(*script);
  }
  std::unique_ptr<Session> pending = std::move(*first);
  store::Store* store = service.store.get();
  auto hub = server::TurnHub::Create(
      [&](int) -> Result<std::unique_ptr<server::TurnRunner>> {
        std::unique_ptr<Session> s = std::move(pending);
        if (!s) {
          auto opened = OpenSession(o);
          if (!opened) return opened.error();
          s = std::move(*opened);
        }
        return std::unique_ptr<server::TurnRunner>(
            std::make_unique<SessionRunner>(*store, std::move(s), replay));
      },
      {.workers = workers});
  if (!hub) return hub.error();
  service.hub = std::move(*hub);
  return service;
}

}  // namespace affordance::cli

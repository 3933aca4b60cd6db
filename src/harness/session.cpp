#include "harness/session.h"

namespace affordance::harness {

SessionFactory::SessionFactory(std::unique_ptr<store::Store> store, SessionRecipe recipe)
    : store_(std::move(store)), recipe_(std::move(recipe)) {}

Result<std::unique_ptr<Session>> SessionFactory::NewSession() {
  std::unique_ptr<Session> s(new Session(*this));
  if (!provider_) {
    auto provider = recipe_.provider(0);
    if (!provider) return provider.error();
    provider_ = std::move(*provider);
  }
  s->provider_ = provider_.get();
  if (recipe_.road) {
    auto road = recipe_.road();
    if (!road) return road.error();
    s->road_ = std::move(*road);
  }
  auto frame = Frame::Load(recipe_.frame);
  if (!frame) return frame.error();
  s->frame_ = std::move(*frame);
  s->harness_ = std::make_unique<Harness>(*store_, *s->provider_, *s->frame_, s->road_.get(),
                                          recipe_.options);
  return s;
}

Result<std::unique_ptr<model::Provider>> SessionFactory::TurnProvider(const std::string& thread_id,
                                                                      bool continuation) {
  if (!recipe_.provider_per_turn) return std::unique_ptr<model::Provider>();
  // A continuation is the rest of the same model response: its provider goes on from the steps
  // the response's earlier turns played (every step since the last user message).
  size_t played = 0;
  if (continuation) {
    auto messages = store_->LoadThread(thread_id);
    if (!messages) return messages.error();
    for (auto m = messages->rbegin(); m != messages->rend() && m->role == "assistant"; ++m) {
      played += m->steps.size();
    }
  }
  return recipe_.provider(played);
}

Session::Session(SessionFactory& factory) : store_(factory.store()), factory_(factory) {}
Session::~Session() = default;

Result<TurnReport> Session::RunTurn(const std::string& thread_id, const std::string& user_text,
                                    const EventSink& sink, const model::CancelToken& cancel) {
  if (factory_.recipe().provider_per_turn) return Fresh(thread_id, &user_text, sink, cancel);
  return harness_->RunTurn(thread_id, user_text, sink, cancel);
}

Result<TurnReport> Session::ContinueTurn(const std::string& thread_id, const EventSink& sink,
                                         const model::CancelToken& cancel) {
  if (factory_.recipe().provider_per_turn) return Fresh(thread_id, nullptr, sink, cancel);
  return harness_->ContinueTurn(thread_id, sink, cancel);
}

Result<TurnReport> Session::Fresh(const std::string& thread_id, const std::string* user_text,
                                  const EventSink& sink, const model::CancelToken& cancel) {
  auto provider = factory_.TurnProvider(thread_id, user_text == nullptr);
  if (!provider) return provider.error();
  Harness h(store_, **provider, *frame_, road_.get(), factory_.recipe().options);
  return user_text ? h.RunTurn(thread_id, *user_text, sink, cancel)
                   : h.ContinueTurn(thread_id, sink, cancel);
}

}  // namespace affordance::harness

// ModelChooser: the model-backed connect::Chooser. When RunConnectorCommand cannot resolve a
// request in words by itself, the road asks this chooser for ONE operation of THAT connector:
// a bounded, focused sub-step on the same provider that sees the request, the candidates (with
// their argument schemas and `which` hints) and the mirror tables, and must call
// choose_operation {operation, args} or give_up {reason}. The road validates the choice and hands
// back its error for at most `max_steps` choices; the chooser never substitutes a connector.
#pragma once

#include "connect/chooser.h"
#include "harness/frame.h"
#include "model/provider.h"

#include <memory>

namespace affordance::harness {

class ModelChooser final : public connect::Chooser {
 public:
  // `frame` is a plain frame (no apps) bound to the provider's tokenizer.
  ModelChooser(model::Provider& provider, std::unique_ptr<Frame> frame, bool chat_messages,
               int max_tokens);
  Result<connect::Choice> Choose(const connect::ChoiceRequest& request) override;
  // The cancellation of the turn whose tool runs now.
  void SetCancel(model::CancelToken cancel) { cancel_ = std::move(cancel); }
  // The provider of the turn whose tool runs now (its sub-steps go to the turn's own engine).
  void SetProvider(model::Provider& provider) { provider_ = &provider; }
  int sub_steps() const { return sub_steps_; }

 private:
  model::Provider* provider_;
  std::unique_ptr<Frame> frame_;
  bool chat_messages_;
  int max_tokens_;
  model::CancelToken cancel_;
  int sub_steps_ = 0;
};

}  // namespace affordance::harness

// Delivers one step's parts to the sink in the documented order, stamping provider metadata on
// every part.
#pragma once

#include "model/provider.h"

#include <optional>

namespace affordance::model::internal {

class StepWriter {
 public:
  StepWriter(const PartSink& sink, nlohmann::json metadata)
      : sink_(sink), metadata_(std::move(metadata)) {}

  void Emit(formats::StreamPart part);
  // Emits and clears `parts`.
  void EmitAll(std::vector<formats::StreamPart>& parts);
  void StartStep() { Emit(formats::StreamPart::Of(formats::PartType::kStartStep)); }
  // finish-step (usage, tokens; `step_metadata` merged into its metadata) + finish(reason);
  // returns ok.
  Status Finish(const formats::Usage& usage, std::vector<text::TokenId> tokens, std::string reason,
                const nlohmann::json& step_metadata = nullptr);
  // error part; returns the error.
  Status Fail(Error error);
  // abort part; returns "model.cancelled".
  Status Abort(std::string reason = "cancelled");

 private:
  const PartSink& sink_;
  nlohmann::json metadata_;
};

}  // namespace affordance::model::internal

#include "model/internal/step_writer.h"

namespace affordance::model::internal {

using formats::PartType;
using formats::StreamPart;

void StepWriter::Emit(StreamPart part) {
  if (!metadata_.is_null()) part.metadata = metadata_;
  sink_(part);
}

void StepWriter::EmitAll(std::vector<StreamPart>& parts) {
  for (auto& p : parts) Emit(std::move(p));
  parts.clear();
}

Status StepWriter::Finish(const formats::Usage& usage, std::vector<text::TokenId> tokens,
                          std::string reason, const nlohmann::json& step_metadata) {
  StreamPart step = StreamPart::Of(PartType::kFinishStep);
  step.usage = usage;
  step.tokens = std::move(tokens);
  if (step_metadata.is_object()) {
    if (!metadata_.is_null()) step.metadata = metadata_;
    step.metadata = step.metadata.is_object() ? step.metadata : nlohmann::json::object();
    step.metadata.update(step_metadata);
    sink_(step);
  } else {
    Emit(std::move(step));
  }
  StreamPart finish = StreamPart::Of(PartType::kFinish);
  finish.finish_reason = std::move(reason);
  Emit(std::move(finish));
  return {};
}

Status StepWriter::Fail(Error error) {
  StreamPart part = StreamPart::Of(PartType::kError);
  part.error_code = error.code;
  part.error_text = error.ToString();
  Emit(std::move(part));
  return error;
}

Status StepWriter::Abort(std::string reason) {
  StreamPart part = StreamPart::Of(PartType::kAbort);
  part.error_text = reason;
  Emit(std::move(part));
  return MakeError("model.cancelled", "the step was cancelled", std::move(reason));
}

}  // namespace affordance::model::internal

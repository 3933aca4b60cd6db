#include "model/internal/token_step.h"

namespace affordance::model::internal {

TokenStep::TokenStep(const text::Tokenizer& tokenizer, formats::ChatFormat format,
                     const std::string& id_prefix, StepWriter& writer)
    : tokenizer_(tokenizer),
      decoder_(tokenizer),
      parser_(formats::MakeOutputParser(format, {id_prefix})),
      writer_(writer) {}

Status TokenStep::Push(text::TokenId id) {
  auto piece = decoder_.Push(id);
  if (!piece.ok()) return piece.error();
  tokens_.push_back(id);
  parser_->Push({id, *piece, tokenizer_.IsSpecial(id)}, parts_);
  writer_.EmitAll(parts_);
  return {};
}

void TokenStep::Close() {
  if (closed_) return;
  closed_ = true;
  std::string rest = decoder_.Flush();
  if (!rest.empty()) parser_->Push({-1, rest, false}, parts_);
  parser_->Finish(parts_);
  writer_.EmitAll(parts_);
}

std::string TokenStep::Reason(const std::string& otherwise) const {
  if (!parser_->ended()) return otherwise;
  return parser_->tool_calls() > 0 ? "tool-calls" : "stop";
}

}  // namespace affordance::model::internal

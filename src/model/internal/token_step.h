// Turns a model's sampled token IDs into parts through the tokenizer's incremental decoder and the
// format's parser (replay and llama.cpp providers).
#pragma once

#include "model/internal/step_writer.h"

namespace affordance::model::internal {

// Sampled token IDs → text pieces → parser → parts.
class TokenStep {
 public:
  TokenStep(const text::Tokenizer& tokenizer, formats::ChatFormat format,
            const std::string& id_prefix, StepWriter& writer);
  // Decodes and parses one sampled token. Errors: an ID outside the vocabulary.
  Status Push(text::TokenId id);
  // True once the format's end-of-turn token was pushed.
  bool ended() const { return parser_->ended(); }
  // Flushes the decoder and the parser (closing open parts).
  void Close();
  // "tool-calls" / "stop" when the turn ended, else `otherwise`.
  std::string Reason(const std::string& otherwise) const;
  const std::vector<text::TokenId>& tokens() const { return tokens_; }
  std::vector<text::TokenId> TakeTokens() { return std::move(tokens_); }

 private:
  const text::Tokenizer& tokenizer_;
  text::IncrementalDecoder decoder_;
  std::unique_ptr<formats::OutputParser> parser_;
  StepWriter& writer_;
  std::vector<formats::StreamPart> parts_;
  std::vector<text::TokenId> tokens_;
  bool closed_ = false;
};

}  // namespace affordance::model::internal

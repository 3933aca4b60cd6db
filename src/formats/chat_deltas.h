// Chat-API mode: maps OpenAI-style streamed chat completion chunks onto stream parts.
//
// Each `data:` object of a /v1/chat/completions stream is pushed as parsed JSON. Mapping (first
// choice only):
//   delta.content            → text, through an OutputParser of `content_format` (so a model whose
//                               server has no tool parser still yields tool calls from <tool_call>
//                               tags that arrive as plain text pieces)
//   delta.reasoning_content  → reasoning parts (also delta.reasoning)
//   delta.tool_calls[i]      → tool-input-start (once id and name are known; a missing id gets a
//                               generated one), tool-input-delta per arguments piece; when the
//                               stream finishes each call's accumulated arguments are parsed:
//                               tool-input-end + tool-call, or tool-input-error with the raw text
//   choices[0].finish_reason → finish_reason() ("tool_calls" → "tool-calls", "stop", "length", ..)
//   usage                    → usage() (prompt_tokens, completion_tokens,
//                               prompt_tokens_details.cached_tokens)
// A chunk that is not an object, or an "error" object, is an error value; the mapper stays usable.
#pragma once

#include "formats/internal/part_emitter.h"
#include "formats/output_parser.h"
#include "formats/stream_part.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace affordance::formats {

struct ChatDeltaOptions {
  std::string id_prefix;
  // How to read delta.content: kPlain (text only) or kQwen3 (tags in the text).
  ChatFormat content_format = ChatFormat::kPlain;
};

class ChatDeltaMapper {
 public:
  explicit ChatDeltaMapper(ChatDeltaOptions options);

  // Maps one chunk. Errors: "formats.chat_chunk" (not an object / no choices and no usage),
  // "formats.chat_error" (the server sent {"error": ...} in the stream).
  Status Push(const nlohmann::json& chunk, std::vector<StreamPart>& out);
  // Ends the stream: closes content, finalizes every tool call. Idempotent.
  void Finish(std::vector<StreamPart>& out);

  // "stop", "length", "tool-calls", ... or empty when the server sent none.
  const std::string& finish_reason() const { return finish_reason_; }
  const Usage& usage() const { return usage_; }
  bool has_usage() const { return has_usage_; }
  int tool_calls() const;
  int tool_errors() const;

 private:
  struct Call {
    std::string id;
    std::string name;
    std::string arguments;
    bool started = false;
  };
  // Errors: "formats.chat_chunk" when the delta's index is not a small non-negative integer.
  Status PushToolCall(const nlohmann::json& delta, std::vector<StreamPart>& out);

  ChatDeltaOptions options_;
  std::unique_ptr<OutputParser> content_;
  internal::PartEmitter reasoning_;
  std::map<int, Call> calls_;
  int generated_ids_ = 0;
  int calls_ok_ = 0;
  int calls_failed_ = 0;
  std::string finish_reason_;
  Usage usage_;
  bool has_usage_ = false;
  bool finished_ = false;
};

}  // namespace affordance::formats

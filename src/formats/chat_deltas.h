// Chat-API mode: maps OpenAI-style streamed chat completion chunks onto stream parts.
//
// Each `data:` object of a /v1/chat/completions stream is pushed as parsed JSON. Mapping (first
// choice only):
//   delta.content            → text, through an OutputParser of `content_format` (so a model whose
//                               server has no tool parser still yields tool calls from <tool_call>
//                               tags that arrive as plain text pieces)
//   delta.reasoning_content  → reasoning parts (also delta.reasoning)
//   delta.tool_calls[i]      → tool-input-start (once the name is known), tool-input-delta per
//                               arguments piece; when the stream finishes each call's accumulated
//                               arguments are parsed: tool-input-end + tool-call, or
//                               tool-input-error with the raw text (arguments nested deeper than
//                               kMaxJsonDepth are such an error, code "formats.too_deep")
//   choices[0].finish_reason → finish_reason() ("tool_calls" → "tool-calls", "stop", "length", ..)
//   usage                    → usage() (prompt_tokens, completion_tokens,
//                               prompt_tokens_details.cached_tokens)
// A chunk that is not an object, or an "error" object, is an error value; the mapper stays usable.
//
// Tool call ids. `index` says which call a delta belongs to; the id is the server's name for that
// call, sent on one of its deltas (the first one that carries an id wins). Part ids must be unique
// within the step, across the API's calls, the calls parsed from <tool_call> tags in the content,
// and the text and reasoning parts, or the UI stream would merge two calls into one. So a call
// keeps the server's id only when no earlier call of the step took it and it lies outside this
// mapper's own namespace (ids beginning with `id_prefix`, where the generated ids live); otherwise
// the call gets a generated id "<prefix>api-call-N" and its parts carry the server's id as
// metadata {"serverToolCallId": ...}. A server that reuses one id at two indexes has sent two
// calls, not one: both are kept, the second under a generated id. With an empty prefix every call
// gets a generated id.
#pragma once

#include "formats/internal/part_emitter.h"
#include "formats/output_parser.h"
#include "formats/stream_part.h"

#include <map>
#include <memory>
#include <set>
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
    std::string server_id;  // the first id the server sent for this index
    std::string id;         // the part id: decided once, when the call starts or finishes
    std::string name;
    std::string arguments;
    bool started = false;
  };
  // Errors: "formats.chat_chunk" when the delta's index is not a small non-negative integer.
  Status PushToolCall(const nlohmann::json& delta, std::vector<StreamPart>& out);
  // Decides `call.id` (see "Tool call ids" above).
  void AssignId(Call& call);
  // A part of `call`, with the server's id as metadata when the call does not carry it.
  StreamPart PartOf(PartType type, const Call& call) const;

  ChatDeltaOptions options_;
  std::unique_ptr<OutputParser> content_;
  internal::PartEmitter reasoning_;
  std::map<int, Call> calls_;
  std::set<std::string> server_ids_;  // server ids given to calls of this step
  int generated_ids_ = 0;
  int calls_ok_ = 0;
  int calls_failed_ = 0;
  std::string finish_reason_;
  Usage usage_;
  bool has_usage_ = false;
  bool finished_ = false;
};

}  // namespace affordance::formats

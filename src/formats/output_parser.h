// Incremental parsing of a model's output, token by token, into stream parts.
//
// An OutputParser is fed the sampled tokens of ONE assistant turn, in order, as OutputTokens (ID,
// the text the token completes, whether it is a special token), and appends StreamParts as soon as
// they are known: text and reasoning deltas, tool-input-start once a call's name is known, the
// call's arguments as tool-input-delta while they arrive, and a tool-call (or tool-input-error)
// when the call closes. Finish() ends the turn: it closes open parts and turns a call left open
// into a tool-input-error. Malformed output is never shown as prose and never dropped: it becomes a
// tool-input-error carrying the raw text and the parse error.
//
// Recognition works on text, so it is the same whether a tag arrives as one token (Qwen3's
// <tool_call> = 151657) or as several text pieces (a chat API or /v1/completions that returns only
// text): a piece that could be the beginning of a tag is held back until the next piece decides it,
// so a half-received tag is never shown as text. Whitespace-only text between structural elements
// (e.g. the "\n" between two calls) does not open a text part; the caller keeps the sampled tokens
// as the canonical history anyway.
//
// Formats (docs/HARNESS.md has the exact grammar):
//   kQwen3:   text, <think>..</think> as reasoning, any number of
//             <tool_call>\n{"name": N, "arguments": A}\n</tool_call>; <|im_end|> / <|endoftext|>
//             end the turn.
//   kLlama31: one JSON call {"name": N, "parameters": A} when the turn starts with "{" or after
//             <|python_tag|>; otherwise text; <|eom_id|> / <|eot_id|> end the turn.
//   kPlain:   everything is text (chat APIs whose tool calls arrive out of band).
// Tokens after the end-of-turn token are not part of the turn and are ignored.
//
// Not thread-safe; one parser per turn. Push/Finish never fail: every input has an outcome.
#pragma once

#include "formats/stream_part.h"
#include "text/tokenizer.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace affordance::formats {

enum class ChatFormat { kQwen3, kLlama31, kPlain };

// "qwen3", "llama3.1", "plain" (and back). Unknown names: error "formats.unknown_format".
Result<ChatFormat> ParseChatFormat(std::string_view name);
std::string_view ChatFormatName(ChatFormat format);
// The format whose control tokens the tokenizer has (<tool_call> → qwen3, <|eom_id|> → llama3.1).
std::optional<ChatFormat> DetectChatFormat(const text::Tokenizer& tokenizer);

// How a format's turns are spelled: the facts the frame, the harness and the replay provider need,
// kept here with the parsers rather than spread over them (shared/reference/chat-formats.md).
struct TurnSyntax {
  std::string_view turn_start;                // the control token that opens every turn
  std::string_view user_header;               // what follows it in a user turn, as text
  std::string_view turn_end;                  // the text that closes a turn in a prompt
  std::vector<std::string_view> end_of_turn;  // tokens that end the model's turn when sampled
  bool merges_tool_results;  // the template puts consecutive tool results in one turn (Qwen3)
  // The control token that opens each result inside such a merged turn ("" when none).
  std::string_view tool_result_open;
};
// Qwen3: <|im_start|>, "user\n", "<|im_end|>\n", {<|im_end|>, <|endoftext|>}, merges, each result
// opened by <tool_response>.
// Llama 3.1: <|start_header_id|>, "user<|end_header_id|>\n\n", <|eot_id|>, {<|eot_id|>,
// <|eom_id|>}. nullptr for kPlain (a chat API spells the turns itself).
const TurnSyntax* TurnSyntaxOf(ChatFormat format);
// The syntax of the format the tokenizer has (DetectChatFormat); nullptr when it has none.
const TurnSyntax* TurnSyntaxOf(const text::Tokenizer& tokenizer);

// One sampled token. `text` is what the token adds to the output (possibly empty while a UTF-8
// character is incomplete); `id` is -1 when only text is known (text-only APIs).
struct OutputToken {
  text::TokenId id = -1;
  std::string_view text;
  bool is_special = false;
};

struct ParserOptions {
  // Prefix of every part id this parser makes ("<prefix>text-0", "<prefix>call-1", ...); make it
  // unique per step so ids are unique within a conversation.
  std::string id_prefix;
};

class OutputParser {
 public:
  virtual ~OutputParser() = default;
  // Feeds one token; appends the parts it completes to `out`.
  virtual void Push(const OutputToken& token, std::vector<StreamPart>& out) = 0;
  // Ends the turn (end-of-turn token seen, or generation stopped): flushes held-back text, closes
  // open text/reasoning parts, reports a call left open as tool-input-error. Idempotent.
  virtual void Finish(std::vector<StreamPart>& out) = 0;
  // The model ended its turn, but its end-of-turn token never arrived as text (an engine that
  // reports the end as finish_reason "stop" and drops the token from the text, as llama-server and
  // vLLM do on /v1/completions): like Finish after that token. For Llama 3.1 a call at the end of
  // the turn is then complete, not cut off. Idempotent.
  virtual void EndTurn(std::vector<StreamPart>& out) { Finish(out); }
  // True once the format's end-of-turn token was pushed.
  virtual bool ended() const = 0;
  // Well-formed tool calls reported so far (tool-call parts).
  virtual int tool_calls() const = 0;
  // Malformed calls reported so far (tool-input-error parts).
  virtual int tool_errors() const = 0;
};

std::unique_ptr<OutputParser> MakeOutputParser(ChatFormat format, ParserOptions options = {});

}  // namespace affordance::formats

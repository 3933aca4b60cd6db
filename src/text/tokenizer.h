// Exact Hugging Face byte-level BPE tokenization (tokenizer.json), for every token the product
// emits.
//
// A Tokenizer is immutable after Load() and safe to use from many threads at once (Encode/Decode
// are const and allocate only their results and per-call scratch). IDs are int32_t as in
// tokenizer.json.
#pragma once

#include "base/result.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace affordance::text {

using TokenId = int32_t;

struct EncodeOptions {
  // false (default): the spelling of every added token (special ones such as "<|im_end|>" and
  // non-special ones such as Qwen's "<tool_call>") is plain text, so untrusted content never
  // becomes a control token; place control tokens by ID (TokenIdOf). true: added tokens are
  // matched as the reference library does (for trusted protocol text only).
  bool match_special = false;
  // Apply the post-processor (e.g. Llama's <|begin_of_text|> TemplateProcessing). Off by default:
  // the product places protocol tokens itself.
  bool add_special_tokens = false;
};

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  // Parses a tokenizer.json document (and optionally the tokenizer_config.json text). Every
  // component we do not support is refused with an error naming it. Errors: "tokenizer.*".
  static Result<std::unique_ptr<Tokenizer>> FromJson(std::string_view tokenizer_json,
                                                     std::string_view tokenizer_config_json = {});
  // Loads <dir>/tokenizer.json (+ <dir>/tokenizer_config.json when present).
  static Result<std::unique_ptr<Tokenizer>> LoadDirectory(const std::string& dir);

  // Encodes UTF-8 text. Invalid UTF-8 is an error whose detail names the byte offset.
  virtual Result<std::vector<TokenId>> Encode(std::string_view text,
                                              const EncodeOptions& options = {}) const = 0;
  // Appends the IDs of `text` to `out` (hot path: no result vector allocation).
  virtual Status EncodeInto(std::string_view text, std::vector<TokenId>& out,
                            const EncodeOptions& options = {}) const = 0;
  // Decodes IDs to text (ByteLevel decoder; special tokens are decoded to their spelling).
  // An ID out of range is an error. Bytes that do not form valid UTF-8 are replaced by U+FFFD.
  virtual Result<std::string> Decode(std::span<const TokenId> ids) const = 0;

  // The raw bytes a single token stands for (a special token's spelling for added tokens).
  virtual Result<std::string> TokenBytes(TokenId id) const = 0;
  // The token string as stored in the vocabulary (byte-level alphabet form, e.g. "Ġhello").
  virtual std::optional<std::string_view> TokenString(TokenId id) const = 0;
  // The ID of an exact vocabulary or added-token string, e.g. TokenIdOf("<|im_end|>").
  virtual std::optional<TokenId> TokenIdOf(std::string_view token) const = 0;
  // True for added tokens marked special (control tokens).
  virtual bool IsSpecial(TokenId id) const = 0;
  // Number of IDs (vocabulary + added tokens); valid IDs are [0, VocabSize()).
  virtual size_t VocabSize() const = 0;
};

// Turns a stream of IDs into valid UTF-8 pieces, holding back bytes of an incomplete character
// until the next ID completes it (streaming model output).
class IncrementalDecoder {
 public:
  explicit IncrementalDecoder(const Tokenizer& tokenizer);
  // Returns the text that became complete with `id` (may be empty). Errors on an ID out of range.
  Result<std::string> Push(TokenId id);
  // Returns what is still held back (invalid trailing bytes become U+FFFD) and resets.
  std::string Flush();

 private:
  const Tokenizer* tokenizer_;
  std::string pending_;
};

// The model registry. `name_or_path` is a registered name ("Qwen__Qwen3-4B-Instruct-2507",
// "meta-llama__Llama-3.1-8B-Instruct", resolved under the models root: $AFFORDANCE_MODELS, else
// the prepared data installed with the running program (<prefix>/share/affordance/models, see
// base/data_dir.h), else <source root>/models) or a path to any folder with tokenizer.json (+
// tokenizer_config.json). Loaded tokenizers are cached per resolved folder for the life of the
// process.
Result<std::shared_ptr<const Tokenizer>> LoadModel(const std::string& name_or_path);

}  // namespace affordance::text

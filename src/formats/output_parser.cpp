#include "formats/output_parser.h"

#include "formats/internal/parsers.h"

namespace affordance::formats {

Result<ChatFormat> ParseChatFormat(std::string_view name) {
  if (name == "qwen3") return ChatFormat::kQwen3;
  if (name == "llama3.1") return ChatFormat::kLlama31;
  if (name == "plain") return ChatFormat::kPlain;
  return MakeError("formats.unknown_format",
                   "unknown chat format; expected qwen3, llama3.1 or plain", std::string(name));
}

std::string_view ChatFormatName(ChatFormat format) {
  switch (format) {
    case ChatFormat::kQwen3:
      return "qwen3";
    case ChatFormat::kLlama31:
      return "llama3.1";
    case ChatFormat::kPlain:
      return "plain";
  }
  return "plain";
}

std::optional<ChatFormat> DetectChatFormat(const text::Tokenizer& tokenizer) {
  if (tokenizer.TokenIdOf("<tool_call>") && tokenizer.TokenIdOf("<|im_end|>")) {
    return ChatFormat::kQwen3;
  }
  if (tokenizer.TokenIdOf("<|eom_id|>") && tokenizer.TokenIdOf("<|python_tag|>")) {
    return ChatFormat::kLlama31;
  }
  return std::nullopt;
}

const TurnSyntax* TurnSyntaxOf(ChatFormat format) {
  static const TurnSyntax kQwen3{"<|im_start|>", "user\n",
                                 "<|im_end|>\n", {"<|im_end|>", "<|endoftext|>"},
                                 true,           "<tool_response>"};
  static const TurnSyntax kLlama31{"<|start_header_id|>",
                                   "user<|end_header_id|>\n\n",
                                   "<|eot_id|>",
                                   {"<|eot_id|>", "<|eom_id|>"},
                                   false,
                                   ""};
  switch (format) {
    case ChatFormat::kQwen3:
      return &kQwen3;
    case ChatFormat::kLlama31:
      return &kLlama31;
    case ChatFormat::kPlain:
      return nullptr;
  }
  return nullptr;
}

const TurnSyntax* TurnSyntaxOf(const text::Tokenizer& tokenizer) {
  auto format = DetectChatFormat(tokenizer);
  return format ? TurnSyntaxOf(*format) : nullptr;
}

std::unique_ptr<OutputParser> MakeOutputParser(ChatFormat format, ParserOptions options) {
  switch (format) {
    case ChatFormat::kQwen3:
      return internal::MakeQwen3Parser(std::move(options));
    case ChatFormat::kLlama31:
      return internal::MakeLlama31Parser(std::move(options));
    case ChatFormat::kPlain:
      return internal::MakePlainParser(std::move(options));
  }
  return internal::MakePlainParser(std::move(options));
}

}  // namespace affordance::formats

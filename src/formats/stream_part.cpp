#include "formats/stream_part.h"

namespace affordance::formats {

std::string_view PartTypeName(PartType type) {
  switch (type) {
    case PartType::kStart:
      return "start";
    case PartType::kStartStep:
      return "start-step";
    case PartType::kTextStart:
      return "text-start";
    case PartType::kTextDelta:
      return "text-delta";
    case PartType::kTextEnd:
      return "text-end";
    case PartType::kReasoningStart:
      return "reasoning-start";
    case PartType::kReasoningDelta:
      return "reasoning-delta";
    case PartType::kReasoningEnd:
      return "reasoning-end";
    case PartType::kToolInputStart:
      return "tool-input-start";
    case PartType::kToolInputDelta:
      return "tool-input-delta";
    case PartType::kToolInputEnd:
      return "tool-input-end";
    case PartType::kToolCall:
      return "tool-call";
    case PartType::kToolInputError:
      return "tool-input-error";
    case PartType::kCitation:
      return "citation";
    case PartType::kFinishStep:
      return "finish-step";
    case PartType::kFinish:
      return "finish";
    case PartType::kError:
      return "error";
    case PartType::kAbort:
      return "abort";
  }
  return "unknown";
}

StreamPart StreamPart::Of(PartType type, std::string id) {
  StreamPart part;
  part.type = type;
  part.id = std::move(id);
  return part;
}

nlohmann::json ToJson(const StreamPart& p) {
  nlohmann::json j = {{"type", PartTypeName(p.type)}};
  switch (p.type) {
    case PartType::kStart:
    case PartType::kStartStep:
      break;
    case PartType::kTextStart:
    case PartType::kTextEnd:
    case PartType::kReasoningStart:
    case PartType::kReasoningEnd:
      j["id"] = p.id;
      break;
    case PartType::kTextDelta:
    case PartType::kReasoningDelta:
      j["id"] = p.id;
      j["delta"] = p.delta;
      break;
    case PartType::kToolInputStart:
      j["toolCallId"] = p.id;
      j["toolName"] = p.tool_name;
      break;
    case PartType::kToolInputDelta:
      j["toolCallId"] = p.id;
      j["inputTextDelta"] = p.delta;
      break;
    case PartType::kToolInputEnd:
      j["toolCallId"] = p.id;
      break;
    case PartType::kToolCall:
      j["toolCallId"] = p.id;
      j["toolName"] = p.tool_name;
      j["input"] = p.input;
      break;
    case PartType::kToolInputError:
      j["toolCallId"] = p.id;
      j["toolName"] = p.tool_name;
      j["input"] = p.input_text;
      j["errorText"] = p.error_text;
      if (!p.error_code.empty()) j["errorCode"] = p.error_code;
      break;
    case PartType::kCitation:
      j["id"] = p.id;
      j["citedText"] = p.delta;
      j["refs"] = p.refs;
      j["offset"] = p.offset;
      break;
    case PartType::kFinishStep:
      j["usage"] = {{"promptTokens", p.usage.prompt_tokens},
                    {"cachedPromptTokens", p.usage.cached_prompt_tokens},
                    {"generatedTokens", p.usage.generated_tokens}};
      break;
    case PartType::kFinish:
      j["finishReason"] = p.finish_reason;
      break;
    case PartType::kError:
      j["errorText"] = p.error_text;
      if (!p.error_code.empty()) j["errorCode"] = p.error_code;
      break;
    case PartType::kAbort:
      if (!p.error_text.empty()) j["reason"] = p.error_text;
      break;
  }
  if (!p.metadata.is_null() && !p.metadata.empty()) j["providerMetadata"] = p.metadata;
  return j;
}

}  // namespace affordance::formats

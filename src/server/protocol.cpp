#include "server/protocol.h"

#include <algorithm>

#include <charconv>

namespace affordance::server {

Result<ClientProtocol> ParseClientVersion(std::string_view header) {
  if (header.empty()) return ClientProtocol{};
  auto bad = [&] {
    return MakeError(ErrorKind::kInvalid, "server.bad_client_version",
                     "x-ai-sdk-version must be MAJOR.MINOR.PATCH, e.g. 7.0.173",
                     std::string(header.substr(0, 40)));
  };
  int parts[3] = {0, 0, 0};
  const char* p = header.data();
  const char* end = header.data() + header.size();
  for (int i = 0; i < 3; ++i) {
    auto [next, ec] = std::from_chars(p, end, parts[i]);
    if (ec != std::errc() || next == p || parts[i] < 0) return bad();
    p = next;
    if (i < 2) {
      if (p == end || *p != '.') return bad();
      ++p;
    }
  }
  if (p != end && *p != '-' && *p != '+') return bad();
  return ClientProtocol{parts[0], parts[1], parts[2]};
}

nlohmann::ordered_json UiChunk(const harness::Event& e) {
  using harness::EventKind;
  nlohmann::ordered_json c;
  c["type"] = harness::ChunkType(e.kind);
  switch (e.kind) {
    case EventKind::kStart:
      c["messageId"] = e.id;
      c["messageMetadata"] = {{"threadId", e.thread_id}};
      break;
    case EventKind::kStartStep:
    case EventKind::kFinishStep:
      break;
    case EventKind::kTextStart:
    case EventKind::kReasoningStart:
    case EventKind::kReasoningEnd:
      c["id"] = e.id;
      break;
    case EventKind::kTextEnd:
      c["id"] = e.id;
      if (e.value.is_array() && !e.value.empty()) c["citations"] = e.value;
      break;
    case EventKind::kCitation:
      c["id"] = e.id;
      c["data"] = e.value;
      c["transient"] = true;
      break;
    case EventKind::kTextDelta:
    case EventKind::kReasoningDelta:
      c["id"] = e.id;
      c["delta"] = e.text;
      break;
    case EventKind::kToolInputStart:
      c["toolCallId"] = e.id;
      c["toolName"] = e.tool_name;
      break;
    case EventKind::kToolInputDelta:
      c["toolCallId"] = e.id;
      c["inputTextDelta"] = e.text;
      break;
    case EventKind::kToolInputAvailable:
      c["toolCallId"] = e.id;
      c["toolName"] = e.tool_name;
      c["input"] = e.value;
      break;
    case EventKind::kToolInputError:
      c["toolCallId"] = e.id;
      c["toolName"] = e.tool_name;
      c["input"] = e.input_text;
      c["errorText"] = e.text;
      break;
    case EventKind::kToolOutputAvailable:
      c["toolCallId"] = e.id;
      c["output"] = e.value;
      break;
    case EventKind::kToolOutputError:
      c["toolCallId"] = e.id;
      c["errorText"] = e.text;
      break;
    case EventKind::kToolOutputDenied:
      c["toolCallId"] = e.id;
      break;
    case EventKind::kToolApprovalRequest:
      c["approvalId"] = e.approval_id;
      c["toolCallId"] = e.id;
      break;
    case EventKind::kTruth: {
      nlohmann::ordered_json truth = {{"toolCallId", e.id}, {"state", e.state}};
      if (!e.data_state.empty()) truth["dataState"] = e.data_state;
      if (!e.ref.empty()) truth["ref"] = e.ref;
      c["id"] = e.id;
      c["data"] = std::move(truth);
      break;
    }
    case EventKind::kSurface:
    case EventKind::kApproval:
    case EventKind::kTurn:
      c["id"] = e.id;
      c["data"] = e.value;
      break;
    case EventKind::kError:
      c["errorText"] = e.text;
      break;
    case EventKind::kFinish:
      c["finishReason"] = e.text;
      break;
    case EventKind::kAbort:
      c["reason"] = e.text;
      break;
  }
  return c;
}

Result<harness::Event> ParseUiChunk(const nlohmann::ordered_json& c) {
  using harness::EventKind;
  auto bad = [&](std::string why) {
    return MakeError(
        "server.bad_chunk", std::move(why),
        c.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).substr(0, 80));
  };
  if (!c.is_object() || !c.contains("type") || !c["type"].is_string()) {
    return bad("a chunk is an object with a string type");
  }
  const std::string type = c["type"].get<std::string>();
  harness::Event e;
  bool known = false;
  for (int k = 0; k <= static_cast<int>(EventKind::kAbort); ++k) {
    if (harness::ChunkType(static_cast<EventKind>(k)) == type) {
      e.kind = static_cast<EventKind>(k);
      known = true;
      break;
    }
  }
  if (!known) return bad("unknown chunk type " + type);
  auto str = [&](const char* field, std::string& out) -> bool {
    if (!c.contains(field)) return true;
    if (!c[field].is_string()) return false;
    out = c[field].get<std::string>();
    return true;
  };
  const char* id_field = e.tool() ? "toolCallId" : e.kind == EventKind::kStart ? "messageId" : "id";
  const char* text_field =
      e.kind == EventKind::kToolInputDelta                                        ? "inputTextDelta"
      : e.kind == EventKind::kFinish                                              ? "finishReason"
      : e.kind == EventKind::kAbort                                               ? "reason"
      : (e.kind == EventKind::kTextDelta || e.kind == EventKind::kReasoningDelta) ? "delta"
                                                                                  : "errorText";
  bool ok = str(id_field, e.id) && str("toolName", e.tool_name) && str(text_field, e.text) &&
            str("approvalId", e.approval_id);
  if (!ok) return bad("a field of " + type + " has the wrong type");
  switch (e.kind) {
    case EventKind::kStart:
      if (c.contains("messageMetadata") && c["messageMetadata"].is_object()) {
        e.thread_id = c["messageMetadata"].value("threadId", "");
      }
      break;
    case EventKind::kToolInputAvailable:
      e.value = c.value("input", nlohmann::ordered_json());
      break;
    case EventKind::kToolInputError:
      if (!str("input", e.input_text)) return bad("tool-input-error input is the arguments text");
      break;
    case EventKind::kToolOutputAvailable:
      e.value = c.value("output", nlohmann::ordered_json());
      break;
    case EventKind::kTruth: {
      const auto& d = c.value("data", nlohmann::ordered_json::object());
      if (!d.is_object()) return bad("data-truth data is an object");
      e.state = d.value("state", "");
      e.data_state = d.value("dataState", "");
      e.ref = d.value("ref", "");
      break;
    }
    case EventKind::kSurface:
    case EventKind::kApproval:
    case EventKind::kTurn:
    case EventKind::kCitation:
      e.value = c.value("data", nlohmann::ordered_json());
      if (e.kind == EventKind::kCitation) e.text = e.value.value("citedText", "");
      break;
    case EventKind::kTextEnd:
      if (c.contains("citations")) {
        if (!c["citations"].is_array()) return bad("text-end citations is an array");
        e.value = c["citations"];
      }
      break;
    default:
      break;
  }
  return e;
}

std::optional<nlohmann::ordered_json> ChunkFor(const harness::Event& event,
                                               const ClientProtocol& client) {
  using harness::EventKind;
  nlohmann::ordered_json chunk = UiChunk(event);
  if (event.kind == EventKind::kTextEnd && !client.citations()) {
    chunk.erase("citations");  // the text keeps its "[r3]"; data-turn still carries the claims
    return chunk;
  }
  if (event.kind == EventKind::kFinish && !client.finish_reason()) {
    chunk.erase("finishReason");
    return chunk;
  }
  const bool approval = event.kind == EventKind::kToolApprovalRequest;
  if ((approval || event.kind == EventKind::kToolOutputDenied) && !client.approvals()) {
    chunk.erase("type");
    return nlohmann::ordered_json{
        {"type", approval ? "data-approval-request" : "data-output-denied"},
        {"id", event.id},
        {"data", std::move(chunk)}};
  }
  return chunk;
}

std::optional<nlohmann::ordered_json> ClientStream::Next(const harness::Event& event) {
  using harness::EventKind;
  if (resumed_ && event.tool()) {
    const bool opens =
        event.kind == EventKind::kToolInputStart || event.kind == EventKind::kToolInputAvailable;
    const bool known = std::find(opened_.begin(), opened_.end(), event.id) != opened_.end();
    if (opens && !known) opened_.push_back(event.id);
    if (!opens && !known) return std::nullopt;
  }
  return ChunkFor(event, client_);
}

std::string SseEvent(const nlohmann::ordered_json& chunk) {
  return "data: " + chunk.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n\n";
}

std::string_view SseDone() { return "data: [DONE]\n\n"; }

std::string ErrorBody(const Error& error) {
  nlohmann::ordered_json e = {{"code", error.code}, {"message", error.message}};
  if (!error.detail.empty()) e["detail"] = error.detail;
  e["category"] = ErrorKindName(error.kind);
  return nlohmann::ordered_json{{"error", e}}.dump(-1, ' ', false,
                                                   nlohmann::json::error_handler_t::replace);
}

}  // namespace affordance::server

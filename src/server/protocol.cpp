#include "server/protocol.h"

#include <algorithm>

#include <charconv>

namespace affordance::server {

Result<ClientProtocol> ParseClientVersion(std::string_view header) {
  if (header.empty()) return ClientProtocol{};
  auto bad = [&] {
    return MakeError("server.bad_client_version",
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

std::optional<nlohmann::ordered_json> ChunkFor(const nlohmann::ordered_json& chunk,
                                               const ClientProtocol& client) {
  const std::string type = chunk.value("type", "");
  if (type == "finish" && !client.finish_reason() && chunk.contains("finishReason")) {
    nlohmann::ordered_json out = chunk;
    out.erase("finishReason");
    return out;
  }
  if ((type == "tool-approval-request" || type == "tool-output-denied") && !client.approvals()) {
    nlohmann::ordered_json data = chunk;
    data.erase("type");
    const std::string name =
        type == "tool-approval-request" ? "data-approval-request" : "data-output-denied";
    return nlohmann::ordered_json{
        {"type", name}, {"id", chunk.value("toolCallId", "")}, {"data", std::move(data)}};
  }
  return chunk;
}

std::optional<nlohmann::ordered_json> ClientStream::Next(const nlohmann::ordered_json& chunk) {
  if (resumed_) {
    const std::string type = chunk.value("type", "");
    const std::string call = chunk.value("toolCallId", "");
    if (type == "tool-input-start" || type == "tool-input-available") {
      if (std::find(opened_.begin(), opened_.end(), call) == opened_.end()) {
        opened_.push_back(call);
      }
    } else if (type.starts_with("tool-") &&
               std::find(opened_.begin(), opened_.end(), call) == opened_.end()) {
      return std::nullopt;
    }
  }
  return ChunkFor(chunk, client_);
}

std::string SseEvent(const nlohmann::ordered_json& chunk) {
  return "data: " + chunk.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n\n";
}

std::string_view SseDone() { return "data: [DONE]\n\n"; }

std::string ErrorBody(const Error& error) {
  nlohmann::ordered_json e = {{"code", error.code}, {"message", error.message}};
  if (!error.detail.empty()) e["detail"] = error.detail;
  return nlohmann::ordered_json{{"error", e}}.dump(-1, ' ', false,
                                                   nlohmann::json::error_handler_t::replace);
}

}  // namespace affordance::server

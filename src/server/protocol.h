// The AI SDK UI message stream on the wire: how one harness::Event becomes one SSE event for a
// client of a given protocol version (shared/reference/ui-message-stream.md).
//
// UiChunk writes an event as its chunk, with exactly the documented fields of its type (the one
// place the harness's typed events meet the wire). What depends on the client is:
//   - `finish.finishReason`: ai@5 clients reject the field (5.0.0 does); it is sent to 6+ only.
//   - `text-end.citations` (the resolved citations of the text, docs/HARNESS.md "Evidence on
//     claims") is sent to 7.0.138+ only, the first clients that keep them on the text part.
//   - `tool-approval-request` / `tool-output-denied` exist from v6 on. For an older client they
//     are sent as `data-approval-request` / `data-output-denied` chunks (a data part every version
//     accepts) so the decision is still visible and nothing is silently dropped.
// A client declares its version in the request header `x-ai-sdk-version: <semver>` (the web UI
// sends the version it was built with). Without it the server assumes the strictest client, 5.0.0.
#pragma once

#include "base/result.h"
#include "harness/event.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace affordance::server {

// The request header a client declares its `ai` package version in.
inline constexpr std::string_view kClientVersionHeader = "x-ai-sdk-version";

struct ClientProtocol {
  int major = 5, minor = 0, patch = 0;

  bool approvals() const { return major >= 6; }
  bool finish_reason() const { return major >= 6; }
  // text-end `citations` (the AI SDK's citation form) exist from ai 7.0.138 on.
  bool citations() const { return major > 7 || (major == 7 && (minor > 0 || patch >= 138)); }
};

// "7.0.173" -> {7, 0, 173}; an empty header -> 5.0.0. Errors: "server.bad_client_version" for
// anything that is not MAJOR.MINOR.PATCH with decimal numbers (a pre-release suffix is ignored).
Result<ClientProtocol> ParseClientVersion(std::string_view header);

// The UI message stream chunk of an event, for the newest client (`run --json` prints these).
nlohmann::ordered_json UiChunk(const harness::Event& event);

// The event a chunk of UiChunk's form stands for (the inverse of UiChunk: UiChunk(*ParseUiChunk(c))
// == c for every chunk it writes). Errors: "server.bad_chunk" (not an object, an unknown type, or
// a field of the wrong type).
Result<harness::Event> ParseUiChunk(const nlohmann::ordered_json& chunk);

// The chunk as this client must see it (see the file comment); nullopt when nothing is sent.
std::optional<nlohmann::ordered_json> ChunkFor(const harness::Event& event,
                                               const ClientProtocol& client);

// One client's view of a turn's chunks: ChunkFor, and for a client that re-attached
// (`GET /api/chat/{id}/stream`) no tool outcome chunks for calls this stream never opened. A
// resumed client rebuilds the message from the stream alone, while a continuation (after an
// approval decision) reports the outcome of an EARLIER message's call: the client that sent the
// decision holds that tool part, a reloaded one already has it decided from the thread, and a
// tool chunk for a part the client lacks would end its stream.
class ClientStream {
 public:
  ClientStream(ClientProtocol client, bool resumed) : client_(client), resumed_(resumed) {}
  std::optional<nlohmann::ordered_json> Next(const harness::Event& event);

 private:
  ClientProtocol client_;
  bool resumed_;
  std::vector<std::string> opened_;  // toolCallIds this stream started (few per turn)
};

// `data: <json>\n\n` (JSON with invalid UTF-8 replaced, never thrown on).
std::string SseEvent(const nlohmann::ordered_json& chunk);
// `data: [DONE]\n\n`
std::string_view SseDone();

// The response headers of a UI message stream, in the reference's order, except `connection`:
// the reference sends keep-alive, but this server closes the connection after a stream, and a
// client told keep-alive may send its next request on the closing socket ("fetch failed"). Browsers
// ignore the header on fetch; Node's fetch and proxies honour it.
inline constexpr std::pair<std::string_view, std::string_view> kStreamHeaders[] = {
    {"content-type", "text/event-stream"},   {"cache-control", "no-cache"}, {"connection", "close"},
    {"x-vercel-ai-ui-message-stream", "v1"}, {"x-accel-buffering", "no"},
};

// `{"error": {"code", "message", "detail"?}}`: the body of every error response.
std::string ErrorBody(const Error& error);

}  // namespace affordance::server

// Events: what a turn shows to every front door (terminal chat, the HTTP server's SSE route, MCP).
//
// An Event is one chunk of the AI SDK UI message stream (shared/reference/ui-message-stream.md),
// with exactly the documented fields of its type, so a server writes it as `data: <json>` without
// translating it. The harness's own facts travel as `data-*` chunks:
//
//   data-truth    {id: <tool call id>, data: {toolCallId, state, dataState?}}  a truth state moved
//   data-surface  {id: <surface id>, data: {toolCallId, surfaceId, program, state, live}}
//   data-turn     {id: <message id>, data: {status, truth, steps, evidence: [...]}}  before finish
//
// Events are emitted in the order the client enforces: start, then per step start-step, content
// chunks, tool outputs, finish-step; then data-turn and exactly one of finish, error + finish, or
// abort. The stream a client sees is the serialization of these events: there is no second model.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <string>

namespace affordance::harness {

struct Event {
  nlohmann::ordered_json chunk;  // {"type": ..., fields of the type}

  std::string type() const { return chunk.value("type", ""); }
};

using EventSink = std::function<void(const Event&)>;

}  // namespace affordance::harness

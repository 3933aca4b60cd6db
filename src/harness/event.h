// Events: what a turn shows to every front door (terminal chat, the HTTP server's SSE route, MCP).
//
// An Event is a typed value: its kind plus the fields that kind uses (below). Each kind is one
// chunk type of the AI SDK UI message stream (shared/reference/ui-message-stream.md), and the
// wire form is written in one place, server/protocol.cpp (UiChunk), next to the downgrades for
// older clients. Front doors switch on the kind, so a misspelt chunk type cannot compile.
//
//   kind                  fields                                      chunk
//   kStart                id (UI message id), thread_id               start
//   kStartStep            -                                           start-step
//   kTextStart/-End       id (part id)                                text-start / text-end
//   kTextDelta            id, text (the delta)                        text-delta
//   kReasoning*           as text                                     reasoning-*
//   kTextEnd              id, value (the part's citations, AI SDK      text-end
//                         form; null when none)
//   kCitation             id (text part id), text (its spelling),     data-citation
//                         value ({offset, citedText, refs: [facts]})  (transient)
//   kToolInputStart       id (tool call id), tool_name                tool-input-start
//   kToolInputDelta       id, text (arguments text delta)             tool-input-delta
//   kToolInputAvailable   id, tool_name, value (the arguments)        tool-input-available
//   kToolInputError       id, tool_name, input_text, text (error)     tool-input-error
//   kToolOutputAvailable  id, value (the output)                      tool-output-available
//   kToolOutputError      id, text (error text)                       tool-output-error
//   kToolOutputDenied     id                                          tool-output-denied
//   kToolApprovalRequest  id, approval_id                             tool-approval-request
//   kTruth                id (call id), state, data_state ("" none),  data-truth
//                         ref (the result's reference, "" none)
//   kSurface              id (surface id), value (the surface)        data-surface
//   kApproval             id (approval id), value (its outcome)       data-approval
//   kTurn                 id (message id), value (report JSON),       data-turn
//                         report (the TurnReport itself)
//   kFinishStep           -                                           finish-step
//   kError                text (error text)                           error
//   kFinish               text (finish reason)                        finish
//   kAbort                text (reason)                               abort
//
// The harness's facts travel as the data-* kinds:
//   data-truth    {toolCallId, state, dataState?, ref?}                  a truth state moved
//   data-citation {offset, citedText, refs: [facts]}                     a citation was parsed
//   data-surface  {surfaceId, toolCallId, program, kind, live, ..., state}
//   data-approval {approvalId, state, connector, operation, ...}         resolved at turn start
//   data-turn     {threadId, messageId, status, truth, usage, steps}     before the end
//
// Events are emitted in the order the client enforces: start, then per step start-step, content
// chunks, tool outputs, finish-step; then data-turn and exactly one of finish, error + finish, or
// abort. The stream a client sees is the serialization of these events: there is no second model.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace affordance::harness {

struct TurnReport;

enum class EventKind {
  kStart,
  kStartStep,
  kTextStart,
  kTextDelta,
  kTextEnd,
  kReasoningStart,
  kReasoningDelta,
  kReasoningEnd,
  kCitation,
  kToolInputStart,
  kToolInputDelta,
  kToolInputAvailable,
  kToolInputError,
  kToolOutputAvailable,
  kToolOutputError,
  kToolOutputDenied,
  kToolApprovalRequest,
  kTruth,
  kSurface,
  kApproval,
  kTurn,
  kFinishStep,
  kError,
  kFinish,
  kAbort,
};

// The UI message stream chunk type of a kind ("text-delta", "data-turn", ...).
std::string_view ChunkType(EventKind kind);

struct Event {
  EventKind kind = EventKind::kStart;
  std::string id;
  std::string thread_id;
  std::string tool_name;
  std::string text;
  std::string input_text;
  std::string approval_id;
  std::string state;
  std::string data_state;
  std::string ref;                           // kTruth: the reference of the call's result ("r3")
  nlohmann::ordered_json value;              // arguments, output or data, by kind
  std::shared_ptr<const TurnReport> report;  // kTurn only

  static Event Of(EventKind kind) {
    Event e;
    e.kind = kind;
    return e;
  }
  // Tool chunks (kToolInputStart .. kToolApprovalRequest): `id` is a tool call id.
  bool tool() const {
    return kind >= EventKind::kToolInputStart && kind <= EventKind::kToolApprovalRequest;
  }
};

using EventSink = std::function<void(const Event&)>;

// A turn's `start` event: the UI message its parts belong to, and its thread. The adapter emits it,
// or a door that announces a turn before it runs (the server's hub, with the id the turn's
// assistant message will have).
inline Event StartEvent(std::string ui_message_id, std::string thread_id) {
  Event e = Event::Of(EventKind::kStart);
  e.id = std::move(ui_message_id);
  e.thread_id = std::move(thread_id);
  return e;
}

}  // namespace affordance::harness

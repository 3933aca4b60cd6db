// The UI message form of stored messages: what `GET /api/threads/{id}` returns, so a `useChat`
// client that loads a thread sees the same parts the stream showed while the turn ran.
//
//   store part            UIMessage part
//   text (user/assistant) {type: "text", text, state: "done"}
//   reasoning             {type: "reasoning", text, state: "done"}
//   tool                  {type: "tool-<name>", toolCallId, state, input, output | errorText}
//                         + {type: "data-truth", id: toolCallId, data: {toolCallId, state,
//                         dataState?}}
//   surface               {type: "data-surface", id: surfaceId, data: {..., state}}
//   reality               not shown (it is the model's context, not the conversation)
// An assistant message also carries {type: "data-turn", id, data: meta} when the turn ended,
// and `metadata: {threadId, status}`.
//
// Tool states: output-available; output-error for errors, cancelled and interrupted calls (the
// errorText says which); input-available while a call waits for its result; input-streaming while
// its arguments arrive; approval-requested {approval: {id}} for a staged write waiting for a
// person, approval-responded {approval: {id, approved, reason?}} once decided (`approvals`: the
// thread's approvals by id) and before the continuation ran it; output-denied after a denial.
// The store's own truth state travels in the data-truth part.
#pragma once

#include "store/store.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace affordance::server {

using Approvals = std::map<std::string, store::ApprovalRecord>;

nlohmann::ordered_json ToUiMessage(const store::MessageRecord& message,
                                   const Approvals* approvals = nullptr);

// Every message of a thread, skipping `skip_message_id` (the assistant message of a turn still
// streaming: a resuming client receives it from the stream instead). Consecutive assistant
// messages (a turn and its continuations after approval decisions) are one UI message with the
// first one's id, as the stream presented them (Harness::ContinueTurn).
nlohmann::ordered_json ToUiMessages(const std::vector<store::MessageRecord>& messages,
                                    const std::string& skip_message_id = "",
                                    const Approvals* approvals = nullptr);

}  // namespace affordance::server

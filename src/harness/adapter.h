// Adapter: the ONE place where stream parts become product state.
//
// Every part a provider streams, every tool result and every turn end goes through an Adapter,
// which (in this order) updates the step ledger, persists the message's parts and steps through
// store::Store as they arrive, and emits Events. Front doors only read events; the frame only
// reads the message record the adapter keeps (the same one it persisted).
//
// Part kinds it writes (store PartRecord.kind, `data` fields):
//   text, reasoning  {id, text, citations?}                      open while streaming
//                    citations (text only): [{offset, citedText, refs: [facts]}], each resolved
//                    when it was parsed (harness/evidence.h)
//   tool             {toolCallId, toolName, input, inputText, status, output?, errorCode?,
//                     errorText?, resultText?, ref?, dataState?, connector?, rows?, syncedAt?,
//                     skill?}
//                    status: input-streaming | input-available | input-error | output-available |
//                    output-error | cancelled (| interrupted, by recovery); open until it has a
//                    result or an explicit end state. resultText is exactly what the model read;
//                    skill {name, sha256, bytes}: the skill body that result carried. ref ("r3"):
//                    the result's reference, numbered per thread, inside resultText's wrapper.
//   surface          {surfaceId, toolCallId, program, kind, appSlug, live, handles}
// Streaming text is written when its part opens and closes, and in between at most every
// kTextFlushMs, so a killed process loses at most that much of a streaming answer.
// Truth states (PartRecord.state): emitted -> parsed -> executed; a surface is "persisted" once
// its part is stored (never "painted" until a client acknowledges it).
#pragma once

#include "formats/stream_part.h"
#include "harness/event.h"
#include "harness/evidence.h"
#include "harness/harness.h"
#include "harness/ledger.h"
#include "harness/tool.h"
#include "store/store.h"

#include <map>
#include <optional>
#include <string>

namespace affordance::harness {

inline constexpr int64_t kTextFlushMs = 100;

class Adapter {
 public:
  // `message` is the assistant message (already added to the store, status "running").
  Adapter(store::Store& store, store::MessageRecord message, EventSink sink);

  // Emits `start` {messageId, messageMetadata: {threadId}}. `ui_message_id`: the UI message this
  // turn's parts join ("" = this message's id; a continuation names the message it continues).
  void Start(const std::string& ui_message_id = "");
  // The results earlier turns of the thread wrote (ReferencesOf): citations may name them, and
  // this turn's results are numbered after them.
  void SetReferences(std::map<std::string, Reference> references);
  // A provider step begins / its parts / it ended (the step is persisted, the ledger entry added;
  // finish-step is emitted later by FinishStep, after the step's tool results).
  void BeginStep(int index);
  // One provider part: content parts (text, reasoning) and tool calls are persisted and shown,
  // the step's end and usage are recorded in the ledger and the step record.
  void OnPart(const formats::StreamPart& part);
  StepEntry& step() { return ledger_.back(); }
  // Records a fact about the current step in its persisted detail (e.g. the prompt audit).
  void SetStepDetail(const std::string& key, nlohmann::json value);
  // The tool result of call `index` of the current step. `body` is what the model reads; it is
  // wrapped as evidence (EvidenceText) with the result's new reference.
  void ToolResult(size_t index, const std::string& tool_name, const ToolOutcome& outcome,
                  const std::string& body);
  // A call that will not run: `why` kCancelled (the turn was cancelled first) or kNotRun (an
  // earlier call of its step ended the turn). Its truth state stays what the stream proved
  // (parsed, or emitted for a malformed call) and its status says which.
  void CloseUnrun(size_t index, CallEntry::Outcome why, const std::string& reason);
  void FinishStep();
  // An approval resolved at the turn's start (kApproval: data-approval {approvalId, state, ...}).
  void EmitApproval(const std::string& approval_id, nlohmann::ordered_json outcome);
  // The decided outcome of an EARLIER message's call, on a continuation (ContinueTurn): the client
  // that sent the decision still holds that tool part, so it gets `tool-output-available`
  // {toolCallId, output} or `tool-output-denied` {toolCallId}, as the AI SDK protocol describes.
  void EmitToolOutcome(const std::string& tool_call_id, bool denied, nlohmann::ordered_json output);
  // Ends the turn: kTurn (data-turn, carrying `report`), then finish (or error + finish, or
  // abort); the message becomes "complete" with meta = report.ToJson().
  void Finish(const TurnReport& report);

  const StepLedger& ledger() const { return ledger_; }
  const store::MessageRecord& message() const { return message_; }
  // The first store error, if any write failed (the turn then ends).
  const std::optional<Error>& store_error() const { return store_error_; }

 private:
  // OnPart, by the part's family.
  void OnContent(const formats::StreamPart& part, int step);
  void OnToolInput(const formats::StreamPart& part, StepEntry& entry);
  void OnStepEnd(const formats::StreamPart& part, StepEntry& entry);
  void OnCitation(const formats::StreamPart& part, int step);
  // The next result reference ("r<n>"), and the result as citations see it from now on.
  std::string NewRef();
  void Remember(const store::PartRecord& tool_part);

  store::PartRecord& Part(const std::string& kind, const std::string& key, int step);
  void Persist(const store::PartRecord& part);
  void PersistStep(const store::StepRecord& step);
  void Emit(const Event& event);
  void Emit(EventKind kind, std::string id, std::string text = "");
  store::StepRecord& StepRecordOf(int index);

  store::Store& store_;
  store::MessageRecord message_;
  EventSink sink_;
  StepLedger ledger_;
  std::map<std::string, size_t> part_index_;  // kind + key -> index in message_.parts
  std::map<size_t, int64_t> flushed_ms_;      // streaming text part -> when it was last written
  std::optional<Error> store_error_;
  std::map<std::string, Reference> references_;
  int64_t next_ref_ = 1;
  // A call the stream left unterminated, held back until the step's end says why: cut off by a
  // cancellation (cancelled) or malformed (its input error).
  std::optional<Event> unterminated_;
};

}  // namespace affordance::harness

#include "harness/adapter.h"

#include "harness/frame_text.h"

namespace affordance::harness {

using formats::PartType;

Adapter::Adapter(store::Store& store, store::MessageRecord message, EventSink sink)
    : store_(store), message_(std::move(message)), sink_(std::move(sink)) {
  for (size_t i = 0; i < message_.parts.size(); ++i) {
    part_index_[message_.parts[i].kind + "\n" + message_.parts[i].key] = i;
  }
}

void Adapter::Emit(const Event& event) {
  if (sink_) sink_(event);
}

void Adapter::Emit(EventKind kind, std::string id, std::string text) {
  if (!sink_) return;
  Event e = Event::Of(kind);
  e.id = std::move(id);
  e.text = std::move(text);
  sink_(e);
}

void Adapter::Persist(const store::PartRecord& part) {
  if (store_error_) return;
  if (Status s = store_.PutPart(message_.id, part); !s) store_error_ = s.error();
}

void Adapter::PersistStep(const store::StepRecord& step) {
  if (store_error_) return;
  if (Status s = store_.PutStep(message_.id, step); !s) store_error_ = s.error();
}

store::PartRecord& Adapter::Part(const std::string& kind, const std::string& key, int step) {
  auto [it, inserted] = part_index_.try_emplace(kind + "\n" + key, message_.parts.size());
  if (inserted) {
    store::PartRecord p;
    p.seq = static_cast<int64_t>(message_.parts.size());
    p.step = step;
    p.kind = kind;
    p.key = key;
    p.state = std::string(TruthName(TruthState::kEmitted));
    message_.parts.push_back(std::move(p));
  }
  return message_.parts[it->second];
}

store::StepRecord& Adapter::StepRecordOf(int index) {
  for (auto& s : message_.steps) {
    if (s.index == index) return s;
  }
  store::StepRecord s;
  s.index = index;
  s.started_ms = store::NowMs();
  message_.steps.push_back(std::move(s));
  return message_.steps.back();
}

void Adapter::Start(const std::string& ui_message_id) {
  Emit(StartEvent(ui_message_id.empty() ? message_.id : ui_message_id, message_.thread_id));
}

void Adapter::SetReferences(std::map<std::string, Reference> references) {
  references_ = std::move(references);
  for (const auto& [ref, r] : references_) next_ref_ = std::max(next_ref_, RefOrdinal(ref) + 1);
}

std::string Adapter::NewRef() { return "r" + std::to_string(next_ref_++); }

void Adapter::Remember(const store::PartRecord& tool_part) {
  if (auto r = ReferenceOf(tool_part)) references_[r->ref] = std::move(*r);
}

void Adapter::BeginStep(int index) {
  StepEntry entry;
  entry.index = index;
  ledger_.push_back(std::move(entry));
  PersistStep(StepRecordOf(index));
}

void Adapter::SetStepDetail(const std::string& key, nlohmann::json value) {
  StepRecordOf(ledger_.back().index).detail[key] = std::move(value);
}

void Adapter::OnPart(const formats::StreamPart& part) {
  StepEntry& entry = ledger_.back();
  switch (part.type) {
    case PartType::kStart:
    case PartType::kToolInputEnd:
      return;
    case PartType::kStartStep:
      Emit(EventKind::kStartStep, "");
      return;
    case PartType::kTextStart:
    case PartType::kTextDelta:
    case PartType::kTextEnd:
    case PartType::kReasoningStart:
    case PartType::kReasoningDelta:
    case PartType::kReasoningEnd:
      OnContent(part, entry.index);
      return;
    case PartType::kToolInputStart:
    case PartType::kToolInputDelta:
    case PartType::kToolCall:
    case PartType::kToolInputError:
      OnToolInput(part, entry);
      return;
    case PartType::kCitation:
      OnCitation(part, entry.index);
      return;
    case PartType::kFinishStep:
    case PartType::kFinish:
    case PartType::kError:
    case PartType::kAbort:
      OnStepEnd(part, entry);
      return;
  }
}

void Adapter::OnContent(const formats::StreamPart& part, int step) {
  const bool text = part.type == PartType::kTextStart || part.type == PartType::kTextDelta ||
                    part.type == PartType::kTextEnd;
  store::PartRecord& p = Part(text ? "text" : "reasoning", part.id, step);
  switch (part.type) {
    case PartType::kTextStart:
    case PartType::kReasoningStart:
      p.open = true;
      p.data = {{"id", part.id}, {"text", ""}};
      Persist(p);
      Emit(text ? EventKind::kTextStart : EventKind::kReasoningStart, part.id);
      return;
    case PartType::kTextDelta:
    case PartType::kReasoningDelta: {
      if (!p.data.contains("text")) {  // a delta without its start still opens the part
        p.open = true;
        p.data = {{"id", part.id}, {"text", ""}};
      }
      p.data["text"].get_ref<std::string&>() += part.delta;
      const size_t index = part_index_[p.kind + "\n" + p.key];
      const int64_t now = store::NowMs();
      auto [last, fresh] = flushed_ms_.try_emplace(index, now);
      if (!fresh && now - last->second >= kTextFlushMs) {
        last->second = now;
        Persist(p);
      }
      Emit(text ? EventKind::kTextDelta : EventKind::kReasoningDelta, part.id, part.delta);
      return;
    }
    default: {  // kTextEnd, kReasoningEnd
      p.open = false;
      Persist(p);
      Event e = Event::Of(text ? EventKind::kTextEnd : EventKind::kReasoningEnd);
      e.id = part.id;
      if (text && p.data.contains("citations")) {
        e.value = nlohmann::ordered_json::parse(
            AiSdkCitations(p.data.value("text", ""), p.data["citations"]).dump());
      }
      Emit(e);
      return;
    }
  }
}

void Adapter::OnCitation(const formats::StreamPart& part, int step) {
  store::PartRecord& p = Part("text", part.id, step);
  nlohmann::json facts = nlohmann::json::array();
  for (const auto& ref : part.refs) {
    auto it = references_.find(ref);
    facts.push_back(ResolveCitation(ref, it == references_.end() ? nullptr : &it->second));
  }
  nlohmann::json citation = {{"offset", part.offset}, {"citedText", part.delta}, {"refs", facts}};
  if (!p.data.contains("citations")) p.data["citations"] = nlohmann::json::array();
  p.data["citations"].push_back(citation);
  Event e = Event::Of(EventKind::kCitation);
  e.id = part.id;
  e.text = part.delta;
  e.value = nlohmann::ordered_json::parse(citation.dump());
  Emit(e);
}

void Adapter::OnToolInput(const formats::StreamPart& part, StepEntry& entry) {
  store::PartRecord& p = Part("tool", part.id, entry.index);
  Event e;
  e.id = part.id;
  e.tool_name = part.tool_name;
  switch (part.type) {
    case PartType::kToolInputStart:
      p.open = true;
      p.data = {{"toolCallId", part.id},
                {"toolName", part.tool_name},
                {"status", "input-streaming"},
                {"inputText", ""}};
      Persist(p);
      e.kind = EventKind::kToolInputStart;
      Emit(e);
      return;
    case PartType::kToolInputDelta:
      if (!p.data.contains("inputText")) p.data["inputText"] = "";
      p.data["inputText"].get_ref<std::string&>() += part.delta;
      Emit(EventKind::kToolInputDelta, part.id, part.delta);
      return;
    case PartType::kToolCall: {
      p.open = true;
      p.state = std::string(TruthName(TruthState::kParsed));
      p.data["toolCallId"] = part.id;
      p.data["toolName"] = part.tool_name;
      p.data["input"] = part.input;
      p.data["inputText"] = part.input_text;
      p.data["status"] = "input-available";
      Persist(p);
      e.kind = EventKind::kToolInputAvailable;
      e.value = nlohmann::ordered_json::parse(part.input.dump());
      Emit(e);
      CallEntry call;
      call.id = part.id;
      call.name = part.tool_name;
      call.input = part.input;
      entry.calls.push_back(std::move(call));
      return;
    }
    default: {        // kToolInputError
      p.open = true;  // until the model is told (ToolResult)
      p.data["toolCallId"] = part.id;
      p.data["toolName"] = part.tool_name;
      p.data["inputText"] = part.input_text;
      p.state = std::string(TruthName(TruthState::kEmitted));
      p.data["status"] = "input-error";
      p.data["errorCode"] = "harness.malformed_call";
      p.data["errorText"] = part.error_text;
      Persist(p);
      e.kind = EventKind::kToolInputError;
      e.input_text = part.input_text;
      e.text = part.error_text;
      if (part.error_code == formats::kUnterminatedCallCode) {
        unterminated_ = e;
      } else {
        Emit(e);
      }
      CallEntry call;
      call.id = part.id;
      call.name = part.tool_name;
      call.outcome = CallEntry::Outcome::kInputError;
      call.error_code = "harness.malformed_call";
      entry.calls.push_back(std::move(call));
      return;
    }
  }
}

void Adapter::OnStepEnd(const formats::StreamPart& part, StepEntry& entry) {
  if (unterminated_ && part.type != PartType::kFinishStep) {
    Event e = std::move(*unterminated_);
    unterminated_.reset();
    if (part.type == PartType::kAbort && !entry.calls.empty() && entry.calls.back().id == e.id) {
      // Cut off by the cancellation, not malformed: the call is cancelled, as the turn is.
      CallEntry& call = entry.calls.back();
      call.outcome = CallEntry::Outcome::kCancelled;
      call.error_code = "harness.cancelled";
      store::PartRecord& p = Part("tool", call.id, entry.index);
      p.open = false;
      p.data["status"] = "cancelled";
      p.data["errorCode"] = "harness.cancelled";
      p.data["errorText"] = "cancelled while the model was writing this call";
      Persist(p);
      e.state = "cancelled";
      e.text = "harness.cancelled: cancelled while the model was writing this call";
    }
    Emit(e);
    Event truth = Event::Of(EventKind::kTruth);
    truth.id = e.id;
    truth.state = std::string(TruthName(TruthState::kEmitted));
    Emit(truth);
  }
  store::StepRecord& s = StepRecordOf(entry.index);
  switch (part.type) {
    case PartType::kFinishStep:
      s.prompt_tokens = entry.prompt_tokens = part.usage.prompt_tokens;
      s.cached_prompt_tokens = entry.cached_prompt_tokens = part.usage.cached_prompt_tokens;
      s.generated_tokens = entry.generated_tokens = part.usage.generated_tokens;
      s.tokens.assign(part.tokens.begin(), part.tokens.end());
      if (part.metadata.is_object() && part.metadata.contains("tokenSource") &&
          part.metadata["tokenSource"].is_string()) {
        entry.token_source = part.metadata["tokenSource"].get<std::string>();
        s.detail["tokenSource"] = entry.token_source;
      }
      return;
    case PartType::kFinish:
      entry.end = StepEntry::End::kFinished;
      entry.finish_reason = part.finish_reason;
      s.status = "finished";
      s.finish_reason = part.finish_reason;
      s.finished_ms = store::NowMs();
      PersistStep(s);
      return;
    default: {  // kError, kAbort
      const bool error = part.type == PartType::kError;
      entry.end = error ? StepEntry::End::kError : StepEntry::End::kAborted;
      entry.error_code = error ? part.error_code : "harness.cancelled";
      entry.error_text = part.error_text;
      s.status = error ? "error" : "aborted";
      s.finished_ms = store::NowMs();
      s.detail["error"] = {{"code", entry.error_code}, {"message", part.error_text}};
      PersistStep(s);
      return;
    }
  }
}

void Adapter::ToolResult(size_t index, const std::string& tool_name, const ToolOutcome& outcome,
                         const std::string& body) {
  CallEntry& call = ledger_.back().calls[index];
  store::PartRecord& p = Part("tool", call.id, ledger_.back().index);
  const bool input_error = call.outcome == CallEntry::Outcome::kInputError;
  p.open = false;
  const std::string ref = NewRef();
  p.data["ref"] = ref;
  p.data["resultText"] = EvidenceText(tool_name.empty() ? "unknown" : tool_name, body, ref,
                                      outcome.ok && outcome.skill.has_value());
  if (outcome.ok) {
    call.outcome = CallEntry::Outcome::kOk;
    call.ends_turn = outcome.ends_turn;
    call.surface = outcome.surface.has_value();
    call.data_state = outcome.data_state;
    call.connector = outcome.connector;
    call.approval_id = outcome.approval_id;
    call.skill = outcome.skill;
    p.state = std::string(TruthName(outcome.state));
    p.data["status"] = outcome.approval_id.empty() ? "output-available" : "approval-requested";
    p.data["output"] = outcome.output;
    if (!outcome.approval_id.empty()) p.data["approvalId"] = outcome.approval_id;
    if (outcome.data_state) {
      p.data["dataState"] = DataStateName(*outcome.data_state);
      p.data["connector"] = outcome.connector;
      if (outcome.rows) p.data["rows"] = *outcome.rows;
      if (outcome.synced_at > 0) p.data["syncedAt"] = outcome.synced_at;
    }
    if (outcome.skill) {
      // Persisted with the result the model read: a later edit of the file never changes it.
      p.data["skill"] = {{"name", outcome.skill->name},
                         {"sha256", outcome.skill->sha256},
                         {"bytes", outcome.skill->bytes}};
    }
  } else {
    if (!input_error) {
      call.outcome = CallEntry::Outcome::kToolError;
      call.error_code = outcome.error.code;
      p.data["status"] = "output-error";
      p.data["errorCode"] = outcome.error.code;
      p.data["errorText"] = outcome.error.ToString();
      if (!outcome.output.is_null()) p.data["output"] = outcome.output;
    }
  }
  if (p.data.value("toolName", "").empty()) p.data["toolName"] = tool_name;
  Remember(p);
  if (input_error) {
    // The client already holds the call's error (tool-input-error); its state is what the
    // stream proved: emitted, never parsed.
    p.state = std::string(TruthName(TruthState::kEmitted));
    Persist(p);
    Event truth = Event::Of(EventKind::kTruth);
    truth.id = call.id;
    truth.state = p.state;
    truth.ref = ref;
    Emit(truth);
    return;
  }
  Persist(p);

  Event e;
  e.id = call.id;
  if (outcome.ok && !outcome.approval_id.empty()) {
    e.kind = EventKind::kToolApprovalRequest;
    e.approval_id = outcome.approval_id;
  } else if (outcome.ok) {
    e.kind = EventKind::kToolOutputAvailable;
    e.value = nlohmann::ordered_json::parse(outcome.output.dump());
  } else {
    e.kind = EventKind::kToolOutputError;
    e.text = outcome.error.code + ": " + outcome.error.ToString();
  }
  Emit(e);
  Event truth = Event::Of(EventKind::kTruth);
  truth.id = call.id;
  truth.state = p.state;
  truth.ref = ref;
  if (outcome.data_state) truth.data_state = DataStateName(*outcome.data_state);
  Emit(truth);
  if (outcome.ok && !outcome.approval_id.empty() && outcome.output.is_object()) {
    // What the person decides on: the staged effect, its digest and expiry (data-approval).
    nlohmann::ordered_json staged = nlohmann::ordered_json::parse(outcome.output.dump());
    staged["toolCallId"] = call.id;
    staged["truth"] = p.state;
    EmitApproval(outcome.approval_id, std::move(staged));
  }

  if (outcome.surface) {
    const SurfaceDraft& d = *outcome.surface;
    store::PartRecord& s = Part("surface", d.id, ledger_.back().index);
    s.data = {{"surfaceId", d.id},    {"toolCallId", call.id},       {"program", d.program},
              {"kind", d.kind},       {"appSlug", d.app_slug},       {"live", d.live},
              {"handles", d.handles}, {"artifactId", d.artifact_id}, {"version", d.version},
              {"parent", d.parent},   {"sources", d.sources}};
    s.state = std::string(TruthName(TruthState::kParsed));
    Persist(s);
    if (!store_error_) s.state = std::string(TruthName(TruthState::kPersisted));
    Persist(s);
    Event surface = Event::Of(EventKind::kSurface);
    surface.id = d.id;
    surface.value = nlohmann::ordered_json::parse(s.data.dump());
    surface.value["state"] = s.state;
    Emit(surface);
  }
}

void Adapter::CloseUnrun(size_t index, CallEntry::Outcome why, const std::string& reason) {
  CallEntry& call = ledger_.back().calls[index];
  const bool malformed = call.outcome == CallEntry::Outcome::kInputError;
  const bool cancelled = why == CallEntry::Outcome::kCancelled;
  const std::string code = cancelled ? "harness.cancelled" : "harness.not_run";
  call.outcome = why;
  call.error_code = code;
  store::PartRecord& p = Part("tool", call.id, ledger_.back().index);
  p.open = false;
  p.state = std::string(TruthName(malformed ? TruthState::kEmitted : TruthState::kParsed));
  p.data["status"] = cancelled ? "cancelled" : "not-run";
  p.data["errorCode"] = code;
  p.data["errorText"] = reason;
  const std::string ref = NewRef();
  p.data["ref"] = ref;
  p.data["resultText"] = EvidenceText(call.name, "error " + code + ": " + reason, ref);
  Remember(p);
  Persist(p);
  if (!malformed) {  // a malformed call already has its error (tool-input-error)
    Event e = Event::Of(EventKind::kToolOutputError);
    e.id = call.id;
    e.state = cancelled ? "cancelled" : "not_run";
    e.text = code + ": " + reason;
    Emit(e);
  }
  Event truth = Event::Of(EventKind::kTruth);
  truth.id = call.id;
  truth.state = p.state;
  truth.ref = ref;
  Emit(truth);
}

void Adapter::FinishStep() { Emit(EventKind::kFinishStep, ""); }

void Adapter::EmitApproval(const std::string& approval_id, nlohmann::ordered_json outcome) {
  Event e = Event::Of(EventKind::kApproval);
  e.id = approval_id;
  e.value = std::move(outcome);
  Emit(e);
}

void Adapter::EmitToolOutcome(const std::string& tool_call_id, bool denied,
                              nlohmann::ordered_json output) {
  Event e = Event::Of(denied ? EventKind::kToolOutputDenied : EventKind::kToolOutputAvailable);
  e.id = tool_call_id;
  if (!denied) e.value = std::move(output);
  Emit(e);
}

void Adapter::Finish(const TurnReport& report) {
  // Close anything still open (a provider that broke its contract must not leave open parts).
  for (auto& p : message_.parts) {
    if (!p.open) continue;
    p.open = false;
    if (p.kind == "tool") {
      p.data["status"] = "cancelled";
      p.data["errorCode"] = "harness.cancelled";
      p.data["errorText"] = "the turn ended before this call completed";
    }
    Persist(p);
  }
  const nlohmann::json meta = report.ToJson();
  message_.status = "complete";
  message_.meta = meta;
  if (!store_error_) {
    if (Status s = store_.UpdateMessage(message_.id, "complete", meta); !s) {
      store_error_ = s.error();
    }
  }
  Event turn = Event::Of(EventKind::kTurn);
  turn.id = message_.id;
  turn.value = nlohmann::ordered_json::parse(meta.dump());
  turn.report = std::make_shared<const TurnReport>(report);
  Emit(turn);
  const TurnStatus status = report.status;
  if (status == TurnStatus::kCancelled) {
    Emit(EventKind::kAbort, "", "cancelled");
    return;
  }
  if (status == TurnStatus::kProviderError || store_error_) {
    std::string text = store_error_ ? store_error_->code + ": " + store_error_->ToString()
                                    : ledger_.back().error_code + ": " + ledger_.back().error_text;
    Emit(EventKind::kError, "", std::move(text));
  }
  const std::string reason = ledger_.empty()                         ? "stop"
                             : status == TurnStatus::kProviderError  ? "error"
                             : !ledger_.back().finish_reason.empty() ? ledger_.back().finish_reason
                                                                     : "other";
  Emit(EventKind::kFinish, "", reason);
}

std::string_view ChunkType(EventKind kind) {
  switch (kind) {
    case EventKind::kStart:
      return "start";
    case EventKind::kStartStep:
      return "start-step";
    case EventKind::kTextStart:
      return "text-start";
    case EventKind::kTextDelta:
      return "text-delta";
    case EventKind::kTextEnd:
      return "text-end";
    case EventKind::kReasoningStart:
      return "reasoning-start";
    case EventKind::kReasoningDelta:
      return "reasoning-delta";
    case EventKind::kReasoningEnd:
      return "reasoning-end";
    case EventKind::kCitation:
      return "data-citation";
    case EventKind::kToolInputStart:
      return "tool-input-start";
    case EventKind::kToolInputDelta:
      return "tool-input-delta";
    case EventKind::kToolInputAvailable:
      return "tool-input-available";
    case EventKind::kToolInputError:
      return "tool-input-error";
    case EventKind::kToolOutputAvailable:
      return "tool-output-available";
    case EventKind::kToolOutputError:
      return "tool-output-error";
    case EventKind::kToolOutputDenied:
      return "tool-output-denied";
    case EventKind::kToolApprovalRequest:
      return "tool-approval-request";
    case EventKind::kTruth:
      return "data-truth";
    case EventKind::kSurface:
      return "data-surface";
    case EventKind::kApproval:
      return "data-approval";
    case EventKind::kTurn:
      return "data-turn";
    case EventKind::kFinishStep:
      return "finish-step";
    case EventKind::kError:
      return "error";
    case EventKind::kFinish:
      return "finish";
    case EventKind::kAbort:
      return "abort";
  }
  return "";
}

}  // namespace affordance::harness

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

void Adapter::Emit(nlohmann::ordered_json chunk) {
  if (sink_) sink_(Event{std::move(chunk)});
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
  nlohmann::ordered_json chunk;
  chunk["type"] = "start";
  chunk["messageId"] = ui_message_id.empty() ? message_.id : ui_message_id;
  chunk["messageMetadata"] = {{"threadId", message_.thread_id}};
  Emit(std::move(chunk));
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
  const int step = entry.index;
  nlohmann::ordered_json chunk;
  switch (part.type) {
    case PartType::kStart:
      return;
    case PartType::kStartStep:
      Emit({{"type", "start-step"}});
      return;
    case PartType::kTextStart:
    case PartType::kReasoningStart: {
      const bool text = part.type == PartType::kTextStart;
      store::PartRecord& p = Part(text ? "text" : "reasoning", part.id, step);
      p.open = true;
      p.data = {{"id", part.id}, {"text", ""}};
      Persist(p);
      Emit({{"type", text ? "text-start" : "reasoning-start"}, {"id", part.id}});
      return;
    }
    case PartType::kTextDelta:
    case PartType::kReasoningDelta: {
      const bool text = part.type == PartType::kTextDelta;
      store::PartRecord& p = Part(text ? "text" : "reasoning", part.id, step);
      std::string& t = p.data["text"].get_ref<std::string&>();
      t += part.delta;
      const size_t index = part_index_[p.kind + "\n" + p.key];
      const int64_t now = store::NowMs();
      auto [last, fresh] = flushed_ms_.try_emplace(index, now);
      if (!fresh && now - last->second >= kTextFlushMs) {
        last->second = now;
        Persist(p);
      }
      Emit({{"type", text ? "text-delta" : "reasoning-delta"},
            {"id", part.id},
            {"delta", part.delta}});
      return;
    }
    case PartType::kTextEnd:
    case PartType::kReasoningEnd: {
      const bool text = part.type == PartType::kTextEnd;
      store::PartRecord& p = Part(text ? "text" : "reasoning", part.id, step);
      p.open = false;
      Persist(p);
      Emit({{"type", text ? "text-end" : "reasoning-end"}, {"id", part.id}});
      return;
    }
    case PartType::kToolInputStart: {
      store::PartRecord& p = Part("tool", part.id, step);
      p.open = true;
      p.data = {{"toolCallId", part.id},
                {"toolName", part.tool_name},
                {"status", "input-streaming"},
                {"inputText", ""}};
      Persist(p);
      Emit({{"type", "tool-input-start"}, {"toolCallId", part.id}, {"toolName", part.tool_name}});
      return;
    }
    case PartType::kToolInputDelta: {
      store::PartRecord& p = Part("tool", part.id, step);
      if (!p.data.contains("inputText")) p.data["inputText"] = "";
      p.data["inputText"].get_ref<std::string&>() += part.delta;
      Emit({{"type", "tool-input-delta"}, {"toolCallId", part.id}, {"inputTextDelta", part.delta}});
      return;
    }
    case PartType::kToolInputEnd:
      return;
    case PartType::kToolCall: {
      store::PartRecord& p = Part("tool", part.id, step);
      p.open = true;
      p.state = std::string(TruthName(TruthState::kParsed));
      p.data["toolCallId"] = part.id;
      p.data["toolName"] = part.tool_name;
      p.data["input"] = part.input;
      p.data["inputText"] = part.input_text;
      p.data["status"] = "input-available";
      Persist(p);
      chunk["type"] = "tool-input-available";
      chunk["toolCallId"] = part.id;
      chunk["toolName"] = part.tool_name;
      chunk["input"] = nlohmann::ordered_json::parse(part.input.dump());
      Emit(std::move(chunk));
      CallEntry call;
      call.id = part.id;
      call.name = part.tool_name;
      call.input = part.input;
      entry.calls.push_back(std::move(call));
      return;
    }
    case PartType::kToolInputError: {
      store::PartRecord& p = Part("tool", part.id, step);
      p.open = true;  // until the model is told (ToolResult)
      p.data["toolCallId"] = part.id;
      p.data["toolName"] = part.tool_name;
      p.data["inputText"] = part.input_text;
      p.data["status"] = "input-error";
      p.data["errorCode"] = "harness.malformed_call";
      p.data["errorText"] = part.error_text;
      Persist(p);
      chunk["type"] = "tool-input-error";
      chunk["toolCallId"] = part.id;
      chunk["toolName"] = part.tool_name;
      chunk["input"] = part.input_text;
      chunk["errorText"] = part.error_text;
      Emit(std::move(chunk));
      CallEntry call;
      call.id = part.id;
      call.name = part.tool_name;
      call.outcome = CallEntry::Outcome::kInputError;
      call.error_code = "harness.malformed_call";
      entry.calls.push_back(std::move(call));
      return;
    }
    case PartType::kFinishStep: {
      store::StepRecord& s = StepRecordOf(step);
      s.prompt_tokens = entry.prompt_tokens = part.usage.prompt_tokens;
      s.cached_prompt_tokens = entry.cached_prompt_tokens = part.usage.cached_prompt_tokens;
      s.generated_tokens = entry.generated_tokens = part.usage.generated_tokens;
      s.tokens.assign(part.tokens.begin(), part.tokens.end());
      return;
    }
    case PartType::kFinish: {
      entry.end = StepEntry::End::kFinished;
      entry.finish_reason = part.finish_reason;
      store::StepRecord& s = StepRecordOf(step);
      s.status = "finished";
      s.finish_reason = part.finish_reason;
      s.finished_ms = store::NowMs();
      PersistStep(s);
      return;
    }
    case PartType::kError:
    case PartType::kAbort: {
      const bool error = part.type == PartType::kError;
      entry.end = error ? StepEntry::End::kError : StepEntry::End::kAborted;
      entry.error_code = error ? part.error_code : "harness.cancelled";
      entry.error_text = part.error_text;
      store::StepRecord& s = StepRecordOf(step);
      s.status = error ? "error" : "aborted";
      s.finished_ms = store::NowMs();
      s.detail["error"] = {{"code", entry.error_code}, {"message", part.error_text}};
      PersistStep(s);
      return;
    }
  }
}

void Adapter::ToolResult(size_t index, const std::string& tool_name, const ToolOutcome& outcome,
                         const std::string& model_text) {
  CallEntry& call = ledger_.back().calls[index];
  store::PartRecord& p = Part("tool", call.id, ledger_.back().index);
  const bool input_error = call.outcome == CallEntry::Outcome::kInputError;
  p.open = false;
  p.data["resultText"] = model_text;
  if (outcome.ok) {
    call.outcome = CallEntry::Outcome::kOk;
    call.ends_turn = outcome.ends_turn;
    call.surface = outcome.surface.has_value();
    call.data_state = outcome.data_state;
    call.connector = outcome.connector;
    call.approval_id = outcome.approval_id;
    p.state = std::string(TruthName(outcome.state));
    p.data["status"] = outcome.approval_id.empty() ? "output-available" : "approval-requested";
    p.data["output"] = outcome.output;
    if (!outcome.approval_id.empty()) p.data["approvalId"] = outcome.approval_id;
    if (outcome.data_state) {
      p.data["dataState"] = DataStateName(*outcome.data_state);
      p.data["connector"] = outcome.connector;
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
  Persist(p);
  if (input_error) return;  // the client already holds the call's error (tool-input-error)

  nlohmann::ordered_json chunk;
  if (outcome.ok && !outcome.approval_id.empty()) {
    chunk["type"] = "tool-approval-request";
    chunk["approvalId"] = outcome.approval_id;
    chunk["toolCallId"] = call.id;
  } else if (outcome.ok) {
    chunk["type"] = "tool-output-available";
    chunk["toolCallId"] = call.id;
    chunk["output"] = nlohmann::ordered_json::parse(outcome.output.dump());
  } else {
    chunk["type"] = "tool-output-error";
    chunk["toolCallId"] = call.id;
    chunk["errorText"] = outcome.error.code + ": " + outcome.error.ToString();
  }
  Emit(std::move(chunk));
  nlohmann::ordered_json truth = {{"toolCallId", call.id}, {"state", p.state}};
  if (outcome.data_state) truth["dataState"] = DataStateName(*outcome.data_state);
  Emit({{"type", "data-truth"}, {"id", call.id}, {"data", truth}});

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
    nlohmann::ordered_json data = nlohmann::ordered_json::parse(s.data.dump());
    data["state"] = s.state;
    Emit({{"type", "data-surface"}, {"id", d.id}, {"data", std::move(data)}});
  }
}

void Adapter::CancelCall(size_t index, const std::string& reason) {
  CallEntry& call = ledger_.back().calls[index];
  call.outcome = CallEntry::Outcome::kCancelled;
  store::PartRecord& p = Part("tool", call.id, ledger_.back().index);
  p.open = false;
  p.data["status"] = "cancelled";
  p.data["errorCode"] = "harness.cancelled";
  p.data["errorText"] = reason;
  p.data["resultText"] = EvidenceText(call.name, "error harness.cancelled: " + reason);
  Persist(p);
  Emit({{"type", "tool-output-error"},
        {"toolCallId", call.id},
        {"errorText", "harness.cancelled: " + reason}});
}

void Adapter::FinishStep() { Emit({{"type", "finish-step"}}); }

void Adapter::EmitData(const std::string& name, const std::string& id,
                       nlohmann::ordered_json data) {
  Emit({{"type", "data-" + name}, {"id", id}, {"data", std::move(data)}});
}

void Adapter::EmitToolOutcome(const std::string& tool_call_id, bool denied,
                              nlohmann::ordered_json output) {
  if (denied) {
    Emit({{"type", "tool-output-denied"}, {"toolCallId", tool_call_id}});
  } else {
    Emit({{"type", "tool-output-available"},
          {"toolCallId", tool_call_id},
          {"output", std::move(output)}});
  }
}

void Adapter::Finish(TurnStatus status, const nlohmann::json& report) {
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
  message_.status = "complete";
  message_.meta = report;
  if (!store_error_) {
    if (Status s = store_.UpdateMessage(message_.id, "complete", report); !s) {
      store_error_ = s.error();
    }
  }
  Emit({{"type", "data-turn"},
        {"id", message_.id},
        {"data", nlohmann::ordered_json::parse(report.dump())}});
  if (status == TurnStatus::kCancelled) {
    Emit({{"type", "abort"}, {"reason", "cancelled"}});
    return;
  }
  if (status == TurnStatus::kProviderError || store_error_) {
    std::string text = store_error_ ? store_error_->code + ": " + store_error_->ToString()
                                    : ledger_.back().error_code + ": " + ledger_.back().error_text;
    Emit({{"type", "error"}, {"errorText", text}});
  }
  const std::string reason = ledger_.empty()                         ? "stop"
                             : status == TurnStatus::kProviderError  ? "error"
                             : !ledger_.back().finish_reason.empty() ? ledger_.back().finish_reason
                                                                     : "other";
  Emit({{"type", "finish"}, {"finishReason", reason}});
}

}  // namespace affordance::harness

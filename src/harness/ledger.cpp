#include "harness/ledger.h"

namespace affordance::harness {

bool StepEntry::AllCallsFailed() const {
  if (calls.empty()) return false;
  for (const auto& c : calls) {
    if (c.outcome != CallEntry::Outcome::kToolError && c.outcome != CallEntry::Outcome::kInputError)
      return false;
  }
  return true;
}

std::string_view TurnStatusName(TurnStatus status) {
  switch (status) {
    case TurnStatus::kAnswered:
      return "answered";
    case TurnStatus::kSurfaceComposed:
      return "surface_composed";
    case TurnStatus::kAskedUser:
      return "asked_user";
    case TurnStatus::kStepLimit:
      return "step_limit";
    case TurnStatus::kToolErrorLimit:
      return "tool_error_limit";
    case TurnStatus::kCancelled:
      return "cancelled";
    case TurnStatus::kProviderError:
      return "provider_error";
    case TurnStatus::kLengthLimit:
      return "length_limit";
    case TurnStatus::kStopped:
      return "stopped";
    case TurnStatus::kHarnessError:
      return "harness_error";
    case TurnStatus::kInterrupted:
      return "interrupted";
    case TurnStatus::kAwaitingApproval:
      return "awaiting_approval";
  }
  return "answered";
}

std::optional<TurnStatus> StopStatus(const StepLedger& ledger, const StopOptions& options) {
  if (ledger.empty()) return std::nullopt;
  const StepEntry& last = ledger.back();
  if (last.end == StepEntry::End::kAborted) return TurnStatus::kCancelled;
  if (last.end == StepEntry::End::kError) return TurnStatus::kProviderError;
  for (const auto& c : last.calls) {
    if (c.outcome == CallEntry::Outcome::kCancelled) return TurnStatus::kCancelled;
  }
  for (const auto& c : last.calls) {
    if (c.ends_turn) return TurnStatus::kAskedUser;
  }
  for (const auto& c : last.calls) {
    if (!c.approval_id.empty()) return TurnStatus::kAwaitingApproval;
  }
  if (last.calls.empty()) {
    if (last.finish_reason == "length") return TurnStatus::kLengthLimit;
    for (const auto& step : ledger) {
      for (const auto& c : step.calls) {
        if (c.surface) return TurnStatus::kSurfaceComposed;
      }
    }
    return TurnStatus::kAnswered;
  }
  int failed = 0;
  for (auto it = ledger.rbegin(); it != ledger.rend() && it->AllCallsFailed(); ++it) ++failed;
  if (options.max_failed_steps > 0 && failed >= options.max_failed_steps)
    return TurnStatus::kToolErrorLimit;
  if (options.custom && options.custom(ledger)) return TurnStatus::kStopped;
  if (static_cast<int>(ledger.size()) >= options.max_steps) return TurnStatus::kStepLimit;
  return std::nullopt;
}

std::optional<DataState> WeakestEvidence(const StepLedger& ledger) {
  std::optional<DataState> weakest;
  for (const auto& step : ledger) {
    for (const auto& c : step.calls) {
      if (!c.data_state) continue;
      if (!weakest || DataStrength(*c.data_state) < DataStrength(*weakest)) weakest = c.data_state;
    }
  }
  return weakest;
}

namespace {
std::string_view OutcomeName(CallEntry::Outcome o) {
  switch (o) {
    case CallEntry::Outcome::kPending:
      return "pending";
    case CallEntry::Outcome::kOk:
      return "ok";
    case CallEntry::Outcome::kToolError:
      return "tool_error";
    case CallEntry::Outcome::kInputError:
      return "input_error";
    case CallEntry::Outcome::kCancelled:
      return "cancelled";
    case CallEntry::Outcome::kNotRun:
      return "not_run";
  }
  return "pending";
}
std::string_view EndName(StepEntry::End e) {
  switch (e) {
    case StepEntry::End::kFinished:
      return "finished";
    case StepEntry::End::kError:
      return "error";
    case StepEntry::End::kAborted:
      return "aborted";
  }
  return "finished";
}
}  // namespace

nlohmann::json ToJson(const StepEntry& step) {
  nlohmann::json calls = nlohmann::json::array();
  for (const auto& c : step.calls) {
    nlohmann::json j = {{"id", c.id}, {"name", c.name}, {"outcome", OutcomeName(c.outcome)}};
    if (!c.error_code.empty()) j["error_code"] = c.error_code;
    if (c.ends_turn) j["ends_turn"] = true;
    if (c.surface) j["surface"] = true;
    if (c.data_state) {
      j["data_state"] = DataStateName(*c.data_state);
      j["connector"] = c.connector;
    }
    if (c.skill) {
      j["skill"] = {
          {"name", c.skill->name}, {"sha256", c.skill->sha256}, {"bytes", c.skill->bytes}};
    }
    calls.push_back(std::move(j));
  }
  nlohmann::json j = {{"index", step.index},
                      {"end", EndName(step.end)},
                      {"finish_reason", step.finish_reason},
                      {"usage",
                       {{"prompt_tokens", step.prompt_tokens},
                        {"cached_prompt_tokens", step.cached_prompt_tokens},
                        {"generated_tokens", step.generated_tokens}}},
                      {"calls", std::move(calls)}};
  if (!step.error_code.empty()) j["error"] = {{"code", step.error_code}, {"text", step.error_text}};
  if (!step.token_source.empty()) j["token_source"] = step.token_source;
  return j;
}

}  // namespace affordance::harness

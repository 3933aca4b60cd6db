// The step ledger: what each step of a turn did, in one place. The stop predicates and the
// finalizer read this same ledger, so "why did the turn stop" and "what is its terminal status"
// can never disagree (one owner for that fact).
#pragma once

#include "harness/truth.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace affordance::harness {

// A skill a call loaded into context (ToolSearch "skill:NAME"): which file body, by digest.
struct SkillEntry {
  std::string name;
  std::string sha256;  // of the exact bytes the model read
  int64_t bytes = 0;
};

// One tool call of a step, well-formed or not, and what became of it.
struct CallEntry {
  enum class Outcome {
    kPending,     // not executed (yet)
    kOk,          // executed, result returned
    kToolError,   // executed or refused with a typed error (unknown tool, bad arguments, ...)
    kInputError,  // the model's call was malformed (tool-input-error)
    kCancelled,   // the turn was cancelled before it ran or while it ran
    kNotRun,      // never run: an earlier call of its step ended the turn (a staged write, a
                  // question to the user); the turn's end state is that earlier call's
  };
  std::string id;        // tool call id
  std::string name;      // tool name ("" when the malformed call had none)
  nlohmann::json input;  // parsed arguments (null for a malformed call)
  Outcome outcome = Outcome::kPending;
  std::string error_code;               // kToolError / kInputError
  bool ends_turn = false;               // a terminal tool (AskUserQuestion) that succeeded
  bool surface = false;                 // an accepted ComposeUI program
  std::optional<DataState> data_state;  // connector evidence
  std::string connector;                // connector slug of that evidence
  std::string approval_id;              // a staged effect awaiting a human decision
  std::optional<SkillEntry> skill;      // the skill this call loaded
};

struct StepEntry {
  int index = 0;
  enum class End { kFinished, kError, kAborted } end = End::kFinished;
  std::string finish_reason;  // the provider's ("stop", "tool-calls", "length", ...)
  std::string error_code;     // kError
  std::string error_text;
  int64_t prompt_tokens = 0;
  int64_t cached_prompt_tokens = 0;
  int64_t generated_tokens = 0;
  // Where the step's tokens in the history come from: "sampled" (the engine's IDs), "reencoded"
  // (it sent none; the sampled text encoded again), "none"; "" when the provider does not say.
  std::string token_source;
  std::vector<CallEntry> calls;

  // True when the step made calls and every one of them failed (tool or input error).
  bool AllCallsFailed() const;
};

using StepLedger = std::vector<StepEntry>;

// Terminal statuses of a turn.
enum class TurnStatus {
  kAnswered,          // a step finished without tool calls
  kSurfaceComposed,   // ... and the turn composed at least one accepted surface
  kAskedUser,         // AskUserQuestion ended the turn; the next user message answers it
  kStepLimit,         // the step limit was reached while the model still called tools
  kToolErrorLimit,    // too many consecutive steps whose calls all failed
  kCancelled,         // cancelled by the user or a client
  kProviderError,     // the provider failed
  kLengthLimit,       // the model hit its token limit without a complete answer
  kStopped,           // a custom stop predicate ended the turn
  kHarnessError,      // the frame could not be rendered or the store could not write
  kInterrupted,       // the process died during the turn (set by recovery, never by the loop)
  kAwaitingApproval,  // a staged effect waits for a human decision (the next turn reports it)
};

std::string_view TurnStatusName(TurnStatus status);

struct StopOptions {
  int max_steps = 12;
  // Consecutive steps whose calls all failed before the turn ends with tool_error_limit.
  int max_failed_steps = 3;
  // A custom predicate: return true to stop after the current step (status kStopped).
  std::function<bool(const StepLedger&)> custom;
};

// The stop predicates: nullopt while the loop should run another step, else the terminal status.
// The finalizer is this same function at the end of the loop (ledger non-empty).
std::optional<TurnStatus> StopStatus(const StepLedger& ledger, const StopOptions& options);

// Weakest data state of the ledger's connector evidence (nullopt: the turn read no source).
std::optional<DataState> WeakestEvidence(const StepLedger& ledger);

nlohmann::json ToJson(const StepEntry& step);

}  // namespace affordance::harness

// Harness: the one agent loop. A turn takes a thread, a user message, a provider and a model
// binding, and runs steps until a stop predicate holds:
//
//   reality (rebuilt unconditionally) + user words  -> persisted user message
//   step: Frame::Render (head + transcript + mounted apps) -> Provider::Stream
//         -> every part through the ONE Adapter (ledger, store, events)
//         -> each call checked (known callable tool? arguments valid for its schema?) and executed,
//            results capped + wrapped as evidence -> finish-step
//   until StopStatus(ledger) says why it ends; that same ledger gives the terminal status.
//
// Writes: invoke_mutation stages an effect and the turn ends `awaiting_approval`; a person decides
// (affordance approvals approve|deny); the NEXT turn, before its first model step, executes an
// approved effect once and writes its receipt / verification state (or the denial) as the staging
// call's result, so the model reads it like any other result. That next turn is either a new user
// message (RunTurn) or, when the decision itself is what the person sent (the AI SDK's approval
// round trip: the client records the decision on the tool part and resends), a continuation
// (ContinueTurn): no user message, the model continues after the now-decided call's result.
//
// There is no second loop anywhere: RunTurn drives the loop's phases (Begin, then NextStep ->
// Provider::Stream -> AfterStep until NextStep says the turn ended, then Finish) on the caller's
// thread; the turn service (harness/turn_service.h) drives the SAME phases asynchronously, with a
// runtime checked out only for Begin, NextStep and AfterStep and none held while the engine
// streams. Every door renders the events. Cancellation (CancelToken, from any thread) stops the
// running step at once; calls not yet run are closed as cancelled; the turn is persisted and ends
// with status "cancelled".
//
// Thread safety: one phase at a time per Harness (a Frame holds a QuickJS runtime). A TurnRun is
// used by one phase, or one provider step, at a time.
#pragma once

#include "authority/authority.h"
#include "base/result.h"
#include "connect/road.h"
#include "formats/output_parser.h"
#include "harness/event.h"
#include "harness/evidence.h"
#include "harness/frame.h"
#include "harness/ledger.h"
#include "harness/registry.h"
#include "model/provider.h"
#include "skills/catalog.h"
#include "store/store.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace affordance::harness {

struct HarnessOptions {
  StopOptions stop;
  int max_tokens = 1024;  // per step
  double temperature = 0.0;
  uint64_t seed = 0;
  // Send chat-API messages + tools instead of token IDs (an OpenAI-compatible chat endpoint).
  bool chat_messages = false;
  formats::ChatFormat format = formats::ChatFormat::kQwen3;
  std::function<int64_t()> clock;  // epoch seconds for the reality block; default: system clock
  int utc_offset_s = 0;            // the reality block's local time offset
  std::string grammar;             // GBNF constraint for every step (model::StepRequest::grammar)
  // Where skills come from, in precedence order (skills/catalog.h SkillSources). They are scanned
  // again at the start of every turn; ToolSearch {"query": "skill:NAME"} reads a file when called.
  std::vector<skills::SkillSource> skills;
};

struct TurnReport {
  std::string thread_id;
  std::string user_message_id;
  std::string message_id;  // the assistant message
  TurnStatus status = TurnStatus::kAnswered;
  std::string text;           // the prose of the last step
  std::vector<Claim> claims;  // the claims of every text part of the turn, in order
  StepLedger ledger;
  std::vector<PromptAudit> audits;  // one per step
  // What the message's meta holds, plus audits: {threadId, messageId, status, truth: {message,
  // evidence, weakestEvidence?, claims: {source, effect, unresolved, inference},
  // invalidCitations}, claims: [Claim], usage, steps, error?}.
  nlohmann::json ToJson() const;
};

// The title a thread takes from its first user message: the first non-blank line, trimmed, cut to
// at most 60 bytes on a UTF-8 boundary with "…" ("" for a message with no text). The harness gives
// it to an untitled thread (title "") as it persists that message, so every door creates threads
// untitled, or titled as the person chose, and no door derives a title of its own. Shown as
// "New conversation" while a thread has none.
std::string ThreadTitle(std::string_view message);

// A turn between its phases: everything a turn carries from step to step lives here (the adapter
// with its message, ledger and references, the transcript before the turn, the tools ToolSearch
// attached, the report), none of it in a Harness, so each phase may run on any Harness of a pool
// that shares the store.
struct TurnRun {
  std::string thread_id;
  bool continuation = false;
  model::CancelToken cancel;
  // The provider that streams this turn's steps (and runs its chooser sub-steps).
  model::Provider* provider = nullptr;
  std::unique_ptr<class Adapter> adapter;
  std::vector<TranscriptTurn> before;  // the thread up to this turn's assistant message
  std::set<std::string> attached;      // deferred tools attached by ToolSearch this turn
  TurnReport report;
  int step = 0;
  std::optional<TurnStatus> status;  // set once the turn has ended

  TurnRun();
  ~TurnRun();
  // One part of the current step's stream (Provider::Stream's sink).
  void OnPart(const formats::StreamPart& part);
};

// Whether ContinueTurn may run on the thread now: its last message is an assistant turn that
// ended awaiting approval and at least one of that turn's approvals is decided and not yet
// reported to the model. Returns that message. Errors: "store.not_found",
// "harness.nothing_to_continue" (with the reason).
Result<store::MessageRecord> ContinuableTurn(store::Store& store, const std::string& thread_id);

class Harness {
 public:
  // `road` may be null (no connectors). `frame` is bound to the same tokenizer as the provider.
  Harness(store::Store& store, model::Provider& provider, Frame& frame,
          connect::ConnectorRoad* road, HarnessOptions options);
  ~Harness();

  // Runs one turn (see the file comment). Errors (returned, nothing half-written): unknown
  // thread ("store.not_found"), empty user text ("harness.empty_message"), a store that cannot
  // write. Every other failure ends the turn with a terminal status in the report.
  Result<TurnReport> RunTurn(const std::string& thread_id, const std::string& user_text,
                             const EventSink& sink, const model::CancelToken& cancel);
  // Continues a thread whose last turn ended awaiting approval, once a person has decided (see the
  // file comment): the decided effects run (ResolveApprovals), each outcome is also emitted as the
  // staging call's `tool-output-available` / `tool-output-denied`, and the model continues in a
  // new assistant message. Errors: "store.not_found", "harness.nothing_to_continue" (the last
  // turn is not awaiting approval, or none of its approvals has been decided yet).
  Result<TurnReport> ContinueTurn(const std::string& thread_id, const EventSink& sink,
                                  const model::CancelToken& cancel);

  // The loop's phases, for a driver other than RunTurn (the turn service).
  // Begin: the user message (user_text; nullptr for a continuation, checked with ContinuableTurn)
  // persisted with this turn's reality, decided effects resolved, the assistant message added
  // (with `message_id` when given: a driver that announced it already) and `start` emitted unless
  // `started`. Errors as RunTurn's (nothing half-written).
  Result<std::unique_ptr<TurnRun>> Begin(const std::string& thread_id, const std::string* user_text,
                                         EventSink sink, model::CancelToken cancel,
                                         model::Provider& provider,
                                         const std::string& message_id = "", bool started = false);
  // The next step's request, rendered now; nullopt once the turn has ended (run.status is set:
  // by the stop predicates, a cancellation, or a frame that could not render).
  std::optional<model::StepRequest> NextStep(TurnRun& run);
  // After the step's terminal part reached run.OnPart: runs its calls, finishes the step and asks
  // the stop predicates whether the turn goes on.
  void AfterStep(TurnRun& run);
  // Ends the turn: the finalizer's report, the message completed, the last events emitted.
  TurnReport Finish(TurnRun& run);

  ToolRegistry& registry() { return registry_; }
  // Grants, staging and execution of the thread's effects (docs/AUTHORITY.md).
  authority::Authority& authority() { return *authority_; }
  const HarnessOptions& options() const { return options_; }
  // The skills as the latest turn's start scanned them (RescanSkills).
  const skills::SkillCatalog& skills() const { return skills_; }
  // Scans the skill sources again (every turn does this first).
  void RescanSkills();

  // The transcript the frame renders for these stored messages (exposed for audits and tests).
  std::vector<TranscriptTurn> Transcript(const std::vector<store::MessageRecord>& messages) const;

  // The reality block as it would be written for a turn of this thread starting now (time,
  // connectors with freshness and credentials, query handles, grants, the active artifact).
  std::string RealityFor(const std::vector<store::MessageRecord>& thread) const;

 private:
  Result<model::StepRequest> Request(int step, const std::vector<TranscriptTurn>& transcript,
                                     PromptAudit& audit);
  void ExecuteCalls(TurnRun& run);
  // RunTurn (user_text set) and ContinueTurn (nullptr) share this driver.
  Result<TurnReport> Turn(const std::string& thread_id, const std::string* user_text,
                          const EventSink& sink, const model::CancelToken& cancel);
  // The registry's attached tools become the run's, and back.
  void Restore(const TurnRun& run);
  void Keep(TurnRun& run);
  // Between turns: runs the thread's approved effects (once; authority::Execute) and writes the
  // outcome of every decided effect the model has not been told yet into its staging call's
  // result (an earlier message's tool part). Returns the data-approval chunks to emit.
  std::vector<nlohmann::ordered_json> ResolveApprovals(const std::string& thread_id);

  skills::SkillCatalog skills_;  // before registry_: ToolSearch holds its address
  store::Store& store_;
  model::Provider& provider_;
  Frame& frame_;
  connect::ConnectorRoad* road_;
  HarnessOptions options_;
  std::unique_ptr<authority::Authority> authority_;
  ToolRegistry registry_;
  nlohmann::ordered_json resident_json_;
  std::unique_ptr<class ModelChooser> chooser_;
  std::vector<text::TokenId> end_tokens_;
};

}  // namespace affordance::harness

// Tools are values: each one declares itself (name, description, JSON Schema) and executes with a
// context. The loop finds a called tool only through the ToolRegistry; nothing outside the
// registry switches on tool names.
//
// Contract of Execute: it runs on the loop's thread, must return promptly when `ctx.cancel` is
// cancelled, and never throws. A refusal or failure is an outcome with ok=false and an Error
// (code + message): the model reads it as the call's result on the next step. Arguments have been
// validated against `spec().parameters` before Execute is called (unless the schema uses keywords
// the validator does not know: then the tool validates what it needs).
#pragma once

#include "base/result.h"
#include "harness/ledger.h"
#include "harness/truth.h"
#include "model/provider.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace affordance::connect {
class Chooser;
}

namespace affordance::harness {

class ToolRegistry;

struct ToolSpec {
  std::string name;  // ^[A-Za-z0-9_-]{1,64}$
  std::string description;
  nlohmann::ordered_json parameters = {{"type", "object"}};  // JSON Schema of the arguments
  // The capability it is declared under in authority::CapabilityRegistry (door "tool"): its own
  // name for fixed tools, a family name for generated ones ("connector_operation", "app_action").
  std::string capability;

  // {"type":"function","function":{"name","description","parameters"}} (what a wrapper declares).
  nlohmann::ordered_json ToJson() const;
};

struct ToolContext {
  std::string thread_id;
  std::string message_id;
  std::string call_id;
  int step = 0;
  model::CancelToken cancel;
  ToolRegistry* registry = nullptr;     // ToolSearch attaches deferred tools through it
  connect::Chooser* chooser = nullptr;  // the model-backed chooser of RunConnectorCommand
};

// A surface accepted by ComposeUI (placement and live behaviour are the surface part's business).
struct SurfaceDraft {
  std::string id;
  std::string program;   // the exact OpenUI Lang text
  std::string kind;      // "inline" | "panel" | "live_app"
  std::string app_slug;  // live apps only
  bool live = false;     // it binds Query() handles, so it owes paint/hydrate acknowledgements
  std::vector<std::string> handles;
  std::string artifact_id;  // the artifact version it shows (surface/artifact.h)
  int64_t version = 0;
  int64_t parent = 0;
  std::vector<std::string> sources;  // connectors it presents data from
};

struct ToolOutcome {
  bool ok = true;
  Error error;             // when !ok
  nlohmann::json output;   // what clients see (tool-output-available.output)
  std::string model_text;  // what the model reads; empty: output as compact JSON
  TruthState state = TruthState::kExecuted;
  std::optional<DataState> data_state;  // a connector read: where the evidence came from
  std::string connector;                // ... and from which connector
  std::optional<int64_t> rows;          // ... the rows it served (nullopt: none, unresolved)
  int64_t synced_at = 0;                // ... when they were last synced (epoch s, 0: unknown)
  bool ends_turn = false;               // a terminal tool (AskUserQuestion)
  // A staged effect: the durable approval request it wrote. The call then awaits a human
  // decision (tool-approval-request) and the turn ends with status awaiting_approval.
  std::string approval_id;
  std::optional<SurfaceDraft> surface;
  // A skill this call loaded (only ToolSearch "skill:NAME" sets it): the ledger records it, and
  // the result is wrapped as the operator's text (trust="operator"), not as untrusted evidence.
  std::optional<SkillEntry> skill;

  static ToolOutcome Ok(nlohmann::json output) {
    ToolOutcome o;
    o.output = std::move(output);
    return o;
  }
  static ToolOutcome Fail(Error error) {
    ToolOutcome o;
    o.ok = false;
    o.error = std::move(error);
    return o;
  }
};

class Tool {
 public:
  virtual ~Tool() = default;
  virtual const ToolSpec& spec() const = 0;
  virtual ToolOutcome Execute(ToolContext& ctx, const nlohmann::json& input) = 0;
};

}  // namespace affordance::harness

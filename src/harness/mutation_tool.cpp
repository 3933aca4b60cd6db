// invoke_mutation: the deferred tool through which the model stages a write. It never runs the
// effect: it writes a durable approval request through authority (which checks the mutation, its
// arguments and the write grant) and the call ends awaiting a human decision. The decision and the
// execution happen between turns (docs/AUTHORITY.md); the next turn reports the outcome as this
// call's result.
#include "authority/capability.h"
#include "harness/tools.h"

namespace affordance::harness {
namespace {

using ojson = nlohmann::ordered_json;

const bool declared = authority::DeclareCapability(authority::MakeCapability(
    "tool", "invoke_mutation", "mutation", "stage", authority::Access::kClient,
    authority::Mode::kStagedWrite, "stages an exact connector mutation for human approval",
    {{"connector", "string"},
     {"operation", "string"},
     {"args", "object"},
     {"evidence", "string|object"}},
    {{"approvalId", "string"}, {"state", "pending"}}, "connector:<slug>:write",
    "approval request (apr_...)", "a durable approval request; nothing is dispatched"));

class InvokeMutation final : public Tool {
 public:
  InvokeMutation(authority::Authority& authority, connect::ConnectorRoad* road)
      : authority_(authority) {
    spec_.name = "invoke_mutation";
    spec_.capability = "invoke_mutation";
    std::string list;
    if (road != nullptr) {
      for (const auto& m : road->manifests()) {
        for (const auto& op : m.operations) {
          if (op.kind != connect::OperationKind::kMutation) continue;
          list += (list.empty() ? "" : "; ") + m.slug + "." + op.name + " (" +
                  connect::ToString(op.risk) + ") args " + op.args_schema.dump();
        }
      }
    }
    spec_.description =
        "Stage a write (create, change or delete something in a connector's source) for a person "
        "to approve. Nothing runs now: the turn ends awaiting approval and the outcome comes back "
        "as this call's result later. Mutations: " +
        (list.empty() ? "none" : list) + ".";
    spec_.parameters = ojson::parse(R"({"type": "object", "properties": {
        "connector": {"type": "string", "minLength": 1},
        "operation": {"type": "string", "minLength": 1},
        "args": {"type": "object"},
        "evidence": {"type": ["string", "object"]}},
        "required": ["connector", "operation", "args"], "additionalProperties": false})");
  }

  const ToolSpec& spec() const override { return spec_; }

  ToolOutcome Execute(ToolContext& ctx, const nlohmann::json& input) override {
    authority::StageRequest r;
    r.connector = input.value("connector", "");
    r.operation = input.value("operation", "");
    r.args = input.value("args", nlohmann::json::object());
    if (input.contains("evidence")) {
      r.evidence = input["evidence"].is_object() ? input["evidence"]
                                                 : nlohmann::json{{"note", input["evidence"]}};
    }
    r.thread_id = ctx.thread_id;
    r.message_id = ctx.message_id;
    r.tool_call_id = ctx.call_id;
    auto staged = authority_.Stage(r, authority::Actor::Model());
    if (!staged) return ToolOutcome::Fail(staged.error());
    authority::EffectReport report;
    report.approval = *staged;
    report.state = "pending";
    ToolOutcome o = ToolOutcome::Ok(report.ToJson());
    o.model_text = report.ModelText();
    o.state = TruthState::kPersisted;
    o.approval_id = staged->id;
    return o;
  }

 private:
  ToolSpec spec_;
  authority::Authority& authority_;
};

}  // namespace

std::unique_ptr<Tool> MakeInvokeMutation(authority::Authority& authority,
                                         connect::ConnectorRoad* road) {
  return std::make_unique<InvokeMutation>(authority, road);
}

}  // namespace affordance::harness

// `affordance approvals list | show | stage | approve | deny | execute`: the human plane of
// governed writes. Only a person (this command, the local user) decides; `approve --execute` (or
// `execute`) runs the approved effect at once, otherwise the thread's next turn runs it.
#include "authority/capability.h"
#include "cli/authority_cli.h"
#include "cli/command.h"
#include "cli/output.h"
#include "text/display_width.h"

#include "connect/effect.h"
#include "store/store.h"

#include <cstdio>
#include <memory>

namespace affordance::cli {
namespace {

using nlohmann::json;

struct Options {
  GovernOptions g;
  std::string status;
  std::string thread;
  std::string id;
  std::string reason;
  bool execute = false;
  std::string connector;
  std::string operation;
  std::string args = "{}";
  std::string digest;
};

// The effect card: what the write does, where, each field in the local time zone.
void PrintEffect(const store::ApprovalRecord& a) {
  for (const auto& line : connect::EffectLines(a.effect, a.expires_ms, store::NowMs())) {
    std::printf("  %s\n", line.c_str());
  }
  std::printf("  risk %s · request %s\n", a.risk.c_str(), a.digest.substr(0, 12).c_str());
}

// Every value below comes from a model, a connector or a store row: printed through
// text::Printable (text) or JsonText (JSON), it runs no control sequence and reorders nothing.
void Line(const authority::EffectReport& r) {
  const std::string what = text::Printable(r.approval.connector + "." + r.approval.operation);
  std::printf("%-22s %-16s %-10s %s %s\n", text::Printable(r.approval.id).c_str(), r.state.c_str(),
              r.approval.risk.c_str(), what.c_str(), HumanJsonText(r.approval.args).c_str());
}

int Print(const authority::EffectReport& r, bool json, bool detail) {
  if (json) {
    PrintJson({{"approval", r.ToJson()}});
    return kExitOk;
  }
  Line(r);
  if (!detail) return kExitOk;
  const auto& a = r.approval;
  PrintEffect(a);
  std::printf("  args %s\n", HumanJsonText(a.args).c_str());
  std::printf("  staged by %s at %s", text::Printable(a.staged_by).c_str(),
              FormatMs(a.created_ms).c_str());
  if (!a.thread_id.empty()) {
    std::printf(" (thread %s, call %s)", text::Printable(a.thread_id).c_str(),
                text::Printable(a.tool_call_id).c_str());
  }
  std::printf("\n");
  if (!a.decided_by.empty()) {
    std::printf("  %s by %s at %s%s\n", a.status == "denied" ? "denied" : "approved",
                text::Printable(a.decided_by).c_str(), FormatMs(a.decided_ms).c_str(),
                a.reason.empty() ? "" : text::Printable(" — " + a.reason).c_str());
  }
  if (!a.evidence.empty()) std::printf("  evidence %s\n", HumanJsonText(a.evidence).c_str());
  if (r.receipt) {
    std::printf("  receipt %s: %s, verification %s, key %s\n", r.receipt->id.c_str(),
                r.receipt->outcome.c_str(),
                r.receipt->verification.empty() ? "-" : r.receipt->verification.c_str(),
                r.receipt->idempotency_key.c_str());
    std::printf("  response %s\n", HumanJsonText(r.receipt->response).c_str());
  }
  std::printf("  %s\n", text::Printable(r.ModelText()).c_str());
  return kExitOk;
}

int Run(const Options& o, const std::string& verb) {
  auto gov = OpenGovernance(o.g);
  if (!gov) return ReportError(gov.error(), o.g.json);
  authority::Authority& auth = *(*gov)->authority;
  auto fail = [&](const Error& e) { return ReportError(e, o.g.json); };
  if (verb == "list") {
    auto list = (*gov)->store->ListApprovals(o.status, o.thread);
    if (!list) return fail(list.error());
    json out = json::array();
    if (!o.g.json && list->empty()) std::printf("no approval requests\n");
    for (const auto& a : *list) {
      auto r = auth.Report(a.id);
      if (!r) return fail(r.error());
      if (o.g.json) {
        out.push_back(r->ToJson());
      } else {
        Line(*r);
      }
    }
    if (o.g.json) PrintJson({{"approvals", out}});
    return kExitOk;
  }
  std::string id = o.id;
  if (verb == "stage") {
    if (auto deep = CheckInputDepth(o.args, "--args"); !deep) return fail(deep.error());
    json args = json::parse(o.args, nullptr, false);
    if (args.is_discarded() || !args.is_object()) {
      return fail(
          MakeError(ErrorKind::kInvalid, "authority.bad_args", "--args must be a JSON object"));
    }
    authority::StageRequest req{o.connector, o.operation, args, {{"staged_from", "cli"}}};
    auto staged = auth.Stage(req, authority::Actor::LocalUser());
    if (!staged) return fail(staged.error());
    id = staged->id;
  } else if (verb == "approve") {
    auto decided = auth.Approve(id, authority::Actor::LocalUser(), o.digest);
    if (!decided) return fail(decided.error());
  } else if (verb == "deny") {
    auto decided = auth.Deny(id, authority::Actor::LocalUser(), o.reason);
    if (!decided) return fail(decided.error());
  }
  if (verb == "execute" || (verb == "approve" && o.execute)) {
    auto ran = auth.Execute(id);
    if (!ran) return fail(ran.error());
  }
  auto r = auth.Report(id);
  if (!r) return fail(r.error());
  return Print(*r, o.g.json, verb == "show" || verb == "stage");
}

const bool declared = [] {
  auto declare = [](std::string name, std::string action, authority::Mode mode, std::string receipt,
                    std::string proof, std::string description) {
    authority::DeclareCapability(authority::MakeCapability(
        "cli", std::move(name), "approval", std::move(action), authority::Access::kPerson, mode,
        std::move(description), nlohmann::json::object(), nlohmann::json::object(),
        mode == authority::Mode::kRead ? "" : "connector:<slug>:write", std::move(receipt),
        std::move(proof)));
  };
  declare("approvals", "decide", authority::Mode::kApprovedExecution,
          "approval decision; receipt rc_... when executed",
          "receipt (idempotency key, request, response, outcome) + fresh-read verification",
          "approval requests: list, show, stage, approve (--execute), deny, execute");
  return true;
}();

const bool registered = RegisterCommand(
    {"approvals", "Staged writes awaiting a person: list, show, stage, approve, deny, execute",
     [](CLI::App& sub) -> Runner {
       auto o = std::make_shared<Options>();
       auto verb = std::make_shared<std::string>();
       sub.require_subcommand(1);
       auto add = [&](const char* name, const char* what) {
         return AddGovernVerb(sub, name, what, o->g, verb);
       };
       CLI::App* list = add("list", "Approval requests, newest first");
       list->add_option("--status", o->status, "Only this status (pending, approved, ...)");
       list->add_option("--thread", o->thread, "Only this thread's requests");
       add("show", "One request with its receipt")->add_option("id", o->id)->required();
       CLI::App* stage = add("stage", "Stage a mutation yourself (it still needs approval)");
       stage->add_option("connector", o->connector)->required();
       stage->add_option("operation", o->operation)->required();
       stage->add_option("--args", o->args, "Arguments (JSON object)");
       CLI::App* approve = add("approve", "Approve one staged effect");
       approve->add_option("id", o->id)->required();
       approve->add_flag("--execute", o->execute, "Run it now (else the next turn runs it)");
       approve->add_option("--digest", o->digest,
                           "The request digest `show` printed (8+ hex digits): refuse if it "
                           "differs");
       CLI::App* deny = add("deny", "Deny one staged effect");
       deny->add_option("id", o->id)->required();
       deny->add_option("--reason", o->reason, "Told to the model");
       add("execute", "Run an approved effect now (once)")->add_option("id", o->id)->required();
       return [o, verb] { return Run(*o, *verb); };
     }});

}  // namespace
}  // namespace affordance::cli

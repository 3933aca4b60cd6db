// `affordance reconcile [ID] [--json]`: resolves effects whose outcome is unknown (a timeout or a
// crash after dispatch) by the source's idempotency-key lookup or a fresh read, never by running
// them again. Without an ID: every outcome_unknown effect, and every "executing" one whose
// process is gone.
#include "authority/capability.h"
#include "cli/authority_cli.h"
#include "cli/command.h"
#include "cli/output.h"

#include <cstdio>
#include <memory>

namespace affordance::cli {
namespace {

struct Options {
  GovernOptions g;
  std::string id;
};

int Run(const Options& o) {
  auto gov = OpenGovernance(o.g);
  if (!gov) return ReportError(gov.error(), o.g.json);
  std::vector<authority::EffectReport> reports;
  if (!o.id.empty()) {
    auto r = (*gov)->authority->Reconcile(o.id);
    if (!r) return ReportError(r.error(), o.g.json);
    reports.push_back(std::move(*r));
  } else {
    auto all = (*gov)->authority->ReconcileAll();
    if (!all) return ReportError(all.error(), o.g.json);
    reports = std::move(*all);
  }
  if (o.g.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : reports) out.push_back(r.ToJson());
    PrintJson({{"reconciled", out}});
    return kExitOk;
  }
  if (reports.empty()) std::printf("nothing to reconcile\n");
  for (const auto& r : reports) {
    std::printf("%-22s %-14s %s\n", r.approval.id.c_str(), r.state.c_str(), r.ModelText().c_str());
  }
  return kExitOk;
}

const bool declared = authority::DeclareCapability(authority::MakeCapability(
    "cli", "reconcile", "approval", "reconcile", authority::Access::kPerson,
    authority::Mode::kVerified, "resolves execution_outcome_unknown without re-running anything",
    {{"id", "approval id (optional)"}}, {{"reconciled", "array"}}, "",
    "the receipt's outcome and reconcile evidence",
    "idempotency-key lookup at the source, or a fresh read"));

const bool registered =
    RegisterCommand({"reconcile", "Resolve effects whose outcome is unknown (never re-runs them)",
                     [](CLI::App& sub) -> Runner {
                       auto o = std::make_shared<Options>();
                       AddGovernOptions(sub, o->g);
                       sub.add_option("id", o->id, "One approval (default: all that need it)");
                       return [o] { return Run(*o); };
                     }});

}  // namespace
}  // namespace affordance::cli

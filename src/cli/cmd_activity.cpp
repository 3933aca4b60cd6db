// `affordance activity [--kind K] [--subject S] [--limit N] [--json]`: the append-only log of every
// grant, read, stage, decision, execution, verification and reconcile (docs/AUTHORITY.md).
#include "authority/capability.h"
#include "cli/authority_cli.h"
#include "cli/command.h"
#include "cli/output.h"
#include "text/display_width.h"

#include <cstdio>
#include <memory>

namespace affordance::cli {
namespace {

struct Options {
  GovernOptions g;
  store::ActivityFilter filter;
};

int Run(const Options& o) {
  auto gov = OpenGovernance(o.g);
  if (!gov) return ReportError(gov.error(), o.g.json);
  if (o.filter.limit < 1) {
    return ReportError(
        MakeError(ErrorKind::kInvalid, "cli.bad_option", "--limit must be at least 1"), o.g.json,
        kExitUsage);
  }
  auto entries = (*gov)->store->ListActivity(o.filter);
  if (!entries) return ReportError(entries.error(), o.g.json);
  if (o.g.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : *entries) out.push_back(e.ToJson());
    PrintJson({{"activity", out}});
    return kExitOk;
  }
  if (entries->empty()) std::printf("no activity\n");
  for (const auto& e : *entries) {
    std::printf("%6lld %s %-9s %-22s %-16s %s\n", static_cast<long long>(e.seq),
                FormatMs(e.at_ms).c_str(), text::Printable(e.kind).c_str(),
                text::Printable(e.subject).c_str(), text::Printable(e.actor).c_str(),
                HumanJsonText(e.data).c_str());
  }
  return kExitOk;
}

const bool declared = authority::DeclareCapability(authority::MakeCapability(
    "cli", "activity", "activity", "read", authority::Access::kPerson, authority::Mode::kRead,
    "the append-only Activity log",
    {{"kind", "string"}, {"subject", "string"}, {"limit", "integer"}}, {{"activity", "array"}}));

const bool registered = RegisterCommand(
    {"activity", "The Activity log: grants, reads, stages, decisions, executions, reconciles",
     [](CLI::App& sub) -> Runner {
       auto o = std::make_shared<Options>();
       AddGovernOptions(sub, o->g);
       sub.add_option("--kind", o->filter.kind,
                      "grant, revoke, read, stage, approve, deny, execute, verify, reconcile");
       sub.add_option("--subject", o->filter.subject, "An approval, grant or connector scope");
       sub.add_option("--since-ms", o->filter.since_ms, "Entries at or after this time");
       sub.add_option("--limit", o->filter.limit, "The newest N entries")->capture_default_str();
       return [o] { return Run(*o); };
     }});

}  // namespace
}  // namespace affordance::cli

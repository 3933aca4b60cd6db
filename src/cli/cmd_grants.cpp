// `affordance grants list | grant | revoke`: who may read or write which connector. Reads by the
// model need a read grant; staging and executing a write need a write grant (docs/AUTHORITY.md).
#include "authority/capability.h"
#include "cli/authority_cli.h"
#include "cli/command.h"
#include "cli/output.h"

#include <cstdio>
#include <memory>

namespace affordance::cli {
namespace {

using nlohmann::json;

struct Options {
  GovernOptions g;
  std::string connector;
  std::string operation;
  bool read = false;
  bool write = false;
  int64_t expires_in_s = 0;
  std::string id;
  bool all = false;
};

int List(const Options& o) {
  auto gov = OpenGovernance(o.g);
  if (!gov) return ReportError(gov.error(), o.g.json);
  auto grants = (*gov)->store->ListGrants();
  if (!grants) return ReportError(grants.error(), o.g.json);
  // In force: not revoked and not expired; --all shows the others too, marked.
  const int64_t now = store::NowMs();
  if (!o.all) std::erase_if(*grants, [&](const auto& g) { return !g.in_force(now); });
  if (o.g.json) {
    json out = json::array();
    for (const auto& g : *grants) out.push_back(g.ToJson());
    PrintJson({{"grants", out}});
    return kExitOk;
  }
  if (grants->empty()) {
    std::printf("no grants (grant one with: affordance grants grant <connector> --read)\n");
  }
  for (const auto& g : *grants) {
    const char* mark = g.revoked_ms ? " (revoked)" : !g.in_force(now) ? " (expired)" : "";
    std::printf("%-20s %-6s %-36s by %-16s expires %s%s\n", g.id.c_str(), g.access.c_str(),
                g.scope.c_str(), g.granted_by.c_str(), FormatMs(g.expires_ms).c_str(), mark);
  }
  return kExitOk;
}

int Grant(const Options& o) {
  if (o.read == o.write) {
    return ReportError(
        MakeError(ErrorKind::kInvalid, "cli.bad_option", "give exactly one of --read or --write"),
        o.g.json, kExitUsage);
  }
  auto gov = OpenGovernance(o.g);
  if (!gov) return ReportError(gov.error(), o.g.json);
  if ((*gov)->road == nullptr) {
    std::fprintf(stderr,
                 "affordance: warning: no connector folder is configured (--connectors or "
                 "$AFFORDANCE_CONNECTORS), so \"%s\" was not checked against the connectors\n",
                 o.connector.c_str());
  }
  int64_t expires = o.expires_in_s > 0 ? store::NowMs() + o.expires_in_s * 1000 : 0;
  auto g = (*gov)->authority->Grant(o.connector, o.operation, o.read ? "read" : "write", expires,
                                    authority::Actor::LocalUser());
  if (!g) return ReportError(g.error(), o.g.json);
  if (o.g.json) {
    PrintJson({{"grant", g->ToJson()}});
  } else {
    std::printf("granted %s %s (%s)\n", g->access.c_str(), g->scope.c_str(), g->id.c_str());
  }
  return kExitOk;
}

int Revoke(const Options& o) {
  auto gov = OpenGovernance(o.g);
  if (!gov) return ReportError(gov.error(), o.g.json);
  auto g = (*gov)->authority->Revoke(o.id, authority::Actor::LocalUser());
  if (!g) return ReportError(g.error(), o.g.json);
  if (o.g.json) {
    PrintJson({{"grant", g->ToJson()}});
  } else {
    std::printf("revoked %s %s (%s)\n", g->access.c_str(), g->scope.c_str(), g->id.c_str());
  }
  return kExitOk;
}

const bool declared = authority::DeclareCapability(authority::MakeCapability(
    "cli", "grants", "grant", "manage", authority::Access::kPerson, authority::Mode::kLocalState,
    "grants: who may read or write which connector",
    {{"list", "[--all]"},
     {"grant", "<connector> [--operation OP] --read|--write [--expires-in S]"},
     {"revoke", "<grant id>"}},
    {{"grants", "array"}}, "", "Activity entry (grant | revoke)",
    "the grant row and its Activity entry"));

const bool registered = RegisterCommand(
    {"grants", "List, grant and revoke connector grants (reads and writes need one)",
     [](CLI::App& sub) -> Runner {
       auto o = std::make_shared<Options>();
       sub.require_subcommand(1);
       auto* list =
           sub.add_subcommand("list", "Grants in force (--all: also revoked and expired ones)");
       AddGovernOptions(*list, o->g);
       list->add_flag("--all", o->all, "Include revoked and expired grants");
       auto* grant = sub.add_subcommand("grant", "Grant read or write on a connector");
       AddGovernOptions(*grant, o->g);
       grant->add_option("connector", o->connector, "Connector slug")->required();
       grant->add_option("--operation", o->operation, "Only this operation");
       grant->add_flag("--read", o->read, "Read access");
       grant->add_flag("--write", o->write, "Write access (staging and executing mutations)");
       grant->add_option("--expires-in", o->expires_in_s, "Seconds until it expires (0 = never)");
       auto* revoke = sub.add_subcommand("revoke", "Revoke a grant");
       AddGovernOptions(*revoke, o->g);
       revoke->add_option("id", o->id, "Grant id (g_...)")->required();
       return [o, list, grant, revoke]() {
         if (list->parsed()) return List(*o);
         if (grant->parsed()) return Grant(*o);
         (void)revoke;
         return Revoke(*o);
       };
     }});

}  // namespace
}  // namespace affordance::cli

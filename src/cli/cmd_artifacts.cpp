// `affordance artifacts list | show | versions | query`: the artifacts ComposeUI saved
// (docs/SURFACE.md). `show` takes an id or a live app's slug and prints the surface as the
// terminal chat does (its bindings re-executed; --source: the program); `query` re-executes one
// Query() binding of an artifact and prints the rows with the source-binding receipt (two-time
// grounding; the same operation as the server's POST /api/query).
#include "authority/capability.h"
#include "cli/authority_cli.h"
#include "cli/command.h"
#include "cli/output.h"
#include "cli/surface_text.h"
#include "cli/terminal.h"
#include "surface/artifact.h"
#include "surface/query.h"
#include "text/display_width.h"

#include <cstdio>
#include <memory>

namespace affordance::cli {
namespace {

using nlohmann::json;

struct Options {
  GovernOptions g;
  std::string id;
  int64_t version = 0;
  std::string statement;
  std::string args;
  bool source = false;  // show: the program's OpenUI source instead of its text
};

int Run(const Options& o, const std::string& verb) {
  auto gov = OpenGovernance(o.g);
  if (!gov) return ReportError(gov.error(), o.g.json);
  store::Store& store = *(*gov)->store;
  auto fail = [&](const Error& e) {
    const bool usage = e.code == "store.not_found" || e.code == "surface.unknown_statement" ||
                       e.code == "surface.args_required" || e.code == "cli.bad_option" ||
                       e.code == "cli.too_deep";
    return ReportError(e, o.g.json, usage ? kExitUsage : kExitFailure);
  };
  if (verb == "list") {
    auto list = store.ListArtifacts();
    if (!list) return fail(list.error());
    json out = json::array();
    if (!o.g.json && list->empty()) std::printf("no artifacts\n");
    for (const auto& a : *list) {
      if (o.g.json) {
        out.push_back(a.ToJson());
      } else {
        std::printf("%-20s %-9s v%-3lld %-16s %s\n", a.id.c_str(), a.kind.c_str(),
                    static_cast<long long>(a.head), a.app_slug.empty() ? "-" : a.app_slug.c_str(),
                    a.title.c_str());
      }
    }
    if (o.g.json) PrintJson({{"artifacts", out}});
    return kExitOk;
  }
  if (verb == "versions") {
    auto a = store.GetArtifact(o.id);
    if (!a) return fail(a.error());
    auto versions = store.ArtifactVersions(a->id);
    if (!versions) return fail(versions.error());
    if (o.g.json) {
      json out = json::array();
      for (const auto& v : *versions) out.push_back(v.ToJson());
      PrintJson({{"artifact", a->ToJson()}, {"versions", out}});
      return kExitOk;
    }
    for (const auto& v : *versions) {
      std::printf("v%-3lld %s parent %s%s, %zu queries\n", static_cast<long long>(v.version),
                  FormatMs(v.created_ms).c_str(),
                  v.parent == 0 ? "-" : ("v" + std::to_string(v.parent)).c_str(),
                  v.patch.empty() ? "" : " (patch)",
                  v.bindings.value("queries", json::array()).size());
    }
    return kExitOk;
  }
  if (verb == "show") {
    auto opened = surface::OpenArtifact(store, o.id, o.version);
    if (!opened) return fail(opened.error());
    if (o.g.json) {
      PrintJson({{"artifact", opened->ToJson()}});
      return kExitOk;
    }
    const auto& a = opened->artifact;
    std::printf("%s %s%s v%lld of %lld (%s)\n", a.id.c_str(), a.kind.c_str(),
                a.app_slug.empty() ? "" : (" " + a.app_slug).c_str(),
                static_cast<long long>(opened->version.version), static_cast<long long>(a.head),
                opened->live() ? "live" : "static");
    surface::TextOptions text;
    text.width = TerminalWidth(1);
    text.color = ColorWanted(1);
    for (const auto& q : opened->bindings.queries) {
      std::string line = "  " + q.statement + " = Query(" + q.handle + ") " + q.connector + "." +
                         q.operation + " " +
                         q.args.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      line = text::Printable(line);
      std::printf("%s\n", (o.source ? line : text::FitWidth(line, text.width)).c_str());
    }
    if (o.source) {
      std::printf("%s\n", text::Printable(opened->version.body, true).c_str());
      return kExitOk;
    }
    // As the web shows it: the bindings re-executed (read grants apply), then laid out as text.
    std::printf(
        "\n%s",
        ArtifactText(*opened, {&store, (*gov)->road.get(), (*gov)->authority.get()}, text).c_str());
    return kExitOk;
  }
  // query
  if ((*gov)->road == nullptr) {
    return fail(
        MakeError(ErrorKind::kNotFound, "connect.unknown_connector",
                  "no connector is configured (--connectors DIR or $AFFORDANCE_CONNECTORS)"));
  }
  surface::QueryRequest req;
  req.artifact = o.id;
  req.version = o.version;
  req.statement = o.statement;
  if (!o.args.empty()) {
    if (auto deep = CheckInputDepth(o.args, "--args"); !deep) return fail(deep.error());
    json args = json::parse(o.args, nullptr, false);
    if (args.is_discarded() || !args.is_object()) {
      return fail(MakeError(ErrorKind::kInvalid, "cli.bad_option", "--args must be a JSON object"));
    }
    req.args = std::move(args);
  }
  auto run = surface::ExecuteQuery(store, *(*gov)->road, (*gov)->authority.get(), req,
                                   authority::Actor::LocalUser());
  if (!run) return fail(run.error());
  if (o.g.json) {
    PrintJson(run->ToJson());
  } else {
    const auto& r = run->receipt;
    std::printf("receipt: %s (%s.%s, %lld rows from %s, digest %s)\n",
                r.match() ? "match" : "MISMATCH", r.live.connector.c_str(),
                r.live.operation.c_str(), static_cast<long long>(r.rows), r.served_from.c_str(),
                r.rows_digest.c_str());
    for (const auto& row : run->rows)
      std::printf("%s\n",
                  row.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  }
  if (run->mismatch) {
    if (!o.g.json) ReportError(*run->mismatch, false, kExitFailure);
    return kExitFailure;
  }
  return kExitOk;
}

const bool declared = authority::DeclareCapability(authority::MakeCapability(
    "cli", "artifacts", "artifact", "read", authority::Access::kPerson, authority::Mode::kRead,
    "saved ComposeUI artifacts: list, show (id or app slug), versions, query",
    nlohmann::json::object(), nlohmann::json::object(), "connector:<slug>:read (query)",
    "source-binding receipt (query)",
    "the receipt compares the live operation with the artifact's stored binding"));

const bool registered = RegisterCommand(
    {"artifacts", "Saved ComposeUI artifacts: list, show, versions, query",
     [](CLI::App& sub) -> Runner {
       auto o = std::make_shared<Options>();
       auto verb = std::make_shared<std::string>();
       sub.require_subcommand(1);
       auto add = [&](const char* name, const char* what) {
         return AddGovernVerb(sub, name, what, o->g, verb);
       };
       add("list", "Artifacts, newest first");
       CLI::App* show = add("show", "One artifact (id or live app slug) at its head or --version");
       show->add_option("id", o->id, "Artifact id or app slug")->required();
       show->add_option("--version", o->version, "Version (default: the head)");
       show->add_flag("--source", o->source,
                      "Print the OpenUI Lang program instead of the surface as text");
       add("versions", "Every version with its parent")
           ->add_option("id", o->id, "Artifact id or app slug")
           ->required();
       CLI::App* query = add("query", "Re-execute a Query() binding; prints rows and the receipt");
       query->add_option("id", o->id, "Artifact id or app slug")->required();
       query->add_option("statement", o->statement, "The Query statement id")->required();
       query->add_option("--version", o->version, "Version (default: the head)");
       query->add_option("--args", o->args, "Arguments the surface resolved (JSON object)");
       return [o, verb] { return Run(*o, *verb); };
     }});

}  // namespace
}  // namespace affordance::cli

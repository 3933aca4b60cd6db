#include "cli/authority_cli.h"

#include "cli/output.h"
#include "cli/session.h"
#include "connect/manifest.h"
#include "text/display_width.h"

#include <ctime>
#include <filesystem>
#include <iostream>

namespace affordance::cli {

void AddGovernOptions(CLI::App& app, GovernOptions& o) {
  app.add_option("--data", o.data, "Data folder (default $AFFORDANCE_DATA)");
  app.add_option("--store", o.store,
                 "The store: a PostgreSQL URI or a SQLite file (default $AFFORDANCE_STORE, else "
                 "<data>/affordance.db)");
  app.add_option("--connectors", o.connectors,
                 "Connector manifest folder (default $AFFORDANCE_CONNECTORS)");
  app.add_flag("--json", o.json, "Print JSON");
}

CLI::App* AddGovernVerb(CLI::App& parent, const char* name, const char* what, GovernOptions& o,
                        std::shared_ptr<std::string> verb) {
  CLI::App* c = parent.add_subcommand(name, what);
  AddGovernOptions(*c, o);
  c->callback([verb = std::move(verb), name] { *verb = name; });
  return c;
}

Result<std::unique_ptr<Governance>> OpenGovernance(const GovernOptions& o) {
  SessionOptions so;
  so.data = o.data;
  so.store = o.store;
  const std::string data = DataDir(so);
  auto g = std::make_unique<Governance>();
  auto store = store::Open(StoreSpec(so));
  if (!store) return store.error();
  g->store = std::move(*store);
  std::string manifests = o.connectors;
  if (manifests.empty()) {
    if (const char* c = std::getenv("AFFORDANCE_CONNECTORS"); c && *c) manifests = c;
  }
  if (!manifests.empty()) {
    if (!std::filesystem::is_directory(manifests)) {
      return MakeError(ErrorKind::kInvalid, "cli.bad_option",
                       "no connector folder at " + manifests);
    }
    auto loaded = connect::LoadManifests(manifests);
    if (!loaded) return loaded.error();
    connect::RoadOptions ro;
    ro.data_dir =
        o.data.empty() && !std::getenv("AFFORDANCE_DATA") ? connect::DefaultDataDir() : data;
    g->road = std::make_unique<connect::ConnectorRoad>(std::move(*loaded), ro);
  }
  g->authority = std::make_unique<authority::Authority>(*g->store, g->road.get());
  if (auto effects = g->authority->RecoverAbandoned(); !effects) return effects.error();
  return g;
}

std::string JsonText(const nlohmann::json& j) {
  return text::EscapeHiddenInJson(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

std::string HumanJsonText(const nlohmann::json& j) {
  return text::Printable(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void PrintJson(const nlohmann::json& j) { std::cout << JsonText(j) << std::endl; }

std::string FormatMs(int64_t ms) {
  if (ms == 0) return "never";
  std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

}  // namespace affordance::cli

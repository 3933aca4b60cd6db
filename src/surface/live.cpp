#include "surface/live.h"

namespace affordance::surface {

nlohmann::json LiveView::ToJson() const {
  nlohmann::json j = app.ToJson();
  nlohmann::json r = nlohmann::json::object();
  for (const auto& [statement, run] : runs) r[statement] = run.ToJson();
  j["generation"] = generation;
  j["synced"] = synced;
  j["runs"] = std::move(r);
  return j;
}

LiveApps::LiveApps(store::Store& store, connect::ConnectorRoad& road,
                   authority::Authority* authority, authority::Actor reader)
    : store_(store), road_(road), authority_(authority), reader_(std::move(reader)) {}

std::map<std::string, int64_t> LiveApps::SyncTimes(const OpenedArtifact& app) const {
  std::map<std::string, int64_t> out;
  for (const auto& q : app.bindings.queries) {
    if (q.connector.empty()) continue;
    auto snap = road_.Snapshot(q.connector);
    out[q.connector] = snap ? snap->freshness.synced_at : -1;
  }
  return out;
}

Result<LiveView> LiveApps::Run(OpenedArtifact app, int64_t generation) {
  LiveView view;
  view.synced = SyncTimes(app);
  for (const auto& q : app.bindings.queries) {
    if (!q.args_literal) continue;  // its args come from the surface's $state: the client runs it
    QueryRequest req;
    req.artifact = app.artifact.id;
    req.version = app.version.version;
    req.statement = q.statement;
    auto run = ExecuteQuery(store_, road_, authority_, req, reader_);
    if (!run) return run.error();
    view.runs[q.statement] = std::move(*run);
  }
  view.app = std::move(app);
  view.generation = generation;
  return view;
}

Result<LiveView> LiveApps::Open(const std::string& id_or_slug) {
  auto app = OpenArtifact(store_, id_or_slug);
  if (!app) return app.error();
  if (app->artifact.kind != "live_app") {
    return MakeError(
        ErrorKind::kConflict, "surface.not_a_live_app",
        "artifact " + app->artifact.id + " is " + app->artifact.kind + ", not a live app");
  }
  std::lock_guard lock(mu_);
  auto cached = views_.find(app->artifact.id);
  if (cached != views_.end() && cached->second.app.version.version == app->version.version &&
      cached->second.synced == SyncTimes(*app)) {
    return cached->second;
  }
  const int64_t generation = cached == views_.end() ? 1 : cached->second.generation + 1;
  auto view = Run(std::move(*app), generation);
  if (!view) return view.error();
  views_[view->app.artifact.id] = *view;
  return view;
}

Result<std::vector<std::string>> LiveApps::SyncAndRefresh(const std::string& connector) {
  if (auto synced = road_.Sync(connector); !synced) return synced.error();
  auto list = store_.ListArtifacts();
  if (!list) return list.error();
  std::vector<std::string> refreshed;
  for (const auto& a : *list) {
    if (a.kind != "live_app") continue;
    auto app = OpenArtifact(store_, a.id);
    if (!app) return app.error();
    bool bound = false;
    for (const auto& q : app->bindings.queries) bound = bound || q.connector == connector;
    if (!bound) continue;
    auto view = Open(a.id);
    if (!view) return view.error();
    refreshed.push_back(a.id);
  }
  return refreshed;
}

}  // namespace affordance::surface

// Live apps: a live_app artifact is a durable application reopened by its slug. Its bindings stay
// live: whenever the mirror of a connector it binds has synced since its queries last ran, opening
// (or polling) it re-executes every Query() binding (ExecuteQuery, with receipts) and raises its
// generation, so a client that polls sees new rows after a sync, in this process or another one
// (the sync time is read from the mirror itself). Nothing about a live app lives only in memory:
// the artifact is in the store, and the runs are re-made on the first open after a restart.
//
// Thread safety: every method may be called from any thread.
#pragma once

#include "authority/authority.h"
#include "connect/road.h"
#include "store/store.h"
#include "surface/artifact.h"
#include "surface/query.h"

#include <map>
#include <mutex>
#include <string>

namespace affordance::surface {

struct LiveView {
  OpenedArtifact app;                     // the head version
  std::map<std::string, QueryRun> runs;   // statement -> its latest run
  std::map<std::string, int64_t> synced;  // connector -> mirror sync time the runs read
  int64_t generation = 0;                 // raised each time the runs are re-made
  // opened artifact JSON + {generation, synced, runs: {statement: QueryRun JSON}}
  nlohmann::json ToJson() const;
};

class LiveApps {
 public:
  // `authority` null: reads are not gated (tests of the road alone).
  LiveApps(store::Store& store, connect::ConnectorRoad& road, authority::Authority* authority,
           authority::Actor reader);

  // The live app `id_or_slug` at its head, its queries re-run if a bound mirror synced since they
  // last ran (or they never ran in this process, or the head moved). Errors: "store.not_found",
  // "surface.not_a_live_app" (the artifact is inline or a panel), and the reads' errors.
  Result<LiveView> Open(const std::string& id_or_slug);

  // Syncs `connector`'s mirror now and re-runs every live app bound to it; returns their ids.
  Result<std::vector<std::string>> SyncAndRefresh(const std::string& connector);

 private:
  Result<LiveView> Run(OpenedArtifact app, int64_t generation);
  std::map<std::string, int64_t> SyncTimes(const OpenedArtifact& app) const;

  store::Store& store_;
  connect::ConnectorRoad& road_;
  authority::Authority* authority_;
  authority::Actor reader_;
  std::mutex mu_;
  std::map<std::string, LiveView> views_;  // artifact id -> its latest view
};

}  // namespace affordance::surface

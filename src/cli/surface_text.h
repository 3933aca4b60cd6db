// Surfaces in the terminal: a composed surface printed as the web UI shows it (surface/
// text_render.h), its Query() bindings re-executed through surface::ReadBindings (the code path of
// the server's POST /api/query), never its OpenUI source. Used by `affordance chat` and `run`
// (TerminalView) and `affordance artifacts show`.
#pragma once

#include "authority/authority.h"
#include "connect/road.h"
#include "store/store.h"
#include "surface/artifact.h"
#include "surface/text_render.h"

#include <nlohmann/json.hpp>

#include <string>

namespace affordance::cli {

// What re-executes a surface's bindings: the store holding its artifact, and the road and
// authority of the session (the person's read grants decide, as for every read). `road` null:
// tables say no connector is configured; `store` null: they say the surface is not saved.
struct SurfaceSource {
  store::Store* store = nullptr;
  connect::ConnectorRoad* road = nullptr;
  authority::Authority* authority = nullptr;
};

// The text of a surface part (what harness::EventKind::kSurface carries and the store keeps:
// {artifactId, version, program, ...}): the artifact's version with fresh rows, or, when the part
// names no artifact that opens, its program with every table saying why it has no rows.
std::string SurfacePartText(const nlohmann::json& part, const SurfaceSource& source,
                            const surface::TextOptions& options);

// The text of an opened artifact's version with fresh rows.
std::string ArtifactText(const surface::OpenedArtifact& artifact, const SurfaceSource& source,
                         const surface::TextOptions& options);

}  // namespace affordance::cli

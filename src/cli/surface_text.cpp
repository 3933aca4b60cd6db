#include "cli/surface_text.h"

#include "surface/library.h"
#include "surface/program.h"
#include "surface/query.h"

namespace affordance::cli {
namespace {

// Every Query statement of `program` without rows, for the same reason.
surface::BoundRows Unread(const surface::ParseResult& program, const std::string& why) {
  surface::BoundRows rows;
  for (const auto& q : program.query_statements) rows[std::string(q.statement_id)].error = why;
  return rows;
}

}  // namespace

std::string ArtifactText(const surface::OpenedArtifact& artifact, const SurfaceSource& source,
                         const surface::TextOptions& options) {
  surface::ParseResult program = surface::Parse(artifact.version.body, surface::Library::Default());
  surface::BoundRows rows;
  if (source.store == nullptr) {
    rows = Unread(program, "the surface is not saved");
  } else if (source.road == nullptr) {
    rows =
        Unread(program, "no connector is configured (--connectors DIR or $AFFORDANCE_CONNECTORS)");
  } else {
    rows = surface::ReadBindings(*source.store, source.road, source.authority, artifact, program,
                                 authority::Actor::LocalUser());
  }
  return surface::RenderText(program, rows, options);
}

std::string SurfacePartText(const nlohmann::json& part, const SurfaceSource& source,
                            const surface::TextOptions& options) {
  const std::string id = part.value("artifactId", "");
  std::string why = "the surface is not saved as an artifact";
  if (source.store != nullptr && !id.empty()) {
    auto opened = surface::OpenArtifact(*source.store, id, part.value("version", int64_t{0}));
    if (opened) return ArtifactText(*opened, source, options);
    why = opened.error().message;
  }
  surface::ParseResult program =
      surface::Parse(part.value("program", ""), surface::Library::Default());
  return surface::RenderText(program, Unread(program, why), options);
}

}  // namespace affordance::cli

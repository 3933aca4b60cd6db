// PgStore: artifacts (schema version 3), as artifact_store.cpp. Versions are written once and
// never changed; the head moves by a conditional UPDATE in the transaction that writes the
// version it names, so of two nodes saving version N exactly one succeeds.
#include "store/internal/codec.h"
#include "store/internal/pg_store.h"

namespace affordance::store::internal {

namespace {

constexpr std::string_view kArtifactColumns =
    "SELECT id, kind, app_slug, title, thread_id, head, created_ms, updated_ms FROM artifacts ";
constexpr std::string_view kVersionColumns =
    "SELECT artifact_id, version, parent, body, patch, bindings, message_id, tool_call_id, "
    "surface_id, created_ms FROM artifact_versions ";

ArtifactRecord ArtifactRow(const PgRows& s, int r) {
  ArtifactRecord a;
  a.id = s.Str(r, 0);
  a.kind = s.Str(r, 1);
  a.app_slug = s.Str(r, 2);
  a.title = s.Str(r, 3);
  a.thread_id = s.Str(r, 4);
  a.head = s.Int(r, 5);
  a.created_ms = s.Int(r, 6);
  a.updated_ms = s.Int(r, 7);
  return a;
}

Result<ArtifactVersionRecord> VersionRow(const PgRows& s, int r) {
  ArtifactVersionRecord v;
  v.artifact_id = s.Str(r, 0);
  v.version = s.Int(r, 1);
  v.parent = s.Int(r, 2);
  v.body = s.Str(r, 3);
  v.patch = s.Str(r, 4);
  auto bindings = DecodeJson(s.Text(r, 5), "the bindings of version " + std::to_string(v.version) +
                                               " of artifact " + v.artifact_id);
  if (!bindings) return bindings.error();
  v.bindings = std::move(*bindings);
  v.message_id = s.Str(r, 6);
  v.tool_call_id = s.Str(r, 7);
  v.surface_id = s.Str(r, 8);
  v.created_ms = s.Int(r, 9);
  return v;
}

// The same checks as artifact_store.cpp's CheckArtifact, with the same messages.
Status CheckArtifact(const ArtifactRecord& a, const ArtifactVersionRecord& v) {
  if (a.id.empty() || v.artifact_id != a.id) {
    return MakeError("store.bad_input", "an artifact version needs its artifact's id");
  }
  if (a.kind != "inline" && a.kind != "panel" && a.kind != "live_app") {
    return MakeError("store.bad_input",
                     "artifact kind \"" + a.kind + "\" is not one of inline, panel, live_app");
  }
  if (a.kind == "live_app" && a.app_slug.empty()) {
    return MakeError("store.bad_input", "a live_app artifact needs an app_slug");
  }
  if (v.body.empty()) return MakeError("store.bad_input", "an artifact version needs a body");
  if (v.version < 1 || v.parent < 0 || v.parent >= v.version) {
    return MakeError("store.bad_input", "artifact version " + std::to_string(v.version) +
                                            " with parent " + std::to_string(v.parent) +
                                            " is not a valid lineage");
  }
  return {};
}

bool IsConflict(const Error& e) { return e.code == "store.conflict"; }

}  // namespace

Status PgStore::SaveArtifactVersion(const ArtifactRecord& a, const ArtifactVersionRecord& v) {
  if (auto s = CheckArtifact(a, v); !s) return s;
  auto bindings = EncodeJson(v.bindings, "artifact bindings");
  if (!bindings) return bindings.error();
  return Transact(true, [&]() -> Status {
    const int64_t now = v.created_ms != 0 ? v.created_ms : NowMs();
    if (!a.app_slug.empty()) {
      auto held = Query("SELECT id FROM artifacts WHERE app_slug = $1 AND id <> $2",
                        "cannot check app slug " + a.app_slug, a.app_slug, a.id);
      if (!held) return held.error();
      if (!held->empty()) {
        return MakeError("store.conflict", "the app slug \"" + a.app_slug +
                                               "\" belongs to artifact " + held->Str(0, 0));
      }
    }
    if (v.version == 1) {
      auto rows = Query(
          "INSERT INTO artifacts(id, kind, app_slug, title, thread_id, head, created_ms, "
          "updated_ms) VALUES ($1, $2, $3, $4, $5, 1, $6, $6)",
          "cannot write artifact " + a.id, a.id, a.kind, a.app_slug, a.title, a.thread_id, now);
      if (!rows) {
        if (IsConflict(rows.error())) {
          return MakeError("store.conflict", "artifact " + a.id + " already exists");
        }
        return rows.error();
      }
    } else {
      auto rows = Query(
          "UPDATE artifacts SET kind = $2, app_slug = $3, title = $4, head = $5, updated_ms = $6 "
          "WHERE id = $1 AND head = $7",
          "cannot update artifact " + a.id, a.id, a.kind, a.app_slug, a.title, v.version, now,
          v.version - 1);
      if (!rows) return rows.error();
      if (rows->affected() == 0) {
        auto head =
            Query("SELECT head FROM artifacts WHERE id = $1", "cannot read artifact " + a.id, a.id);
        if (!head) return head.error();
        if (head->empty()) return NotFound("artifact", a.id);
        return MakeError("store.conflict", "artifact " + a.id + " is at version " +
                                               std::to_string(head->Int(0, 0)) + ", not " +
                                               std::to_string(v.version - 1));
      }
    }
    auto rows = Query(
        "INSERT INTO artifact_versions(artifact_id, version, parent, body, patch, bindings, "
        "message_id, tool_call_id, surface_id, created_ms) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        "cannot write version " + std::to_string(v.version) + " of artifact " + a.id, a.id,
        v.version, v.parent, v.body, v.patch, *bindings, v.message_id, v.tool_call_id, v.surface_id,
        now);
    if (!rows) {
      if (IsConflict(rows.error())) {
        return MakeError("store.conflict",
                         "artifact " + a.id + " already has version " + std::to_string(v.version));
      }
      return rows.error();
    }
    return {};
  });
}

Result<ArtifactRecord> PgStore::GetArtifact(const std::string& id_or_slug) {
  return Transact(false, [&]() -> Result<ArtifactRecord> {
    static const std::string sql = std::string(kArtifactColumns) +
                                   "WHERE id = $1 OR (app_slug = $1 AND app_slug <> '') "
                                   "ORDER BY (id = $1) DESC LIMIT 1";
    auto rows = Query(sql, "cannot read artifact " + id_or_slug, id_or_slug);
    if (!rows) return rows.error();
    if (rows->empty()) return NotFound("artifact", id_or_slug);
    return ArtifactRow(*rows, 0);
  });
}

Result<std::vector<ArtifactRecord>> PgStore::ListArtifacts() {
  return Transact(false, [&]() -> Result<std::vector<ArtifactRecord>> {
    static const std::string sql = std::string(kArtifactColumns) +
                                   "ORDER BY updated_ms DESC, created_ms DESC, id COLLATE \"C\"";
    auto rows = Query(sql, "cannot list artifacts");
    if (!rows) return rows.error();
    std::vector<ArtifactRecord> out;
    out.reserve(static_cast<size_t>(rows->size()));
    for (int r = 0; r < rows->size(); ++r) out.push_back(ArtifactRow(*rows, r));
    return out;
  });
}

Result<std::vector<ArtifactVersionRecord>> PgStore::ArtifactVersions(
    const std::string& artifact_id) {
  return Transact(false, [&]() -> Result<std::vector<ArtifactVersionRecord>> {
    auto exists = Query("SELECT 1 FROM artifacts WHERE id = $1",
                        "cannot read artifact " + artifact_id, artifact_id);
    if (!exists) return exists.error();
    if (exists->empty()) return NotFound("artifact", artifact_id);
    static const std::string sql =
        std::string(kVersionColumns) + "WHERE artifact_id = $1 ORDER BY version";
    auto rows = Query(sql, "cannot read versions of " + artifact_id, artifact_id);
    if (!rows) return rows.error();
    std::vector<ArtifactVersionRecord> out;
    for (int r = 0; r < rows->size(); ++r) {
      auto v = VersionRow(*rows, r);
      if (!v) return v.error();
      out.push_back(std::move(*v));
    }
    return out;
  });
}

Result<ArtifactVersionRecord> PgStore::GetArtifactVersion(const std::string& artifact_id,
                                                          int64_t version) {
  return Transact(false, [&]() -> Result<ArtifactVersionRecord> {
    static const std::string sql =
        std::string(kVersionColumns) +
        "WHERE artifact_id = $1 AND version = CASE WHEN $2::bigint = 0 THEN (SELECT head FROM "
        "artifacts WHERE id = $1) ELSE $2::bigint END";
    auto rows = Query(sql, "cannot read artifact " + artifact_id, artifact_id, version);
    if (!rows) return rows.error();
    if (rows->empty()) {
      return NotFound("artifact version",
                      artifact_id + (version == 0 ? "" : " v" + std::to_string(version)));
    }
    return VersionRow(*rows, 0);
  });
}

}  // namespace affordance::store::internal

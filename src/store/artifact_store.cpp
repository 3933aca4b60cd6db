// SqliteStore: artifacts (schema version 3). Versions are written once and never changed; the
// artifact's head moves in the same transaction as the version it names (docs/STORE.md).
#include "store/internal/codec.h"
#include "store/internal/sqlite_store.h"

namespace affordance::store::internal {

namespace {

constexpr std::string_view kArtifactColumns =
    "SELECT id, kind, app_slug, title, thread_id, head, created_ms, updated_ms FROM artifacts ";
constexpr std::string_view kVersionColumns =
    "SELECT artifact_id, version, parent, body, patch, bindings, message_id, tool_call_id, "
    "surface_id, created_ms FROM artifact_versions ";

ArtifactRecord ArtifactRow(const Statement& s) {
  ArtifactRecord a;
  a.id = s.Text(0);
  a.kind = s.Text(1);
  a.app_slug = s.Text(2);
  a.title = s.Text(3);
  a.thread_id = s.Text(4);
  a.head = s.Int(5);
  a.created_ms = s.Int(6);
  a.updated_ms = s.Int(7);
  return a;
}

Result<ArtifactVersionRecord> VersionRow(const Statement& s) {
  ArtifactVersionRecord v;
  v.artifact_id = s.Text(0);
  v.version = s.Int(1);
  v.parent = s.Int(2);
  v.body = s.Text(3);
  v.patch = s.Text(4);
  auto bindings = DecodeJson(s.Text(5), "the bindings of version " + std::to_string(v.version) +
                                            " of artifact " + v.artifact_id);
  if (!bindings) return bindings.error();
  v.bindings = std::move(*bindings);
  v.message_id = s.Text(6);
  v.tool_call_id = s.Text(7);
  v.surface_id = s.Text(8);
  v.created_ms = s.Int(9);
  return v;
}

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

}  // namespace

Status SqliteStore::SaveArtifactVersion(const ArtifactRecord& a, const ArtifactVersionRecord& v) {
  if (auto s = CheckArtifact(a, v); !s) return s;
  auto bindings = EncodeJson(v.bindings, "artifact bindings");
  if (!bindings) return bindings.error();
  return Transact(true, [&]() -> Status {
    const int64_t now = v.created_ms != 0 ? v.created_ms : NowMs();
    if (!a.app_slug.empty()) {
      auto prepared = conn_->Prepare("SELECT id FROM artifacts WHERE app_slug = ?1 AND id <> ?2");
      if (!prepared) return prepared.error();
      Statement st(*prepared);
      st.Bind(1, a.app_slug).Bind(2, a.id);
      if (int rc = st.Step(); rc == SQLITE_ROW) {
        return MakeError("store.conflict", "the app slug \"" + a.app_slug +
                                               "\" belongs to artifact " + std::string(st.Text(0)));
      } else if (rc != SQLITE_DONE) {
        return IoError(conn_->db(), "cannot check app slug " + a.app_slug);
      }
    }
    if (v.version == 1) {
      auto prepared = conn_->Prepare(
          "INSERT INTO artifacts(id, kind, app_slug, title, thread_id, head, created_ms, "
          "updated_ms) VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6, ?6)");
      if (!prepared) return prepared.error();
      Statement st(*prepared);
      st.Bind(1, a.id).Bind(2, a.kind).Bind(3, a.app_slug).Bind(4, a.title).Bind(5, a.thread_id);
      st.Bind(6, now);
      if (int rc = st.Step(); rc != SQLITE_DONE) {
        if ((rc & 0xff) == SQLITE_CONSTRAINT) {
          return MakeError("store.conflict", "artifact " + a.id + " already exists");
        }
        return IoError(conn_->db(), "cannot write artifact " + a.id);
      }
    } else {
      auto prepared = conn_->Prepare(
          "UPDATE artifacts SET kind = ?2, app_slug = ?3, title = ?4, head = ?5, updated_ms = ?6 "
          "WHERE id = ?1 AND head = ?7");
      if (!prepared) return prepared.error();
      Statement st(*prepared);
      st.Bind(1, a.id).Bind(2, a.kind).Bind(3, a.app_slug).Bind(4, a.title).Bind(5, v.version);
      st.Bind(6, now).Bind(7, v.version - 1);
      if (st.Step() != SQLITE_DONE) return IoError(conn_->db(), "cannot update artifact " + a.id);
      if (sqlite3_changes(conn_->db()) == 0) {
        auto head = conn_->Prepare("SELECT head FROM artifacts WHERE id = ?1");
        if (!head) return head.error();
        Statement h(*head);
        h.Bind(1, a.id);
        if (h.Step() != SQLITE_ROW) return NotFound("artifact", a.id);
        return MakeError("store.conflict", "artifact " + a.id + " is at version " +
                                               std::to_string(h.Int(0)) + ", not " +
                                               std::to_string(v.version - 1));
      }
    }
    auto prepared = conn_->Prepare(
        "INSERT INTO artifact_versions(artifact_id, version, parent, body, patch, bindings, "
        "message_id, tool_call_id, surface_id, created_ms) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
    if (!prepared) return prepared.error();
    Statement st(*prepared);
    st.Bind(1, a.id).Bind(2, v.version).Bind(3, v.parent).Bind(4, v.body).Bind(5, v.patch);
    st.Bind(6, *bindings).Bind(7, v.message_id).Bind(8, v.tool_call_id).Bind(9, v.surface_id);
    st.Bind(10, now);
    if (int rc = st.Step(); rc != SQLITE_DONE) {
      if ((rc & 0xff) == SQLITE_CONSTRAINT) {
        return MakeError("store.conflict",
                         "artifact " + a.id + " already has version " + std::to_string(v.version));
      }
      return IoError(conn_->db(),
                     "cannot write version " + std::to_string(v.version) + " of artifact " + a.id);
    }
    return {};
  });
}

Result<ArtifactRecord> SqliteStore::GetArtifact(const std::string& id_or_slug) {
  return Transact(false, [&]() -> Result<ArtifactRecord> {
    static const std::string sql = std::string(kArtifactColumns) +
                                   "WHERE id = ?1 OR (app_slug = ?1 AND app_slug <> '') "
                                   "ORDER BY id = ?1 DESC LIMIT 1";
    auto prepared = conn_->Prepare(sql);
    if (!prepared) return prepared.error();
    Statement st(*prepared);
    st.Bind(1, id_or_slug);
    int rc = st.Step();
    if (rc == SQLITE_ROW) return ArtifactRow(st);
    if (rc != SQLITE_DONE) return IoError(conn_->db(), "cannot read artifact " + id_or_slug);
    return NotFound("artifact", id_or_slug);
  });
}

Result<std::vector<ArtifactRecord>> SqliteStore::ListArtifacts() {
  return Transact(false, [&]() -> Result<std::vector<ArtifactRecord>> {
    static const std::string sql =
        std::string(kArtifactColumns) + "ORDER BY updated_ms DESC, created_ms DESC, id";
    auto prepared = conn_->Prepare(sql);
    if (!prepared) return prepared.error();
    Statement st(*prepared);
    std::vector<ArtifactRecord> out;
    int rc;
    while ((rc = st.Step()) == SQLITE_ROW) out.push_back(ArtifactRow(st));
    if (rc != SQLITE_DONE) return IoError(conn_->db(), "cannot list artifacts");
    return out;
  });
}

Result<std::vector<ArtifactVersionRecord>> SqliteStore::ArtifactVersions(
    const std::string& artifact_id) {
  return Transact(false, [&]() -> Result<std::vector<ArtifactVersionRecord>> {
    auto exists = conn_->Prepare("SELECT 1 FROM artifacts WHERE id = ?1");
    if (!exists) return exists.error();
    {
      Statement e(*exists);
      e.Bind(1, artifact_id);
      if (e.Step() != SQLITE_ROW) return NotFound("artifact", artifact_id);
    }
    static const std::string sql =
        std::string(kVersionColumns) + "WHERE artifact_id = ?1 ORDER BY version";
    auto prepared = conn_->Prepare(sql);
    if (!prepared) return prepared.error();
    Statement st(*prepared);
    st.Bind(1, artifact_id);
    std::vector<ArtifactVersionRecord> out;
    int rc;
    while ((rc = st.Step()) == SQLITE_ROW) {
      auto v = VersionRow(st);
      if (!v) return v.error();
      out.push_back(std::move(*v));
    }
    if (rc != SQLITE_DONE) return IoError(conn_->db(), "cannot read versions of " + artifact_id);
    return out;
  });
}

Result<ArtifactVersionRecord> SqliteStore::GetArtifactVersion(const std::string& artifact_id,
                                                              int64_t version) {
  return Transact(false, [&]() -> Result<ArtifactVersionRecord> {
    static const std::string sql =
        std::string(kVersionColumns) +
        "WHERE artifact_id = ?1 AND version = CASE WHEN ?2 = 0 THEN (SELECT head FROM artifacts "
        "WHERE id = ?1) ELSE ?2 END";
    auto prepared = conn_->Prepare(sql);
    if (!prepared) return prepared.error();
    Statement st(*prepared);
    st.Bind(1, artifact_id).Bind(2, version);
    int rc = st.Step();
    if (rc == SQLITE_ROW) return VersionRow(st);
    if (rc != SQLITE_DONE) return IoError(conn_->db(), "cannot read artifact " + artifact_id);
    return NotFound("artifact version",
                    artifact_id + (version == 0 ? "" : " v" + std::to_string(version)));
  });
}

}  // namespace affordance::store::internal

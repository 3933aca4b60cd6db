// The PostgreSQL translation of migrations.cpp, version for version. Translation rules: INTEGER
// is BIGINT (SQLite's integers are 64-bit), BLOB is BYTEA, JSON columns stay TEXT holding the
// JSON text (the bytes read back are the bytes written, as in SQLite), WITHOUT ROWID tables are
// plain tables (PostgreSQL has no clustered storage; the primary key index serves the same range
// scans), partial indexes are the same. Differences that PostgreSQL needs, and why:
//
// - threads.touch comes from the sequence threads_touch, not from a counter in the process:
//   several nodes write threads, and "newest first" must hold across them.
// - activity.seq is an identity column; AppendActivity takes a transaction-level advisory lock
//   before inserting, so the order of seq is the order of commits across nodes. Append-only is
//   enforced by triggers refusing UPDATE, DELETE and TRUNCATE, with SQLite's message.
//
// A shipped migration is never edited; a new SQLite version gets its translation here.
#include "store/internal/pg_migrations.h"
#include "store/internal/migrations.h"

#include <array>
#include <string>

namespace affordance::store::internal {

namespace {

constexpr const char* kV1 = R"sql(
CREATE SEQUENCE threads_touch;

CREATE TABLE threads(
  id         TEXT PRIMARY KEY,
  title      TEXT NOT NULL,
  created_ms BIGINT NOT NULL,
  updated_ms BIGINT NOT NULL,
  touch      BIGINT NOT NULL
);

CREATE TABLE messages(
  id         TEXT PRIMARY KEY,
  thread_id  TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
  seq        BIGINT NOT NULL,
  role       TEXT NOT NULL,
  status     TEXT NOT NULL,
  meta       TEXT NOT NULL DEFAULT '{}',
  created_ms BIGINT NOT NULL,
  updated_ms BIGINT NOT NULL,
  UNIQUE (thread_id, seq)
);
CREATE INDEX messages_running ON messages(status) WHERE status = 'running';

CREATE TABLE parts(
  message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  seq        BIGINT NOT NULL,
  step       BIGINT NOT NULL,
  kind       TEXT NOT NULL CHECK (kind <> ''),
  key        TEXT NOT NULL DEFAULT '',
  state      TEXT NOT NULL DEFAULT '',
  open       BIGINT NOT NULL CHECK (open IN (0, 1)),
  data       TEXT NOT NULL DEFAULT '{}',
  PRIMARY KEY (message_id, seq)
);

CREATE TABLE steps(
  message_id           TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  idx                  BIGINT NOT NULL,
  status               TEXT NOT NULL,
  finish_reason        TEXT NOT NULL DEFAULT '',
  prompt_tokens        BIGINT NOT NULL DEFAULT 0,
  cached_prompt_tokens BIGINT NOT NULL DEFAULT 0,
  generated_tokens     BIGINT NOT NULL DEFAULT 0,
  tokens               BYTEA NOT NULL DEFAULT '\x',
  started_ms           BIGINT NOT NULL DEFAULT 0,
  finished_ms          BIGINT NOT NULL DEFAULT 0,
  detail               TEXT NOT NULL DEFAULT '{}',
  PRIMARY KEY (message_id, idx)
);
CREATE INDEX steps_running ON steps(status) WHERE status = 'running';
)sql";

constexpr const char* kV2 = R"sql(
CREATE TABLE grants(
  id         TEXT PRIMARY KEY,
  scope      TEXT NOT NULL,
  access     TEXT NOT NULL,
  granted_by TEXT NOT NULL,
  created_ms BIGINT NOT NULL,
  expires_ms BIGINT NOT NULL DEFAULT 0,
  revoked_ms BIGINT NOT NULL DEFAULT 0,
  revoked_by TEXT NOT NULL DEFAULT ''
);

CREATE TABLE approvals(
  id              TEXT PRIMARY KEY,
  thread_id       TEXT NOT NULL DEFAULT '',
  message_id      TEXT NOT NULL DEFAULT '',
  tool_call_id    TEXT NOT NULL DEFAULT '',
  connector       TEXT NOT NULL,
  operation       TEXT NOT NULL,
  risk            TEXT NOT NULL,
  args            TEXT NOT NULL DEFAULT '{}',
  evidence        TEXT NOT NULL DEFAULT '{}',
  staged_by       TEXT NOT NULL,
  status          TEXT NOT NULL,
  request         TEXT NOT NULL,
  decided_request TEXT NOT NULL DEFAULT '',
  decided_by      TEXT NOT NULL DEFAULT '',
  reason          TEXT NOT NULL DEFAULT '',
  idempotency_key TEXT NOT NULL DEFAULT '',
  executor        TEXT NOT NULL DEFAULT '',
  reported        BIGINT NOT NULL DEFAULT 0,
  created_ms      BIGINT NOT NULL,
  updated_ms      BIGINT NOT NULL,
  decided_ms      BIGINT NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX approvals_key ON approvals(idempotency_key) WHERE idempotency_key <> '';
CREATE INDEX approvals_thread ON approvals(thread_id, status);

CREATE TABLE receipts(
  id              TEXT PRIMARY KEY,
  approval_id     TEXT NOT NULL REFERENCES approvals(id),
  idempotency_key TEXT NOT NULL,
  request         TEXT NOT NULL DEFAULT '{}',
  response        TEXT NOT NULL DEFAULT '{}',
  outcome         TEXT NOT NULL,
  verification    TEXT NOT NULL DEFAULT '',
  evidence        TEXT NOT NULL DEFAULT '{}',
  started_ms      BIGINT NOT NULL,
  finished_ms     BIGINT NOT NULL DEFAULT 0,
  verified_ms     BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX receipts_approval ON receipts(approval_id);

CREATE TABLE activity(
  seq     BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at_ms   BIGINT NOT NULL,
  kind    TEXT NOT NULL,
  subject TEXT NOT NULL DEFAULT '',
  actor   TEXT NOT NULL DEFAULT '',
  data    TEXT NOT NULL DEFAULT '{}'
);
CREATE FUNCTION activity_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the Activity log is append-only';
END
$$;
CREATE TRIGGER activity_no_update BEFORE UPDATE ON activity
  FOR EACH ROW EXECUTE FUNCTION activity_append_only();
CREATE TRIGGER activity_no_delete BEFORE DELETE ON activity
  FOR EACH ROW EXECUTE FUNCTION activity_append_only();
CREATE TRIGGER activity_no_truncate BEFORE TRUNCATE ON activity
  FOR EACH STATEMENT EXECUTE FUNCTION activity_append_only();
)sql";

constexpr const char* kV3 = R"sql(
CREATE TABLE artifacts(
  id         TEXT PRIMARY KEY,
  kind       TEXT NOT NULL,
  app_slug   TEXT NOT NULL DEFAULT '',
  title      TEXT NOT NULL DEFAULT '',
  thread_id  TEXT NOT NULL DEFAULT '',
  head       BIGINT NOT NULL,
  created_ms BIGINT NOT NULL,
  updated_ms BIGINT NOT NULL
);
CREATE UNIQUE INDEX artifacts_slug ON artifacts(app_slug) WHERE app_slug <> '';

CREATE TABLE artifact_versions(
  artifact_id  TEXT NOT NULL REFERENCES artifacts(id) ON DELETE CASCADE,
  version      BIGINT NOT NULL,
  parent       BIGINT NOT NULL DEFAULT 0,
  body         TEXT NOT NULL,
  patch        TEXT NOT NULL DEFAULT '',
  bindings     TEXT NOT NULL DEFAULT '{}',
  message_id   TEXT NOT NULL DEFAULT '',
  tool_call_id TEXT NOT NULL DEFAULT '',
  surface_id   TEXT NOT NULL DEFAULT '',
  created_ms   BIGINT NOT NULL,
  PRIMARY KEY (artifact_id, version)
);
CREATE INDEX artifact_versions_surface ON artifact_versions(surface_id) WHERE surface_id <> '';
)sql";

constexpr const char* kV4 = R"sql(
ALTER TABLE approvals ADD COLUMN effect TEXT NOT NULL DEFAULT '{}';
ALTER TABLE approvals ADD COLUMN digest TEXT NOT NULL DEFAULT '';
ALTER TABLE approvals ADD COLUMN expires_ms BIGINT NOT NULL DEFAULT 0;
)sql";

constexpr const char* kV5 = R"sql(
CREATE TABLE turns(
  id             TEXT PRIMARY KEY,
  thread_id      TEXT NOT NULL,
  node           TEXT NOT NULL,
  status         TEXT NOT NULL,
  lease_until_ms BIGINT NOT NULL,
  stop_requested BIGINT NOT NULL DEFAULT 0,
  started_ms     BIGINT NOT NULL,
  updated_ms     BIGINT NOT NULL,
  chunks         BIGINT NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX turns_running ON turns(thread_id) WHERE status = 'running';
CREATE INDEX turns_lease ON turns(lease_until_ms) WHERE status = 'running';

CREATE TABLE turn_chunks(
  turn_id TEXT NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
  seq     BIGINT NOT NULL,
  chunk   TEXT NOT NULL,
  PRIMARY KEY (turn_id, seq)
);
)sql";

constexpr std::array<Migration, 5> kPgMigrations = {{
    {1, "threads, messages, parts, steps", kV1},
    {2, "grants, approvals, receipts, activity", kV2},
    {3, "artifacts, artifact versions", kV3},
    {4, "approval effects, digests, expiry", kV4},
    {5, "turns, leases, stream log", kV5},
}};

// pg_advisory_xact_lock key of migrations ("affdmigr"): one migrating node at a time.
constexpr int64_t kMigrationLock = 0x616666646d696772;

// Runs migration `m` if the database (read under the lock) still needs it.
Status RunOne(PgConn& conn, const Migration& m, int latest) {
  if (auto s = conn.Exec("BEGIN", "cannot start migration"); !s) return s;
  auto run = [&]() -> Status {
    if (auto s = conn.Query("SELECT pg_advisory_xact_lock($1)", "cannot lock the schema",
                            kMigrationLock);
        !s) {
      return s.error();
    }
    if (auto s = conn.Exec(
            "CREATE TABLE IF NOT EXISTS schema_version(version INT NOT NULL);"
            "INSERT INTO schema_version SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM schema_version)",
            "cannot create the schema version");
        !s) {
      return s;
    }
    auto version = PostgresSchemaVersion(conn);
    if (!version) return version.error();
    if (*version > latest) {
      return MakeError("store.migrate",
                       "the store's schema is version " + std::to_string(*version) +
                           ", newer than this build of affordance knows (version " +
                           std::to_string(latest) + "); use a newer affordance");
    }
    if (*version >= m.version) return {};  // another node migrated first
    if (*version != m.version - 1) {       // the list has no gaps, so this is only a bug guard
      return MakeError("store.migrate", "schema version " + std::to_string(*version) +
                                            " has no migration to " + std::to_string(m.version));
    }
    const std::string what =
        "migration " + std::to_string(m.version) + " (" + std::string(m.about) + ") failed";
    if (auto s = conn.Exec(m.sql, what); !s) return s;
    if (auto s = conn.Query("UPDATE schema_version SET version = $1", what, m.version); !s) {
      return s.error();
    }
    return conn.Exec("COMMIT", "cannot commit migration " + std::to_string(m.version));
  };
  Status s = run();
  if (!s || conn.InTransaction()) (void)conn.Exec("ROLLBACK", "rollback");
  return s;
}

}  // namespace

Result<int64_t> PostgresSchemaVersion(PgConn& conn) {
  auto exists = conn.Query("SELECT to_regclass('schema_version') IS NOT NULL",
                           "cannot read the schema version");
  if (!exists) return exists.error();
  if (exists->Text(0, 0) != "t") return int64_t{0};
  auto rows =
      conn.Query("SELECT max(version) FROM schema_version", "cannot read the schema version");
  if (!rows) return rows.error();
  return rows->Int(0, 0);
}

Status MigratePostgres(PgConn& conn, const std::string& where) {
  auto migrate_error = [&](const Error& e) { return MakeError("store.migrate", e.message, where); };
  const int latest = LatestSchemaVersion();
  if (kPgMigrations.back().version != latest) {  // a SQLite migration without its translation
    return MakeError("store.migrate",
                     "this build's PostgreSQL schema stops at version " +
                         std::to_string(kPgMigrations.back().version) + ", SQLite's is at " +
                         std::to_string(latest),
                     where);
  }
  // Fast path without the lock: a database at the latest version (every open after the first).
  auto current = PostgresSchemaVersion(conn);
  if (!current) return migrate_error(current.error());
  if (*current == latest) return {};
  for (const Migration& m : kPgMigrations) {
    if (auto s = RunOne(conn, m, latest); !s) return migrate_error(s.error());
  }
  return {};
}

}  // namespace affordance::store::internal

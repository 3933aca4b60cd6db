#include "store/internal/migrations.h"

#include <array>
#include <string>

namespace affordance::store::internal {

namespace {

// Version 1: threads, messages, parts and the step ledger.
//
// - threads.touch orders threads whose updated_ms is equal (two writes in one millisecond): every
//   write to a thread sets it from a counter the store keeps (seeded with max(touch) at open), so
//   "newest first" is exact within a process. No index: ListThreads sorts (threads are few,
//   writes are many, and every index is one more page per commit).
// - parts and steps are WITHOUT ROWID tables clustered by their primary key, so the parts of a
//   message are stored together in seq order (LoadThread reads them in one range scan).
// - JSON columns hold the text of one JSON value; tokens hold little-endian int32 IDs.
// - Roles and statuses are checked by the store, not by CHECK constraints: SQLite cannot alter a
//   constraint without rebuilding the table, and a later version may add a status.
// - The partial indexes keep RecoverInterrupted cheap however large the file grows.
constexpr const char* kV1 = R"sql(
CREATE TABLE threads(
  id         TEXT PRIMARY KEY,
  title      TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL,
  touch      INTEGER NOT NULL
);

CREATE TABLE messages(
  id         TEXT PRIMARY KEY,
  thread_id  TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
  seq        INTEGER NOT NULL,
  role       TEXT NOT NULL,
  status     TEXT NOT NULL,
  meta       TEXT NOT NULL DEFAULT '{}',
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL,
  UNIQUE (thread_id, seq)
);
CREATE INDEX messages_running ON messages(status) WHERE status = 'running';

CREATE TABLE parts(
  message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  seq        INTEGER NOT NULL,
  step       INTEGER NOT NULL,
  kind       TEXT NOT NULL CHECK (kind <> ''),
  key        TEXT NOT NULL DEFAULT '',
  state      TEXT NOT NULL DEFAULT '',
  open       INTEGER NOT NULL CHECK (open IN (0, 1)),
  data       TEXT NOT NULL DEFAULT '{}',
  PRIMARY KEY (message_id, seq)
) WITHOUT ROWID;

CREATE TABLE steps(
  message_id           TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  idx                  INTEGER NOT NULL,
  status               TEXT NOT NULL,
  finish_reason        TEXT NOT NULL DEFAULT '',
  prompt_tokens        INTEGER NOT NULL DEFAULT 0,
  cached_prompt_tokens INTEGER NOT NULL DEFAULT 0,
  generated_tokens     INTEGER NOT NULL DEFAULT 0,
  tokens               BLOB NOT NULL DEFAULT x'',
  started_ms           INTEGER NOT NULL DEFAULT 0,
  finished_ms          INTEGER NOT NULL DEFAULT 0,
  detail               TEXT NOT NULL DEFAULT '{}',
  PRIMARY KEY (message_id, idx)
) WITHOUT ROWID;
CREATE INDEX steps_running ON steps(status) WHERE status = 'running';
)sql";

// Version 2: authority. Grants, approvals (one row per staged effect; its idempotency key is
// unique once set, so one effect can never get two keys or two effects one key), receipts, and the
// append-only Activity log (triggers refuse UPDATE and DELETE).
constexpr const char* kV2 = R"sql(
CREATE TABLE grants(
  id         TEXT PRIMARY KEY,
  scope      TEXT NOT NULL,
  access     TEXT NOT NULL,
  granted_by TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  expires_ms INTEGER NOT NULL DEFAULT 0,
  revoked_ms INTEGER NOT NULL DEFAULT 0,
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
  reported        INTEGER NOT NULL DEFAULT 0,
  created_ms      INTEGER NOT NULL,
  updated_ms      INTEGER NOT NULL,
  decided_ms      INTEGER NOT NULL DEFAULT 0
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
  started_ms      INTEGER NOT NULL,
  finished_ms     INTEGER NOT NULL DEFAULT 0,
  verified_ms     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX receipts_approval ON receipts(approval_id);

CREATE TABLE activity(
  seq     INTEGER PRIMARY KEY AUTOINCREMENT,
  at_ms   INTEGER NOT NULL,
  kind    TEXT NOT NULL,
  subject TEXT NOT NULL DEFAULT '',
  actor   TEXT NOT NULL DEFAULT '',
  data    TEXT NOT NULL DEFAULT '{}'
);
CREATE TRIGGER activity_no_update BEFORE UPDATE ON activity
  BEGIN SELECT RAISE(ABORT, 'the Activity log is append-only'); END;
CREATE TRIGGER activity_no_delete BEFORE DELETE ON activity
  BEGIN SELECT RAISE(ABORT, 'the Activity log is append-only'); END;
)sql";

// Version 3: artifacts. Every accepted ComposeUI program is a version of an artifact; a version
// row is never changed once written (an edit is a new version naming its parent), and `head`
// moves only in the transaction that writes the version it names, so a failed save leaves the
// previous head and its body untouched. A live app's slug is unique among artifacts that have one.
constexpr const char* kV3 = R"sql(
CREATE TABLE artifacts(
  id         TEXT PRIMARY KEY,
  kind       TEXT NOT NULL,
  app_slug   TEXT NOT NULL DEFAULT '',
  title      TEXT NOT NULL DEFAULT '',
  thread_id  TEXT NOT NULL DEFAULT '',
  head       INTEGER NOT NULL,
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL
);
CREATE UNIQUE INDEX artifacts_slug ON artifacts(app_slug) WHERE app_slug <> '';

CREATE TABLE artifact_versions(
  artifact_id  TEXT NOT NULL REFERENCES artifacts(id) ON DELETE CASCADE,
  version      INTEGER NOT NULL,
  parent       INTEGER NOT NULL DEFAULT 0,
  body         TEXT NOT NULL,
  patch        TEXT NOT NULL DEFAULT '',
  bindings     TEXT NOT NULL DEFAULT '{}',
  message_id   TEXT NOT NULL DEFAULT '',
  tool_call_id TEXT NOT NULL DEFAULT '',
  surface_id   TEXT NOT NULL DEFAULT '',
  created_ms   INTEGER NOT NULL,
  PRIMARY KEY (artifact_id, version)
) WITHOUT ROWID;
CREATE INDEX artifact_versions_surface ON artifact_versions(surface_id) WHERE surface_id <> '';
)sql";

// Version 4: what a person reads before deciding. An approval keeps the effect computed when it
// was staged, the digest of its request and when it expires (rows staged before: no effect, no
// expiry).
constexpr const char* kV4 = R"sql(
ALTER TABLE approvals ADD COLUMN effect TEXT NOT NULL DEFAULT '{}';
ALTER TABLE approvals ADD COLUMN digest TEXT NOT NULL DEFAULT '';
ALTER TABLE approvals ADD COLUMN expires_ms INTEGER NOT NULL DEFAULT 0;
)sql";

// Version 5: turns across nodes (store.h TurnRecord). A turn row names the node running it and
// its lease; at most one running turn per thread (the partial unique index is the cross-node
// "a turn is already running" check). No foreign key to messages: the row is written before the
// turn's message. The log holds the turn's UI chunks by (turn, seq), clustered so a replay is one
// range scan; deleting a turn deletes its log.
constexpr const char* kV5 = R"sql(
CREATE TABLE turns(
  id             TEXT PRIMARY KEY,
  thread_id      TEXT NOT NULL,
  node           TEXT NOT NULL,
  status         TEXT NOT NULL,
  lease_until_ms INTEGER NOT NULL,
  stop_requested INTEGER NOT NULL DEFAULT 0,
  started_ms     INTEGER NOT NULL,
  updated_ms     INTEGER NOT NULL,
  chunks         INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX turns_running ON turns(thread_id) WHERE status = 'running';
CREATE INDEX turns_lease ON turns(lease_until_ms) WHERE status = 'running';

CREATE TABLE turn_chunks(
  turn_id TEXT NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
  seq     INTEGER NOT NULL,
  chunk   TEXT NOT NULL,
  PRIMARY KEY (turn_id, seq)
) WITHOUT ROWID;
)sql";

constexpr std::array<Migration, 5> kMigrations = {{
    {1, "threads, messages, parts, steps", kV1},
    {2, "grants, approvals, receipts, activity", kV2},
    {3, "artifacts, artifact versions", kV3},
    {4, "approval effects, digests, expiry", kV4},
    {5, "turns, leases, stream log", kV5},
}};

}  // namespace

std::span<const Migration> Migrations() { return kMigrations; }

int LatestSchemaVersion() { return kMigrations.back().version; }

Status Migrate(Connection& conn, const std::string& path) {
  auto migrate_error = [&](const std::string& message) {
    return MakeError("store.migrate", message, path);
  };
  // Fast path without the write lock: a file at the latest version (every open after the first).
  auto current = conn.QueryInt("PRAGMA user_version", "cannot read the schema version");
  if (!current) return migrate_error(current.error().message);
  if (*current == LatestSchemaVersion()) return {};
  for (const Migration& m : kMigrations) {
    // Read the version inside the write transaction: another process may have migrated first.
    if (auto s = conn.Exec("BEGIN IMMEDIATE", "cannot start migration"); !s) {
      return migrate_error(s.error().message);
    }
    auto version = conn.QueryInt("PRAGMA user_version", "cannot read the schema version");
    if (!version) {
      (void)conn.Exec("ROLLBACK", "rollback");
      return migrate_error(version.error().message);
    }
    if (*version > LatestSchemaVersion()) {
      (void)conn.Exec("ROLLBACK", "rollback");
      return migrate_error("the store's schema is version " + std::to_string(*version) +
                           ", newer than this build of affordance knows (version " +
                           std::to_string(LatestSchemaVersion()) + "); use a newer affordance");
    }
    if (*version >= m.version) {
      (void)conn.Exec("ROLLBACK", "rollback");
      continue;
    }
    if (*version != m.version - 1) {  // the list has no gaps, so this is only a bug guard
      (void)conn.Exec("ROLLBACK", "rollback");
      return migrate_error("schema version " + std::to_string(*version) + " has no migration to " +
                           std::to_string(m.version));
    }
    auto ran =
        conn.Exec(std::string(m.sql) + "\nPRAGMA user_version = " + std::to_string(m.version) + ";",
                  "migration " + std::to_string(m.version) + " (" + m.about + ") failed");
    if (ran) ran = conn.Exec("COMMIT", "cannot commit migration " + std::to_string(m.version));
    if (!ran) {
      (void)conn.Exec("ROLLBACK", "rollback");
      return migrate_error(ran.error().message);
    }
  }
  return {};
}

}  // namespace affordance::store::internal

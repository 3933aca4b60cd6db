// Mirrors: the SQLite file (WAL) in which a connector keeps a local copy of its source.
//
// Crash safety: MirrorWriter::Replace builds the new state inside one BEGIN IMMEDIATE transaction
// (delete old rows, insert new ones, record the sync) and commits once. A process that dies at any
// point before COMMIT leaves only uncommitted WAL frames, which SQLite ignores, so the previous
// mirror stays readable and consistent; readers (SqlGuard) see the previous snapshot until the
// commit, which is how mirror-first answers are served while a sync runs.
//
// Every mirror written by affordance holds a one-row table `affordance_sync` (synced_at epoch
// seconds, rows, source, duration_ms since `started`) that freshness is computed from.
#pragma once

#include "base/result.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

struct sqlite3;

namespace affordance::connect {

struct SyncProgress {
  std::string phase;  // "read" | "expand" | "write" | "commit" | "run"
  int64_t done = 0;
  int64_t total = 0;  // 0 when unknown
};
using ProgressFn = std::function<void(const SyncProgress&)>;

struct SyncRecord {
  bool synced = false;    // false: never synced (empty mirror)
  int64_t synced_at = 0;  // epoch seconds
  int64_t rows = 0;
  std::string source;
  int64_t duration_ms = 0;
};

// Reads the sync record of the mirror at `path` read-only; a missing file or table reads as
// "never synced".
SyncRecord ReadSyncRecord(const std::string& path);

class MirrorWriter {
 public:
  // Opens (creating if needed, parent folders included) the mirror at `path` in WAL mode and runs
  // `schema` (idempotent DDL, e.g. CREATE TABLE IF NOT EXISTS). The mirror's folder is made 0700
  // and its files 0600 (tightened when an older version left them open; base/private_files.h).
  static Result<MirrorWriter> Open(const std::string& path, const std::string& schema);
  MirrorWriter(MirrorWriter&& other) noexcept;
  ~MirrorWriter();

  // Replaces the mirror's content atomically. `fill` runs inside the transaction with the writer
  // connection and returns the number of rows it wrote; an error (or exception) rolls back and
  // leaves the previous content untouched.
  Result<int64_t> Replace(const std::function<Result<int64_t>(sqlite3*)>& fill, int64_t synced_at,
                          const std::string& source, std::chrono::steady_clock::time_point started);

  sqlite3* db() { return db_; }

 private:
  explicit MirrorWriter(sqlite3* db) : db_(db) {}
  sqlite3* db_;
};

// Executes `sql` on `db`, turning a failure into Error{"connect.mirror_write_failed"}.
Status Exec(sqlite3* db, const std::string& sql);

}  // namespace affordance::connect

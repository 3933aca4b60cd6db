// The schema of the store as an append-only list of migrations. Version N of the file
// (PRAGMA user_version = N) means migrations 1..N have run. A shipped migration is never edited:
// later parts (grants, approvals, receipts, activity, artifacts) append new versions.
#pragma once

#include "base/result.h"
#include "store/internal/sqlite.h"

#include <span>

namespace affordance::store::internal {

struct Migration {
  int version;        // 1, 2, 3 ... in order, no gaps
  const char* about;  // one line: what it adds
  const char* sql;    // runs inside the migration's transaction
};

// Every migration this binary knows, oldest first.
std::span<const Migration> Migrations();

// The version a fully migrated file has (the last migration's version).
int LatestSchemaVersion();

// Brings the file to LatestSchemaVersion(), each migration in its own IMMEDIATE transaction
// together with its user_version bump, so a crash leaves the file at a whole version. Errors:
// "store.migrate" when a migration fails or the file's version is newer than this binary knows.
Status Migrate(Connection& conn, const std::string& path);

}  // namespace affordance::store::internal

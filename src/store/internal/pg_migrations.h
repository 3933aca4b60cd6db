// The PostgreSQL schema: the same versions as the SQLite file's (migrations.h), each translated
// to PostgreSQL, so `SchemaVersion()` means the same tables on both backends. The version lives
// in the one-row table schema_version. Private to src/store.
#pragma once

#include "base/result.h"
#include "store/internal/pg_conn.h"

#include <string>

namespace affordance::store::internal {

// Brings the database to LatestSchemaVersion() (migrations.h), each migration in its own
// transaction together with its version bump and under a transaction-level advisory lock, so
// nodes starting together migrate once and a failure leaves the database at a whole version.
// Errors: "store.migrate" (the message as SQLite's Migrate writes it, `where` as the detail) when
// a migration fails or the database's version is newer than this binary knows.
Status MigratePostgres(PgConn& conn, const std::string& where);

// The version the database is at (0 before the first migration); "store.io" when unreadable.
Result<int64_t> PostgresSchemaVersion(PgConn& conn);

}  // namespace affordance::store::internal

// The SQL guard: SELECT-only against a mirror, enforced by SQLite (read-only connection,
// sqlite3_stmt_readonly, authorizer, progress-handler time limit, row and length limits).
#include "connect/sql_guard.h"
#include "support.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <filesystem>

namespace affordance::connect {
namespace {

using nlohmann::json;
using testing::ReadText;
using testing::Source;
using testing::TempDir;

// A small WAL mirror: events (64 rows), affordance_sync, canary (one row).
std::string MakeMirror(const TempDir& dir) {
  std::string path = dir / "mirror.db";
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  std::string sql =
      "PRAGMA journal_mode=WAL;"
      "CREATE TABLE events(id TEXT PRIMARY KEY, summary TEXT, start_ts INTEGER, end_ts INTEGER,"
      " payload BLOB);"
      "CREATE INDEX events_start ON events(start_ts);"
      "CREATE TABLE affordance_sync(id INTEGER PRIMARY KEY, synced_at INTEGER);"
      "INSERT INTO affordance_sync VALUES (1, 100);"
      "CREATE TABLE canary(note TEXT);"
      "INSERT INTO canary VALUES ('untouched');"
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 64)"
      " INSERT INTO events SELECT 'e' || x, 'Event ' || x, x * 3600, x * 3600 + 1800,"
      " randomblob(40) FROM c;";
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  return path;
}

std::string Fingerprint(const std::string& path) {
  std::string out;
  for (const char* suffix : {"", "-wal"}) {
    std::error_code ec;
    std::string text = ReadText(path + suffix);
    if (!text.empty()) out += text + "|";  // an empty -wal left by a reader holds nothing
  }
  return out;
}

TEST(SqlGuard, HostileCorpusIsRefusedOrBoundedAndNeverWrites) {
  TempDir dir;
  std::string path = MakeMirror(dir);
  std::string before = Fingerprint(path);
  GuardLimits limits;
  limits.time_limit_ms = 150;
  limits.max_rows = 200;
  auto guard = SqlGuard::Open(path, limits);
  ASSERT_TRUE(guard.ok()) << guard.error().ToString();

  json corpus = json::parse(ReadText(Source("tests/fixtures/connect/hostile_sql.json")));
  ASSERT_GE(corpus.size(), 100u);
  for (const auto& entry : corpus) {
    std::string sql = entry["sql"];
    std::string expect = entry["expect"];
    auto t0 = std::chrono::steady_clock::now();
    auto rows = (*guard)->Run(sql);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1)) << "slow: " << sql;
    if (expect == "bounded") {
      ASSERT_TRUE(rows.ok()) << sql << ": " << rows.error().ToString();
      EXPECT_TRUE(rows->truncated) << sql;
      EXPECT_EQ(rows->rows.size(), 200u) << sql;
      continue;
    }
    ASSERT_FALSE(rows.ok()) << "not refused: " << sql;
    const Error& e = rows.error();
    EXPECT_NE(("|" + expect + "|").find("|" + e.code + "|"), std::string::npos)
        << sql << " -> " << e.code << ": " << e.message << " (expected " << expect << ")";
    EXPECT_FALSE(e.message.empty()) << sql;
  }
  // The guard's own connection still works after every refusal.
  auto ok = (*guard)->Run("SELECT note FROM canary");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->rows.at(0)["note"], "untouched");
  guard->reset();
  EXPECT_EQ(Fingerprint(path), before) << "the mirror file changed";
  for (const char* f :
       {"/tmp/affordance-evil.db", "/tmp/affordance-evil2.db", "/tmp/affordance-evil3.db",
        "/tmp/affordance-evil-vacuum.db", "/tmp/affordance-evil.txt"}) {
    EXPECT_FALSE(std::filesystem::exists(f)) << f;
  }
}

TEST(SqlGuard, GeneratedOversizedStatementsAreRefused) {
  TempDir dir;
  auto guard = SqlGuard::Open(MakeMirror(dir));
  ASSERT_TRUE(guard.ok());
  std::string longest = "SELECT '" + std::string(200000, 'x') + "'";
  auto a = (*guard)->Run(longest);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().code, "connect.sql_too_long");
  EXPECT_NE(a.error().message.find("100000 bytes"), std::string::npos);
  std::string deep = "SELECT " + std::string(2000, '(') + "1" + std::string(2000, ')');
  auto b = (*guard)->Run(deep);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().code, "connect.sql_error") << b.error().message;
  std::string wide = "SELECT 1";
  for (int i = 0; i < 300; ++i) wide += " UNION ALL SELECT 1";
  auto c = (*guard)->Run(wide);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, "connect.sql_error");
  EXPECT_NE(c.error().message.find("too many terms in compound SELECT"), std::string::npos);
}

TEST(SqlGuard, SelectReturnsTypedRowsWithNamedParameters) {
  TempDir dir;
  auto guard = SqlGuard::Open(MakeMirror(dir));
  ASSERT_TRUE(guard.ok());
  auto rows = (*guard)->Run(
      "SELECT id, summary, start_ts, start_ts / 7200.0 AS hours, NULL AS empty "
      "FROM events WHERE start_ts >= :from AND summary LIKE @like ORDER BY start_ts LIMIT 2",
      {{"from", 36000}, {"like", "Event 1%"}});
  ASSERT_TRUE(rows.ok()) << rows.error().ToString();
  EXPECT_EQ(rows->columns,
            (std::vector<std::string>{"id", "summary", "start_ts", "hours", "empty"}));
  ASSERT_EQ(rows->rows.size(), 2u);
  EXPECT_EQ(rows->rows[0], json::parse(R"({"id":"e10","summary":"Event 10","start_ts":36000,
                                           "hours":5.0,"empty":null})"));
  EXPECT_FALSE(rows->truncated);
}

TEST(SqlGuard, DuplicateColumnsBlobsAndInvalidUtf8StaySerializable) {
  TempDir dir;
  auto guard = SqlGuard::Open(MakeMirror(dir));
  ASSERT_TRUE(guard.ok());
  auto rows = (*guard)->Run("SELECT 1 AS a, 2 AS a, x'00ff' AS b, CAST(x'41ff42' AS TEXT) AS t");
  ASSERT_TRUE(rows.ok()) << rows.error().ToString();
  EXPECT_EQ(rows->columns, (std::vector<std::string>{"a", "a:2", "b", "t"}));
  const json& row = rows->rows.at(0);
  EXPECT_EQ(row["b"], json::parse(R"({"blob_bytes": 2, "hex": "00ff"})"));
  EXPECT_EQ(row["t"],
            "A\xEF\xBF\xBD"
            "B");
  EXPECT_NO_THROW((void)row.dump());
}

TEST(SqlGuard, PrintfKeepsItsBehaviourButRefusesHugeFields) {
  TempDir dir;
  auto guard = SqlGuard::Open(MakeMirror(dir));
  ASSERT_TRUE(guard.ok());
  auto rows = (*guard)->Run(
      "SELECT printf('%05d|%.2f|%s|%q', 42, 3.14159, 'x', 'it''s') AS a, format('%-3s|', 'ab') AS "
      "b,"
      " printf('%.*c', 3, 'z') AS c, printf(NULL) AS d");
  ASSERT_TRUE(rows.ok()) << rows.error().ToString();
  EXPECT_EQ(rows->rows[0],
            json::parse(R"({"a":"00042|3.14|x|it''s","b":"ab |","c":"zzz","d":null})"));
  auto big = (*guard)->Run("SELECT printf('%.*c', 2000000, 'x')");
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().code, "connect.sql_too_big");
}

TEST(SqlGuard, RowLimitTruncatesAndTimeLimitNamesItself) {
  TempDir dir;
  GuardLimits limits;
  limits.max_rows = 10;
  limits.time_limit_ms = 100;
  auto guard = SqlGuard::Open(MakeMirror(dir), limits);
  ASSERT_TRUE(guard.ok());
  auto rows = (*guard)->Run("SELECT id FROM events");
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->rows.size(), 10u);
  EXPECT_TRUE(rows->truncated);
  EXPECT_EQ(rows->truncated_reason, "max_rows");
  auto slow = (*guard)->Run(
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c");
  ASSERT_FALSE(slow.ok());
  EXPECT_EQ(slow.error().code, "connect.sql_timeout");
  EXPECT_EQ(slow.error().message, "the query ran past its time limit of 100 ms");
  // The connection is usable again after the interrupt.
  EXPECT_TRUE((*guard)->Run("SELECT count(*) FROM events").ok());
}

TEST(SqlGuard, IntrospectionPragmasAndSchemaReadsAreAllowed) {
  TempDir dir;
  auto guard = SqlGuard::Open(MakeMirror(dir));
  ASSERT_TRUE(guard.ok());
  auto info = (*guard)->Run("PRAGMA table_info(events)");
  ASSERT_TRUE(info.ok()) << info.error().ToString();
  EXPECT_EQ(info->rows.size(), 5u);
  // The table-valued form of an introspection pragma is a query like any other.
  auto tvf = (*guard)->Run("SELECT * FROM pragma_table_info('events')");
  ASSERT_TRUE(tvf.ok()) << tvf.error().ToString();
  EXPECT_EQ(tvf->rows.size(), 5u);
  auto names = (*guard)->Run("SELECT name FROM pragma_table_info('events') ORDER BY cid LIMIT 1");
  ASSERT_TRUE(names.ok()) << names.error().ToString();
  auto indexes = (*guard)->Run("SELECT count(*) AS n FROM pragma_index_list('events')");
  ASSERT_TRUE(indexes.ok()) << indexes.error().ToString();
  EXPECT_TRUE((*guard)->Run("SELECT * FROM pragma_user_version").ok());
  auto schema = (*guard)->Run("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY 1");
  ASSERT_TRUE(schema.ok());
  EXPECT_EQ(schema->rows.size(), 3u);
  EXPECT_TRUE((*guard)->Run("PRAGMA user_version").ok());
  EXPECT_TRUE((*guard)->Run("SELECT 1 -- trailing comment\n").ok());
  EXPECT_TRUE((*guard)->Check("SELECT * FROM events").ok());
  EXPECT_EQ((*guard)->Check("DELETE FROM events").error().code, "connect.sql_denied");
}

TEST(SqlGuard, DeniedMessageNamesWhatWasRefused) {
  TempDir dir;
  auto guard = SqlGuard::Open(MakeMirror(dir));
  ASSERT_TRUE(guard.ok());
  auto del = (*guard)->Run("DELETE FROM canary");
  ASSERT_FALSE(del.ok());
  EXPECT_EQ(del.error().message,
            "only SELECT is allowed against a mirror; refused DELETE from canary");
  auto attach = (*guard)->Run("ATTACH ':memory:' AS m");
  ASSERT_FALSE(attach.ok());
  EXPECT_NE(attach.error().message.find("ATTACH"), std::string::npos) << attach.error().message;
  auto pragma = (*guard)->Run("PRAGMA writable_schema=1");
  ASSERT_FALSE(pragma.ok());
  EXPECT_NE(pragma.error().message.find("PRAGMA writable_schema=1"), std::string::npos);
  // A table-valued pragma outside the introspection set is refused by name, like the statement.
  auto tvf = (*guard)->Run("SELECT * FROM pragma_integrity_check");
  ASSERT_FALSE(tvf.ok());
  EXPECT_EQ(tvf.error().code, "connect.sql_denied");
  EXPECT_EQ(tvf.error().message,
            "only SELECT is allowed against a mirror; refused PRAGMA integrity_check");
  auto setting = (*guard)->Run("SELECT * FROM pragma_journal_mode");
  ASSERT_FALSE(setting.ok());
  EXPECT_EQ(setting.error().code, "connect.sql_denied");
  EXPECT_EQ(setting.error().message,
            "only SELECT is allowed against a mirror; refused PRAGMA journal_mode");
  // SQLite gives table-valued pragmas no setting argument: it reads one as a schema name.
  auto set = (*guard)->Run("SELECT * FROM pragma_journal_mode('delete')");
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.error().code, "connect.sql_error");
  auto two = (*guard)->Run("SELECT 1; SELECT 2");
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.error().code, "connect.sql_multiple_statements");
}

TEST(SqlGuard, MissingAndNonDatabaseFilesAreClearErrors) {
  auto missing = SqlGuard::Open("/nonexistent/mirror.db");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, "connect.mirror_missing");
  EXPECT_EQ(missing.error().detail, "/nonexistent/mirror.db");
  TempDir dir;
  testing::WriteText(dir / "junk.db", std::string(4096, 'j'));
  auto junk = SqlGuard::Open(dir / "junk.db");
  ASSERT_FALSE(junk.ok());
  EXPECT_EQ(junk.error().code, "connect.mirror_unreadable");
  EXPECT_NE(junk.error().message.find("not a database"), std::string::npos) << junk.error().message;
}

TEST(SqlGuard, ValidUtf8ReplacesOnlyBrokenSequences) {
  EXPECT_EQ(ValidUtf8("plain"), "plain");
  EXPECT_EQ(ValidUtf8("caf\xC3\xA9"), "caf\xC3\xA9");
  EXPECT_EQ(ValidUtf8("\xC3"), "\xEF\xBF\xBD");
  EXPECT_EQ(ValidUtf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(ValidUtf8("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");                  // overlong
}

}  // namespace
}  // namespace affordance::connect

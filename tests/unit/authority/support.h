// Test support for authority: a temporary folder with a real store, a real SQLite source
// ("notes": add_note writes a row keyed by the idempotency key, verified by reading it back), the
// fixture printed CLI ("fixture": close_item with an idempotency flag and a `lookup` verb), the
// example calendar, and a clock the test moves.
#pragma once

#include "authority/authority.h"
#include "connect/manifest.h"
#include "connect/road.h"
#include "store/store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

namespace affordance::authority::testing {

inline std::string Source(const std::string& rel) {
  return std::string(AFFORDANCE_SOURCE_DIR) + "/" + rel;
}

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "affordance-authority-XXXXXX");
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// One integer from a SQLite file (opened read-only; -1 on any error).
inline int64_t Count(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  int64_t n = -1;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
      n = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return n;
}

inline void Exec(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open(db_path.c_str(), &db);
  sqlite3_busy_timeout(db, 5000);
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
}

inline nlohmann::json NotesManifest() {
  return nlohmann::json::parse(R"json({
    "slug": "notes", "title": "Notes", "source": {"kind": "sqlite", "path": "notes.db"},
    "modes": ["local"],
    "operations": [
      {"name": "note_by_key", "kind": "detail",
       "args": {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]},
       "query": "SELECT key, body FROM notes WHERE key = :key"},
      {"name": "add_note", "kind": "mutation", "risk": "write",
       "args": {"type": "object", "properties": {"body": {"type": "string", "minLength": 1}},
                "required": ["body"], "additionalProperties": false},
       "statement": "INSERT INTO notes(key, body) VALUES (:idempotency_key, :body)",
       "verify": {"operation": "note_by_key", "args": {"key": "$idempotency_key"},
                  "expect": {"body": "$body"}}},
      {"name": "wipe", "kind": "mutation", "risk": "destructive",
       "statement": "DELETE FROM notes"}
    ]})json");
}

inline nlohmann::json FixtureManifest(int64_t timeout_ms) {
  auto m = nlohmann::json::parse(ReadText(Source("examples/connectors/fixture-cli.json")));
  m["source"]["command"] = FIXTURE_PP_CLI;
  m["source"]["timeout_ms"] = timeout_ms;
  m.erase("credentials");
  return m;
}

// A world for one test: store, sources, road, a movable clock, and an Authority over them.
struct World {
  TempDir dir;
  int64_t now_ms = 1795780800000;  // 2026-11-27T12:00:00Z
  std::unique_ptr<store::Store> store;
  std::unique_ptr<connect::ConnectorRoad> road;
  std::unique_ptr<Authority> authority;
  Actor person = Actor::User("tester");

  explicit World(int64_t cli_timeout_ms = 10000) {
    setenv("XDG_DATA_HOME", (dir / "xdg").c_str(), 1);
    unsetenv("FIXTURE_PP_WRITE_HANG_MS");
    Exec(dir / "notes.db", "CREATE TABLE notes(key TEXT PRIMARY KEY, body TEXT NOT NULL)");
    std::filesystem::create_directories(dir / "connectors");
    std::filesystem::copy_file(Source("examples/connectors/calendar.ics"),
                               dir / "connectors/calendar.ics");
    std::filesystem::copy_file(Source("examples/connectors/calendar.json"),
                               dir / "connectors/calendar.json");
    std::ofstream(dir / "connectors/notes.json") << NotesManifest().dump();
    std::ofstream(dir / "connectors/fixture.json") << FixtureManifest(cli_timeout_ms).dump();
    std::filesystem::copy_file(dir / "notes.db", dir / "connectors/notes.db");
    std::filesystem::remove(dir / "notes.db");
    Open();
  }

  // (Re)opens store, road and authority, as a restarted process would.
  void Open(AuthorityOptions options = {}) {
    authority.reset();
    road.reset();
    store.reset();
    auto s = store::OpenSqlite(dir / "data/affordance.db");
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().ToString());
    store = std::move(*s);
    auto manifests = connect::LoadManifests(dir / "connectors");
    EXPECT_TRUE(manifests.ok()) << (manifests.ok() ? "" : manifests.error().ToString());
    connect::RoadOptions ro;
    ro.data_dir = dir / "data";
    ro.clock = [] { return int64_t{1795780800}; };
    road = std::make_unique<connect::ConnectorRoad>(std::move(*manifests), ro);
    if (!options.clock_ms) options.clock_ms = [this] { return now_ms; };
    authority = std::make_unique<Authority>(*store, road.get(), std::move(options));
  }

  std::string NotesDb() const { return dir / "connectors/notes.db"; }
  int64_t Notes() const { return Count(NotesDb(), "SELECT count(*) FROM notes"); }
  std::string RemoteDb() const { return dir / "xdg/fixture-pp-cli/remote.db"; }
  int64_t Effects() const {
    if (!std::filesystem::exists(RemoteDb())) return 0;
    return Count(RemoteDb(), "SELECT count(*) FROM effects");
  }

  void GrantWrite(const std::string& connector) {
    ASSERT_TRUE(authority->Grant(connector, "", "write", 0, person).ok());
  }

  // Stages (write grant given first) and returns the approval id.
  std::string Staged(const std::string& connector, const std::string& operation,
                     const nlohmann::json& args) {
    auto a = authority->Stage({connector, operation, args}, Actor::Model());
    EXPECT_TRUE(a.ok()) << (a.ok() ? "" : a.error().ToString());
    return a.ok() ? a->id : "";
  }

  std::string Approved(const std::string& connector, const std::string& operation,
                       const nlohmann::json& args) {
    std::string id = Staged(connector, operation, args);
    auto d = authority->Approve(id, person);
    EXPECT_TRUE(d.ok()) << (d.ok() ? "" : d.error().ToString());
    return id;
  }
};

}  // namespace affordance::authority::testing

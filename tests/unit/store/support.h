// Shared test support for the store: a per-test temporary folder holding a real SQLite file, a
// fixture that opens the store there, and raw SQL against the same file (to corrupt it, or to
// look underneath the interface).
#pragma once

#include "store/store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

namespace affordance::store::testing {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "affordance-store-XXXXXX");
    path_ = mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Runs `sql` on its own connection to `path`; returns the first column of the last row, or
// "ERROR: <message>".
inline std::string RawSql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string last;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    last = std::string("ERROR: ") + sqlite3_errmsg(db);
    sqlite3_close(db);
    return last;
  }
  sqlite3_busy_timeout(db, 5000);
  char* err = nullptr;
  int rc = sqlite3_exec(
      db, sql.c_str(),
      [](void* out, int n, char** values, char**) {
        *static_cast<std::string*>(out) = n > 0 && values[0] ? values[0] : "";
        return 0;
      },
      &last, &err);
  if (rc != SQLITE_OK) last = std::string("ERROR: ") + (err ? err : sqlite3_errmsg(db));
  sqlite3_free(err);
  sqlite3_close(db);
  return last;
}

// A store opened on <temp>/data/affordance.db (the folder does not exist before).
class StoreFixture : public ::testing::Test {
 protected:
  void SetUp() override { store_ = Open(); }

  std::unique_ptr<Store> Open() {
    auto opened = OpenSqlite(path_);
    EXPECT_TRUE(opened.ok()) << (opened.ok() ? "" : opened.error().ToString());
    return opened.ok() ? std::move(*opened) : nullptr;
  }
  void Reopen() {
    store_.reset();
    store_ = Open();
  }

  ThreadInfo NewThread(const std::string& title = "t") {
    auto t = store_->CreateThread(title);
    EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().ToString());
    return t.ok() ? *t : ThreadInfo{};
  }
  MessageRecord NewMessage(const std::string& thread_id, const std::string& role = "assistant",
                           const std::string& status = "running",
                           const nlohmann::json& meta = nlohmann::json::object()) {
    auto m = store_->AddMessage(thread_id, role, status, meta);
    EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().ToString());
    return m.ok() ? *m : MessageRecord{};
  }
  static PartRecord Part(int64_t seq, const std::string& text, bool open = false) {
    PartRecord p;
    p.seq = seq;
    p.step = 0;
    p.kind = "text";
    p.key = "text-" + std::to_string(seq);
    p.state = open ? "emitted" : "parsed";
    p.open = open;
    p.data = {{"text", text}};
    return p;
  }
  std::string Raw(const std::string& sql) { return RawSql(path_, sql); }

  TempDir dir_;
  std::string path_ = dir_ / "data/affordance.db";
  std::unique_ptr<Store> store_;
};

#define STORE_ASSERT_OK(expr)                                       \
  do {                                                              \
    auto _r = (expr);                                               \
    ASSERT_TRUE(_r.ok()) << #expr << ": " << _r.error().ToString(); \
  } while (0)

}  // namespace affordance::store::testing

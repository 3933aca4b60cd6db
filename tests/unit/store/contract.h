// The fixture of the store's contract tests: every TEST_P runs once per backend ("sqlite": a fresh
// file in a temp folder; "postgresql": a fresh database on the test process's own PostgreSQL,
// pg_cluster.h), through store::Open() as a node would. A PostgreSQL case whose server cannot
// start fails with the reason; it never passes silently.
#pragma once

#include "pg_cluster.h"
#include "support.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace affordance::store::testing {

class StoreContract : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "sqlite") {
      spec_ = dir_ / "data/affordance.db";
    } else {
      auto& pg = PgCluster::Shared();
      ASSERT_TRUE(pg.ok()) << pg.error();
      std::string error;
      spec_ = pg.NewDatabase(&error);
      ASSERT_FALSE(spec_.empty()) << error;
    }
    store_ = OpenStore();
    ASSERT_NE(store_, nullptr);
  }

  bool postgres() const { return GetParam() == "postgresql"; }

  // Another Store on the same file / database: another node (or process).
  std::unique_ptr<Store> OpenStore() {
    auto opened = Open(spec_);
    EXPECT_TRUE(opened.ok()) << (opened.ok() ? "" : opened.error().ToString());
    return opened.ok() ? std::move(*opened) : nullptr;
  }
  void Reopen() {
    store_.reset();
    store_ = OpenStore();
  }

  // Raw SQL underneath the store: the first column of the last row, or "ERROR: <message>".
  std::string Raw(const std::string& sql) {
    return postgres() ? PgRawSql(spec_, sql) : RawSql(spec_, sql);
  }

  ThreadInfo NewThread(const std::string& title = "t") {
    auto t = store_->CreateThread(title);
    EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().ToString());
    return t.ok() ? *t : ThreadInfo{};
  }
  MessageRecord NewMessage(const std::string& thread_id, const std::string& role = "assistant",
                           const std::string& status = "running",
                           const nlohmann::json& meta = nlohmann::json::object(),
                           const std::string& id = "") {
    auto m = store_->AddMessage(thread_id, role, status, meta, id);
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
  static TurnRecord Turn(const std::string& id, const std::string& thread_id,
                         const std::string& node, int64_t lease_until_ms) {
    TurnRecord t;
    t.id = id;
    t.thread_id = thread_id;
    t.node = node;
    t.lease_until_ms = lease_until_ms;
    return t;
  }

  TempDir dir_;
  std::string spec_;  // the file path or the database URI
  std::unique_ptr<Store> store_;
};

// "sqlite" / "postgresql" as the test name suffix.
inline std::string BackendName(const ::testing::TestParamInfo<std::string>& info) {
  return info.param;
}

#define STORE_EXPECT_ERROR(expr, expected_code)                                          \
  do {                                                                                   \
    auto _r = (expr);                                                                    \
    ASSERT_FALSE(_r.ok()) << #expr << " succeeded";                                      \
    EXPECT_EQ(_r.error().code, expected_code) << #expr << ": " << _r.error().ToString(); \
  } while (0)

}  // namespace affordance::store::testing

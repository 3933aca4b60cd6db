// The store's contract (store.h) against real SQLite files: opening and migrations, threads,
// messages, parts and steps, and round trips. Errors are in store_errors_test.cpp.
#include "support.h"

#include <sys/stat.h>

#include <climits>
#include <fstream>
#include <random>
#include <regex>
#include <set>
#include <thread>

namespace affordance::store {
namespace {

using nlohmann::json;
using testing::RawSql;
using testing::StoreFixture;
using testing::TempDir;

// ---- opening, schema, migrations ----------------------------------------------------------------

class StoreOpen : public StoreFixture {};

TEST_F(StoreOpen, CreatesFolderAndMigratesToCurrentSchema) {
  EXPECT_TRUE(std::filesystem::is_regular_file(path_));
  EXPECT_EQ(store_->SchemaVersion(), 5);
  EXPECT_EQ(Raw("PRAGMA journal_mode"), "wal");
  EXPECT_EQ(Raw("SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master "
                "WHERE type = 'table' ORDER BY name)"),
            "activity,approvals,artifact_versions,artifacts,grants,messages,parts,receipts,"
            "sqlite_sequence,steps,threads,turn_chunks,turns");
}

TEST_F(StoreOpen, ReopenKeepsEverything) {
  auto t = NewThread("kept");
  auto m = NewMessage(t.id, "assistant", "complete", {{"k", "v"}});
  STORE_ASSERT_OK(store_->PutPart(m.id, Part(0, "hello")));
  StepRecord step;
  step.status = "finished";
  step.tokens = {1, 2, 3};
  STORE_ASSERT_OK(store_->PutStep(m.id, step));
  auto before = store_->LoadThread(t.id);
  ASSERT_TRUE(before.ok());
  Reopen();
  ASSERT_TRUE(store_);
  EXPECT_EQ(store_->SchemaVersion(), 5);
  auto info = store_->GetThread(t.id);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->title, "kept");
  EXPECT_EQ(info->messages, 1);
  auto after = store_->LoadThread(t.id);
  ASSERT_TRUE(after.ok());
  ASSERT_EQ(after->size(), 1u);
  EXPECT_EQ((*after)[0].meta, json({{"k", "v"}}));
  ASSERT_EQ((*after)[0].parts.size(), 1u);
  EXPECT_EQ((*after)[0].parts[0].data["text"], "hello");
  ASSERT_EQ((*after)[0].steps.size(), 1u);
  EXPECT_EQ((*after)[0].steps[0].tokens, (std::vector<int32_t>{1, 2, 3}));
}

TEST_F(StoreOpen, NewerSchemaIsMigrateError) {
  store_.reset();
  ASSERT_EQ(Raw("PRAGMA user_version = 99"), "");
  auto opened = OpenSqlite(path_);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().code, "store.migrate");
  EXPECT_NE(opened.error().message.find("version 99"), std::string::npos) << opened.error().message;
  EXPECT_NE(opened.error().message.find("newer"), std::string::npos) << opened.error().message;
}

TEST_F(StoreOpen, FailedMigrationIsMigrateErrorAndLeavesTheFileAsItWas) {
  // A file at version 0 that already has a `threads` table of another shape.
  TempDir dir;
  std::string path = dir / "other.db";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE threads(x)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto opened = OpenSqlite(path);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().code, "store.migrate");
  EXPECT_NE(opened.error().message.find("migration 1"), std::string::npos)
      << opened.error().message;
  EXPECT_EQ(RawSql(path, "PRAGMA user_version"), "0");
  EXPECT_EQ(RawSql(path, "SELECT count(*) FROM sqlite_master WHERE name = 'messages'"), "0");
}

unsigned ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// Issue 24: the store holds a person's threads. Its folder is 0700 and the database, -wal and
// -shm files 0600 even under a umask that takes nothing away (SQLite gives -wal and -shm the
// database file's mode, so that file exists 0600 before SQLite opens it).
TEST(StoreOpenFiles, TheFolderAndEveryFileArePrivateWhateverTheUmask) {
  TempDir dir;
  const mode_t old = umask(0);
  auto store = OpenSqlite(dir / "data/affordance.db");
  umask(old);
  ASSERT_TRUE(store.ok()) << store.error().ToString();
  auto t = (*store)->CreateThread("private");
  ASSERT_TRUE(t.ok());
  // While the store is open, WAL mode keeps both companions on disk.
  EXPECT_EQ(ModeOf(dir / "data"), 0700u);
  for (const char* name : {"affordance.db", "affordance.db-wal", "affordance.db-shm"}) {
    EXPECT_EQ(ModeOf(dir / "data/" + name), 0600u) << name;
  }
}

// A store an older version created 0755 / 0644 is tightened when it is opened, and one line per
// change on stderr says so; nothing in it changes.
TEST(StoreOpenFiles, AStoreLeftOpenByAnOlderVersionIsTightenedOnOpen) {
  TempDir dir;
  const std::string path = dir / "data/affordance.db";
  {
    auto store = OpenSqlite(path);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->CreateThread("kept").ok());
  }
  chmod((dir / "data").c_str(), 0755);
  chmod(path.c_str(), 0644);
  ::testing::internal::CaptureStderr();
  auto store = OpenSqlite(path);
  const std::string said = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(store.ok()) << store.error().ToString();
  EXPECT_EQ(said, "affordance: made the data folder " + (dir / "data") +
                      " private: mode 0755 -> 0700 (it holds your data)\n"
                      "affordance: made the file " +
                      path + " private: mode 0644 -> 0600 (it holds your data)\n");
  EXPECT_EQ(ModeOf(dir / "data"), 0700u);
  EXPECT_EQ(ModeOf(path), 0600u);
  auto threads = (*store)->ListThreads();
  ASSERT_TRUE(threads.ok());
  ASSERT_EQ(threads->size(), 1u);
  EXPECT_EQ((*threads)[0].title, "kept");
}

TEST(StoreOpenErrors, TextFileIsNotADatabase) {
  TempDir dir;
  std::string path = dir / "notes.txt";
  std::ofstream(path) << "These are my notes, not a database.\n" << std::string(4096, 'x');
  auto opened = OpenSqlite(path);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().code, "store.open");
  EXPECT_NE(opened.error().message.find("is not a SQLite database"), std::string::npos)
      << opened.error().message;
  EXPECT_NE(opened.error().message.find(path), std::string::npos);
}

TEST(StoreOpenErrors, FolderThatCannotBeCreated) {
  TempDir dir;
  std::ofstream(dir / "file") << "a file where a folder should be";
  auto opened = OpenSqlite(dir / "file/sub/affordance.db");
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().code, "store.open");
  EXPECT_NE(opened.error().message.find("cannot create the folder " + (dir / "file/sub")),
            std::string::npos)
      << opened.error().message;
}

TEST(StoreOpenErrors, PathThatIsAFolder) {
  TempDir dir;
  auto opened = OpenSqlite(dir.path());
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().code, "store.open");
}

TEST(StoreOpenErrors, EmptyPath) {
  auto opened = OpenSqlite("");
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().code, "store.open");
  EXPECT_EQ(opened.error().message, "no path given for the store");
}

TEST(StoreOpenConcurrent, FourOpenersOfANewFileMigrateItOnce) {
  TempDir dir;
  std::string path = dir / "new/affordance.db";
  std::vector<std::unique_ptr<Store>> stores(4);
  std::vector<std::string> errors(4);
  std::vector<std::thread> openers;
  for (int i = 0; i < 4; ++i) {
    openers.emplace_back([&, i] {
      auto opened = OpenSqlite(path);
      if (opened) {
        stores[i] = std::move(*opened);
      } else {
        errors[i] = opened.error().ToString();
      }
    });
  }
  for (auto& t : openers) t.join();
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(errors[i], "");
    ASSERT_TRUE(stores[i]);
    EXPECT_EQ(stores[i]->SchemaVersion(), 5);
  }
  auto t = stores[0]->CreateThread("shared");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(stores[3]->GetThread(t->id)->title, "shared");
}

TEST(StoreOpenMemory, InMemoryStoreWorks) {
  auto opened = OpenSqlite(":memory:");
  ASSERT_TRUE(opened.ok()) << opened.error().ToString();
  auto& store = *opened;
  EXPECT_EQ(store->SchemaVersion(), 5);
  auto t = store->CreateThread("ephemeral");
  ASSERT_TRUE(t.ok());
  auto m = store->AddMessage(t->id, "user", "complete", {{"k", 1}});
  ASSERT_TRUE(m.ok());
  auto loaded = store->LoadThread(t->id);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->size(), 1u);
}

TEST(StoreIds, PrefixAnd16LowercaseHexDigits) {
  std::set<std::string> seen;
  std::regex shape("m_[0-9a-f]{16}");
  for (int i = 0; i < 1000; ++i) {
    std::string id = NewId("m_");
    EXPECT_TRUE(std::regex_match(id, shape)) << id;
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 1000u);
  int64_t now = NowMs();
  EXPECT_GT(now, 1700000000000);  // after 2023
  EXPECT_LT(now, 4102444800000);  // before 2100
}

// ---- threads ------------------------------------------------------------------------------------

class StoreThreads : public StoreFixture {};

TEST_F(StoreThreads, CreateGetRename) {
  auto t = NewThread("Calendar questions");
  EXPECT_EQ(t.id.rfind("t_", 0), 0u);
  EXPECT_EQ(t.title, "Calendar questions");
  EXPECT_GT(t.created_ms, 0);
  EXPECT_EQ(t.updated_ms, t.created_ms);
  EXPECT_EQ(t.messages, 0);
  auto got = store_->GetThread(t.id);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->id, t.id);
  EXPECT_EQ(got->title, "Calendar questions");
  EXPECT_EQ(got->created_ms, t.created_ms);
  STORE_ASSERT_OK(store_->RenameThread(t.id, "Kalender — Fragen"));
  got = store_->GetThread(t.id);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->title, "Kalender — Fragen");
  EXPECT_GE(got->updated_ms, t.updated_ms);
}

TEST_F(StoreThreads, ListIsNewestFirstByLastWrite) {
  auto a = NewThread("a");
  auto b = NewThread("b");
  auto c = NewThread("c");
  auto names = [&] {
    auto list = store_->ListThreads();
    EXPECT_TRUE(list.ok());
    std::string out;
    for (const auto& t : *list) out += t.title;
    return out;
  };
  EXPECT_EQ(names(), "cba");
  auto m = NewMessage(a.id);  // a write to a's messages moves a to the top
  EXPECT_EQ(names(), "acb");
  STORE_ASSERT_OK(store_->RenameThread(b.id, "B"));
  EXPECT_EQ(names(), "Bac");
  STORE_ASSERT_OK(store_->PutPart(m.id, Part(0, "x")));
  EXPECT_EQ(names(), "aBc");
  Reopen();  // the order of writes within one millisecond survives reopening
  STORE_ASSERT_OK(store_->RenameThread(c.id, "C"));
  EXPECT_EQ(names(), "CaB");
  auto list = store_->ListThreads();
  ASSERT_TRUE(list.ok());
  EXPECT_EQ((*list)[1].messages, 1);
  EXPECT_EQ((*list)[0].messages, 0);
}

TEST_F(StoreThreads, EveryWriteBumpsUpdatedMs) {
  auto t = NewThread();
  auto m = NewMessage(t.id);
  auto updated = [&] { return store_->GetThread(t.id)->updated_ms; };
  int64_t last = updated();
  auto advanced = [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    return true;
  };
  ASSERT_TRUE(advanced());
  STORE_ASSERT_OK(store_->PutPart(m.id, Part(0, "x")));
  EXPECT_GT(updated(), last);
  last = updated();
  ASSERT_TRUE(advanced());
  STORE_ASSERT_OK(store_->PutStep(m.id, StepRecord{}));
  EXPECT_GT(updated(), last);
  last = updated();
  ASSERT_TRUE(advanced());
  STORE_ASSERT_OK(store_->UpdateMessage(m.id, "complete", {}));
  EXPECT_GT(updated(), last);
  auto loaded = store_->LoadMessage(m.id);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->updated_ms, updated());
  EXPECT_LT(loaded->created_ms, loaded->updated_ms);
}

TEST_F(StoreThreads, DeleteCascadesToMessagesPartsAndSteps) {
  auto t = NewThread();
  auto keep = NewThread("keep");
  auto m = NewMessage(t.id);
  auto other = NewMessage(keep.id);
  STORE_ASSERT_OK(store_->PutPart(m.id, Part(0, "x")));
  STORE_ASSERT_OK(store_->PutPart(m.id, Part(1, "y")));
  STORE_ASSERT_OK(store_->PutStep(m.id, StepRecord{}));
  STORE_ASSERT_OK(store_->PutPart(other.id, Part(0, "z")));
  STORE_ASSERT_OK(store_->DeleteThread(t.id));
  auto gone = store_->GetThread(t.id);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().code, "store.not_found");
  EXPECT_EQ(Raw("SELECT count(*) FROM messages WHERE thread_id = '" + t.id + "'"), "0");
  EXPECT_EQ(Raw("SELECT count(*) FROM parts WHERE message_id = '" + m.id + "'"), "0");
  EXPECT_EQ(Raw("SELECT count(*) FROM steps WHERE message_id = '" + m.id + "'"), "0");
  EXPECT_EQ(Raw("SELECT count(*) FROM parts"), "1");  // the other thread's part stays
  auto list = store_->ListThreads();
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].id, keep.id);
}

// ---- messages, parts, steps ---------------------------------------------------------------------

class StoreMessages : public StoreFixture {};

TEST_F(StoreMessages, SeqOrderWithinEachThread) {
  auto t = NewThread();
  auto u = NewThread();
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) {
    auto m = NewMessage(t.id, i % 2 ? "assistant" : "user", "complete");
    EXPECT_EQ(m.seq, i);
    EXPECT_EQ(m.id.rfind("m_", 0), 0u);
    EXPECT_EQ(m.thread_id, t.id);
    EXPECT_TRUE(m.parts.empty());
    ids.push_back(m.id);
    EXPECT_EQ(NewMessage(u.id).seq, i);  // seq is per thread
  }
  auto loaded = store_->LoadThread(t.id);
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ((*loaded)[i].id, ids[i]);
    EXPECT_EQ((*loaded)[i].seq, i);
    EXPECT_EQ((*loaded)[i].role, i % 2 ? "assistant" : "user");
  }
  EXPECT_EQ(store_->GetThread(t.id)->messages, 5);
}

TEST_F(StoreMessages, UpdateReplacesStatusAndMeta) {
  auto t = NewThread();
  auto m = NewMessage(t.id, "assistant", "running", {{"provider", "replay"}, {"old", 1}});
  STORE_ASSERT_OK(store_->UpdateMessage(m.id, "complete", {{"terminal", "stop"}}));
  auto loaded = store_->LoadMessage(m.id);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->status, "complete");
  EXPECT_EQ(loaded->meta, json({{"terminal", "stop"}}));
  EXPECT_EQ(loaded->thread_id, t.id);
}

TEST_F(StoreMessages, NullMetaIsStoredAsEmptyObject) {
  auto t = NewThread();
  auto m = NewMessage(t.id, "user", "complete", json());
  EXPECT_EQ(m.meta, json::object());
  EXPECT_EQ(store_->LoadMessage(m.id)->meta, json::object());
}

TEST_F(StoreMessages, PartUpsertInsertsThenReplaces) {
  auto t = NewThread();
  auto m = NewMessage(t.id);
  STORE_ASSERT_OK(store_->PutPart(m.id, Part(1, "second")));
  STORE_ASSERT_OK(store_->PutPart(m.id, Part(0, "Hel", /*open=*/true)));
  PartRecord done = Part(0, "Hello", /*open=*/false);
  done.state = "persisted";
  done.key = "txt_0";
  STORE_ASSERT_OK(store_->PutPart(m.id, done));
  auto loaded = store_->LoadMessage(m.id);
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->parts.size(), 2u);
  const PartRecord& p = loaded->parts[0];
  EXPECT_EQ(p.seq, 0);
  EXPECT_EQ(p.step, 0);
  EXPECT_EQ(p.kind, "text");
  EXPECT_EQ(p.key, "txt_0");
  EXPECT_EQ(p.state, "persisted");
  EXPECT_FALSE(p.open);
  EXPECT_EQ(p.data, json({{"text", "Hello"}}));
  EXPECT_EQ(loaded->parts[1].seq, 1);
  EXPECT_EQ(loaded->parts[1].data["text"], "second");
}

TEST_F(StoreMessages, PartFieldsRoundTrip) {
  auto t = NewThread();
  auto m = NewMessage(t.id, "user", "complete");
  PartRecord p;
  p.seq = 7;
  p.step = -1;
  p.kind = "data-calendar";
  p.key = "";
  p.state = "";
  p.open = true;
  p.data = {{"text", "héllo 世界 🎉 \"quoted\" \\ \n tab\t nul\u0001"},
            {"nested", {{"a", json::array({1, 2.5, nullptr, true, "ü"})}}},
            {"big", 9007199254740993LL}};
  STORE_ASSERT_OK(store_->PutPart(m.id, p));
  auto loaded = store_->LoadMessage(m.id);
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->parts.size(), 1u);
  const PartRecord& q = loaded->parts[0];
  EXPECT_EQ(q.seq, 7);
  EXPECT_EQ(q.step, -1);
  EXPECT_EQ(q.kind, "data-calendar");
  EXPECT_EQ(q.key, "");
  EXPECT_EQ(q.state, "");
  EXPECT_TRUE(q.open);
  EXPECT_EQ(q.data, p.data);
  EXPECT_EQ(q.data["big"].get<int64_t>(), 9007199254740993LL);
}

TEST_F(StoreMessages, MetaUnicodeRoundTrip) {
  auto t = NewThread("Ünïcödé 🧵");
  json meta = {
      {"truth", "persisted"}, {"note", "日本語のテキスト — ok ✅"}, {"emoji", "👩‍💻"}};
  auto m = NewMessage(t.id, "assistant", "complete", meta);
  auto loaded = store_->LoadThread(t.id);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ((*loaded)[0].meta, meta);
  EXPECT_EQ(store_->GetThread(t.id)->title, "Ünïcödé 🧵");
}

TEST_F(StoreMessages, StepUpsertAndTokensRoundTripExactly) {
  auto t = NewThread();
  auto m = NewMessage(t.id);
  StepRecord s;
  s.index = 0;
  s.status = "running";
  s.started_ms = 1234;
  STORE_ASSERT_OK(store_->PutStep(m.id, s));
  auto loaded = store_->LoadMessage(m.id);
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->steps.size(), 1u);
  EXPECT_TRUE(loaded->steps[0].tokens.empty());  // empty round-trips as empty
  EXPECT_EQ(loaded->steps[0].status, "running");

  std::mt19937 rng(7);
  s.tokens = {151657, 128009, 0, 1, -1, INT32_MAX, INT32_MIN, 151643, 128000};
  for (int i = 0; i < 200; ++i) s.tokens.push_back(static_cast<int32_t>(rng() % 152000));
  s.status = "finished";
  s.finish_reason = "tool-calls";
  s.prompt_tokens = 4096;
  s.cached_prompt_tokens = 4000;
  s.generated_tokens = 209;
  s.finished_ms = 5678;
  s.detail = {{"prompt_audit", {{"head_tokens", 812}}}, {"error", nullptr}};
  STORE_ASSERT_OK(store_->PutStep(m.id, s));
  StepRecord second;
  second.index = 1;
  second.status = "error";
  second.detail = {{"error", {{"code", "model.http"}, {"message", "connection reset"}}}};
  STORE_ASSERT_OK(store_->PutStep(m.id, second));

  loaded = store_->LoadMessage(m.id);
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->steps.size(), 2u);
  const StepRecord& r = loaded->steps[0];
  EXPECT_EQ(r.index, 0);
  EXPECT_EQ(r.status, "finished");
  EXPECT_EQ(r.finish_reason, "tool-calls");
  EXPECT_EQ(r.prompt_tokens, 4096);
  EXPECT_EQ(r.cached_prompt_tokens, 4000);
  EXPECT_EQ(r.generated_tokens, 209);
  EXPECT_EQ(r.tokens, s.tokens);
  EXPECT_EQ(r.started_ms, 1234);
  EXPECT_EQ(r.finished_ms, 5678);
  EXPECT_EQ(r.detail, s.detail);
  EXPECT_EQ(loaded->steps[1].index, 1);
  EXPECT_EQ(loaded->steps[1].status, "error");
  EXPECT_EQ(loaded->steps[1].detail, second.detail);
  // 4 bytes per ID, little-endian: 151657 = 0x00025069, 128009 = 0x0001F409.
  EXPECT_EQ(Raw("SELECT length(tokens) FROM steps WHERE idx = 0"),
            std::to_string(4 * s.tokens.size()));
  EXPECT_EQ(Raw("SELECT hex(substr(tokens, 1, 8)) FROM steps WHERE idx = 0"), "6950020009F40100");
}

TEST_F(StoreMessages, LoadThreadGroupsPartsAndStepsByMessage) {
  auto t = NewThread();
  std::vector<MessageRecord> ms;
  for (int i = 0; i < 4; ++i) ms.push_back(NewMessage(t.id, i % 2 ? "assistant" : "user"));
  // Written out of order and interleaved; read back grouped and sorted.
  for (int seq = 3; seq >= 0; --seq) {
    for (int i = 3; i >= 0; --i) {
      if (i == 2) continue;  // message 2 has no parts
      STORE_ASSERT_OK(
          store_->PutPart(ms[i].id, Part(seq, std::to_string(i) + ":" + std::to_string(seq))));
    }
  }
  for (int idx = 1; idx >= 0; --idx) {
    StepRecord s;
    s.index = idx;
    s.tokens = {idx};
    STORE_ASSERT_OK(store_->PutStep(ms[3].id, s));
  }
  auto loaded = store_->LoadThread(t.id);
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->size(), 4u);
  for (int i = 0; i < 4; ++i) {
    const MessageRecord& m = (*loaded)[i];
    EXPECT_EQ(m.id, ms[i].id);
    ASSERT_EQ(m.parts.size(), i == 2 ? 0u : 4u);
    for (size_t seq = 0; seq < m.parts.size(); ++seq) {
      EXPECT_EQ(m.parts[seq].seq, static_cast<int64_t>(seq));
      EXPECT_EQ(m.parts[seq].data["text"], std::to_string(i) + ":" + std::to_string(seq));
    }
    ASSERT_EQ(m.steps.size(), i == 3 ? 2u : 0u);
  }
  EXPECT_EQ((*loaded)[3].steps[0].index, 0);
  EXPECT_EQ((*loaded)[3].steps[1].tokens, std::vector<int32_t>{1});
}

TEST_F(StoreMessages, EmptyThreadLoadsAsNoMessages) {
  auto t = NewThread();
  auto loaded = store_->LoadThread(t.id);
  ASSERT_TRUE(loaded.ok());
  EXPECT_TRUE(loaded->empty());
}

}  // namespace
}  // namespace affordance::store

// What only the PostgreSQL backend has: opening by URI (and its errors, which never show the
// password), several nodes migrating and writing one database at once, and a server that restarts
// or drops the connections under a running node.
#include "contract.h"
#include "store/internal/migrations.h"

#include <atomic>
#include <chrono>
#include <future>
#include <set>
#include <thread>

namespace affordance::store {
namespace {

using nlohmann::json;
using testing::PgCluster;
using testing::StoreContract;

class Postgres : public StoreContract {
 protected:
  // Writes from `writer` until `reader` sees a change of `topic` (another node's write reached
  // it by NOTIFY), at most `seconds`; true when it did.
  static bool Delivered(Store& reader, Store& writer, const std::string& thread_id,
                        const std::string& topic, int seconds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
      const uint64_t seen = reader.Changes(topic);
      (void)writer.RequestStop(thread_id);
      if (reader.WaitChanges(topic, seen, 300) != seen) return true;
    }
    return false;
  }
};

TEST_P(Postgres, OpenPicksTheBackendByScheme) {
  EXPECT_EQ(store_->Backend(), "postgresql");
  std::string short_scheme = "postgres://" + spec_.substr(std::string("postgresql://").size());
  auto opened = Open(short_scheme);
  ASSERT_TRUE(opened.ok()) << opened.error().ToString();
  EXPECT_EQ((*opened)->Backend(), "postgresql");
  auto file = Open(dir_ / "x/affordance.db");
  ASSERT_TRUE(file.ok());
  EXPECT_EQ((*file)->Backend(), "sqlite");
}

TEST_P(Postgres, AnUnreachableServerIsStoreOpenAndTheErrorHidesThePassword) {
  auto opened = OpenPostgres("postgresql://ann:s3cret@127.0.0.1:1/db?connect_timeout=3");
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().code, "store.open");
  EXPECT_EQ(opened.error().message.rfind("cannot connect to PostgreSQL: ", 0), 0u)
      << opened.error().message;
  EXPECT_EQ(opened.error().ToString().find("s3cret"), std::string::npos);
  EXPECT_EQ(opened.error().detail, "postgresql://ann:***@127.0.0.1:1/db?connect_timeout=3");
  auto query = OpenPostgres("postgresql://127.0.0.1:1/db?user=ann&password=s3cret");
  ASSERT_FALSE(query.ok());
  EXPECT_EQ(query.error().ToString().find("s3cret"), std::string::npos);

  auto& pg = PgCluster::Shared();
  auto missing = OpenPostgres(pg.Uri("no_such_database"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, "store.open");
  EXPECT_NE(missing.error().message.find("no_such_database"), std::string::npos);
}

TEST_P(Postgres, NodesStartingTogetherMigrateOnce) {
  std::string error;
  const std::string uri = PgCluster::Shared().NewDatabase(&error);
  ASSERT_FALSE(uri.empty()) << error;
  std::vector<std::future<Result<std::unique_ptr<Store>>>> nodes;
  for (int i = 0; i < 4; ++i) nodes.push_back(std::async(std::launch::async, Open, uri));
  for (auto& node : nodes) {
    auto opened = node.get();
    ASSERT_TRUE(opened.ok()) << opened.error().ToString();
    EXPECT_EQ((*opened)->SchemaVersion(), internal::LatestSchemaVersion());
  }
  EXPECT_EQ(testing::PgRawSql(uri, "SELECT count(*) FROM schema_version"), "1");
}

TEST_P(Postgres, NodesAppendingToOneThreadGetDistinctSeqs) {
  auto other = OpenStore();
  ASSERT_NE(other, nullptr);
  auto t = NewThread();
  auto add = [&](Store* s) {
    for (int i = 0; i < 20; ++i) {
      auto m = s->AddMessage(t.id, "user", "complete", {{"i", i}});
      EXPECT_TRUE(m.ok()) << m.error().ToString();
    }
  };
  std::thread a(add, store_.get());
  std::thread b(add, other.get());
  a.join();
  b.join();
  auto loaded = store_->LoadThread(t.id);
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->size(), 40u);
  for (size_t i = 0; i < loaded->size(); ++i) EXPECT_EQ((*loaded)[i].seq, int64_t(i));
}

TEST_P(Postgres, ConcurrentActivityFromTwoNodesIsOneOrderedLog) {
  auto other = OpenStore();
  ASSERT_NE(other, nullptr);
  auto append = [](Store* s, const std::string& actor) {
    std::vector<int64_t> seqs;
    for (int i = 0; i < 30; ++i) {
      ActivityRecord e;
      e.kind = "read";
      e.actor = actor;
      auto seq = s->AppendActivity(e);
      EXPECT_TRUE(seq.ok());
      if (seq.ok()) seqs.push_back(*seq);
    }
    return seqs;
  };
  auto a = std::async(std::launch::async, append, store_.get(), "a");
  auto b = std::async(std::launch::async, append, other.get(), "b");
  std::set<int64_t> all;
  for (int64_t s : a.get()) all.insert(s);
  for (int64_t s : b.get()) all.insert(s);
  EXPECT_EQ(all.size(), 60u);
  ActivityFilter f;
  f.limit = 100;
  auto listed = store_->ListActivity(f);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 60u);
  EXPECT_TRUE(std::is_sorted(listed->begin(), listed->end(),
                             [](const auto& x, const auto& y) { return x.seq < y.seq; }));
}

// The server drops every connection (as a failover or an admin would): the next call reconnects,
// and the LISTEN thread does too, so other nodes' writes wake readers again.
TEST_P(Postgres, RecoversWhenItsConnectionsAreTerminated) {
  auto other = OpenStore();
  ASSERT_NE(other, nullptr);
  auto t = NewThread();
  STORE_ASSERT_OK(other->BeginTurn(Turn("m_1", t.id, "node-b", NowMs() + 60000)));
  EXPECT_NE(Raw("SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()) killed"),
            "0");
  auto got = store_->GetThread(t.id);
  ASSERT_TRUE(got.ok()) << got.error().ToString();
  EXPECT_TRUE(Delivered(*store_, *other, t.id, "stops", 15));
}

// A statement failing inside a flight of chunks (one round trip, PgConn::RunAll): its error is the
// call's, nothing of the call is kept, and the connection works after.
TEST_P(Postgres, AFailedChunkInAFlightKeepsNothing) {
  auto t = NewThread();
  STORE_ASSERT_OK(store_->BeginTurn(Turn("m_1", t.id, "node-a", NowMs() + 60000)));
  std::vector<LoggedChunk> chunks = {{"m_1", 0, "{}"}, {"m_1", 1, "\xff"}, {"m_1", 2, "{}"}};
  auto bad = store_->AppendChunks(chunks);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "store.bad_input") << bad.error().ToString();
  EXPECT_EQ(store_->ReadLog("m_1", -1)->turn.chunks, 0);
  chunks[1].chunk = "{}";
  STORE_ASSERT_OK(store_->AppendChunks(chunks));
  EXPECT_EQ(store_->ReadLog("m_1", -1)->chunks.size(), 3u);
}

// A restart: while the server is down calls fail with named errors (store.io, kind unavailable);
// once it is back the same store works again, without reopening.
TEST_P(Postgres, ARestartGivesNamedErrorsThenRecovers) {
  auto other = OpenStore();
  ASSERT_NE(other, nullptr);
  auto t = NewThread("before");
  STORE_ASSERT_OK(other->BeginTurn(Turn("m_1", t.id, "node-b", NowMs() + 60000)));
  auto& pg = PgCluster::Shared();
  std::string error;
  ASSERT_TRUE(pg.Stop(&error)) << error;
  auto down = store_->GetThread(t.id);
  ASSERT_FALSE(down.ok());
  EXPECT_EQ(down.error().code, "store.io");
  EXPECT_EQ(down.error().kind, ErrorKind::kUnavailable) << down.error().ToString();
  auto write = store_->CreateThread("while down");
  ASSERT_FALSE(write.ok());
  EXPECT_EQ(write.error().code, "store.io");
  ASSERT_TRUE(pg.Start(&error)) << error;

  auto up = store_->GetThread(t.id);
  ASSERT_TRUE(up.ok()) << up.error().ToString();
  EXPECT_EQ(up->title, "before");
  STORE_ASSERT_OK(store_->RenameThread(t.id, "after"));
  EXPECT_EQ(other->GetThread(t.id)->title, "after");
  EXPECT_TRUE(Delivered(*store_, *other, t.id, "stops", 15));
}

INSTANTIATE_TEST_SUITE_P(Backends, Postgres, ::testing::Values("postgresql"), testing::BackendName);

}  // namespace
}  // namespace affordance::store

// The Store contract (store.h) on both backends: what a caller relies on holds the same on a
// SQLite file and on PostgreSQL. Threads and client ids, messages with their parts and steps
// (exact JSON text and token bytes underneath), recovery, Batch, the schema version, and hostile
// values. The authority facts and artifacts are in store_authority_contract_test.cpp, turns and
// their log in store_turns_contract_test.cpp; what only PostgreSQL has (several nodes, restarts)
// in store_pg_test.cpp.
#include "base/json_limits.h"
#include "contract.h"
#include "store/internal/migrations.h"

#include <stdexcept>

namespace affordance::store {
namespace {

using nlohmann::json;
using testing::StoreContract;

class Contract : public StoreContract {};

// ---- threads ------------------------------------------------------------------------------------

TEST_P(Contract, ThreadsCrudNewestFirstAndClientIds) {
  auto a = NewThread("a");
  auto b = NewThread("b");
  auto listed = store_->ListThreads();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].id, b.id);  // newest first, even within one millisecond
  STORE_ASSERT_OK(store_->RenameThread(a.id, "a2"));
  listed = store_->ListThreads();
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ((*listed)[0].id, a.id);
  EXPECT_EQ((*listed)[0].title, "a2");

  auto chosen = store_->CreateThread("client", "chat-42");
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(chosen->id, "chat-42");
  auto again = store_->CreateThread("other", "chat-42");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, "store.conflict");
  EXPECT_EQ(again.error().message, "a thread with this id exists");
  EXPECT_EQ(again.error().detail, "chat-42");
  EXPECT_EQ(store_->GetThread("chat-42")->title, "client");

  auto m = NewMessage(a.id);
  STORE_ASSERT_OK(store_->PutPart(m.id, Part(0, "x")));
  STORE_ASSERT_OK(store_->DeleteThread(a.id));
  STORE_EXPECT_ERROR(store_->GetThread(a.id), "store.not_found");
  STORE_EXPECT_ERROR(store_->LoadMessage(m.id), "store.not_found");
  EXPECT_EQ(Raw("SELECT count(*) FROM parts"), "0");
  auto gone = store_->DeleteThread(a.id);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().message, "no thread \"" + a.id + "\" in the store");
}

// ---- messages, parts, steps ---------------------------------------------------------------------

TEST_P(Contract, MessagesPartsAndStepsRoundTripExactly) {
  auto t = NewThread();
  json meta = {{"provider", "fake"}, {"n", 9007199254740993}, {"f", 0.1}, {"u", "héllo ✓"}};
  auto m = NewMessage(t.id, "assistant", "running", meta, "m_chosen");
  EXPECT_EQ(m.id, "m_chosen");
  EXPECT_EQ(m.seq, 0);
  auto dup = store_->AddMessage(t.id, "user", "complete", {}, "m_chosen");
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().code, "store.conflict");
  EXPECT_EQ(dup.error().message, "a message with this id exists");

  PartRecord p = Part(0, "hello");
  p.data = {{"text", "héllo \"quoted\" \\ ✓"},
            {"nested", {{"a", json::array({1, -2, 3.25, nullptr, true})}, {"", "empty key"}}}};
  p.key = "call_1";
  p.state = "emitted";
  p.open = true;
  p.step = 2;
  STORE_ASSERT_OK(store_->PutPart(m.id, p));
  StepRecord s;
  s.index = 0;
  s.status = "finished";
  s.finish_reason = "stop";
  s.prompt_tokens = 12;
  s.cached_prompt_tokens = 4;
  s.generated_tokens = 6;
  s.tokens = {0, 1, -1, 2147483647, -2147483647 - 1, 128000};
  s.started_ms = 5;
  s.finished_ms = 7;
  s.detail = {{"audit", {{"bytes", 10}}}};
  STORE_ASSERT_OK(store_->PutStep(m.id, s));

  auto loaded = store_->LoadMessage(m.id);
  ASSERT_TRUE(loaded.ok()) << loaded.error().ToString();
  EXPECT_EQ(loaded->meta, meta);
  ASSERT_EQ(loaded->parts.size(), 1u);
  const PartRecord& lp = loaded->parts[0];
  EXPECT_EQ(lp.data, p.data);
  EXPECT_EQ(lp.key, "call_1");
  EXPECT_EQ(lp.state, "emitted");
  EXPECT_TRUE(lp.open);
  EXPECT_EQ(lp.step, 2);
  ASSERT_EQ(loaded->steps.size(), 1u);
  const StepRecord& ls = loaded->steps[0];
  EXPECT_EQ(ls.tokens, s.tokens);
  EXPECT_EQ(ls.finish_reason, "stop");
  EXPECT_EQ(ls.prompt_tokens, 12);
  EXPECT_EQ(ls.cached_prompt_tokens, 4);
  EXPECT_EQ(ls.generated_tokens, 6);
  EXPECT_EQ(ls.started_ms, 5);
  EXPECT_EQ(ls.finished_ms, 7);
  EXPECT_EQ(ls.detail, s.detail);

  // Underneath: the JSON column holds exactly the dumped text, the tokens little-endian int32.
  EXPECT_EQ(Raw("SELECT data FROM parts"), p.data.dump());
  EXPECT_EQ(Raw("SELECT meta FROM messages"), meta.dump());
  std::string hex = Raw(postgres() ? "SELECT encode(tokens, 'hex') FROM steps"
                                   : "SELECT lower(hex(tokens)) FROM steps");
  EXPECT_EQ(hex, "0000000001000000ffffffffffffff7f0000008000f40100");

  // Upserts by (message, seq) / (message, index).
  p.data = {{"text", "replaced"}};
  p.open = false;
  STORE_ASSERT_OK(store_->PutPart(m.id, p));
  s.tokens = {};
  STORE_ASSERT_OK(store_->PutStep(m.id, s));
  STORE_ASSERT_OK(store_->UpdateMessage(m.id, "complete", {{"done", true}}));
  loaded = store_->LoadMessage(m.id);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->status, "complete");
  EXPECT_EQ(loaded->meta, json({{"done", true}}));
  ASSERT_EQ(loaded->parts.size(), 1u);
  EXPECT_EQ(loaded->parts[0].data, json({{"text", "replaced"}}));
  EXPECT_FALSE(loaded->parts[0].open);
  EXPECT_TRUE(loaded->steps[0].tokens.empty());
}

TEST_P(Contract, LoadThreadIsInOrderWithEveryPartAndStep) {
  auto t = NewThread();
  auto user = NewMessage(t.id, "user", "complete");
  auto reply = NewMessage(t.id);
  auto third = NewMessage(t.id, "user", "complete");
  EXPECT_EQ(user.seq, 0);
  EXPECT_EQ(reply.seq, 1);
  EXPECT_EQ(third.seq, 2);
  for (int64_t seq : {2, 0, 1}) STORE_ASSERT_OK(store_->PutPart(reply.id, Part(seq, "p")));
  STORE_ASSERT_OK(store_->PutPart(user.id, Part(0, "question")));
  for (int index : {1, 0}) {
    StepRecord s;
    s.index = index;
    STORE_ASSERT_OK(store_->PutStep(reply.id, s));
  }
  auto loaded = store_->LoadThread(t.id);
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->size(), 3u);
  EXPECT_EQ((*loaded)[0].id, user.id);
  EXPECT_EQ((*loaded)[1].id, reply.id);
  EXPECT_EQ((*loaded)[2].id, third.id);
  ASSERT_EQ((*loaded)[1].parts.size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ((*loaded)[1].parts[i].seq, i);
  ASSERT_EQ((*loaded)[1].steps.size(), 2u);
  EXPECT_EQ((*loaded)[1].steps[0].index, 0);
  EXPECT_EQ((*loaded)[0].parts.size(), 1u);
  EXPECT_TRUE((*loaded)[2].parts.empty());
  EXPECT_EQ(store_->GetThread(t.id)->messages, 3);
}

// ---- recovery -----------------------------------------------------------------------------------

TEST_P(Contract, RecoverInterruptedClosesEverythingRunning) {
  auto t = NewThread();
  auto running = NewMessage(t.id);
  STORE_ASSERT_OK(store_->PutPart(running.id, Part(0, "streaming", /*open=*/true)));
  STORE_ASSERT_OK(store_->PutPart(running.id, Part(1, "done")));
  StepRecord step;
  STORE_ASSERT_OK(store_->PutStep(running.id, step));
  auto complete = NewMessage(t.id, "assistant", "complete");
  STORE_ASSERT_OK(store_->PutStep(complete.id, step));  // a stray running step

  auto recovered = store_->RecoverInterrupted();
  ASSERT_TRUE(recovered.ok()) << recovered.error().ToString();
  EXPECT_EQ(*recovered, 1);
  auto m = store_->LoadMessage(running.id);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->status, "interrupted");
  EXPECT_FALSE(m->parts[0].open);
  EXPECT_EQ(m->parts[0].state, "interrupted");
  EXPECT_EQ(m->parts[0].data, json({{"text", "streaming"}, {"interrupted", true}}));
  EXPECT_EQ(m->parts[1].state, "parsed");  // closed parts stay as they were
  EXPECT_EQ(m->steps[0].status, "interrupted");
  EXPECT_EQ(store_->LoadMessage(complete.id)->steps[0].status, "interrupted");
  EXPECT_EQ(store_->LoadMessage(complete.id)->status, "complete");
  EXPECT_EQ(*store_->RecoverInterrupted(), 0);
}

TEST_P(Contract, RecoverInterruptedLeavesLiveWritersAlone) {
  auto t = NewThread();
  auto dead = NewMessage(t.id, "assistant", "running", {{"owner", "dead"}});
  auto live = NewMessage(t.id, "assistant", "running", {{"owner", "live"}});
  STORE_ASSERT_OK(store_->PutPart(live.id, Part(0, "still streaming", true)));
  auto recovered = store_->RecoverInterrupted(
      [](const json& meta) { return meta.value("owner", "") == "dead"; });
  ASSERT_TRUE(recovered.ok());
  EXPECT_EQ(*recovered, 1);
  EXPECT_EQ(store_->LoadMessage(dead.id)->status, "interrupted");
  auto l = store_->LoadMessage(live.id);
  EXPECT_EQ(l->status, "running");
  EXPECT_TRUE(l->parts[0].open);
}

// ---- batches ------------------------------------------------------------------------------------

TEST_P(Contract, BatchIsAllOrNone) {
  auto t = NewThread();
  auto status = store_->Batch([&]() -> Status {
    auto m = store_->AddMessage(t.id, "assistant", "running", {});
    if (!m) return m.error();
    if (auto s = store_->PutPart(m->id, Part(0, "x")); !s) return s;
    if (auto s = store_->RenameThread(t.id, "renamed"); !s) return s;
    return store_->PutPart("m_missing", Part(0, "y"));
  });
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, "store.not_found");
  EXPECT_EQ(store_->GetThread(t.id)->title, "t");
  EXPECT_EQ(store_->GetThread(t.id)->messages, 0);
  EXPECT_EQ(Raw("SELECT count(*) FROM parts"), "0");

  auto thrown = store_->Batch([&]() -> Status {
    (void)store_->AddMessage(t.id, "user", "complete", {});
    throw std::runtime_error("boom");
  });
  ASSERT_FALSE(thrown.ok());
  EXPECT_EQ(thrown.error().message, "the store's operation failed: boom");
  EXPECT_EQ(NewMessage(t.id).seq, 0);  // nothing of either batch was kept
}

TEST_P(Contract, NestedBatchFailureUndoesOnlyItself) {
  auto t = NewThread();
  NewMessage(t.id, "user", "complete", {}, "m_taken");
  std::string kept;
  STORE_ASSERT_OK(store_->Batch([&]() -> Status {
    auto m = store_->AddMessage(t.id, "user", "complete", {});
    if (!m) return m.error();
    kept = m->id;
    auto inner = store_->Batch([&]() -> Status {
      (void)store_->PutPart(kept, Part(0, "inner"));
      return MakeError("test.inner", "inner fails");
    });
    EXPECT_FALSE(inner.ok());
    // A statement that fails (a duplicate key) inside the batch, its error ignored: only that
    // call is undone and the batch goes on.
    auto dup = store_->AddMessage(t.id, "user", "complete", {}, "m_taken");
    EXPECT_EQ(dup.ok() ? "" : dup.error().code, "store.conflict");
    return store_->PutPart(kept, Part(1, "outer"));
  }));
  auto loaded = store_->LoadMessage(kept);
  ASSERT_TRUE(loaded.ok());
  ASSERT_EQ(loaded->parts.size(), 1u);
  EXPECT_EQ(loaded->parts[0].seq, 1);
  EXPECT_EQ(store_->GetThread(t.id)->messages, 2);
}

// ---- schema -------------------------------------------------------------------------------------

TEST_P(Contract, SchemaVersionBackendAndANewerSchemaIsRefused) {
  EXPECT_EQ(store_->SchemaVersion(), internal::LatestSchemaVersion());
  EXPECT_EQ(store_->Backend(), GetParam());
  auto t = NewThread("kept");
  Reopen();  // migrating again is a no-op
  ASSERT_NE(store_, nullptr);
  EXPECT_EQ(store_->GetThread(t.id)->title, "kept");

  store_.reset();
  Raw(postgres() ? "UPDATE schema_version SET version = 99" : "PRAGMA user_version = 99");
  auto opened = Open(spec_);
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().code, "store.migrate");
  EXPECT_EQ(opened.error().message,
            "the store's schema is version 99, newer than this build of affordance knows "
            "(version " +
                std::to_string(internal::LatestSchemaVersion()) + "); use a newer affordance");
}

// ---- bad and hostile input ----------------------------------------------------------------------

TEST_P(Contract, UnknownIdsAndTooDeepJson) {
  STORE_EXPECT_ERROR(store_->LoadMessage("m_nope"), "store.not_found");
  STORE_EXPECT_ERROR(store_->LoadThread("t_nope"), "store.not_found");
  STORE_EXPECT_ERROR(store_->GetApproval("apr_nope"), "store.not_found");
  STORE_EXPECT_ERROR(store_->PutStep("m_nope", StepRecord{}), "store.not_found");
  auto t = NewThread();
  auto m = NewMessage(t.id);
  json deep = json::object();
  for (int i = 0; i < kMaxStoredJsonDepth + 5; ++i) deep = json{{"d", deep}};
  PartRecord p = Part(0, "x");
  p.data = deep;
  STORE_EXPECT_ERROR(store_->PutPart(m.id, p), "store.too_deep");
  STORE_EXPECT_ERROR(store_->AddMessage(t.id, "user", "complete", deep), "store.too_deep");
  EXPECT_EQ(Raw("SELECT count(*) FROM parts"), "0");
}

TEST_P(Contract, NulBytesInvalidUtf8AndAMegabyteInJson) {
  auto t = NewThread();
  auto m = NewMessage(t.id);
  PartRecord p = Part(0, "");
  p.data = {{"text", std::string("a\0b\0", 4)}};  // dumped as \u0000: the text holds no NUL
  STORE_ASSERT_OK(store_->PutPart(m.id, p));
  PartRecord big = Part(1, std::string(1 << 20, 'x') + "✓");
  STORE_ASSERT_OK(store_->PutPart(m.id, big));
  auto loaded = store_->LoadMessage(m.id);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->parts[0].data, p.data);
  EXPECT_EQ(loaded->parts[0].data["text"].get<std::string>().size(), 4u);
  EXPECT_EQ(loaded->parts[1].data, big.data);

  PartRecord bad = Part(2, std::string("\xc3\x28 invalid", 10));
  auto r = store_->PutPart(m.id, bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, "store.bad_input");
  EXPECT_NE(r.error().message.find("data cannot be stored"), std::string::npos);
}

// Plain text columns: SQLite keeps any bytes; PostgreSQL's TEXT holds neither NUL nor invalid
// UTF-8, and refuses them as store.bad_input rather than storing something else.
TEST_P(Contract, NulBytesAndInvalidUtf8InTextColumns) {
  const std::string nul("a\0b", 3);
  const std::string invalid("\xff\xfe", 2);
  for (const std::string& title : {nul, invalid}) {
    auto created = store_->CreateThread(title);
    if (postgres()) {
      ASSERT_FALSE(created.ok());
      EXPECT_EQ(created.error().code, "store.bad_input") << created.error().ToString();
    } else {
      ASSERT_TRUE(created.ok());
      EXPECT_EQ(store_->GetThread(created->id)->title, title);
    }
  }
  auto t = NewThread();  // the store is usable afterwards
  EXPECT_TRUE(store_->GetThread(t.id).ok());
}

INSTANTIATE_TEST_SUITE_P(Backends, Contract, ::testing::Values("sqlite", "postgresql"),
                         testing::BackendName);

}  // namespace
}  // namespace affordance::store

// The authority facts and artifacts of the Store contract on both backends: the compare-and-sets
// that make a decision, a claim for execution or an artifact's head move once across processes
// (two connections racing), unique idempotency keys, receipts and grants, and the append-only,
// commit-ordered Activity log.
#include "contract.h"

#include <atomic>
#include <chrono>
#include <thread>

namespace affordance::store {
namespace {

using nlohmann::json;
using testing::StoreContract;

class AuthorityContract : public StoreContract {};

// ---- authority ----------------------------------------------------------------------------------

ApprovalRecord Approval(const std::string& id) {
  ApprovalRecord a;
  a.id = id;
  a.thread_id = "t_1";
  a.connector = "calendar";
  a.operation = "create_event";
  a.risk = "write";
  a.args = {{"title", "standup"}};
  a.staged_by = "model";
  a.request = R"({"connector":"calendar"})";
  a.effect = {{"summary", "adds an event"}};
  a.digest = "abc";
  a.created_ms = a.updated_ms = 10;
  return a;
}

TEST_P(AuthorityContract, ApprovalsAreACompareAndSet) {
  STORE_ASSERT_OK(store_->AddApproval(Approval("apr_1")));
  auto dup = store_->AddApproval(Approval("apr_1"));
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().code, "store.conflict");
  EXPECT_EQ(dup.error().message, "approval apr_1 already exists");

  ApprovalRecord a = Approval("apr_1");
  a.status = "approved";
  a.decided_by = "user:ann";
  STORE_ASSERT_OK(store_->UpdateApproval(a, "pending"));
  auto lost = store_->UpdateApproval(a, "pending");
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.error().code, "store.conflict");
  EXPECT_EQ(lost.error().message, "approval apr_1 is approved, not pending");
  STORE_EXPECT_ERROR(store_->UpdateApproval(Approval("apr_nope"), "pending"), "store.not_found");
  auto got = store_->GetApproval("apr_1");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->decided_by, "user:ann");
  EXPECT_EQ(got->effect, a.effect);
  EXPECT_EQ(got->args, a.args);
  EXPECT_EQ(store_->ListApprovals("approved", "")->size(), 1u);
  EXPECT_EQ(store_->ListApprovals("pending", "")->size(), 0u);
  EXPECT_EQ(store_->ListApprovals("", "t_1")->size(), 1u);
}

TEST_P(AuthorityContract, TwoConnectionsRacingOneApprovalExactlyOneWins) {
  auto other = OpenStore();
  ASSERT_NE(other, nullptr);
  for (int round = 0; round < 10; ++round) {
    const std::string id = "apr_race" + std::to_string(round);
    STORE_ASSERT_OK(store_->AddApproval(Approval(id)));
    Status results[2];
    std::atomic<int> ready{0};
    auto decide = [&](Store* s, int i) {
      ApprovalRecord a = Approval(id);
      a.status = i == 0 ? "approved" : "denied";
      a.decided_by = "user:" + std::to_string(i);
      ++ready;
      while (ready < 2) std::this_thread::yield();
      results[i] = s->UpdateApproval(a, "pending");
    };
    std::thread t0(decide, store_.get(), 0);
    std::thread t1(decide, other.get(), 1);
    t0.join();
    t1.join();
    ASSERT_NE(results[0].ok(), results[1].ok()) << "round " << round;
    const int winner = results[0].ok() ? 0 : 1;
    EXPECT_EQ(results[1 - winner].error().code, "store.conflict");
    EXPECT_EQ(store_->GetApproval(id)->decided_by, "user:" + std::to_string(winner));
  }
}

TEST_P(AuthorityContract, IdempotencyKeysAreUnique) {
  STORE_ASSERT_OK(store_->AddApproval(Approval("apr_a")));
  STORE_ASSERT_OK(store_->AddApproval(Approval("apr_b")));
  ApprovalRecord a = Approval("apr_a");
  a.status = "executing";
  a.idempotency_key = "key-1";
  STORE_ASSERT_OK(store_->UpdateApproval(a, "pending"));
  ApprovalRecord b = Approval("apr_b");
  b.status = "executing";
  b.idempotency_key = "key-1";
  auto taken = store_->UpdateApproval(b, "pending");
  ASSERT_FALSE(taken.ok());
  EXPECT_EQ(taken.error().code, "store.conflict");
  EXPECT_EQ(taken.error().message, "the idempotency key key-1 is already in use");
  EXPECT_EQ(store_->GetApproval("apr_b")->status, "pending");
  ApprovalRecord c = Approval("apr_c");
  c.idempotency_key = "key-1";
  STORE_EXPECT_ERROR(store_->AddApproval(c), "store.conflict");
}

TEST_P(AuthorityContract, ReceiptsAndGrantsUpsertById) {
  STORE_ASSERT_OK(store_->AddApproval(Approval("apr_1")));
  ReceiptRecord r;
  r.id = "rc_1";
  r.approval_id = "apr_1";
  r.idempotency_key = "k";
  r.request = {{"a", 1}};
  r.outcome = "dispatching";
  r.started_ms = 5;
  STORE_ASSERT_OK(store_->PutReceipt(r));
  r.outcome = "executed";
  r.response = {{"id", "evt_1"}};
  r.finished_ms = 6;
  STORE_ASSERT_OK(store_->PutReceipt(r));
  ReceiptRecord r2 = r;
  r2.id = "rc_2";
  r2.started_ms = 7;
  STORE_ASSERT_OK(store_->PutReceipt(r2));
  auto receipts = store_->ReceiptsOf("apr_1");
  ASSERT_TRUE(receipts.ok());
  ASSERT_EQ(receipts->size(), 2u);
  EXPECT_EQ((*receipts)[0].id, "rc_1");
  EXPECT_EQ((*receipts)[0].outcome, "executed");
  EXPECT_EQ((*receipts)[0].response, json({{"id", "evt_1"}}));
  EXPECT_EQ((*receipts)[1].id, "rc_2");
  r.approval_id = "apr_nope";  // a receipt belongs to an approval
  r.id = "rc_3";
  STORE_EXPECT_ERROR(store_->PutReceipt(r), "store.io");

  GrantRecord g{"g_1", "connector:calendar", "read", "user:ann", 1, 0, 0, ""};
  STORE_ASSERT_OK(store_->PutGrant(g));
  g.revoked_ms = 9;
  g.revoked_by = "user:ann";
  STORE_ASSERT_OK(store_->PutGrant(g));
  auto grants = store_->ListGrants();
  ASSERT_TRUE(grants.ok());
  ASSERT_EQ(grants->size(), 1u);
  EXPECT_EQ((*grants)[0].revoked_ms, 9);
  g.access = "admin";
  STORE_EXPECT_ERROR(store_->PutGrant(g), "store.bad_input");
}

TEST_P(AuthorityContract, ActivityIsAppendOnlyAndOrdered) {
  int64_t last = 0;
  for (int i = 0; i < 5; ++i) {
    ActivityRecord e;
    e.kind = i % 2 ? "read" : "grant";
    e.subject = "g_" + std::to_string(i);
    e.actor = "user:ann";
    e.data = {{"i", i}};
    auto seq = store_->AppendActivity(e);
    ASSERT_TRUE(seq.ok());
    EXPECT_GT(*seq, last);
    last = *seq;
  }
  ActivityFilter all;
  auto entries = store_->ListActivity(all);
  ASSERT_TRUE(entries.ok());
  ASSERT_EQ(entries->size(), 5u);
  EXPECT_EQ((*entries)[4].data, json({{"i", 4}}));
  ActivityFilter newest;
  newest.limit = 2;
  entries = store_->ListActivity(newest);
  ASSERT_EQ(entries->size(), 2u);
  EXPECT_EQ((*entries)[0].data, json({{"i", 3}}));  // the newest two, oldest first
  ActivityFilter reads;
  reads.kind = "read";
  EXPECT_EQ(store_->ListActivity(reads)->size(), 2u);

  EXPECT_NE(Raw("UPDATE activity SET kind = 'x'").find("append-only"), std::string::npos);
  EXPECT_NE(Raw("DELETE FROM activity").find("append-only"), std::string::npos);
  EXPECT_EQ(Raw("SELECT count(*) FROM activity WHERE kind = 'x'"), "0");
  EXPECT_EQ(Raw("SELECT count(*) FROM activity"), "5");
  ActivityRecord no_kind;
  STORE_EXPECT_ERROR(store_->AppendActivity(no_kind), "store.bad_input");
}

// An entry appended while another writer's entry is not yet committed gets a later seq and
// commits after it: readers never see seq N+1 before N.
TEST_P(AuthorityContract, ActivitySeqFollowsCommitOrderAcrossConnections) {
  auto other = OpenStore();
  ASSERT_NE(other, nullptr);
  std::atomic<bool> appended{false}, committing{false};
  int64_t first = 0;
  std::thread holder([&] {
    STORE_ASSERT_OK(store_->Batch([&]() -> Status {
      ActivityRecord e;
      e.kind = "grant";
      auto seq = store_->AppendActivity(e);
      if (!seq) return seq.error();
      first = *seq;
      appended = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      committing = true;
      return {};
    }));
  });
  while (!appended) std::this_thread::yield();
  ActivityRecord e;
  e.kind = "read";
  auto second = other->AppendActivity(e);
  const bool after_commit = committing;
  holder.join();
  ASSERT_TRUE(second.ok()) << second.error().ToString();
  EXPECT_TRUE(after_commit) << "the second append did not wait for the first to commit";
  EXPECT_GT(*second, first);
}

// ---- artifacts ----------------------------------------------------------------------------------

TEST_P(AuthorityContract, ArtifactVersionsMoveTheHeadByCompareAndSet) {
  ArtifactRecord a{"a_1", "live_app", "todo", "Todo", "t_1"};
  ArtifactVersionRecord v1;
  v1.artifact_id = "a_1";
  v1.version = 1;
  v1.body = "root = Stack()";
  v1.bindings = {{"queries", json::array()}};
  STORE_ASSERT_OK(store_->SaveArtifactVersion(a, v1));
  auto again = store_->SaveArtifactVersion(a, v1);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().message, "artifact a_1 already exists");

  ArtifactVersionRecord v2 = v1;
  v2.version = 2;
  v2.parent = 1;
  v2.body = "root = Stack([])";
  v2.patch = "root = Stack([])";
  a.title = "Todo 2";
  STORE_ASSERT_OK(store_->SaveArtifactVersion(a, v2));
  auto stale = store_->SaveArtifactVersion(a, v2);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.error().code, "store.conflict");
  EXPECT_EQ(stale.error().message, "artifact a_1 is at version 2, not 1");

  ArtifactRecord other{"a_2", "live_app", "todo", "Other", ""};
  ArtifactVersionRecord o1 = v1;
  o1.artifact_id = "a_2";
  auto slug = store_->SaveArtifactVersion(other, o1);
  ASSERT_FALSE(slug.ok());
  EXPECT_EQ(slug.error().message, "the app slug \"todo\" belongs to artifact a_1");

  auto by_slug = store_->GetArtifact("todo");
  ASSERT_TRUE(by_slug.ok());
  EXPECT_EQ(by_slug->id, "a_1");
  EXPECT_EQ(by_slug->head, 2);
  EXPECT_EQ(by_slug->title, "Todo 2");
  auto head = store_->GetArtifactVersion("a_1", 0);
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->body, "root = Stack([])");
  EXPECT_EQ(head->bindings, v1.bindings);
  EXPECT_EQ(store_->GetArtifactVersion("a_1", 1)->body, "root = Stack()");
  EXPECT_EQ(store_->ArtifactVersions("a_1")->size(), 2u);
  EXPECT_EQ(store_->ListArtifacts()->size(), 1u);
  STORE_EXPECT_ERROR(store_->GetArtifact("a_nope"), "store.not_found");
  STORE_EXPECT_ERROR(store_->ArtifactVersions("a_nope"), "store.not_found");
  STORE_EXPECT_ERROR(store_->GetArtifactVersion("a_1", 9), "store.not_found");
  ArtifactVersionRecord empty = v2;
  empty.version = 3;
  empty.parent = 2;
  empty.body = "";
  STORE_EXPECT_ERROR(store_->SaveArtifactVersion(a, empty), "store.bad_input");
}

INSTANTIATE_TEST_SUITE_P(Backends, AuthorityContract, ::testing::Values("sqlite", "postgresql"),
                         testing::BackendName);

}  // namespace
}  // namespace affordance::store

// Grants, staging, decisions and exactly-once execution on a real SQLite source; every bad input
// is a clear error and leaves the source unchanged.
#include "support.h"

#include <gmock/gmock.h>

namespace affordance::authority::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

TEST(AuthorityGrants, ReadNeedsAGrantAndTheErrorNamesTheCommand) {
  World w;
  auto denied = w.authority->AuthorizeRead("notes", "note_by_key", Actor::Model());
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.error().code, "authority.no_grant");
  EXPECT_EQ(denied.error().message,
            "no read grant for connector notes (operation note_by_key); ask the user to grant it: "
            "affordance grants grant notes --read");
  auto g = w.authority->Grant("notes", "", "read", 0, w.person);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->scope, "connector:notes");
  EXPECT_TRUE(w.authority->AuthorizeRead("notes", "note_by_key", Actor::Model()).ok());
  // An operation grant covers that operation only.
  ASSERT_TRUE(w.authority->Grant("calendar", "list_events", "read", 0, w.person).ok());
  EXPECT_TRUE(w.authority->AuthorizeRead("calendar", "list_events", Actor::Model()).ok());
  EXPECT_FALSE(w.authority->AuthorizeRead("calendar", "event_detail", Actor::Model()).ok());
  // Revoked: refused again.
  ASSERT_TRUE(w.authority->Revoke(g->id, w.person).ok());
  EXPECT_EQ(w.authority->AuthorizeRead("notes", "", Actor::Model()).error().code,
            "authority.no_grant");
  auto reads = w.store->ListActivity({.kind = "read"});
  ASSERT_EQ(reads->size(), 5u);
  EXPECT_EQ((*reads)[0].data["allowed"], false);
  EXPECT_EQ((*reads)[1].data["allowed"], true);
}

TEST(AuthorityGrants, OnlyAPersonGrantsAndBadGrantsAreRefused) {
  World w;
  auto by_model = w.authority->Grant("notes", "", "write", 0, Actor::Model());
  ASSERT_FALSE(by_model.ok());
  EXPECT_EQ(by_model.error().code, "authority.not_human");
  EXPECT_EQ(w.authority->Grant("notes", "", "admin", 0, w.person).error().code,
            "authority.bad_grant");
  EXPECT_EQ(w.authority->Grant("nope", "", "read", 0, w.person).error().code,
            "connect.unknown_connector");
  EXPECT_EQ(w.authority->Grant("notes", "nope", "read", 0, w.person).error().code,
            "connect.unknown_operation");
  auto revoke = w.authority->Revoke("g_0000000000000000", w.person);
  ASSERT_FALSE(revoke.ok());
  EXPECT_EQ(revoke.error().code, "authority.unknown_grant");
  EXPECT_EQ(revoke.error().message, "no grant \"g_0000000000000000\"");
}

TEST(AuthorityExecution, AnApprovedWriteRunsOnceWithAReceiptAndIsVerifiedByAFreshRead) {
  World w;
  w.GrantWrite("notes");
  std::string id = w.Staged("notes", "add_note", {{"body", "buy milk"}});
  EXPECT_EQ(w.Notes(), 0) << "staging dispatches nothing";
  auto pending = w.authority->Report(id);
  EXPECT_EQ(pending->state, "pending");
  ASSERT_TRUE(w.authority->Approve(id, w.person).ok());
  EXPECT_EQ(w.Notes(), 0) << "approving dispatches nothing";
  auto done = w.authority->Execute(id);
  ASSERT_TRUE(done.ok()) << done.error().ToString();
  EXPECT_EQ(done->state, "verified");
  EXPECT_EQ(w.Notes(), 1);
  EXPECT_EQ(Count(w.NotesDb(), "SELECT count(*) FROM notes WHERE key = 'idem-" + id + "'"), 1);
  ASSERT_TRUE(done->receipt.has_value());
  const store::ReceiptRecord& r = *done->receipt;
  EXPECT_EQ(r.approval_id, id);
  EXPECT_EQ(r.idempotency_key, "idem-" + id);
  EXPECT_EQ(r.request["args"]["body"], "buy milk");
  EXPECT_EQ(r.response["changes"], 1);
  EXPECT_EQ(r.outcome, "executed");
  EXPECT_EQ(r.verification, "verified");
  EXPECT_EQ(r.evidence["verify"]["rows"][0]["body"], "buy milk");
  EXPECT_GT(r.finished_ms, 0);
  EXPECT_EQ(done->approval.decided_by, "user:tester");

  // Executing again, approving again: refused, and the source is unchanged.
  auto again = w.authority->Execute(id);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, "authority.already_executed");
  EXPECT_THAT(again.error().message, HasSubstr("an approval runs one effect once"));
  auto twice = w.authority->Approve(id, w.person);
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().code, "authority.already_decided");
  EXPECT_EQ(w.Notes(), 1);

  std::vector<std::string> kinds;
  for (const auto& e : *w.store->ListActivity({.subject = id})) kinds.push_back(e.kind);
  EXPECT_EQ(kinds, (std::vector<std::string>{"stage", "approve", "execute", "verify"}));
}

TEST(AuthorityExecution, AWriteWithoutAVerifyReadIsExecutedButUnverified) {
  World w;
  w.GrantWrite("notes");
  ASSERT_TRUE(w.authority->Execute(w.Approved("notes", "add_note", {{"body", "x"}})).ok());
  auto done = w.authority->Execute(w.Approved("notes", "wipe", json::object()));
  ASSERT_TRUE(done.ok()) << done.error().ToString();
  EXPECT_EQ(done->state, "executed");
  EXPECT_EQ(done->receipt->verification, "unverified");
  EXPECT_THAT(done->ModelText(), HasSubstr("executed but not verified (unverified)"));
  EXPECT_EQ(w.Notes(), 0);
}

TEST(AuthorityBadInput, EachIsAClearErrorAndNothingRuns) {
  World w;
  w.GrantWrite("notes");
  auto unknown = w.authority->Stage({"notes", "drop_all", json::object()}, Actor::Model());
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, "authority.unknown_mutation");
  EXPECT_EQ(unknown.error().message, "notes has no mutation \"drop_all\"");
  EXPECT_EQ(unknown.error().detail, "its mutations: add_note, wipe");

  auto read = w.authority->Stage({"notes", "note_by_key", {{"key", "a"}}}, Actor::Model());
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().code, "authority.not_a_mutation");

  auto connector = w.authority->Stage({"nope", "add_note", json::object()}, Actor::Model());
  ASSERT_FALSE(connector.ok());
  EXPECT_EQ(connector.error().code, "connect.unknown_connector");

  auto bad = w.authority->Stage({"notes", "add_note", {{"body", ""}}}, Actor::Model());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "authority.bad_args");
  EXPECT_THAT(bad.error().message, HasSubstr("the arguments of notes.add_note do not match its "
                                             "schema: /body"));
  auto extra = w.authority->Stage({"notes", "add_note", {{"body", "a"}, {"x", 1}}}, Actor::Model());
  ASSERT_FALSE(extra.ok());
  EXPECT_EQ(extra.error().code, "authority.bad_args");

  auto tampered = w.authority->Approve("apr_deadbeefdeadbeef", w.person);
  ASSERT_FALSE(tampered.ok());
  EXPECT_EQ(tampered.error().code, "authority.unknown_approval");
  EXPECT_EQ(tampered.error().message, "no approval request \"apr_deadbeefdeadbeef\"");
  EXPECT_EQ(w.authority->Execute("apr_deadbeefdeadbeef").error().code,
            "authority.unknown_approval");

  std::string pending = w.Staged("notes", "add_note", {{"body", "a"}});
  auto early = w.authority->Execute(pending);
  ASSERT_FALSE(early.ok());
  EXPECT_EQ(early.error().code, "authority.not_approved");
  EXPECT_THAT(early.error().message, HasSubstr("affordance approvals approve " + pending));
  auto by_model = w.authority->Approve(pending, Actor::Model());
  ASSERT_FALSE(by_model.ok());
  EXPECT_EQ(by_model.error().code, "authority.not_human");

  ASSERT_TRUE(w.authority->Deny(pending, w.person, "no").ok());
  auto after_deny = w.authority->Approve(pending, w.person);
  ASSERT_FALSE(after_deny.ok());
  EXPECT_EQ(after_deny.error().code, "authority.already_decided");
  EXPECT_EQ(after_deny.error().message,
            "approval " + pending +
                " is already denied (decided by user:tester); a decision is "
                "made once");
  EXPECT_EQ(w.authority->Execute(pending).error().code, "authority.denied");
  EXPECT_EQ(w.Notes(), 0);
}

TEST(AuthorityBadInput, AnApprovalEditedAfterTheDecisionRunsNothing) {
  World w;
  w.GrantWrite("notes");
  std::string id = w.Approved("notes", "add_note", {{"body", "approved text"}});
  // Someone rewrites the approved effect in the store: the approval no longer covers it.
  Exec(w.dir / "data/affordance.db",
       "UPDATE approvals SET args = '{\"body\":\"other text\"}' WHERE id = '" + id + "'");
  auto run = w.authority->Execute(id);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().code, "authority.approval_mismatch");
  EXPECT_THAT(run.error().message, HasSubstr("does not match the effect it would run"));
  EXPECT_EQ(w.Notes(), 0);
  // Refused, with the code, and final: it runs only if staged and approved again.
  auto report = w.authority->Report(id);
  EXPECT_EQ(report->state, "refused");
  EXPECT_THAT(report->approval.reason, HasSubstr("authority.approval_mismatch"));
  auto refuse = w.store->ListActivity({.kind = "refuse"});
  ASSERT_TRUE(refuse.ok());
  ASSERT_EQ(refuse->size(), 1u);
  EXPECT_EQ((*refuse)[0].data["code"], "authority.approval_mismatch");
  EXPECT_EQ(w.authority->Execute(id).error().code, "authority.refused");
}

TEST(AuthorityBadInput, AnExpiredGrantStopsStagingAndExecution) {
  World w;
  ASSERT_TRUE(w.authority->Grant("notes", "", "write", w.now_ms + 60000, w.person).ok());
  std::string id = w.Approved("notes", "add_note", {{"body", "late"}});
  w.now_ms += 120000;
  auto run = w.authority->Execute(id);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().code, "authority.grant_expired");
  EXPECT_THAT(run.error().message, HasSubstr("has expired; ask the user to grant it again: "
                                             "affordance grants grant notes --write"));
  auto stage = w.authority->Stage({"notes", "add_note", {{"body", "b"}}}, Actor::Model());
  ASSERT_FALSE(stage.ok());
  EXPECT_EQ(stage.error().code, "authority.grant_expired");
  EXPECT_EQ(w.Notes(), 0);
  // Refused is final: a fresh grant does not bring it back; staging it again asks anew.
  EXPECT_EQ(w.authority->Report(id)->state, "refused");
  w.GrantWrite("notes");
  auto again = w.authority->Execute(id);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, "authority.refused");
  EXPECT_EQ(w.Notes(), 0);
  ASSERT_TRUE(w.authority->Execute(w.Approved("notes", "add_note", {{"body", "late"}})).ok());
  EXPECT_EQ(w.Notes(), 1);
}

TEST(AuthorityActivity, IsAppendOnly) {
  World w;
  w.GrantWrite("notes");
  Exec(w.dir / "probe.db", "SELECT 1");
  sqlite3* db = nullptr;
  sqlite3_open((w.dir / "data/affordance.db").c_str(), &db);
  EXPECT_NE(sqlite3_exec(db, "UPDATE activity SET kind = 'x'", nullptr, nullptr, nullptr),
            SQLITE_OK);
  EXPECT_THAT(sqlite3_errmsg(db), HasSubstr("append-only"));
  EXPECT_NE(sqlite3_exec(db, "DELETE FROM activity", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  EXPECT_EQ(w.store->ListActivity({})->size(), 1u);
}

}  // namespace
}  // namespace affordance::authority::testing

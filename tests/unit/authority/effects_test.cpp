// Real effects: the calendar file (libical, atomic replace, the UID carries the idempotency key),
// the fixture printed CLI as a child process (idempotency flag, lookup verb), and a source that
// hangs past its timeout after dispatch: outcome unknown, never retried, reconciled.
#include "connect/mutate.h"
#include "support.h"

#include <gmock/gmock.h>

#include <chrono>

namespace affordance::authority::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

size_t Occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(AuthorityCalendar, CreateAndDeleteAreWrittenAtomicallyAndVerifiedByAFreshRead) {
  World w;
  w.GrantWrite("calendar");
  const std::string ics = w.dir / "connectors/calendar.ics";
  std::string id = w.Approved("calendar", "create_event",
                              {{"summary", "Budget sync"},
                               {"start", "2026-12-03T15:00:00Z"},
                               {"end", "2026-12-03T16:00:00Z"},
                               {"location", "Room 9"}});
  auto created = w.authority->Execute(id);
  ASSERT_TRUE(created.ok()) << created.error().ToString();
  EXPECT_EQ(created->state, "verified") << created->ToJson().dump();
  std::string text = ReadText(ics);
  EXPECT_EQ(Occurrences(text, "SUMMARY:Budget sync"), 1u);
  EXPECT_THAT(text, HasSubstr("UID:aff-idem-" + id + "@affordance"));
  EXPECT_THAT(text, HasSubstr("SUMMARY:Team standup"));  // the rest of the file is kept
  for (const auto& e : std::filesystem::directory_iterator(w.dir / "connectors")) {
    EXPECT_EQ(e.path().string().find(".tmp-"), std::string::npos) << e.path();
  }
  // The same key dispatched again changes nothing: the calendar itself records the key.
  auto m = w.road->Find("calendar");
  auto again = connect::WriteCalendar(*m, *m->FindOperation("create_event"), created->approval.args,
                                      created->approval.idempotency_key);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)["already_applied"], true);
  EXPECT_EQ(ReadText(ics), text);

  std::string uid = created->receipt->response["uid"];
  auto removed = w.authority->Execute(w.Approved("calendar", "delete_event", {{"uid", uid}}));
  ASSERT_TRUE(removed.ok()) << removed.error().ToString();
  EXPECT_EQ(removed->state, "verified");
  EXPECT_EQ(removed->receipt->evidence["verify"]["expect"], "absent");
  EXPECT_EQ(Occurrences(ReadText(ics), "Budget sync"), 0u);
}

TEST(AuthorityCalendar, ASourceRefusalIsFailedNotUnknown) {
  World w;
  w.GrantWrite("calendar");
  auto missing = w.authority->Execute(w.Approved("calendar", "delete_event", {{"uid", "nope@x"}}));
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->state, "failed");
  EXPECT_EQ(missing->receipt->response["error"]["code"], "connect.not_found");
  EXPECT_THAT(missing->ModelText(), HasSubstr("Nothing changed"));
  // A time the calendar would refuse is refused when it is staged (issue 43), not at execution.
  auto bad_time = w.authority->Stage(
      {"calendar",
       "create_event",
       {{"summary", "x"}, {"start", "tomorrow"}, {"end", "2026-12-03T16:00:00Z"}}},
      Actor::Model());
  ASSERT_FALSE(bad_time.ok());
  EXPECT_EQ(bad_time.error().code, "authority.bad_args");
  EXPECT_THAT(bad_time.error().message, HasSubstr("is not an ISO 8601 UTC time"));
}

TEST(AuthorityPrintedCli, AWriteVerbGetsTheIdempotencyKeyAndIsVerifiedLive) {
  World w;
  w.GrantWrite("fixture");
  std::string id = w.Approved("fixture", "close_item", {{"id", "4"}});
  auto done = w.authority->Execute(id);
  ASSERT_TRUE(done.ok()) << done.error().ToString();
  EXPECT_EQ(done->state, "verified") << done->ToJson().dump();
  EXPECT_EQ(w.Effects(), 1);
  EXPECT_EQ(Count(w.RemoteDb(), "SELECT count(*) FROM effects WHERE key = 'idem-" + id + "'"), 1);
  EXPECT_EQ(done->receipt->evidence["verify"]["rows"][0]["status"], "closed");
}

TEST(AuthorityPrintedCli, ASourceThatHangsAfterDispatchIsOutcomeUnknownNeverRetriedThenReconciled) {
  World w(/*cli_timeout_ms=*/800);
  w.GrantWrite("fixture");
  setenv("FIXTURE_PP_WRITE_HANG_MS", "5000", 1);
  std::string id = w.Approved("fixture", "close_item", {{"id", "7"}});
  auto started = std::chrono::steady_clock::now();
  auto run = w.authority->Execute(id);
  auto took = std::chrono::steady_clock::now() - started;
  unsetenv("FIXTURE_PP_WRITE_HANG_MS");
  ASSERT_TRUE(run.ok()) << run.error().ToString();
  EXPECT_LT(took, std::chrono::seconds(4)) << "the timeout, not the hang, ended the call";
  EXPECT_EQ(run->state, "outcome_unknown");
  EXPECT_EQ(run->receipt->outcome, "outcome_unknown");
  EXPECT_EQ(run->receipt->response["error"]["code"], "connect.cli_timeout");
  EXPECT_THAT(run->ModelText(), HasSubstr("execution_outcome_unknown"));
  EXPECT_THAT(run->ModelText(), HasSubstr("will not be retried"));
  EXPECT_EQ(w.Effects(), 1) << "dispatched exactly once";

  // Nothing re-runs it: not Execute, not a second approval.
  EXPECT_EQ(w.authority->Execute(id).error().code, "authority.already_executed");
  EXPECT_EQ(w.authority->Approve(id, w.person).error().code, "authority.already_decided");
  EXPECT_EQ(w.Effects(), 1);

  // Reconcile asks the source about the key, and then verifies by a fresh read.
  auto all = w.authority->ReconcileAll();
  ASSERT_TRUE(all.ok()) << all.error().ToString();
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].state, "verified");
  EXPECT_EQ((*all)[0].receipt->outcome, "executed");
  EXPECT_EQ((*all)[0].receipt->evidence["reconcile"]["by"], "idempotency_key_lookup");
  EXPECT_EQ((*all)[0].receipt->evidence["reconcile"]["lookup"]["key"], "idem-" + id);
  EXPECT_EQ(w.Effects(), 1);
  EXPECT_TRUE(w.authority->ReconcileAll()->empty());
  auto log = w.store->ListActivity({.kind = "reconcile"});
  ASSERT_EQ(log->size(), 1u);
  EXPECT_EQ((*log)[0].data["outcome"], "executed");
}

TEST(AuthorityPrintedCli, ReconcileOfAnEffectThatNeverHappenedIsNotExecuted) {
  World w;
  w.GrantWrite("fixture");
  std::string id = w.Approved("fixture", "close_item", {{"id", "8"}});
  // A claim whose process died before dispatch: simulate the row a kill leaves behind.
  Exec(w.dir / "data/affordance.db",
       "UPDATE approvals SET status = 'outcome_unknown', idempotency_key = 'idem-" + id +
           "' WHERE id = '" + id + "'");
  auto r = w.authority->Reconcile(id);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(r->state, "not_executed");
  EXPECT_EQ(w.Effects(), 0);
  EXPECT_THAT(r->ModelText(), HasSubstr("did not take effect"));
}

}  // namespace
}  // namespace affordance::authority::testing

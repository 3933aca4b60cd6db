// Governed writes through the one loop, with the replay provider standing in for the model and a
// real calendar file as the source: read -> stage (the turn ends awaiting approval) -> a person
// decides -> the next turn executes once, receipts, verifies by a fresh read and reports the
// outcome as the staging call's result. And reads that lack a grant.
#include "support.h"

#include <gmock/gmock.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace affordance::harness::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

json StagingSteps() {
  return StagingThen("Thursday 15:00 is free in list_events",
                     {"The budget sync is in the calendar.", "You are welcome."});
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

const store::PartRecord* ToolPartOf(const std::vector<store::MessageRecord>& thread,
                                    const std::string& call_id) {
  for (const auto& m : thread) {
    for (const auto& p : m.parts) {
      if (p.kind == "tool" && p.key == call_id) return &p;
    }
  }
  return nullptr;
}

std::string TranscriptText(Rig& rig) {
  auto thread = rig.store->LoadThread(rig.thread);
  std::string all;
  for (const auto& t : rig.harness->Transcript(*thread)) all += t.content + "\n";
  return all;
}

TEST(HarnessApproval, StagedWriteEndsTheTurnAwaitingApprovalAndAnApprovedOneRunsOnceVerified) {
  Rig rig(StagingSteps(), {.grants = {"read", "write"}});
  const std::string ics = rig.dir / "connectors/calendar.ics";
  const std::string before = ReadText(ics);

  auto staged = rig.Turn("Put a budget sync on Thursday at 15:00.");
  ASSERT_TRUE(staged.ok()) << staged.error().ToString();
  ASSERT_EQ(staged->status, TurnStatus::kAwaitingApproval) << staged->ToJson().dump();
  ASSERT_EQ(staged->ledger.size(), 3u);
  auto requests = rig.OfType("tool-approval-request");
  ASSERT_EQ(requests.size(), 1u);
  const std::string approval = requests[0]["approvalId"];
  const std::string call = requests[0]["toolCallId"];
  EXPECT_EQ(requests[0].size(), 3u) << requests[0].dump();  // type, approvalId, toolCallId only
  EXPECT_EQ(ReadText(ics), before) << "staging dispatched nothing";
  auto pending = rig.harness->authority().Report(approval);
  ASSERT_TRUE(pending.ok());
  EXPECT_EQ(pending->state, "pending");
  EXPECT_EQ(pending->approval.evidence["note"], "Thursday 15:00 is free in list_events");
  EXPECT_EQ(pending->approval.staged_by, "model");

  // The model can never approve; a person can, once.
  auto by_model = rig.harness->authority().Approve(approval, authority::Actor::Model());
  ASSERT_FALSE(by_model.ok());
  EXPECT_EQ(by_model.error().code, "authority.not_human");
  authority::Authority people(*rig.store, rig.road.get());
  ASSERT_TRUE(people.Approve(approval, authority::Actor::User("tester")).ok());

  rig.events.clear();
  auto next = rig.Turn("Is it in?");
  ASSERT_TRUE(next.ok()) << next.error().ToString();
  EXPECT_EQ(next->status, TurnStatus::kAnswered);
  EXPECT_EQ(next->text, "The budget sync is in the calendar.");
  EXPECT_EQ(Count(ReadText(ics), "SUMMARY:Budget sync"), 1u);
  auto done = people.Report(approval);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->state, "verified");
  ASSERT_TRUE(done->receipt.has_value());
  EXPECT_EQ(done->receipt->outcome, "executed");
  EXPECT_EQ(done->receipt->idempotency_key, "idem-" + approval);
  EXPECT_EQ(done->receipt->response["uid"], "aff-idem-" + approval + "@affordance");
  EXPECT_EQ(done->receipt->evidence["verify"]["rows"][0]["summary"], "Budget sync");
  auto shown = rig.OfType("data-approval");
  ASSERT_EQ(shown.size(), 1u);
  EXPECT_EQ(shown[0]["data"]["state"], "verified");

  // The staging call's result is now the outcome, and the model reads it in the next frame.
  auto thread = rig.store->LoadThread(rig.thread);
  const store::PartRecord* part = ToolPartOf(*thread, call);
  ASSERT_NE(part, nullptr);
  EXPECT_EQ(part->state, "verified");
  EXPECT_EQ(part->data["status"], "output-available");
  EXPECT_THAT(TranscriptText(rig), HasSubstr("verified: calendar.create_event"));

  // A third turn does not run it again.
  rig.events.clear();
  ASSERT_TRUE(rig.Turn("Thanks").ok());
  EXPECT_EQ(Count(ReadText(ics), "SUMMARY:Budget sync"), 1u);
  EXPECT_TRUE(rig.OfType("data-approval").empty());

  auto log = rig.store->ListActivity({});
  ASSERT_TRUE(log.ok());
  std::vector<std::string> kinds;
  for (const auto& e : *log) kinds.push_back(e.kind);
  for (const char* k : {"grant", "read", "stage", "approve", "execute", "verify"}) {
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), k), kinds.end()) << k;
  }
}

TEST(HarnessApproval, ADeniedWriteReachesTheModelAsDeniedAndNothingRuns) {
  Rig rig(StagingSteps(), {.grants = {"read", "write"}});
  const std::string ics = rig.dir / "connectors/calendar.ics";
  const std::string before = ReadText(ics);
  auto staged = rig.Turn("Put a budget sync on Thursday at 15:00.");
  ASSERT_TRUE(staged.ok());
  ASSERT_EQ(staged->status, TurnStatus::kAwaitingApproval) << staged->ToJson().dump();
  const std::string approval = rig.OfType("tool-approval-request")[0]["approvalId"];
  const std::string call = rig.OfType("tool-approval-request")[0]["toolCallId"];
  authority::Authority people(*rig.store, rig.road.get());
  ASSERT_TRUE(people.Deny(approval, authority::Actor::User("tester"), "not this week").ok());

  auto next = rig.Turn("ok?");
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(ReadText(ics), before);
  auto thread = rig.store->LoadThread(rig.thread);
  const store::PartRecord* part = ToolPartOf(*thread, call);
  ASSERT_NE(part, nullptr);
  EXPECT_EQ(part->data["status"], "output-denied");
  std::string transcript = TranscriptText(rig);
  EXPECT_THAT(transcript, HasSubstr("denied: a person denied approval " + approval));
  EXPECT_THAT(transcript, HasSubstr("not this week"));
  auto report = people.Report(approval);
  EXPECT_EQ(report->state, "denied");
  EXPECT_FALSE(report->receipt.has_value());
  // A denied request cannot be approved or executed afterwards.
  auto late = people.Approve(approval, authority::Actor::User("tester"));
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.error().code, "authority.already_decided");
  EXPECT_THAT(late.error().message, HasSubstr("is already denied"));
  auto run = people.Execute(approval);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().code, "authority.denied");
  EXPECT_EQ(ReadText(ics), before);
}

// Issue 42: an approval that expires with its write grant before anyone decides is settled like a
// denied one: the staging call's result says it expired and why (authority.approval_expired,
// nothing ran), the claim citing it is unresolved, the approval reads expired, nothing runs.
TEST(HarnessApproval, AnApprovalThatExpiresWithItsGrantIsToldToTheModelAsExpired) {
  Rig rig(StagingThen("Thursday 15:00 is free in list_events",
                      {"It was not added: the request expired [r3].", "Noted."}),
          {.grants = {"read"}});
  const std::string ics = rig.dir / "connectors/calendar.ics";
  const std::string before = ReadText(ics);
  authority::Authority people(*rig.store, rig.road.get());
  // A write grant that ends 6 s from now: the approval it allows ends with it.
  const int64_t grant_ends = store::NowMs() + 6000;
  ASSERT_TRUE(
      people.Grant("calendar", "", "write", grant_ends, authority::Actor::User("tester")).ok());
  ASSERT_EQ(rig.Turn("Put a budget sync on Thursday at 15:00.")->status,
            TurnStatus::kAwaitingApproval);
  const std::string approval = rig.OfType("tool-approval-request")[0]["approvalId"];
  const std::string call = rig.OfType("tool-approval-request")[0]["toolCallId"];
  EXPECT_EQ(people.Report(approval)->state, "pending");
  EXPECT_EQ(people.Report(approval)->approval.expires_ms, grant_ends);
  while (store::NowMs() <= grant_ends + 100) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(people.Report(approval)->state, "expired");  // before anything settled it

  auto late = people.Approve(approval, authority::Actor::User("tester"));
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.error().code, "authority.approval_expired");
  EXPECT_THAT(late.error().message, HasSubstr("the write grant that allowed it ended"));
  auto settled = rig.store->GetApproval(approval);
  ASSERT_TRUE(settled.ok());
  EXPECT_EQ(settled->status, "expired");
  auto again = people.Approve(approval, authority::Actor::User("tester"));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, "authority.already_decided");

  rig.events.clear();
  auto next = rig.Turn("Is it in?");
  ASSERT_TRUE(next.ok()) << next.error().ToString();
  EXPECT_EQ(ReadText(ics), before) << "nothing ran";
  // The staging call's result now says what happened, and the model reads that.
  auto thread = rig.store->LoadThread(rig.thread);
  const store::PartRecord* part = ToolPartOf(*thread, call);
  ASSERT_NE(part, nullptr);
  EXPECT_EQ(part->data["status"], "output-denied");
  EXPECT_EQ(part->state, "expired");
  const std::string transcript = TranscriptText(rig);
  EXPECT_THAT(transcript, HasSubstr("expired (authority.approval_expired): approval " + approval));
  EXPECT_THAT(transcript, HasSubstr("Nothing ran."));
  EXPECT_THAT(transcript, Not(HasSubstr("it waits for a person to approve or deny it")));
  auto shown = rig.OfType("data-approval");
  ASSERT_EQ(shown.size(), 1u);
  EXPECT_EQ(shown[0]["data"]["state"], "expired");
  EXPECT_EQ(shown[0]["data"]["truth"], "expired");
  // The claim citing it is unresolved, with the reason.
  ASSERT_EQ(next->claims.size(), 1u);
  EXPECT_EQ(next->claims[0].cls, ClaimClass::kUnresolved);
  json cited;
  for (const auto& e : rig.OfType("data-citation")) cited = e["data"]["refs"][0];
  EXPECT_EQ(cited["class"], "unresolved");
  EXPECT_EQ(cited["reason"], "the write expired before a person decided: nothing ran");
  // Told once: a later turn does not report it again, and it never runs.
  rig.events.clear();
  ASSERT_TRUE(rig.Turn("Thanks").ok());
  EXPECT_TRUE(rig.OfType("data-approval").empty());
  EXPECT_EQ(ReadText(ics), before);
  auto run = people.Execute(approval);
  ASSERT_FALSE(run.ok());
  auto log = rig.store->ListActivity({});
  ASSERT_TRUE(log.ok());
  EXPECT_TRUE(
      std::any_of(log->begin(), log->end(), [](const auto& e) { return e.kind == "expire"; }));
}

TEST(HarnessApproval,
     AContinuationAfterTheDecisionRunsTheWriteAndTheModelGoesOnWithoutAUserMessage) {
  Rig rig(StagingSteps(), {.grants = {"read", "write"}});
  const std::string ics = rig.dir / "connectors/calendar.ics";
  auto collect = [&](const Event& e) { rig.events.push_back(server::UiChunk(e)); };

  // Nothing to continue before a turn staged anything, or before a person decided.
  auto early = rig.harness->ContinueTurn(rig.thread, collect, model::CancelToken());
  ASSERT_FALSE(early.ok());
  EXPECT_EQ(early.error().code, "harness.nothing_to_continue");
  ASSERT_EQ(rig.Turn("Put a budget sync on Thursday at 15:00.")->status,
            TurnStatus::kAwaitingApproval);
  const std::string approval = rig.OfType("tool-approval-request")[0]["approvalId"];
  const std::string call = rig.OfType("tool-approval-request")[0]["toolCallId"];
  auto undecided = rig.harness->ContinueTurn(rig.thread, collect, model::CancelToken());
  ASSERT_FALSE(undecided.ok());
  EXPECT_EQ(undecided.error().code, "harness.nothing_to_continue");
  EXPECT_EQ(Count(ReadText(ics), "SUMMARY:Budget sync"), 0u);

  authority::Authority people(*rig.store, rig.road.get());
  ASSERT_TRUE(people.Approve(approval, authority::Actor::User("tester")).ok());
  const size_t messages = rig.store->LoadThread(rig.thread)->size();
  rig.events.clear();
  auto next = rig.harness->ContinueTurn(rig.thread, collect, model::CancelToken());
  ASSERT_TRUE(next.ok()) << next.error().ToString();
  EXPECT_EQ(next->status, TurnStatus::kAnswered);
  EXPECT_EQ(next->text, "The budget sync is in the calendar.");
  EXPECT_TRUE(next->user_message_id.empty());
  EXPECT_EQ(Count(ReadText(ics), "SUMMARY:Budget sync"), 1u);
  // The staging call's outcome, for the client that holds its part, before the model's step.
  auto outcome = rig.OfType("tool-output-available");
  ASSERT_FALSE(outcome.empty());
  EXPECT_EQ(outcome[0]["toolCallId"], call);
  EXPECT_EQ(outcome[0]["output"]["state"], "verified");
  // One new message, the assistant's: the model continued after the call's (now decided) result.
  auto thread = rig.store->LoadThread(rig.thread);
  ASSERT_EQ(thread->size(), messages + 1);
  EXPECT_EQ(thread->back().role, "assistant");
  EXPECT_THAT(TranscriptText(rig), HasSubstr("verified: calendar.create_event"));
  // Told once: a second continuation has nothing to do.
  auto again = rig.harness->ContinueTurn(rig.thread, collect, model::CancelToken());
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, "harness.nothing_to_continue");
  EXPECT_EQ(Count(ReadText(ics), "SUMMARY:Budget sync"), 1u);
}

TEST(HarnessApproval, StagingWithoutAWriteGrantIsRefusedAndNamesTheGrant) {
  Rig rig(json::array(
      {Call("ToolSearch", {{"query", "select:invoke_mutation"}}),
       Call("invoke_mutation",
            {{"connector", "calendar"}, {"operation", "create_event"}, {"args", kEvent}}),
       "I cannot."}));
  auto turn = rig.Turn("Add it");
  ASSERT_TRUE(turn.ok());
  EXPECT_EQ(turn->status, TurnStatus::kAnswered);
  EXPECT_EQ(turn->ledger[1].calls[0].error_code, "authority.no_grant");
  EXPECT_THAT(TranscriptText(rig), HasSubstr("affordance grants grant calendar --write"));
  auto list = rig.store->ListApprovals("", "");
  EXPECT_TRUE(list->empty());
}

TEST(HarnessApproval, AReadWithoutAGrantIsRefusedNamingTheGrantToRequest) {
  Rig rig(json::array({Call("RunConnectorCommand",
                            {{"connector", "calendar"},
                             {"request", {{"operation", "list_events"}, {"args", kWeek}}}}),
                       "I need access."}),
          {.grants = {}});
  auto turn = rig.Turn("What is next week?");
  ASSERT_TRUE(turn.ok());
  const CallEntry& c = turn->ledger[0].calls[0];
  EXPECT_EQ(c.outcome, CallEntry::Outcome::kToolError);
  EXPECT_EQ(c.error_code, "authority.no_grant");
  std::string transcript = TranscriptText(rig);
  EXPECT_THAT(transcript, HasSubstr("no read grant for connector calendar (operation list_events); "
                                    "ask the user to grant it: affordance grants grant calendar "
                                    "--read"));
  EXPECT_THAT(transcript, HasSubstr("grants: none"));
  // The refusal is in Activity too.
  auto reads = rig.store->ListActivity({.kind = "read"});
  ASSERT_EQ(reads->size(), 1u);
  EXPECT_EQ((*reads)[0].data["allowed"], false);
}

TEST(HarnessApproval, GrantsAreListedInTheReality) {
  Rig rig(json::array({"hi"}), {.grants = {"read", "write"}});
  ASSERT_TRUE(rig.Turn("hello").ok());
  auto thread = rig.store->LoadThread(rig.thread);
  std::string reality = (*thread)[0].parts[0].data["text"];
  EXPECT_THAT(reality, HasSubstr("- read connector:calendar"));
  EXPECT_THAT(reality, HasSubstr("- write connector:calendar"));
  EXPECT_THAT(reality, Not(HasSubstr("grants: none")));
}

}  // namespace
}  // namespace affordance::harness::testing

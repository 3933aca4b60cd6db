// End states named the same everywhere (issue: "what the person sees is what is true"), through
// the one loop with the replay provider standing in for the model and a real calendar file:
//   - a staged write plus another call in one step ends awaiting_approval with finish, the other
//     call closed "not run", never cancelled;
//   - every call carries an explicit truth state: a malformed one `emitted`, a call closed by a
//     cancellation `parsed` (complete) or `emitted` (cut off while the model wrote it, which is
//     cancelled, not malformed);
//   - an approved write refused at execution (its grant revoked) reads `refused` with the code,
//     in the stream, the store, the report and Activity, and is told to the model once;
//   - a provider error's reason reaches the turn's report.
#include "support.h"

#include <gmock/gmock.h>

#include <algorithm>

namespace affordance::harness::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

std::string Stage() {
  return Call("invoke_mutation",
              {{"connector", "calendar"}, {"operation", "create_event"}, {"args", kEvent}});
}

std::map<std::string, std::string> TruthByCall(const Rig& rig) {
  std::map<std::string, std::string> out;
  for (const auto& t : rig.OfType("data-truth")) out[t["data"]["toolCallId"]] = t["data"]["state"];
  return out;
}

TEST(EndStateReplayModel, AStagedWritePlusAnotherCallEndsAwaitingApprovalWithFinish) {
  Rig rig(json::array({Call("ToolSearch", {{"query", "select:invoke_mutation"}}),
                       Stage() + "\n" + Call("ListComponents", json::object())}),
          {.grants = {"read", "write"}});
  auto turn = rig.Turn("Put a budget sync on Thursday at 15:00.");
  ASSERT_TRUE(turn.ok()) << turn.error().ToString();
  EXPECT_EQ(turn->status, TurnStatus::kAwaitingApproval) << turn->ToJson().dump();
  const auto types = rig.Types();
  EXPECT_EQ(types.back(), "finish");
  EXPECT_EQ(std::count(types.begin(), types.end(), "abort"), 0);
  // The other call: closed, not run, with its reason and a truth state; never an error.
  const auto& calls = turn->ledger.back().calls;
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[1].outcome, CallEntry::Outcome::kNotRun);
  auto errors = rig.OfType("tool-output-error");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0]["toolCallId"], calls[1].id);
  EXPECT_THAT(errors[0]["errorText"].get<std::string>(),
              HasSubstr("harness.not_run: not run: an earlier call of this step ended the turn "
                        "(a staged write waits for approval)"));
  EXPECT_EQ(TruthByCall(rig)[calls[1].id], "parsed");
  // The staged write's effect card reached the client before the turn ended.
  auto cards = rig.OfType("data-approval");
  ASSERT_EQ(cards.size(), 1u);
  EXPECT_EQ(cards[0]["data"]["state"], "pending");
  EXPECT_EQ(cards[0]["data"]["effect"]["summary"], "Create event “Budget sync”");
  EXPECT_EQ(cards[0]["data"]["toolCallId"], calls[0].id);
  auto thread = rig.store->LoadThread(rig.thread);
  ASSERT_TRUE(thread.ok());
  EXPECT_EQ(thread->back().meta["status"], "awaiting_approval");
}

TEST(EndStateReplayModel, AMalformedCallIsEmittedAndTheModelIsTold) {
  Rig rig(json::array({"<tool_call>\n{oops\n</tool_call>", "Sorry."}));
  auto turn = rig.Turn("Hi");
  ASSERT_TRUE(turn.ok());
  auto errors = rig.OfType("tool-input-error");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(TruthByCall(rig)[errors[0]["toolCallId"]], "emitted");
  auto thread = rig.store->LoadThread(rig.thread);
  for (const auto& p : (*thread)[1].parts) {
    if (p.kind == "tool") {
      EXPECT_EQ(p.state, "emitted");
    }
  }
}

TEST(EndStateReplayModel, CancellingWhileTheModelWritesACallSaysCancelledNotMalformed) {
  // A slow model (2 ms a token): the cancel lands as soon as the call has its name, before its
  // arguments.
  json script = {{"format", "qwen3"},
                 {"token_delay_ms", 2},
                 {"steps", json::array({"Let me look. <tool_call>\n{\"name\": \"ListComponents\", "
                                        "\"arguments\": {\"filter\": \"" +
                                        std::string(400, 'x') + "\"}}\n</tool_call>"})}};
  auto parsed = model::ParseReplayScript(script.dump());
  ASSERT_TRUE(parsed.ok()) << parsed.error().ToString();
  auto provider = model::ReplayProvider::Create(Tokenizer(), *parsed);
  ASSERT_TRUE(provider.ok());
  Rig rig(std::move(*provider), Rig::Options{});
  model::CancelToken cancel;
  bool cancelled = false;
  auto turn = rig.Turn("Hi", cancel, [&](const Event& e) {
    if (!cancelled && e.kind == EventKind::kToolInputStart) {
      cancelled = true;
      cancel.Cancel();
    }
  });
  ASSERT_TRUE(turn.ok()) << turn.error().ToString();
  EXPECT_EQ(turn->status, TurnStatus::kCancelled);
  auto errors = rig.OfType("tool-input-error");
  std::string types;
  for (const auto& t : rig.Types()) types += t + " ";
  ASSERT_EQ(errors.size(), 1u) << types;
  const std::string text = errors[0]["errorText"];
  EXPECT_THAT(text, HasSubstr("harness.cancelled"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("<tool_call>")));
  EXPECT_EQ(TruthByCall(rig)[errors[0]["toolCallId"]], "emitted");
  EXPECT_EQ(rig.Types().back(), "abort");
  auto thread = rig.store->LoadThread(rig.thread);
  for (const auto& p : (*thread)[1].parts) {
    if (p.kind == "tool") {
      EXPECT_EQ(p.data["status"], "cancelled");
      EXPECT_EQ(p.data["errorCode"], "harness.cancelled");
    }
  }
}

TEST(EndStateReplayModel, AnApprovedWriteRefusedAtExecutionReadsRefusedEverywhere) {
  Rig rig(json::array({Call("ToolSearch", {{"query", "select:invoke_mutation"}}), Stage(),
                       "It was refused: the write grant was revoked."}),
          {.grants = {"read", "write"}});
  ASSERT_EQ(rig.Turn("Put a budget sync on Thursday at 15:00.")->status,
            TurnStatus::kAwaitingApproval);
  const std::string approval = rig.OfType("tool-approval-request")[0]["approvalId"];
  const std::string call = rig.OfType("tool-approval-request")[0]["toolCallId"];
  authority::Authority people(*rig.store, rig.road.get());
  ASSERT_TRUE(people.Approve(approval, authority::Actor::User("tester")).ok());
  auto grants = people.Grants();
  ASSERT_TRUE(grants.ok());
  for (const auto& g : *grants) {
    if (g.access == "write") {
      ASSERT_TRUE(people.Revoke(g.id, authority::Actor::User("tester")).ok());
    }
  }
  rig.events.clear();
  auto next = rig.harness->ContinueTurn(
      rig.thread, [&](const Event& e) { rig.events.push_back(server::UiChunk(e)); },
      model::CancelToken());
  ASSERT_TRUE(next.ok()) << next.error().ToString();
  // The stream: the call's outcome says refused, with the code.
  auto outcome = rig.OfType("data-approval");
  ASSERT_FALSE(outcome.empty());
  EXPECT_EQ(outcome[0]["data"]["state"], "refused");
  EXPECT_EQ(outcome[0]["data"]["truth"], "refused");
  EXPECT_THAT(outcome[0]["data"]["reason"].get<std::string>(), HasSubstr("authority.no_grant"));
  // The store and the report.
  auto report = people.Report(approval);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->state, "refused");
  EXPECT_THAT(report->ModelText(), HasSubstr("refused"));
  EXPECT_THAT(report->ModelText(), HasSubstr("authority.no_grant"));
  auto thread = rig.store->LoadThread(rig.thread);
  for (const auto& m : *thread) {
    for (const auto& p : m.parts) {
      if (p.kind == "tool" && p.key == call) {
        EXPECT_EQ(p.state, "refused");
      }
    }
  }
  // Activity says it, and the model is told once.
  auto log = rig.store->ListActivity({});
  ASSERT_TRUE(log.ok());
  bool logged = false;
  for (const auto& e : *log) {
    if (e.kind == "refuse" && e.subject == approval) {
      logged = true;
      EXPECT_EQ(e.data["code"], "authority.no_grant");
    }
  }
  EXPECT_TRUE(logged);
  EXPECT_TRUE(people.Report(approval)->approval.reported);
  // Refused is final: executing it again is refused as already settled, nothing is written.
  auto again = people.Execute(approval);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, "authority.refused");
  EXPECT_EQ(ReadText(rig.dir / "connectors/calendar.ics").find("Budget sync"), std::string::npos);
}

TEST(EndStateReplayModel, AProviderErrorCarriesItsReasonInTheReport) {
  // The script has one step; the model's second step finds it exhausted: a provider error.
  Rig rig(json::array({Call("ListComponents", json::object())}));
  auto turn = rig.Turn("Hi");
  ASSERT_TRUE(turn.ok());
  EXPECT_EQ(turn->status, TurnStatus::kProviderError);
  const json report = turn->ToJson();
  EXPECT_EQ(report["error"]["code"], "model.replay_exhausted") << report.dump();
  EXPECT_FALSE(report["error"]["message"].get<std::string>().empty());
  auto thread = rig.store->LoadThread(rig.thread);
  EXPECT_EQ(thread->back().meta["error"]["code"], "model.replay_exhausted");
}

}  // namespace
}  // namespace affordance::harness::testing

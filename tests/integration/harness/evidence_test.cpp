// Evidence on claims through the one loop: the replay provider stands in for the model (none runs
// here), the real tokenizers, frame view, SQLite store and calendar connector do the rest. A cited
// claim of each class, in the stream, the store and a reloaded thread; an invalid citation and the
// note that tells the model; "done" on a denied write shown as unresolved, and on a verified one
// as an effect; the head's bytes across turns; both formats.
#include "server/ui_message.h"
#include "support.h"

#include <gmock/gmock.h>

namespace affordance::harness::testing {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

json ListEvents(const std::string& model) {
  return CallIn(
      model, "RunConnectorCommand",
      {{"connector", "calendar"}, {"request", {{"operation", "list_events"}, {"args", kWeek}}}});
}

const store::MessageRecord& LastAssistant(const std::vector<store::MessageRecord>& thread) {
  for (auto m = thread.rbegin(); m != thread.rend(); ++m) {
    if (m->role == "assistant") return *m;
  }
  static const store::MessageRecord none;
  return none;
}

std::vector<std::string> Classes(const TurnReport& r) {
  std::vector<std::string> out;
  for (const auto& c : r.claims) out.emplace_back(ClaimClassName(c.cls));
  return out;
}

class EvidenceInBothFormats : public ::testing::TestWithParam<std::string> {};

TEST_P(EvidenceInBothFormats, CitedClaimsAreClassedInTheStreamTheStoreAndAReloadedThread) {
  const std::string model = GetParam();
  Rig rig(json::array({ListEvents(model),
                       "This week has 3 events [r1]. The standup moved [r9].\n"
                       "I would keep Friday free.",
                       "Noted."}),
          {.model = model});
  auto report = rig.Turn("What is on this week?");
  ASSERT_TRUE(report.ok()) << report.error().ToString();
  EXPECT_EQ(report->status, TurnStatus::kAnswered);

  // The result the model read carries its reference.
  auto thread = rig.store->LoadThread(rig.thread);
  std::string transcript;
  for (const auto& t : rig.harness->Transcript(*thread)) transcript += t.content;
  EXPECT_THAT(transcript, HasSubstr("<tool-result ref=\"r1\" tool=\"RunConnectorCommand\""));

  // The stream: one data-citation per citation as it is parsed, then the text's citations in the
  // AI SDK form on its text-end.
  auto live = rig.OfType("data-citation");
  ASSERT_EQ(live.size(), 2u);
  EXPECT_EQ(live[0]["transient"], true);
  EXPECT_EQ(live[0]["data"]["citedText"], "[r1]");
  EXPECT_EQ(live[0]["data"]["refs"][0]["class"], "source");
  EXPECT_EQ(live[0]["data"]["refs"][0]["dataState"], "live");  // the local calendar file
  EXPECT_EQ(live[0]["data"]["refs"][0]["connector"], "calendar");
  EXPECT_GE(live[0]["data"]["refs"][0]["rows"].get<int>(), 1);
  EXPECT_EQ(live[1]["data"]["refs"][0]["class"], "invalid");
  json ends;
  for (const auto& e : rig.OfType("text-end")) {
    if (e.contains("citations")) ends = e["citations"];
  }
  ASSERT_EQ(ends.size(), 2u);
  EXPECT_EQ(ends[0]["source"]["id"], "r1");
  EXPECT_EQ(ends[0]["startIndex"], 23);
  EXPECT_EQ(ends[0]["endIndex"], 27);
  EXPECT_EQ(ends[1]["source"]["providerMetadata"]["affordance"]["class"], "invalid");

  // The finalizer: a source claim, an unresolved one (its citation names no result), an
  // inference; counted next to the weakest evidence in data-turn.
  EXPECT_THAT(Classes(*report), ElementsAre("source", "unresolved", "inference"));
  EXPECT_EQ(report->claims[0].text, "This week has 3 events [r1].");
  EXPECT_THAT(report->claims[1].invalid, ElementsAre("r9"));
  auto turn = rig.OfType("data-turn");
  ASSERT_EQ(turn.size(), 1u);
  const auto& truth = turn[0]["data"]["truth"];
  EXPECT_EQ(truth["weakestEvidence"], "live");
  EXPECT_EQ(truth["claims"],
            json({{"source", 1}, {"effect", 0}, {"unresolved", 1}, {"inference", 1}}));
  EXPECT_EQ(truth["invalidCitations"], 1);
  EXPECT_EQ(turn[0]["data"]["claims"][2]["text"], "I would keep Friday free.");

  // The store, and the thread as a reloading client reads it: the same citations on the text.
  thread = rig.store->LoadThread(rig.thread);
  const store::MessageRecord& stored = LastAssistant(*thread);
  EXPECT_EQ(stored.meta["claims"].size(), 3u);
  auto ui = server::ToUiMessage(stored);
  json reloaded;
  for (const auto& p : ui["parts"]) {
    if (p.value("type", "") == "text" && p.contains("citations")) reloaded = p["citations"];
  }
  EXPECT_EQ(reloaded, ends);

  // The next turn tells the model which citation named nothing, once.
  auto next = rig.Turn("And Friday?");
  ASSERT_TRUE(next.ok());
  thread = rig.store->LoadThread(rig.thread);
  std::string reality;
  for (const auto& m : *thread) {
    for (const auto& p : m.parts) {
      if (p.kind == "reality") reality = p.data.value("text", "");
    }
  }
  EXPECT_THAT(reality, HasSubstr("citation check: your previous answer cited [r9], which names no "
                                 "tool result"));
}

TEST_P(EvidenceInBothFormats, TheHeadAndEveryEarlierTurnKeepTheirTokensAcrossTurnsWithCitations) {
  const std::string model = GetParam();
  Rig rig(
      json::array({ListEvents(model), "3 events [r1].", ListEvents(model), "Still 3 [r1, r2]."}),
      {.model = model});
  auto first = rig.Turn("What is on this week?");
  ASSERT_TRUE(first.ok());
  auto second = rig.Turn("Check again");
  ASSERT_TRUE(second.ok());
  ASSERT_EQ(first->audits.size(), 2u);
  ASSERT_EQ(second->audits.size(), 2u);
  const PromptAudit& before = first->audits.back();
  const PromptAudit& after = second->audits.front();
  // The second turn's prompt extends the first turn's last one (its generation prompt is where
  // the answer was sampled), so the head and every earlier turn are byte-identical.
  EXPECT_GE(after.first_changed, before.total - before.owners.at("generation"));
  EXPECT_GT(after.first_changed, before.owners.at("head") + before.owners.at("schemas"));
  EXPECT_THAT(Classes(*second), ElementsAre("source"));
  // The second turn's result is numbered after the first's.
  auto thread = rig.store->LoadThread(rig.thread);
  std::vector<std::string> refs;
  for (const auto& m : *thread) {
    for (const auto& p : m.parts) {
      if (p.kind == "tool") refs.push_back(p.data.value("ref", ""));
    }
  }
  EXPECT_THAT(refs, ElementsAre("r1", "r2"));
}

INSTANTIATE_TEST_SUITE_P(Formats, EvidenceInBothFormats, ::testing::Values(kQwen, kLlama),
                         [](const auto& info) {
                           return std::string(info.param == kQwen ? "Qwen3" : "Llama31");
                         });

TEST(EvidenceOnWrites, DoneOnADeniedWriteIsUnresolvedAndSaysWhy) {
  // The staging call's evidence argument cites [r1]: arguments are data, not prose.
  Rig rig(StagingThen("Thursday 15:00 is free [r1]",
                      {"Done: the budget sync is in your calendar [r3]."}),
          {.grants = {"read", "write"}});
  auto staged = rig.Turn("Put a budget sync on Thursday at 15:00.");
  ASSERT_TRUE(staged.ok());
  ASSERT_EQ(staged->status, TurnStatus::kAwaitingApproval);
  const std::string approval = rig.OfType("tool-approval-request")[0]["approvalId"];
  authority::Authority people(*rig.store, rig.road.get());
  ASSERT_TRUE(people.Deny(approval, authority::Actor::User("tester"), "not this week").ok());

  rig.events.clear();
  auto next = rig.Turn("Is it in?");
  ASSERT_TRUE(next.ok());
  ASSERT_EQ(next->claims.size(), 1u);
  EXPECT_EQ(next->claims[0].cls, ClaimClass::kUnresolved);
  auto live = rig.OfType("data-citation");
  ASSERT_EQ(live.size(), 1u);
  const json facts = live[0]["data"]["refs"][0];
  EXPECT_EQ(facts["class"], "unresolved");
  EXPECT_EQ(facts["status"], "output-denied");
  EXPECT_EQ(facts["reason"], "the write was denied: nothing ran");
  EXPECT_EQ(rig.OfType("data-turn")[0]["data"]["truth"]["claims"]["unresolved"], 1);
}

TEST(EvidenceOnWrites, ACitedVerifiedWriteIsAnEffectAndAStagedOneIsNotYet) {
  Rig rig(json::array(
              {Call("ToolSearch", {{"query", "select:invoke_mutation"}}),
               Call("invoke_mutation",
                    {{"connector", "calendar"}, {"operation", "create_event"}, {"args", kEvent}}),
               "It is staged [r2], waiting for you.", "It is in your calendar [r2]."}),
          {.grants = {"read", "write"}});
  auto staged = rig.Turn("Put a budget sync on Thursday at 15:00.");
  ASSERT_TRUE(staged.ok());
  ASSERT_EQ(staged->status, TurnStatus::kAwaitingApproval);
  const std::string approval = rig.OfType("tool-approval-request")[0]["approvalId"];

  // Before the decision: the staged write is not done.
  auto waiting = rig.Turn("Did you add it?");
  ASSERT_TRUE(waiting.ok());
  ASSERT_EQ(waiting->claims.size(), 2u);
  EXPECT_EQ(waiting->claims[0].cls, ClaimClass::kUnresolved);
  EXPECT_EQ(waiting->claims[0].text, "It is staged [r2],");
  EXPECT_EQ(waiting->claims[1].cls, ClaimClass::kInference);

  authority::Authority people(*rig.store, rig.road.get());
  ASSERT_TRUE(people.Approve(approval, authority::Actor::User("tester")).ok());
  rig.events.clear();
  auto done = rig.Turn("And now?");
  ASSERT_TRUE(done.ok());
  ASSERT_EQ(done->claims.size(), 1u);
  EXPECT_EQ(done->claims[0].cls, ClaimClass::kEffect);
  const json facts = rig.OfType("data-citation")[0]["data"]["refs"][0];
  EXPECT_EQ(facts["truth"], "verified");
  // The earlier turn keeps the class it had when it was written.
  auto thread = rig.store->LoadThread(rig.thread);
  int unresolved = 0;
  for (const auto& m : *thread) {
    if (m.role == "assistant" && m.meta.contains("claims") && !m.meta["claims"].empty() &&
        m.meta["claims"][0]["class"] == "unresolved") {
      ++unresolved;
    }
  }
  EXPECT_EQ(unresolved, 1);
}

}  // namespace
}  // namespace affordance::harness::testing

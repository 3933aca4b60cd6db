// The stop predicates and the finalizer read one ledger; the registry's names, attach and ranking.
#include "harness/ledger.h"
#include "harness/frame_text.h"
#include "harness/registry.h"

#include <gtest/gtest.h>

namespace affordance::harness {
namespace {

StepEntry Step(int i, std::vector<CallEntry::Outcome> calls, std::string finish = "stop") {
  StepEntry s;
  s.index = i;
  s.finish_reason = std::move(finish);
  for (auto o : calls) {
    CallEntry c;
    c.outcome = o;
    s.calls.push_back(c);
  }
  return s;
}

using O = CallEntry::Outcome;

TEST(StopStatus, ContinuesWhileToolsAreCalledAndEndsOnProse) {
  StopOptions opt;
  StepLedger l = {Step(0, {O::kOk})};
  EXPECT_FALSE(StopStatus(l, opt).has_value());
  l.push_back(Step(1, {}));
  EXPECT_EQ(StopStatus(l, opt), TurnStatus::kAnswered);
  l[0].calls[0].surface = true;
  EXPECT_EQ(StopStatus(l, opt), TurnStatus::kSurfaceComposed);
}

TEST(StopStatus, StepLimitErrorLimitTerminalToolCancelErrorAndCustom) {
  StopOptions opt;
  opt.max_steps = 2;
  StepLedger l = {Step(0, {O::kOk}), Step(1, {O::kOk})};
  EXPECT_EQ(StopStatus(l, opt), TurnStatus::kStepLimit);
  opt.max_steps = 12;
  l = {Step(0, {O::kToolError}), Step(1, {O::kInputError}),
       Step(2, {O::kToolError, O::kToolError})};
  EXPECT_EQ(StopStatus(l, opt), TurnStatus::kToolErrorLimit);
  l[1].calls[0].outcome = O::kOk;  // a success in between resets the count
  EXPECT_FALSE(StopStatus(l, opt).has_value());
  l = {Step(0, {O::kOk})};
  l[0].calls[0].ends_turn = true;
  EXPECT_EQ(StopStatus(l, opt), TurnStatus::kAskedUser);
  l = {Step(0, {})};
  l[0].end = StepEntry::End::kAborted;
  EXPECT_EQ(StopStatus(l, opt), TurnStatus::kCancelled);
  l[0].end = StepEntry::End::kError;
  EXPECT_EQ(StopStatus(l, opt), TurnStatus::kProviderError);
  l = {Step(0, {}, "length")};
  EXPECT_EQ(StopStatus(l, opt), TurnStatus::kLengthLimit);
  opt.custom = [](const StepLedger& ledger) { return ledger.size() == 1; };
  l = {Step(0, {O::kOk})};
  EXPECT_EQ(StopStatus(l, opt), TurnStatus::kStopped);
}

TEST(StopStatus, AStagedEffectEndsTheTurnAwaitingApproval) {
  StopOptions opt;
  StepLedger l = {Step(0, {O::kOk, O::kCancelled})};
  l[0].calls[1].outcome = O::kOk;
  EXPECT_FALSE(StopStatus(l, opt).has_value());
  l[0].calls[0].approval_id = "apr_1";
  EXPECT_EQ(StopStatus(l, opt), TurnStatus::kAwaitingApproval);
  EXPECT_EQ(TurnStatusName(TurnStatus::kAwaitingApproval), "awaiting_approval");
}

TEST(StopStatus, WeakestEvidenceIsTheWeakestDataState) {
  StepLedger l = {Step(0, {O::kOk, O::kOk})};
  EXPECT_FALSE(WeakestEvidence(l).has_value());
  l[0].calls[0].data_state = DataState::kLive;
  l[0].calls[1].data_state = DataState::kStale;
  EXPECT_EQ(WeakestEvidence(l), DataState::kStale);
  EXPECT_EQ(DataStateOf("mirrored", "missing"), DataState::kDisconnected);
  EXPECT_EQ(DataStateOf("bogus", "present"), DataState::kEmpty);
}

class FakeTool : public Tool {
 public:
  FakeTool(std::string name, std::string description)
      : spec_{std::move(name), std::move(description)} {}
  const ToolSpec& spec() const override { return spec_; }
  ToolOutcome Execute(ToolContext&, const nlohmann::json&) override { return ToolOutcome::Ok({}); }

 private:
  ToolSpec spec_;
};

TEST(ToolRegistry, NamesAttachAndRanking) {
  ToolRegistry r;
  ASSERT_TRUE(r.AddResident(std::make_unique<FakeTool>("AskUserQuestion", "ask")).ok());
  EXPECT_EQ(r.AddResident(std::make_unique<FakeTool>("AskUserQuestion", "again")).error().code,
            "harness.duplicate_tool");
  EXPECT_EQ(r.AddDeferred(std::make_unique<FakeTool>("bad name!", "")).error().code,
            "harness.bad_tool_name");
  EXPECT_EQ(r.AddDeferred(std::make_unique<FakeTool>(std::string(65, 'a'), "")).error().code,
            "harness.bad_tool_name");
  ASSERT_TRUE(r.AddDeferred(std::make_unique<FakeTool>("calendar__list_events",
                                                       "Events overlapping a time window"))
                  .ok());
  ASSERT_TRUE(
      r.AddDeferred(std::make_unique<FakeTool>("tickets__search", "Search support tickets by text"))
          .ok());
  EXPECT_EQ(r.FindCallable("calendar__list_events"), nullptr);  // deferred, not attached
  auto hits = r.Search("which events are in this window", 5);
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].tool->spec().name, "calendar__list_events");
  EXPECT_TRUE(r.Search("", 5).empty());
  auto bad = r.Attach("calendar__list");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "harness.unknown_tool");
  ASSERT_TRUE(r.Attach("calendar__list_events").ok());
  EXPECT_NE(r.FindCallable("calendar__list_events"), nullptr);
  std::vector<std::unique_ptr<Tool>> app;
  app.push_back(std::make_unique<FakeTool>("AskUserQuestion", "clash"));
  EXPECT_EQ(r.SetAppTools(std::move(app)).error().code, "harness.duplicate_tool");
}

TEST(FrameText, CapCountsCodePointsAndNeverSplitsASequence) {
  std::string s = "aé€😀b";  // 1 + 2 + 3 + 4 + 1 bytes
  std::string t = s;
  EXPECT_EQ(CapText(t, 3), 2u);
  EXPECT_EQ(t, "aé€");
  t = s;
  EXPECT_EQ(CapText(t, 10), 0u);
  EXPECT_EQ(t, s);
  std::string big(kToolResultCap + 5, 'x');
  std::string wrapped = EvidenceText("RunConnectorCommand", big);
  EXPECT_NE(wrapped.find("[truncated: 5 more characters"), std::string::npos);
}

TEST(FrameText, RealityNamesTimeConnectorsHandlesGrantsAndArtifact) {
  Reality r;
  r.now = 1795780800;
  r.connectors.push_back({"calendar", "Team calendar", "stale", r.now - 7200, "not_required", {}});
  r.queries.push_back({"calendar_list_events", "calendar", "list_events"});
  std::string text = RealityText(r);
  EXPECT_NE(text.find("local time: 2026-11-27T12:00:00Z (Friday)"), std::string::npos) << text;
  EXPECT_NE(text.find("- calendar (Team calendar): stale, synced 2 h ago"), std::string::npos);
  EXPECT_NE(text.find("calendar_list_events = calendar.list_events"), std::string::npos);
  EXPECT_NE(text.find("grants: none"), std::string::npos);
  EXPECT_NE(text.find("active artifact: none"), std::string::npos);
}

}  // namespace
}  // namespace affordance::harness

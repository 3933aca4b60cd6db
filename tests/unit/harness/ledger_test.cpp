// The stop predicates and the finalizer read one ledger (src/harness/ledger.cpp).
#include "harness/ledger.h"

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

TEST(StepLedgerJson, ACallThatLoadedASkillCarriesItsNameDigestAndSize) {
  StepLedger l = {Step(0, {O::kOk, O::kOk})};
  l[0].calls[0].skill = SkillEntry{"week-table", std::string(64, 'a'), 120};
  const nlohmann::json j = ToJson(l[0]);
  EXPECT_EQ(
      j["calls"][0]["skill"],
      nlohmann::json({{"name", "week-table"}, {"sha256", std::string(64, 'a')}, {"bytes", 120}}));
  EXPECT_FALSE(j["calls"][1].contains("skill"));
}

}  // namespace
}  // namespace affordance::harness

// The stop predicates and the finalizer read one ledger (src/harness/ledger.cpp).
#include "harness/ledger.h"
#include "connect/result.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

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
  l[0].calls[0].data_state = DataState::kPartial;
  EXPECT_EQ(WeakestEvidence(l), DataState::kPartial);
  l[0].calls[1].data_state = DataState::kLocal;
  EXPECT_EQ(WeakestEvidence(l), DataState::kPartial);
}

// Issue 42: every freshness state the connector road can report names its own data state, so a
// local source never reads as "empty". A state added to the road without one fails here.
TEST(DataStates, EveryFreshnessStateOfTheRoadHasItsOwnDataState) {
  std::set<std::string> names;
  for (DataState d : AllDataStates()) {
    const std::string name(DataStateName(d));
    EXPECT_TRUE(names.insert(name).second) << name << " names two data states";
    EXPECT_EQ(ParseDataState(name), d) << name;
  }
  EXPECT_EQ(names.size(), 8u);
  for (std::string_view freshness : connect::kFreshnessStates) {
    ASSERT_TRUE(ParseDataState(freshness).has_value()) << freshness << " has no data state";
    for (const char* credential : {"not_required", "present"}) {
      EXPECT_EQ(DataStateName(DataStateOf(freshness, credential)), freshness) << freshness;
    }
    EXPECT_EQ(DataStateOf(freshness, "missing"), DataState::kDisconnected);
    EXPECT_EQ(DataStateOf(freshness, "rejected"), DataState::kDisconnected);
    EXPECT_EQ(DataStateOf(freshness, "present", /*partial=*/true), DataState::kPartial);
  }
  EXPECT_EQ(DataStateOf("local", "not_required"), DataState::kLocal);
  // Strength orders every state, strongest first, none equal.
  for (size_t i = 1; i < AllDataStates().size(); ++i) {
    EXPECT_GT(DataStrength(AllDataStates()[i - 1]), DataStrength(AllDataStates()[i]));
  }
  EXPECT_LT(DataStrength(DataState::kPartial), DataStrength(DataState::kStale));
  EXPECT_GT(DataStrength(DataState::kPartial), DataStrength(DataState::kEmpty));
}

// The road's code writes freshness states as literals (`f.state = "local"`, ternaries across
// lines included): each literal it can assign is one of connect::kFreshnessStates.
TEST(DataStates, TheRoadAssignsNoFreshnessStateOutsideTheList) {
  const std::set<std::string> known(connect::kFreshnessStates.begin(),
                                    connect::kFreshnessStates.end());
  const std::regex assignment(R"(\b(?:f|freshness)\.state\s*=([^;]*);)");
  const std::regex literal(R"re("([a-z_]+)")re");
  int seen = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(AFFORDANCE_SOURCE_DIR) + "/src/connect")) {
    if (entry.path().extension() != ".cpp") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string code = text.str();
    for (std::sregex_iterator a(code.begin(), code.end(), assignment), end; a != end; ++a) {
      const std::string rhs = (*a)[1];
      for (std::sregex_iterator l(rhs.begin(), rhs.end(), literal); l != end; ++l) {
        ++seen;
        EXPECT_TRUE(known.count((*l)[1]))
            << entry.path() << ": \"" << (*l)[1] << "\" is not in connect::kFreshnessStates";
      }
    }
  }
  EXPECT_GE(seen, 8) << "the road's freshness assignments were not found";
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

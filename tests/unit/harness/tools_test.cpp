// The resident tools one by one (src/harness/*.cpp, listed in tools.h), called as the loop calls
// them: the arguments already validated against their schema, a ToolContext with the registry.
// A real SQLite store and the example calendar connector where a tool needs them; no model.
#include "harness/tools.h"

#include "authority/authority.h"
#include "connect/manifest.h"
#include "harness/registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace affordance::harness {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

std::string Source(const std::string& rel) {
  return std::string(AFFORDANCE_SOURCE_DIR) + "/" + rel;
}

class FakeDeferred : public Tool {
 public:
  FakeDeferred(std::string name, std::string description) : spec_{name, description} {}
  const ToolSpec& spec() const override { return spec_; }
  ToolOutcome Execute(ToolContext&, const nlohmann::json&) override { return ToolOutcome::Ok({}); }

 private:
  ToolSpec spec_;
};

TEST(ToolAskUserQuestion, ShowsTheQuestionAndEndsTheTurn) {
  auto tool = MakeAskUserQuestion();
  EXPECT_EQ(tool->spec().name, "AskUserQuestion");
  ToolContext ctx;
  ToolOutcome o = tool->Execute(ctx, {{"question", "Which day?"}, {"choices", {"Mon", "Tue"}}});
  ASSERT_TRUE(o.ok);
  EXPECT_TRUE(o.ends_turn);
  EXPECT_EQ(o.output["question"], "Which day?");
  EXPECT_EQ(o.output["choices"].size(), 2u);
  EXPECT_EQ(tool->Execute(ctx, {{"question", "Why?"}}).output["choices"], nlohmann::json::array());
}

TEST(ToolToolSearch, SelectAttachesExactNamesAndWordsRankDeferredTools) {
  ToolRegistry registry;
  ASSERT_TRUE(registry
                  .AddDeferred(std::make_unique<FakeDeferred>("calendar__list_events",
                                                              "Events in a "
                                                              "time window"))
                  .ok());
  ASSERT_TRUE(
      registry.AddDeferred(std::make_unique<FakeDeferred>("tickets__search", "Search tickets"))
          .ok());
  auto tool = MakeToolSearch(nullptr);
  ToolContext ctx;
  ctx.registry = &registry;

  ToolOutcome exact = tool->Execute(ctx, {{"query", "select: tickets__search ,"}});
  ASSERT_TRUE(exact.ok) << exact.error.ToString();
  EXPECT_EQ(exact.output["attached"], 1);
  EXPECT_EQ(exact.output["tools"][0]["name"], "tickets__search");
  EXPECT_NE(registry.FindCallable("tickets__search"), nullptr);
  EXPECT_EQ(registry.FindCallable("calendar__list_events"), nullptr);

  ToolOutcome ranked = tool->Execute(ctx, {{"query", "events in this window"}, {"max_results", 1}});
  ASSERT_TRUE(ranked.ok);
  EXPECT_EQ(ranked.output["tools"][0]["name"], "calendar__list_events");
  EXPECT_NE(registry.FindCallable("calendar__list_events"), nullptr);

  ToolOutcome unknown = tool->Execute(ctx, {{"query", "select:calendar__nope"}});
  ASSERT_FALSE(unknown.ok);
  EXPECT_EQ(unknown.error.code, "harness.unknown_tool");
  ToolOutcome empty = tool->Execute(ctx, {{"query", "select: , "}});
  ASSERT_FALSE(empty.ok);
  EXPECT_EQ(empty.error.code, "harness.bad_arguments");
  ToolOutcome none = tool->Execute(ctx, {{"query", "zzzz qqqq"}});
  ASSERT_TRUE(none.ok);
  EXPECT_EQ(none.output["attached"], 0);
  EXPECT_THAT(none.output["note"].get<std::string>(), HasSubstr("no deferred tool matches"));
}

TEST(ToolListComponents, AllOrTheNamedOnesAndAnUnknownNameIsSaid) {
  auto tool = MakeListComponents();
  ToolContext ctx;
  ToolOutcome all = tool->Execute(ctx, nlohmann::json::object());
  ASSERT_TRUE(all.ok);
  EXPECT_GT(all.output["components"].size(), 5u);
  ToolOutcome named = tool->Execute(ctx, {{"names", {"Table", "Nope"}}});
  ASSERT_TRUE(named.ok);
  ASSERT_EQ(named.output["components"].size(), 1u);
  EXPECT_EQ(named.output["components"][0]["name"], "Table");
  EXPECT_THAT(named.output["components"][0]["signature"].get<std::string>(), HasSubstr("Table("));
  EXPECT_EQ(named.output["unknown"][0], "Nope");
  ToolOutcome none = tool->Execute(ctx, {{"names", {"Nope"}}});
  ASSERT_FALSE(none.ok);
  EXPECT_EQ(none.error.code, "harness.unknown_component");
  EXPECT_THAT(none.error.detail, HasSubstr("Table"));
}

class ToolsWithData : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("affordance-tools-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_ / "connectors");
    fs::copy_file(Source("examples/connectors/calendar.ics"), dir_ / "connectors/calendar.ics");
    fs::copy_file(Source("examples/connectors/calendar.json"), dir_ / "connectors/calendar.json");
    auto store = store::OpenSqlite((dir_ / "affordance.db").string());
    ASSERT_TRUE(store.ok());
    store_ = std::move(*store);
    auto manifests = connect::LoadManifests((dir_ / "connectors").string());
    ASSERT_TRUE(manifests.ok()) << manifests.error().ToString();
    std::vector<connect::ConnectorManifest> calendar;
    for (auto& m : *manifests) {
      if (m.slug == "calendar") calendar.push_back(m);
    }
    connect::RoadOptions ro;
    ro.data_dir = (dir_ / "data").string();
    road_ = std::make_unique<connect::ConnectorRoad>(std::move(calendar), ro);
    authority_ = std::make_unique<authority::Authority>(*store_, road_.get());
  }
  void TearDown() override {
    authority_.reset();
    road_.reset();
    store_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  fs::path dir_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<connect::ConnectorRoad> road_;
  std::unique_ptr<authority::Authority> authority_;
};

TEST_F(ToolsWithData, RunConnectorCommandNeedsARoadAndAReadGrantThenServesEvidence) {
  ToolContext ctx;
  const nlohmann::json list = {
      {"connector", "calendar"},
      {"request",
       {{"operation", "list_events"},
        {"args", {{"from", "2026-01-01T00:00:00Z"}, {"to", "2027-01-01T00:00:00Z"}}}}}};
  ToolOutcome no_road = MakeRunConnectorCommand(nullptr, nullptr)->Execute(ctx, list);
  ASSERT_FALSE(no_road.ok);
  EXPECT_EQ(no_road.error.code, "connect.unknown_connector");

  auto tool = MakeRunConnectorCommand(road_.get(), authority_.get());
  ToolOutcome refused = tool->Execute(ctx, list);
  ASSERT_FALSE(refused.ok);
  EXPECT_EQ(refused.error.code, "authority.no_grant");
  EXPECT_EQ(refused.error.kind, ErrorKind::kForbidden);

  ASSERT_TRUE(authority_->Grant("calendar", "", "read", 0, authority::Actor::User("tester")).ok());
  ToolOutcome read = tool->Execute(ctx, list);
  ASSERT_TRUE(read.ok) << read.error.code << ": " << read.error.ToString();
  ASSERT_TRUE(read.data_state.has_value());
  EXPECT_EQ(read.connector, "calendar");

  // The deferred operation tools: one per readable operation, none for a mutation.
  auto ops = MakeConnectorOperations(*road_, authority_.get());
  ASSERT_FALSE(ops.empty());
  for (const auto& op : ops) {
    EXPECT_EQ(op->spec().name.rfind("calendar__", 0), 0u) << op->spec().name;
    EXPECT_EQ(op->spec().capability, "connector_operation");
  }
  for (const auto& m : road_->manifests()) {
    for (const auto& op : m.operations) {
      const bool listed = std::any_of(ops.begin(), ops.end(), [&](const auto& t) {
        return t->spec().name == OperationToolName(m.slug, op.name);
      });
      EXPECT_EQ(listed, op.readable()) << op.name;
    }
  }
}

TEST_F(ToolsWithData, ComposeUiStoresAValidProgramAsAnArtifactAndRefusesAnInvalidOne) {
  auto tool = MakeComposeUI(store_.get(), surface::HandlesOf(road_.get()));
  auto thread = store_->CreateThread("");
  ASSERT_TRUE(thread.ok());
  auto message = store_->AddMessage(thread->id, "assistant", "running", {});
  ASSERT_TRUE(message.ok());
  ToolContext ctx;
  ctx.thread_id = thread->id;
  ctx.message_id = message->id;
  ctx.call_id = "c1";

  ToolOutcome bad = tool->Execute(ctx, {{"program", "root = Table(("}});
  ASSERT_FALSE(bad.ok);
  EXPECT_EQ(bad.error.code.rfind("surface.", 0), 0u) << bad.error.code;

  ToolOutcome ok =
      tool->Execute(ctx, {{"program", "root = Table([Col(\"Event\", [\"Board meeting\"])])\n"}});
  ASSERT_TRUE(ok.ok) << ok.error.ToString();
  ASSERT_TRUE(ok.surface.has_value());
  EXPECT_FALSE(ok.surface->live);
  EXPECT_FALSE(ok.surface->artifact_id.empty());
  auto artifacts = store_->ListArtifacts();
  ASSERT_TRUE(artifacts.ok());
  ASSERT_EQ(artifacts->size(), 1u);
  EXPECT_EQ((*artifacts)[0].id, ok.surface->artifact_id);
}

}  // namespace
}  // namespace affordance::harness

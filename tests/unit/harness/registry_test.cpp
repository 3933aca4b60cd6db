// The ToolRegistry (src/harness/registry.cpp): the four sets of tools (resident, deferred,
// attached, app), what is callable when, the names it refuses, and ToolSearch's ranking.
#include "harness/registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace affordance::harness {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class FakeTool : public Tool {
 public:
  FakeTool(std::string name, std::string description)
      : spec_{std::move(name), std::move(description)} {}
  const ToolSpec& spec() const override { return spec_; }
  ToolOutcome Execute(ToolContext&, const nlohmann::json&) override { return ToolOutcome::Ok({}); }

 private:
  ToolSpec spec_;
};

std::unique_ptr<Tool> Fake(const std::string& name, const std::string& description = "") {
  return std::make_unique<FakeTool>(name, description);
}

std::vector<std::string> Names(const std::vector<const Tool*>& tools) {
  std::vector<std::string> out;
  for (const Tool* t : tools) out.push_back(t->spec().name);
  return out;
}

std::vector<std::string> Names(const std::vector<SearchHit>& hits) {
  std::vector<std::string> out;
  for (const auto& h : hits) out.push_back(h.tool->spec().name);
  return out;
}

std::vector<std::unique_ptr<Tool>> Tools(std::vector<std::string> names) {
  std::vector<std::unique_ptr<Tool>> out;
  for (auto& n : names) out.push_back(Fake(n));
  return out;
}

TEST(ToolName, OneToSixtyFourLettersDigitsUnderscoresOrDashes) {
  EXPECT_TRUE(IsValidToolName("a"));
  EXPECT_TRUE(IsValidToolName("calendar__list_events"));
  EXPECT_TRUE(IsValidToolName("Tool-2"));
  EXPECT_TRUE(IsValidToolName(std::string(64, 'x')));
  EXPECT_FALSE(IsValidToolName(""));
  EXPECT_FALSE(IsValidToolName(std::string(65, 'x')));
  EXPECT_FALSE(IsValidToolName("two words"));
  EXPECT_FALSE(IsValidToolName("dot.name"));
  EXPECT_FALSE(IsValidToolName("café"));  // non-ASCII letters are not OpenAI name characters
}

TEST(ToolSpec, ToJsonIsAFunctionDeclarationWithoutAnEmptyDescription) {
  ToolSpec spec{"Echo", "says it again", {{"type", "object"}}};
  EXPECT_EQ(spec.ToJson().dump(),
            R"({"type":"function","function":{"name":"Echo","description":"says it again",)"
            R"("parameters":{"type":"object"}}})");
  spec.description.clear();
  EXPECT_EQ(spec.ToJson().dump(),
            R"({"type":"function","function":{"name":"Echo","parameters":{"type":"object"}}})");
}

TEST(ToolRegistry, RefusesBadAndDuplicateNamesAcrossEverySet) {
  ToolRegistry r;
  ASSERT_TRUE(r.AddResident(Fake("AskUserQuestion")).ok());
  ASSERT_TRUE(r.AddDeferred(Fake("calendar__list_events")).ok());

  auto resident_twice = r.AddResident(Fake("AskUserQuestion"));
  ASSERT_FALSE(resident_twice.ok());
  EXPECT_EQ(resident_twice.error().code, "harness.duplicate_tool");
  EXPECT_EQ(resident_twice.error().message, "two tools are named \"AskUserQuestion\"");
  // A deferred tool may not take a resident's name, nor a resident a deferred one's.
  EXPECT_EQ(r.AddDeferred(Fake("AskUserQuestion")).error().code, "harness.duplicate_tool");
  EXPECT_EQ(r.AddResident(Fake("calendar__list_events")).error().code, "harness.duplicate_tool");

  auto bad = r.AddDeferred(Fake("bad name!"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "harness.bad_tool_name");
  EXPECT_EQ(bad.error().message, "a tool name must be 1-64 letters, digits, '_' or '-'");
  EXPECT_EQ(bad.error().detail, "bad name!");
  EXPECT_EQ(r.AddResident(Fake("")).error().code, "harness.bad_tool_name");
  EXPECT_EQ(r.AddDeferred(Fake(std::string(65, 'a'))).error().code, "harness.bad_tool_name");

  // Nothing refused was registered.
  EXPECT_THAT(Names(r.Resident()), ElementsAre("AskUserQuestion"));
  EXPECT_THAT(Names(r.Deferred()), ElementsAre("calendar__list_events"));
}

TEST(ToolRegistry, ResidentIsInRegistrationOrderAndDeferredSortedByName) {
  ToolRegistry r;
  for (const char* n : {"ToolSearch", "AskUserQuestion", "ComposeUI"}) {
    ASSERT_TRUE(r.AddResident(Fake(n)).ok());
  }
  for (const char* n : {"tickets__search", "calendar__list_events", "mail__read"}) {
    ASSERT_TRUE(r.AddDeferred(Fake(n)).ok());
  }
  EXPECT_THAT(Names(r.Resident()), ElementsAre("ToolSearch", "AskUserQuestion", "ComposeUI"));
  EXPECT_THAT(Names(r.Deferred()),
              ElementsAre("calendar__list_events", "mail__read", "tickets__search"));
  EXPECT_TRUE(r.AppTools().empty());
}

TEST(ToolRegistry, ADeferredToolIsCallableOnlyOnceAttachedAndUntilCleared) {
  ToolRegistry r;
  ASSERT_TRUE(r.AddResident(Fake("ToolSearch")).ok());
  ASSERT_TRUE(r.AddDeferred(Fake("calendar__list_events")).ok());
  EXPECT_NE(r.FindCallable("ToolSearch"), nullptr);  // resident: always callable
  EXPECT_EQ(r.FindCallable("calendar__list_events"), nullptr);
  EXPECT_NE(r.Find("calendar__list_events"), nullptr);  // known, though not callable
  EXPECT_TRUE(r.IsDeferred("calendar__list_events"));
  EXPECT_FALSE(r.IsDeferred("ToolSearch"));

  ASSERT_TRUE(r.Attach("calendar__list_events").ok());
  EXPECT_NE(r.FindCallable("calendar__list_events"), nullptr);
  EXPECT_THAT(r.attached(), ElementsAre("calendar__list_events"));
  ASSERT_TRUE(r.Attach("calendar__list_events").ok());  // attaching twice is harmless
  EXPECT_EQ(r.attached().size(), 1u);

  r.ClearAttached();  // a new turn
  EXPECT_EQ(r.FindCallable("calendar__list_events"), nullptr);
  EXPECT_TRUE(r.attached().empty());
  EXPECT_EQ(r.FindCallable("nothing"), nullptr);
  EXPECT_EQ(r.Find("nothing"), nullptr);
}

TEST(ToolRegistry, AttachingAnUnknownNameNamesTheClosestDeferredTools) {
  ToolRegistry r;
  ASSERT_TRUE(r.AddResident(Fake("ToolSearch", "find deferred tools")).ok());
  ASSERT_TRUE(r.AddDeferred(Fake("calendar__list_events", "Events in a time window")).ok());
  ASSERT_TRUE(r.AddDeferred(Fake("calendar__get_event", "One event by id")).ok());
  ASSERT_TRUE(r.AddDeferred(Fake("tickets__search", "Search support tickets")).ok());

  auto typo = r.Attach("calendar__list");
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.error().code, "harness.unknown_tool");
  EXPECT_EQ(typo.error().message, "no deferred tool is named \"calendar__list\"");
  EXPECT_THAT(typo.error().detail, HasSubstr("closest: calendar__list_events"));
  EXPECT_THAT(typo.error().detail, ::testing::Not(HasSubstr("tickets__search")));

  // A resident tool is not deferred: attaching it is the same error, and nothing close is named.
  auto resident = r.Attach("ToolSearch");
  ASSERT_FALSE(resident.ok());
  EXPECT_EQ(resident.error().code, "harness.unknown_tool");
  EXPECT_EQ(r.Attach("zzz").error().detail, "");
  EXPECT_TRUE(r.attached().empty());
}

TEST(ToolRegistry, AppToolsAreReplacedOnEachSetAndNeverShadowAnotherTool) {
  ToolRegistry r;
  ASSERT_TRUE(r.AddResident(Fake("AskUserQuestion")).ok());
  ASSERT_TRUE(r.AddDeferred(Fake("calendar__list_events")).ok());

  ASSERT_TRUE(r.SetAppTools(Tools({"scroll__numbers", "change__notes"})).ok());
  EXPECT_THAT(Names(r.AppTools()), ElementsAre("scroll__numbers", "change__notes"));
  EXPECT_NE(r.FindCallable("change__notes"), nullptr);  // app actions are callable at once

  ASSERT_TRUE(r.SetAppTools(Tools({"change__notes"})).ok());  // the next render's projection
  EXPECT_THAT(Names(r.AppTools()), ElementsAre("change__notes"));
  EXPECT_EQ(r.FindCallable("scroll__numbers"), nullptr);

  for (const char* clash : {"AskUserQuestion", "calendar__list_events"}) {
    auto s = r.SetAppTools(Tools({"ok_action", clash}));
    ASSERT_FALSE(s.ok()) << clash;
    EXPECT_EQ(s.error().code, "harness.duplicate_tool");
    EXPECT_EQ(s.error().message,
              "the app action \"" + std::string(clash) + "\" has the name of another tool");
    EXPECT_TRUE(r.AppTools().empty()) << "a refused set leaves no app tools";
  }
  auto twice = r.SetAppTools(Tools({"same", "same"}));
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().code, "harness.duplicate_tool");
  EXPECT_TRUE(r.AppTools().empty());

  // A resident or deferred tool registered later may not take an app action's name either.
  ASSERT_TRUE(r.SetAppTools(Tools({"change__notes"})).ok());
  EXPECT_EQ(r.AddDeferred(Fake("change__notes")).error().code, "harness.duplicate_tool");
}

TEST(ToolSearchRanking, RanksOnlyDeferredToolsByNameAndDescription) {
  ToolRegistry r;
  ASSERT_TRUE(r.AddResident(Fake("ComposeUI", "events calendar window everything")).ok());
  ASSERT_TRUE(
      r.AddDeferred(Fake("calendar__list_events", "Events overlapping a time window")).ok());
  ASSERT_TRUE(r.AddDeferred(Fake("tickets__search", "Search support tickets by text")).ok());
  ASSERT_TRUE(r.AddDeferred(Fake("mail__read", "Read one mail message")).ok());

  auto hits = r.Search("which events are in this window", 5);
  ASSERT_EQ(Names(hits), std::vector<std::string>{"calendar__list_events"});  // no resident
  EXPECT_GT(hits[0].score, 0);
  EXPECT_THAT(Names(r.Search("search tickets", 5)), ElementsAre("tickets__search"));
  // Case and punctuation do not matter: the query is cut into lower-cased word pieces.
  EXPECT_THAT(Names(r.Search("MAIL-message?", 5)), ElementsAre("mail__read"));
}

TEST(ToolSearchRanking, TheNameOutranksAPassingMentionAndPrefixesCountHalf) {
  ToolRegistry r;
  ASSERT_TRUE(r.AddDeferred(Fake("tickets__search", "Search support tickets")).ok());
  ASSERT_TRUE(r.AddDeferred(Fake("calendar__list_events", "Events in a time window")).ok());
  ASSERT_TRUE(
      r.AddDeferred(Fake("mail__read", "Read one mail message, with the ticket it answers")).ok());

  // "ticket" is a prefix of a word that tickets__search's name and description repeat, and a
  // whole word mentioned once in mail's description: both rank, the named tool first.
  EXPECT_THAT(Names(r.Search("ticket", 5)), ElementsAre("tickets__search", "mail__read"));
  EXPECT_THAT(Names(r.Search("tickets", 5)), ElementsAre("tickets__search"));
  EXPECT_THAT(Names(r.Search("event", 5)), ElementsAre("calendar__list_events"));
  // Prefixes shorter than three characters find nothing.
  EXPECT_TRUE(r.Search("ev", 5).empty());
}

TEST(ToolSearchRanking, EmptyQueriesNoToolsAndMaxResults) {
  ToolRegistry empty;
  EXPECT_TRUE(empty.Search("anything", 5).empty());

  ToolRegistry r;
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(r.AddDeferred(Fake("report_" + std::to_string(i), "a report")).ok());
  }
  EXPECT_TRUE(r.Search("", 5).empty());
  EXPECT_TRUE(r.Search("  ,;  ", 5).empty());  // no word pieces at all
  EXPECT_TRUE(r.Search("weather", 5).empty());
  EXPECT_EQ(r.Search("report", 3).size(), 3u);
  EXPECT_EQ(r.Search("report", 10).size(), 6u);
  EXPECT_TRUE(r.Search("report", 0).empty());
  // Equal scores keep the registry's order (sorted by name).
  EXPECT_THAT(Names(r.Search("report", 2)), ElementsAre("report_0", "report_1"));
}

TEST(ToolSearchRanking, NonAsciiWordsAreComparedAsTheyAre) {
  ToolRegistry r;
  ASSERT_TRUE(r.AddDeferred(Fake("kalender__termine", "Termine für die Woche")).ok());
  ASSERT_TRUE(r.AddDeferred(Fake("mail__read", "Read one mail message")).ok());
  EXPECT_THAT(Names(r.Search("für", 5)), ElementsAre("kalender__termine"));
  EXPECT_TRUE(r.Search("fur", 5).empty());  // no folding of accents
}

}  // namespace
}  // namespace affordance::harness

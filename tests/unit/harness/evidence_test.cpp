// Evidence on claims (harness/evidence.h): how a cited result is classed, how prose is cut into
// claims, and the AI SDK form of a text part's citations.
#include "harness/evidence.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace affordance::harness {
namespace {

using nlohmann::json;

store::PartRecord ToolPart(const std::string& ref, const std::string& status,
                           const std::string& state, json extra = json::object()) {
  store::PartRecord p;
  p.kind = "tool";
  p.key = "call-" + ref;
  p.state = state;
  p.data = {{"ref", ref}, {"toolName", "RunConnectorCommand"}, {"status", status}};
  for (auto& [k, v] : extra.items()) p.data[k] = v;
  return p;
}

std::string ClassOf(const store::PartRecord& part) {
  auto r = ReferenceOf(part);
  EXPECT_TRUE(r.has_value());
  return ResolveCitation(r->ref, &*r)["class"];
}

TEST(EvidenceCitation, AReadThatServedRowsIsASourceWithItsFreshnessAndRows) {
  auto part = ToolPart("r1", "output-available", "executed",
                       {{"dataState", "mirrored"},
                        {"connector", "calendar"},
                        {"rows", 3},
                        {"syncedAt", 1795780000}});
  auto r = ReferenceOf(part);
  ASSERT_TRUE(r.has_value());
  json facts = ResolveCitation("r1", &*r);
  EXPECT_EQ(facts, json({{"ref", "r1"},
                         {"class", "source"},
                         {"toolCallId", "call-r1"},
                         {"toolName", "RunConnectorCommand"},
                         {"status", "output-available"},
                         {"truth", "executed"},
                         {"dataState", "mirrored"},
                         {"connector", "calendar"},
                         {"syncedAt", 1795780000},
                         {"rows", 3}}));
  // An empty read is still what the source said; a request that matched no operation is not.
  EXPECT_EQ(ClassOf(ToolPart("r2", "output-available", "executed",
                             {{"dataState", "empty"}, {"connector", "calendar"}, {"rows", 0}})),
            "source");
  EXPECT_EQ(ClassOf(ToolPart("r3", "output-available", "executed",
                             {{"dataState", "mirrored"}, {"connector", "calendar"}})),
            "unresolved");
  // A local source is a source; a partial read (some detail reads failed) is not full evidence.
  EXPECT_EQ(ClassOf(ToolPart("r4", "output-available", "executed",
                             {{"dataState", "local"}, {"connector", "notes"}, {"rows", 2}})),
            "source");
  auto partial = ToolPart("r5", "output-available", "executed",
                          {{"dataState", "partial"}, {"connector", "fixture"}, {"rows", 11}});
  auto p = ReferenceOf(partial);
  json facts5 = ResolveCitation("r5", &*p);
  EXPECT_EQ(facts5["class"], "unresolved");
  EXPECT_EQ(facts5["dataState"], "partial");
  EXPECT_THAT(facts5["reason"].get<std::string>(), ::testing::HasSubstr("partial"));
}

TEST(EvidenceCitation, AWriteIsAnEffectOnlyWhenExecutedOrVerified) {
  const json write = {{"approvalId", "apr_1"}};
  EXPECT_EQ(ClassOf(ToolPart("r1", "output-available", "verified", write)), "effect");
  EXPECT_EQ(ClassOf(ToolPart("r1", "output-available", "executed", write)), "effect");
  for (auto [status, state] :
       {std::pair{"approval-requested", "persisted"}, std::pair{"output-denied", "denied"},
        std::pair{"output-available", "refused"},
        std::pair{"output-available", "execution_outcome_unknown"},
        std::pair{"output-error", "approved"}}) {
    SCOPED_TRACE(std::string(status) + " " + state);
    auto part = ToolPart("r1", status, state, write);
    auto r = ReferenceOf(part);
    json facts = ResolveCitation("r1", &*r);
    EXPECT_EQ(facts["class"], "unresolved");
    EXPECT_FALSE(facts.value("reason", "").empty());
  }
  auto denied = ToolPart("r1", "output-denied", "denied", write);
  auto r = ReferenceOf(denied);
  EXPECT_EQ(ResolveCitation("r1", &*r)["reason"], "the write was denied: nothing ran");
}

TEST(EvidenceCitation, FailedRefusedOrUnrunCallsAreUnresolvedAndAMissingReferenceIsInvalid) {
  for (const char* status :
       {"output-error", "input-error", "not-run", "cancelled", "interrupted"}) {
    EXPECT_EQ(ClassOf(ToolPart("r1", status, "parsed", {{"errorCode", "x.y"}})), "unresolved")
        << status;
  }
  json facts = ResolveCitation("r9", nullptr);
  EXPECT_EQ(facts, json({{"ref", "r9"},
                         {"class", "invalid"},
                         {"reason", "r9 names no tool result of this thread"}}));
  EXPECT_FALSE(ReferenceOf(store::PartRecord{}).has_value());
  EXPECT_EQ(RefOrdinal("r12"), 12);
  for (const char* bad : {"", "r", "r0", "r01", "x1", "r1a", "r12345678"}) {
    EXPECT_EQ(RefOrdinal(bad), 0) << bad;
  }
}

// A text part's persisted citations, as the adapter writes them.
json Cite(std::string_view text, const std::string& spelling, std::vector<json> refs) {
  const size_t at = text.find(spelling);
  EXPECT_NE(at, std::string_view::npos) << spelling;
  return {{"offset", at}, {"citedText", spelling}, {"refs", refs}};
}
json Facts(const std::string& ref, const std::string& cls) {
  return {{"ref", ref}, {"class", cls}};
}

std::vector<std::string> Describe(const std::vector<Claim>& claims) {
  std::vector<std::string> out;
  for (const auto& c : claims) {
    std::string refs;
    for (const auto& r : c.refs) refs += " " + r;
    out.push_back(std::string(ClaimClassName(c.cls)) + ":" + c.text + (refs.empty() ? "" : " |") +
                  refs);
  }
  return out;
}

TEST(EvidenceClaims, ProseIsCutAtCitationsAndLinesAndEachClaimTakesItsWeakestCitation) {
  const std::string text =
      "Here is your week:\n"
      "- Standup at 09:30 [r1] and lunch at 12:00 [r1], [r2].\n"
      "- Budget sync added [r3]!\n"
      "\n"
      "I would keep Friday free.";
  json citations = {
      Cite(text, "[r1] and", {Facts("r1", "source")}), Cite(text, "[r1],", {Facts("r1", "source")}),
      Cite(text, "[r2]", {Facts("r2", "effect")}), Cite(text, "[r3]", {Facts("r3", "unresolved")})};
  citations[0]["citedText"] = "[r1]";
  citations[1]["citedText"] = "[r1]";
  EXPECT_THAT(
      Describe(ClaimsOf(text, citations)),
      ::testing::ElementsAre("inference:Here is your week:", "source:- Standup at 09:30 [r1] | r1",
                             "effect:and lunch at 12:00 [r1], [r2]. | r1 r2",
                             "unresolved:- Budget sync added [r3]! | r3",
                             "inference:I would keep Friday free."));
}

TEST(EvidenceClaims, ACitationThatOpensALineCitesWhatFollowsAndInvalidOnesAreListed) {
  const std::string text = "[r2] Three events are booked.\nDone [r9].";
  json citations = {Cite(text, "[r2]", {Facts("r2", "source")}),
                    Cite(text, "[r9]", {Facts("r9", "invalid")})};
  auto claims = ClaimsOf(text, citations);
  EXPECT_THAT(Describe(claims), ::testing::ElementsAre("source:Three events are booked. | r2",
                                                       "unresolved:Done [r9]. | r9"));
  EXPECT_THAT(claims[1].invalid, ::testing::ElementsAre("r9"));
  EXPECT_EQ(claims[1].ToJson(), json({{"class", "unresolved"},
                                      {"text", "Done [r9]."},
                                      {"refs", {"r9"}},
                                      {"invalid", {"r9"}}}));
  // Only a citation: a claim of its own.
  EXPECT_THAT(
      Describe(ClaimsOf("[r1]", json::array({Cite("[r1]", "[r1]", {Facts("r1", "source")})}))),
      ::testing::ElementsAre("source: | r1"));
}

TEST(EvidenceClaims, CitationsThatDoNotSitWhereTheySayAreIgnoredNotTrusted) {
  const std::string text = "Lunch at noon [r1].";
  for (json bad : {json{{"offset", 3}, {"citedText", "[r1]"}, {"refs", {Facts("r1", "source")}}},
                   json{{"offset", 100}, {"citedText", "[r1]"}, {"refs", json::array()}},
                   json{{"offset", -1}, {"citedText", "[r1]"}, {"refs", json::array()}},
                   json{{"offset", "14"}}, json("x")}) {
    SCOPED_TRACE(bad.dump());
    EXPECT_THAT(Describe(ClaimsOf(text, json::array({bad}))),
                ::testing::ElementsAre("inference:Lunch at noon [r1]."));
    EXPECT_TRUE(AiSdkCitations(text, json::array({bad})).empty());
  }
  EXPECT_TRUE(ClaimsOf("", json()).empty());
  EXPECT_TRUE(ClaimsOf(" - \n\n", json()).empty());
}

TEST(EvidenceAiSdk, OneEntryPerReferenceWithUtf16IndicesAndTheFactsAsProviderMetadata) {
  const std::string text = "😀 é [r1, r3] ok";  // the emoji is 2 UTF-16 units, é one
  json facts1 = {{"ref", "r1"},
                 {"class", "source"},
                 {"toolName", "RunConnectorCommand"},
                 {"connector", "calendar"}};
  json citations = json::array({Cite(text, "[r1, r3]", {facts1, Facts("r3", "invalid")})});
  json out = AiSdkCitations(text, citations);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0]["startIndex"], 5);
  EXPECT_EQ(out[0]["endIndex"], 13);
  EXPECT_EQ(out[0]["citedText"], "[r1, r3]");
  EXPECT_EQ(out[0]["source"], json({{"type", "source"},
                                    {"sourceType", "document"},
                                    {"id", "r1"},
                                    {"mediaType", "application/json"},
                                    {"title", "RunConnectorCommand · calendar"},
                                    {"providerMetadata", {{"affordance", facts1}}}}));
  EXPECT_EQ(out[1]["source"]["id"], "r3");
  EXPECT_EQ(out[1]["source"]["title"], "no such tool result");
  EXPECT_EQ(out[1]["startIndex"], 5);
}

}  // namespace
}  // namespace affordance::harness

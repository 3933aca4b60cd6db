// Every golden program parses to what lang-core 0.2.18 produced: root tree, props, meta,
// stateDeclarations, queryStatements, mutationStatements. Our extra error codes (documented in
// docs/SURFACE.md) may be added to meta.errors; every lang-core error must still be there, in
// order.
#include "surface/edit.h"
#include "surface/program.h"
#include "surface/prompt.h"
#include "surface/stream.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

namespace affordance::surface {
namespace {

using Plain = nlohmann::json;  // order-insensitive objects for comparison

const std::set<std::string> kOurCodes = {"non-statement", "trailing-tokens", "duplicate-statement",
                                         "nesting-too-deep", "expansion-too-large"};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Plain ToPlain(const Json& j) {
  return Plain::parse(j.dump(-1, ' ', false, Json::error_handler_t::replace));
}

// Compares our ParseResult JSON with lang-core's; returns "" when they agree.
std::string Compare(const Plain& ours, const Plain& theirs) {
  for (const char* key : {"root", "stateDeclarations", "queryStatements", "mutationStatements"}) {
    if (ours[key] != theirs[key]) {
      return std::string(key) + " differs: " + Plain::diff(theirs[key], ours[key]).dump();
    }
  }
  for (const char* key : {"incomplete", "unresolved", "orphaned", "statementCount"}) {
    if (ours["meta"][key] != theirs["meta"][key]) {
      return std::string("meta.") + key + " differs: ours " + ours["meta"][key].dump() +
             " lang-core " + theirs["meta"][key].dump();
    }
  }
  Plain filtered = Plain::array();
  for (const auto& e : ours["meta"]["errors"]) {
    if (!kOurCodes.count(e["code"].get<std::string>())) filtered.push_back(e);
  }
  if (filtered != theirs["meta"]["errors"]) {
    return "errors differ: ours " + filtered.dump() + " lang-core " +
           theirs["meta"]["errors"].dump();
  }
  return "";
}

struct GoldenFile {
  std::string name;
  Plain doc;
};

std::vector<GoldenFile> LoadGoldens() {
  std::vector<GoldenFile> out;
  for (const char* name : {"valid", "invalid", "edit"}) {
    std::string path =
        std::string(AFFORDANCE_SOURCE_DIR) + "/tests/golden/surface/golden/" + name + ".json";
    std::string text = ReadFile(path);
    if (text.empty()) continue;
    out.push_back({name, Plain::parse(text)});
  }
  return out;
}

const Library& LibraryFor(const std::string& path) {
  static std::map<std::string, Library> cache;
  auto it = cache.find(path);
  if (it == cache.end()) {
    Result<Library> lib =
        Library::FromJson(ReadFile(std::string(AFFORDANCE_SOURCE_DIR) + "/" + path));
    EXPECT_TRUE(lib.ok()) << path;
    it = cache.emplace(path, std::move(lib).value()).first;
  }
  return it->second;
}

TEST(SurfaceConformance, CorpusIsLargeEnough) {
  size_t total = 0, valid = 0, invalid = 0, prefix = 0;
  for (const auto& g : LoadGoldens()) {
    for (const auto& c : g.doc["cases"]) {
      ++total;
      const std::string kind = c["kind"];
      valid += kind == "valid";
      invalid += kind == "invalid";
      prefix += kind == "prefix";
    }
  }
  EXPECT_GE(total, 200u);
  EXPECT_GE(valid, 60u);
  EXPECT_GE(invalid, 40u);
  EXPECT_GE(prefix, 100u);
}

TEST(SurfaceConformance, BatchParseMatchesLangCore) {
  size_t checked = 0;
  for (const auto& g : LoadGoldens()) {
    if (g.name == "edit") continue;
    const Library& lib = LibraryFor(g.doc["library"]);
    for (const auto& c : g.doc["cases"]) {
      ParseResult r = Parse(c["program"].get<std::string>(), lib);
      std::string diff = Compare(ToPlain(r.ToJson()), c["result"]);
      EXPECT_EQ(diff, "") << g.name << "/" << c["name"].get<std::string>();
      ++checked;
    }
  }
  EXPECT_GT(checked, 0u);
}

TEST(SurfaceConformance, StreamingMatchesLangCoreStreamingParser) {
  size_t checked = 0;
  for (const auto& g : LoadGoldens()) {
    const Library& lib = LibraryFor(g.doc["library"]);
    for (const auto& c : g.doc["cases"]) {
      if (!c.contains("stream")) continue;
      const std::string program = c["program"];
      StreamParser parser(lib);
      for (size_t i = 0; i < program.size(); i += 7)
        parser.Push(std::string_view(program).substr(i, 7));
      std::string diff = Compare(ToPlain(parser.Result().ToJson()), c["stream"]);
      EXPECT_EQ(diff, "") << g.name << "/" << c["name"].get<std::string>();
      ++checked;
    }
  }
  EXPECT_GT(checked, 50u);
}

TEST(SurfaceConformance, EditMergeMatchesLangCore) {
  size_t checked = 0;
  for (const auto& g : LoadGoldens()) {
    if (g.name != "edit") continue;
    for (const auto& c : g.doc["cases"]) {
      Result<std::string> merged =
          MergeProgram(c["existing"].get<std::string>(), c["patch"].get<std::string>());
      ASSERT_TRUE(merged.ok()) << c["name"] << ": " << merged.error().message;
      EXPECT_EQ(*merged, c["merged"].get<std::string>()) << c["name"];
      ++checked;
    }
  }
  EXPECT_GT(checked, 10u);
}

// A library written with Zod in JavaScript, exported with toJSONSchema(), yields the same system
// prompt here as library.prompt() does there, for each option set.
TEST(SurfaceConformance, PromptMatchesLangCore) {
  // Ordered: property order is positional order.
  Json golden = Json::parse(
      ReadFile(std::string(AFFORDANCE_SOURCE_DIR) + "/tests/golden/surface/golden/prompt.json"));
  Result<Library> lib = Library::FromJson(golden["library"].dump());
  ASSERT_TRUE(lib.ok()) << lib.error().ToString();
  ASSERT_EQ(golden["prompts"].size(), 4u);
  for (auto it = golden["prompts"].begin(); it != golden["prompts"].end(); ++it) {
    const Json& o = it.value()["options"];
    PromptOptions options;
    if (o.contains("tools")) options.tools = o["tools"];
    options.edit_mode = o.value("editMode", false);
    options.inline_mode = o.value("inlineMode", false);
    if (o.contains("bindings")) options.bindings = o["bindings"].get<bool>();
    if (o.contains("toolCalls")) options.tool_calls = o["toolCalls"].get<bool>();
    if (o.contains("examples")) options.examples = o["examples"].get<std::vector<std::string>>();
    if (o.contains("additionalRules")) {
      options.additional_rules = o["additionalRules"].get<std::vector<std::string>>();
    }
    const std::string ours = GeneratePrompt(*lib, options);
    const std::string theirs = it.value()["prompt"].get<std::string>();
    size_t at = 0;
    while (at < ours.size() && at < theirs.size() && ours[at] == theirs[at]) ++at;
    EXPECT_EQ(ours, theirs) << it.key() << ": first difference at byte " << at << ": ours «"
                            << ours.substr(at, 80) << "» lang-core «" << theirs.substr(at, 80)
                            << "»";
  }
}

}  // namespace
}  // namespace affordance::surface

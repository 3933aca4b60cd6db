// Token-exactness of Qwen3App and Llama31App against the official templates: each golden case
// (tests/golden/adapters/{qwen3,llama31}.json, made by tools/adapter_references.mjs with
// @huggingface/jinja + the HF tokenizer) is rendered by our wrappers through the real view
// runtime and compared token for token, tools included.
//
// Qwen: the references use the hybrid Qwen3 template with enable_thinking left undefined, which
// renders what the Qwen3-4B-Instruct-2507 template renders for turns without reasoning (no
// <think> blocks; generation prompt "<|im_start|>assistant\n").
// Llama: the official 3.1 template from the llama.cpp source, date pinned per case. The template
// trims every message; Llama31App trims all text outside the app tree the same way (the
// whitespace_* cases put whitespace around the system text, question, user, assistant and tool
// turns). The bodies are simple and untrimmed (no leading/trailing whitespace), so the template's
// trim of the body and our native tree agree; they do not prove arbitrary styled apps match
// flat-string tokenization.
#include "render/renderer.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace affordance::render {
namespace {

struct Model {
  const char* golden;
  const char* model;
  const char* entry;
};

nlohmann::ordered_json ReadJson(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return nlohmann::ordered_json::parse(s.str());
}

view::ViewOptions Options() {
  view::ViewOptions o;
  o.lib_root = std::string(AFFORDANCE_SOURCE_DIR) + "/views/lib";
  o.cache_dir = "-";
  return o;
}

class Golden : public ::testing::TestWithParam<std::tuple<Model, std::string>> {};

// Renders case `name` of `m` with `app_written` (assistant text turns given as text rather than
// sampled IDs) and compares it with the reference.
void ExpectMatches(const Model& m, const std::string& name, bool app_written) {
  const nlohmann::ordered_json doc =
      ReadJson(std::string(AFFORDANCE_SOURCE_DIR) + "/tests/golden/adapters/" + m.golden);
  nlohmann::ordered_json c;
  for (const auto& x : doc["cases"]) {
    if (x["name"] == name) c = x;
  }
  ASSERT_FALSE(c.is_null()) << "no case " << name << " in " << m.golden;
  auto r = Renderer::Load(
      std::string(AFFORDANCE_SOURCE_DIR) + "/tests/contract/adapters/data/golden_view.tsx", m.entry,
      m.model, Options());
  ASSERT_TRUE(r.ok()) << r.error().code << ": " << r.error().ToString();
  c["app_written"] = app_written;
  auto prompt = (*r)->Render({{"c", c}});
  ASSERT_TRUE(prompt.ok()) << prompt.error().code << ": " << prompt.error().ToString();
  const auto expected = c["tokens"].get<std::vector<text::TokenId>>();
  if (prompt->tokens != expected) {
    auto ours = (*r)->tokenizer().Decode(prompt->tokens);
    ADD_FAILURE() << "reference:\n"
                  << c["text"].get<std::string>() << "\nours:\n"
                  << (ours.ok() ? *ours : "?");
  }
  EXPECT_EQ(prompt->tokens, expected);
  EXPECT_EQ(prompt->ToolsJson(), c["tools"]);
  // The app's action spans land inside the body's range of the final prompt (rebased).
  const auto range = c["body_range"].get<std::vector<uint32_t>>();
  for (const auto& s : prompt->spans) {
    if (s.kind != Span::Kind::kAction) continue;
    EXPECT_GE(s.begin, range[0]) << s.name;
    EXPECT_LE(s.end, range[1]) << s.name;
  }
}

TEST_P(Golden, WrapperMatchesTheOfficialTemplateTokenForToken) {
  const auto& [m, name] = GetParam();
  ExpectMatches(m, name, false);
}

TEST_P(Golden, AppWrittenAssistantTextMatchesToo) {
  const auto& [m, name] = GetParam();
  ExpectMatches(m, name, true);
}

const Model kQwen{"qwen3.json", "Qwen__Qwen3-4B-Instruct-2507", "GoldenQwen"};
const Model kLlama{"llama31.json", "meta-llama__Llama-3.1-8B-Instruct", "GoldenLlama"};
const std::vector<std::string> kCases = {"no_tools",
                                         "with_tools",
                                         "unicode",
                                         "history_tool_call",
                                         "system_with_tools",
                                         "system_no_tools",
                                         "multi_turn_history",
                                         "whitespace_with_tools",
                                         "whitespace_no_tools",
                                         "cited_evidence",
                                         "app_tools_in_turn",
                                         "app_tools_in_turn_history",
                                         "app_tools_in_turn_none_visible"};

INSTANTIATE_TEST_SUITE_P(Qwen3, Golden,
                         ::testing::Combine(::testing::Values(kQwen), ::testing::ValuesIn(kCases)),
                         [](const auto& info) { return std::get<1>(info.param); });
INSTANTIATE_TEST_SUITE_P(Llama31, Golden,
                         ::testing::Combine(::testing::Values(kLlama), ::testing::ValuesIn(kCases)),
                         [](const auto& info) { return std::get<1>(info.param); });

TEST(GoldenFiles, EachModelHasAtLeastSixIndependentCases) {
  for (const char* f : {"qwen3.json", "llama31.json"}) {
    const auto doc = ReadJson(std::string(AFFORDANCE_SOURCE_DIR) + "/tests/golden/adapters/" + f);
    EXPECT_GE(doc["cases"].size(), 6u) << f;
    EXPECT_EQ(doc["cases"].size(), kCases.size()) << f << ": add new cases to kCases";
  }
}

}  // namespace
}  // namespace affordance::render

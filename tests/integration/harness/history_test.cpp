// The model's own call stays in its history over /v1/completions: a scripted engine (real HTTP on
// loopback, a test double for a model) answers a step with a ListComponents call, with sampled
// token IDs (as llama-server and vLLM send when asked) or without any (then the harness re-encodes
// the sampled text), in both formats. The next step's prompt must hold the call's tokens, and the
// step ledger says where they came from. Real tokenizers and frame; no model.
#include "model/http_provider.h"
#include "scripted_server.h"
#include "support.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace affordance::harness::testing {
namespace {

using model::testing::ScriptedServer;

struct Case {
  std::string model;
  std::string call;  // the sampled text of the call, as the engine streams it
  bool ids;          // the engine sends each chunk's sampled token ID
};

class ModelHistory : public ::testing::TestWithParam<Case> {};

bool Contains(const std::vector<int>& haystack, const std::vector<text::TokenId>& needle) {
  return !needle.empty() && std::search(haystack.begin(), haystack.end(), needle.begin(),
                                        needle.end()) != haystack.end();
}

TEST_P(ModelHistory, TheCallIsInTheNextPromptWithAndWithoutServerSentIds) {
  const Case c = GetParam();
  auto tokenizer = Tokenizer(c.model);
  auto call_ids = tokenizer->Encode(c.call, {.match_special = true});
  ASSERT_TRUE(call_ids.ok());
  std::mutex mu;
  std::vector<std::vector<int>> prompts;
  ScriptedServer server([&](const httplib::Request& req, httplib::Response& res, const auto&) {
    auto body = nlohmann::json::parse(req.body);
    size_t n = 0;
    {
      std::lock_guard l(mu);
      prompts.push_back(body["prompt"].get<std::vector<int>>());
      n = prompts.size();
    }
    std::vector<std::string> events;
    if (n == 1) {
      // The call, one token a chunk; "stop" with no end-of-turn text (the model ended its turn).
      for (size_t i = 0; i < call_ids->size(); ++i) {
        const text::TokenId id = (*call_ids)[i];
        const std::vector<text::TokenId> one = {id};
        nlohmann::json choice = {
            {"index", 0},
            {"text", tokenizer->Decode(one).value()},
            {"finish_reason",
             i + 1 == call_ids->size() ? nlohmann::json("stop") : nlohmann::json(nullptr)}};
        if (c.ids) choice["token_ids"] = {id};
        events.push_back(nlohmann::json({{"choices", {choice}}}).dump());
      }
    } else {
      events.push_back(
          nlohmann::json(
              {{"choices", {{{"index", 0}, {"text", "Done."}, {"finish_reason", "stop"}}}}})
              .dump());
    }
    events.push_back("[DONE]");
    ScriptedServer::StreamEvents(res, events);
  });
  model::HttpProviderOptions ho;
  ho.base_url = server.url();
  ho.format = c.model == kQwen ? formats::ChatFormat::kQwen3 : formats::ChatFormat::kLlama31;
  ho.tokenizer = tokenizer;
  auto provider = model::HttpProvider::Create(ho);
  ASSERT_TRUE(provider.ok());
  Rig::Options o;
  o.model = c.model;
  o.connectors = false;
  Rig rig(std::move(*provider), o);
  auto report = rig.Turn("Which components are there?");
  ASSERT_TRUE(report.ok()) << report.error().ToString();
  EXPECT_EQ(TurnStatusName(report->status), "answered");
  ASSERT_EQ(report->ledger.size(), 2u) << report->ToJson().dump();
  ASSERT_EQ(report->ledger[0].calls.size(), 1u);
  EXPECT_EQ(report->ledger[0].calls[0].name, "ListComponents");
  EXPECT_EQ(report->ledger[0].token_source, c.ids ? "sampled" : "reencoded");
  ASSERT_EQ(prompts.size(), 2u);
  EXPECT_FALSE(Contains(prompts[0], *call_ids));
  EXPECT_TRUE(Contains(prompts[1], *call_ids))
      << "the model's call is missing from its next prompt";
}

INSTANTIATE_TEST_SUITE_P(
    BothFormats, ModelHistory,
    ::testing::Values(
        Case{kQwen, "<tool_call>\n{\"name\": \"ListComponents\", \"arguments\": {}}\n</tool_call>",
             true},
        Case{kQwen, "<tool_call>\n{\"name\": \"ListComponents\", \"arguments\": {}}\n</tool_call>",
             false},
        Case{kLlama, "{\"name\": \"ListComponents\", \"parameters\": {}}", true},
        Case{kLlama, "{\"name\": \"ListComponents\", \"parameters\": {}}", false}),
    [](const auto& info) {
      return std::string(info.param.model == kQwen ? "Qwen3" : "Llama31") +
             (info.param.ids ? "WithIds" : "WithoutIds");
    });

}  // namespace
}  // namespace affordance::harness::testing

// The OpenAI-compatible HTTP provider against scripted loopback servers (real HTTP, real SSE):
// streaming, delivery semantics (retry only what was never sent), timeouts, cancellation.
#include "model/http_provider.h"
#include "scripted_server.h"
#include "well_formed.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <map>

namespace affordance::model::testing {
namespace {

using formats::PartType;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

std::string Chunk(const std::string& text, int id, nlohmann::json finish = nullptr) {
  nlohmann::json c = {{"choices",
                       {{{"index", 0},
                         {"text", text},
                         {"finish_reason", finish},
                         {"logprobs", {{"content", {{{"id", id}, {"token", text}}}}}}}}}};
  return c.dump();
}

std::unique_ptr<HttpProvider> Make(const std::string& url, HttpProviderOptions options = {}) {
  options.base_url = url;
  auto p = HttpProvider::Create(options);
  EXPECT_TRUE(p.ok());
  return std::move(p).value();
}

std::string Joined(const std::vector<formats::StreamPart>& parts, PartType type) {
  std::string s;
  for (const auto& p : parts) {
    if (p.type == type) s += p.delta;
  }
  return s;
}

const formats::StreamPart* Find(const std::vector<formats::StreamPart>& parts, PartType type) {
  for (const auto& p : parts) {
    if (p.type == type) return &p;
  }
  return nullptr;
}

StepRequest Prompt() {
  StepRequest r;
  r.prompt = {151644, 872, 198, 9707, 151645, 198, 151644, 77091, 198};
  r.step_id = "s0-";
  r.max_tokens = 32;
  return r;
}

TEST(HttpProviderCompletions, StreamsTokenArrayPromptIntoParts) {
  ScriptedServer server([](const httplib::Request&, httplib::Response& res, const auto&) {
    ScriptedServer::StreamEvents(
        res,
        {Chunk("Hi", 13048), Chunk(" there", 1052), Chunk("\n<tool", 27),
         Chunk("_call>\n{\"name\": \"f\", \"arguments\": {\"x\": 1}}\n</tool_call>", 151658),
         nlohmann::json({{"choices", {{{"index", 0}, {"text", ""}, {"finish_reason", "stop"}}}},
                         {"usage",
                          {{"prompt_tokens", 9},
                           {"completion_tokens", 4},
                           {"prompt_tokens_details", {{"cached_tokens", 5}}}}}})
             .dump(),
         "[DONE]"});
  });
  auto provider = Make(server.url());
  auto step = Collect(*provider, Prompt());
  ASSERT_TRUE(step.status.ok()) << step.status.error().ToString();
  EXPECT_EQ(step.parts.front().type, PartType::kStartStep);
  EXPECT_EQ(step.parts.back().type, PartType::kFinish);
  EXPECT_EQ(step.parts.back().finish_reason, "tool-calls");
  EXPECT_EQ(Joined(step.parts, PartType::kTextDelta), "Hi there\n");
  const auto* call = Find(step.parts, PartType::kToolCall);
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->input, nlohmann::json({{"x", 1}}));
  const auto* fs = Find(step.parts, PartType::kFinishStep);
  EXPECT_EQ(fs->usage.prompt_tokens, 9);
  EXPECT_EQ(fs->usage.cached_prompt_tokens, 5);
  EXPECT_EQ(fs->usage.generated_tokens, 4);
  EXPECT_THAT(fs->tokens, ::testing::ElementsAre(13048, 1052, 27, 151658));
  ASSERT_EQ(server.request_count(), 1u);
  auto body = nlohmann::json::parse(server.request(0).body);
  EXPECT_EQ(body["prompt"], nlohmann::json(Prompt().prompt));
  EXPECT_EQ(body["stream"], true);
  EXPECT_EQ(server.request(0).path, "/v1/completions");
}

// Issue 27: a completions request asks each engine for its sampled IDs in that engine's own way,
// and the operator's --extra-body goes on top of those defaults instead of replacing them.
TEST(HttpProviderCompletions, AsksEveryEngineForSampledIdsWithExtraBodyOnTop) {
  ScriptedServer server([](const httplib::Request&, httplib::Response& res, const auto&) {
    ScriptedServer::StreamEvents(res, {Chunk("ok", 1, "stop"), "[DONE]"});
  });
  auto plain = Make(server.url());
  ASSERT_TRUE(Collect(*plain, Prompt()).status.ok());
  auto body = nlohmann::json::parse(server.request(0).body);
  EXPECT_EQ(body["n_probs"], 1);
  EXPECT_EQ(body["return_token_ids"], true);
  HttpProviderOptions o;
  o.extra_body = {{"top_k", 5}, {"n_probs", 2}};
  auto extra = Make(server.url(), o);
  ASSERT_TRUE(Collect(*extra, Prompt()).status.ok());
  body = nlohmann::json::parse(server.request(1).body);
  EXPECT_EQ(body["top_k"], 5);
  EXPECT_EQ(body["n_probs"], 2);
  EXPECT_EQ(body["return_token_ids"], true);
}

std::string Text(const std::string& text, nlohmann::json finish = nullptr,
                 nlohmann::json ids = nullptr) {
  nlohmann::json choice = {{"index", 0}, {"text", text}, {"finish_reason", finish}};
  if (!ids.is_null()) choice["token_ids"] = ids;
  return nlohmann::json({{"choices", {choice}}}).dump();
}

TEST(HttpProviderCompletions, ReadsVllmTokenIdsAndSaysTheyWereSampled) {
  ScriptedServer server([](const httplib::Request&, httplib::Response& res, const auto&) {
    ScriptedServer::StreamEvents(
        res, {Text("Hi", nullptr, {13048}), Text(" there", "stop", {1052, 151645}), "[DONE]"});
  });
  auto step = Collect(*Make(server.url()), Prompt());
  ASSERT_TRUE(step.status.ok()) << step.status.error().ToString();
  const auto* fs = Find(step.parts, PartType::kFinishStep);
  ASSERT_NE(fs, nullptr);
  EXPECT_THAT(fs->tokens, ::testing::ElementsAre(13048, 1052, 151645));
  EXPECT_EQ(fs->metadata.value("tokenSource", ""), "sampled");
}

// An engine that sends no IDs: the sampled text is encoded again with the real tokenizer, so the
// model's own call (<tool_call> is one special token) is in its next prompt, and the step says so.
TEST(HttpProviderCompletions, WithoutIdsTheSampledTextIsReencodedAndMarked) {
  const std::string sampled =
      "Let me look.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"x\": 1}}\n</tool_call>";
  ScriptedServer server([&](const httplib::Request&, httplib::Response& res, const auto&) {
    ScriptedServer::StreamEvents(
        res, {Text(sampled.substr(0, 20)), Text(sampled.substr(20), "stop"), "[DONE]"});
  });
  auto tok = text::LoadModel("Qwen__Qwen3-4B-Instruct-2507");
  ASSERT_TRUE(tok.ok()) << tok.error().ToString();
  HttpProviderOptions o;
  o.tokenizer = *tok;
  auto step = Collect(*Make(server.url(), o), Prompt());
  ASSERT_TRUE(step.status.ok()) << step.status.error().ToString();
  const auto* fs = Find(step.parts, PartType::kFinishStep);
  ASSERT_NE(fs, nullptr);
  EXPECT_EQ(fs->metadata.value("tokenSource", ""), "reencoded");
  auto expected = (*tok)->Encode(sampled, {.match_special = true});
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ(fs->tokens, *expected);
  EXPECT_THAT(fs->tokens, ::testing::Contains(151657));  // <tool_call>
  ASSERT_NE(Find(step.parts, PartType::kToolCall), nullptr);
  // Without a tokenizer nothing is invented: no tokens, and the step says none came.
  auto bare = Collect(*Make(server.url()), Prompt());
  EXPECT_TRUE(Find(bare.parts, PartType::kFinishStep)->tokens.empty());
  EXPECT_EQ(Find(bare.parts, PartType::kFinishStep)->metadata.value("tokenSource", ""), "none");
}

// Llama 3.1 over completions: the engine ends the turn with finish_reason "stop" and leaves
// <|eot_id|> out of the text. The call before it is complete; cut off by "length" it is not.
TEST(HttpProviderCompletions, ALlama31CallEndedByStopWithoutEotTextIsComplete) {
  std::string finish = "stop";
  ScriptedServer server([&](const httplib::Request&, httplib::Response& res, const auto&) {
    ScriptedServer::StreamEvents(
        res, {Text("{\"name\": \"f\", "), Text("\"parameters\": {\"x\": 1}}", finish), "[DONE]"});
  });
  HttpProviderOptions o;
  o.format = formats::ChatFormat::kLlama31;
  auto step = Collect(*Make(server.url(), o), Prompt());
  ASSERT_TRUE(step.status.ok()) << step.status.error().ToString();
  const auto* call = Find(step.parts, PartType::kToolCall);
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->tool_name, "f");
  EXPECT_EQ(call->input, nlohmann::json({{"x", 1}}));
  EXPECT_EQ(Find(step.parts, PartType::kToolInputError), nullptr);
  EXPECT_EQ(step.parts.back().finish_reason, "tool-calls");
  finish = "length";
  auto cut = Collect(*Make(server.url(), o), Prompt());
  EXPECT_EQ(Find(cut.parts, PartType::kToolCall), nullptr);
  EXPECT_NE(Find(cut.parts, PartType::kToolInputError), nullptr);
}

TEST(HttpProviderChat, MapsToolCallDeltasAndSendsKeyFromEnvironment) {
  ScriptedServer server([](const httplib::Request&, httplib::Response& res, const auto&) {
    auto d = [](nlohmann::json delta, nlohmann::json finish = nullptr) {
      return nlohmann::json(
                 {{"choices", {{{"index", 0}, {"delta", delta}, {"finish_reason", finish}}}}})
          .dump();
    };
    ScriptedServer::StreamEvents(
        res, {d({{"role", "assistant"}, {"content", "ok"}}),
              d({{"tool_calls",
                  {{{"index", 0},
                    {"id", "call_1"},
                    {"function", {{"name", "g"}, {"arguments", "{\"q\":"}}}}}}}),
              d({{"tool_calls", {{{"index", 0}, {"function", {{"arguments", "\"z\"}"}}}}}}}),
              d(nlohmann::json::object(), "tool_calls"),
              nlohmann::json({{"choices", nlohmann::json::array()},
                              {"usage", {{"prompt_tokens", 20}, {"completion_tokens", 7}}}})
                  .dump(),
              "[DONE]"});
  });
  ::setenv("AFFORDANCE_TEST_MODEL_KEY", "sk-test-123", 1);
  HttpProviderOptions o;
  o.api = HttpProviderOptions::Api::kChat;
  o.api_key_env = "AFFORDANCE_TEST_MODEL_KEY";
  o.model = "m";
  o.format = formats::ChatFormat::kPlain;
  auto provider = Make(server.url() + "/api/", o);
  StepRequest r;
  r.step_id = "s0-";  // the server's ids are kept outside the step's own id namespace
  r.messages = {{{"role", "user"}, {"content", "hi"}}};
  r.tools = {
      {{"type", "function"}, {"function", {{"name", "g"}, {"parameters", {{"type", "object"}}}}}}};
  auto step = Collect(*provider, r);
  ASSERT_TRUE(step.status.ok()) << step.status.error().ToString();
  const auto* call = Find(step.parts, PartType::kToolCall);
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->id, "call_1");
  EXPECT_EQ(call->input, nlohmann::json({{"q", "z"}}));
  EXPECT_EQ(step.parts.back().finish_reason, "tool-calls");
  EXPECT_EQ(Find(step.parts, PartType::kFinishStep)->usage.prompt_tokens, 20);
  auto req = server.request(0);
  EXPECT_EQ(req.path, "/api/v1/chat/completions");
  EXPECT_EQ(req.get_header_value("Authorization"), "Bearer sk-test-123");
  auto body = nlohmann::json::parse(req.body);
  EXPECT_EQ(body["tools"][0]["function"]["name"], "g");
  EXPECT_EQ(body["stream_options"]["include_usage"], true);
  EXPECT_EQ(body["model"], "m");
}

TEST(HttpProviderDelivery, ConnectRefusedIsRetriedAndReportedAsNeverSent) {
  HttpProviderOptions o;
  o.connect_attempts = 3;
  o.retry_backoff = 10ms;
  auto provider = Make("http://127.0.0.1:" + std::to_string(UnusedPort()), o);
  auto step = Collect(*provider, Prompt());
  ASSERT_FALSE(step.status.ok());
  EXPECT_EQ(step.status.error().code, "model.connect");
  EXPECT_THAT(step.status.error().message, HasSubstr("never sent"));
  EXPECT_EQ(provider->connect_failures(), 3);
  EXPECT_EQ(provider->dispatched(), 0);
  EXPECT_EQ(step.parts.back().type, PartType::kError);
  EXPECT_EQ(step.parts.back().error_code, "model.connect");
}

// Engine fleets (issue 27): a thread keeps to one replica (its prefix cache lives there) and
// carries its id in the affinity header for a router; a replica that cannot be reached hands the
// request to the next one, once, and is passed over as a first choice for a while.
TEST(HttpProviderFleet, AThreadKeepsToOneReplicaAndCarriesItsAffinityHeader) {
  auto ok = [](const httplib::Request&, httplib::Response& res, const auto&) {
    ScriptedServer::StreamEvents(res, {Chunk("ok", 1, "stop"), "[DONE]"});
  };
  ScriptedServer a(ok), b(ok);
  HttpProviderOptions o;
  o.replicas = {b.url()};
  o.affinity_header = "x-session-token";
  auto provider = Make(a.url(), o);
  std::map<std::string, size_t> first;
  for (int round = 0; round < 3; ++round) {
    for (const std::string thread : {"t_1", "t_2", "t_3", "t_4", "t_5", "t_6"}) {
      StepRequest r = Prompt();
      r.affinity_key = thread;
      const size_t before_a = a.request_count();
      ASSERT_TRUE(Collect(*provider, r).status.ok());
      const size_t on = a.request_count() > before_a ? 0 : 1;
      if (round == 0) first[thread] = on;
      EXPECT_EQ(on, first[thread]) << thread << " moved to another replica";
      ScriptedServer& served = on == 0 ? a : b;
      EXPECT_EQ(served.request(served.request_count() - 1).get_header_value("x-session-token"),
                thread);
    }
  }
  // Six threads over two replicas: both serve some.
  EXPECT_GT(a.request_count(), 0u);
  EXPECT_GT(b.request_count(), 0u);
  EXPECT_EQ(provider->connect_failures(), 0);
}

TEST(HttpProviderFleet, AReplicaThatIsDownHandsTheRequestToTheNextOnce) {
  ScriptedServer up([](const httplib::Request&, httplib::Response& res, const auto&) {
    ScriptedServer::StreamEvents(res, {Chunk("ok", 1, "stop"), "[DONE]"});
  });
  const std::string down = "http://127.0.0.1:" + std::to_string(UnusedPort());
  HttpProviderOptions o;
  o.replicas = {up.url()};
  o.retry_backoff = 10ms;
  auto provider = Make(down, o);  // no key: the first replica, which is down, is the first choice
  auto step = Collect(*provider, Prompt());
  ASSERT_TRUE(step.status.ok()) << step.status.error().ToString();
  EXPECT_EQ(up.request_count(), 1u);
  EXPECT_EQ(provider->connect_failures(), 1);
  EXPECT_EQ(provider->dispatched(), 1);
  // Within the cooldown the down replica is not tried first again.
  ASSERT_TRUE(Collect(*provider, Prompt()).status.ok());
  EXPECT_EQ(provider->connect_failures(), 1);
  EXPECT_EQ(up.request_count(), 2u);

  // Every replica down: never sent, and the error names them.
  HttpProviderOptions none;
  none.replicas = {"http://127.0.0.1:" + std::to_string(UnusedPort())};
  none.connect_attempts = 2;
  none.retry_backoff = 10ms;
  auto dead = Make(down, none);
  auto failed = Collect(*dead, Prompt());
  ASSERT_FALSE(failed.status.ok());
  EXPECT_EQ(failed.status.error().code, "model.connect");
  EXPECT_THAT(failed.status.error().message, HasSubstr("any of the model servers"));
  EXPECT_THAT(failed.status.error().detail, HasSubstr(down));
  EXPECT_THAT(failed.status.error().detail, HasSubstr(none.replicas[0]));
  EXPECT_EQ(dead->connect_failures(), 4);
  EXPECT_EQ(dead->dispatched(), 0);
}

TEST(HttpProviderFleet, BadReplicaUrlsAndHeaderNamesAreRefused) {
  HttpProviderOptions o;
  o.base_url = "http://127.0.0.1:1";
  o.replicas = {"ftp://x"};
  auto bad = HttpProvider::Create(o);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "model.bad_url");
  o.replicas.clear();
  for (const char* name : {"x session", "x-a\r\nHost: evil", "a:b", "é"}) {
    o.affinity_header = name;
    auto header = HttpProvider::Create(o);
    ASSERT_FALSE(header.ok()) << name;
    EXPECT_EQ(header.error().code, "model.bad_header");
  }
}

TEST(HttpProviderDelivery, RequestIsSentOnceWhenTheServerComesUpDuringRetries) {
  int port = UnusedPort();
  std::unique_ptr<ScriptedServer> server;
  std::thread starter([&] {
    std::this_thread::sleep_for(150ms);
    server = std::make_unique<ScriptedServer>(
        [](const httplib::Request&, httplib::Response& res, const auto&) {
          ScriptedServer::StreamEvents(res, {Chunk("ok", 1, "stop"), "[DONE]"});
        },
        port);
  });
  HttpProviderOptions o;
  o.connect_attempts = 20;
  o.retry_backoff = 50ms;
  auto provider = Make("http://127.0.0.1:" + std::to_string(port), o);
  auto step = Collect(*provider, Prompt());
  starter.join();
  ASSERT_TRUE(step.status.ok()) << step.status.error().ToString();
  EXPECT_GE(provider->connect_failures(), 1);
  EXPECT_EQ(provider->dispatched(), 1);
  EXPECT_EQ(server->request_count(), 1u);
}

TEST(HttpProviderDelivery, MidStreamDisconnectIsReportedAndNeverResent) {
  ScriptedServer server([](const httplib::Request&, httplib::Response& res, const auto&) {
    ScriptedServer::StreamEvents(res, {Chunk("partial ", 1), Chunk("<tool_call>\n{\"name\"", 2)},
                                 /*then_drop=*/true);
  });
  HttpProviderOptions o;
  o.connect_attempts = 5;
  auto provider = Make(server.url(), o);
  auto step = Collect(*provider, Prompt());
  ASSERT_FALSE(step.status.ok());
  EXPECT_EQ(step.status.error().code, "model.stream_interrupted");
  EXPECT_THAT(step.status.error().message, HasSubstr("not retried"));
  EXPECT_EQ(server.request_count(), 1u);
  EXPECT_EQ(Joined(step.parts, PartType::kTextDelta), "partial ");
  // Everything started was closed before the error: the text, and the half call as an error.
  EXPECT_NE(Find(step.parts, PartType::kTextEnd), nullptr);
  EXPECT_NE(Find(step.parts, PartType::kToolInputError), nullptr);
  EXPECT_EQ(step.parts.back().type, PartType::kError);
}

TEST(HttpProviderDelivery, ReadTimeoutIsReportedAndNeverResent) {
  ScriptedServer server([](const httplib::Request&, httplib::Response& res,
                           const std::atomic<bool>& stopping) {
    res.set_chunked_content_provider(
        "text/event-stream", [&stopping, first = true](size_t, httplib::DataSink& sink) mutable {
          if (first) {
            first = false;
            std::string f = "data: " + Chunk("slow", 1) + "\n\n";
            return sink.write(f.data(), f.size());
          }
          for (int i = 0; i < 300 && !stopping; ++i) std::this_thread::sleep_for(10ms);
          return false;
        });
  });
  HttpProviderOptions o;
  o.read_timeout = 300ms;
  auto provider = Make(server.url(), o);
  auto t0 = std::chrono::steady_clock::now();
  auto step = Collect(*provider, Prompt());
  auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_FALSE(step.status.ok());
  EXPECT_EQ(step.status.error().code, "model.read_timeout");
  EXPECT_LT(took, 2500ms);
  EXPECT_EQ(server.request_count(), 1u);
  server.Stop();
}

TEST(HttpProviderDelivery, ErrorStatusIsReportedWithTheServerMessage) {
  ScriptedServer server([](const httplib::Request&, httplib::Response& res, const auto&) {
    res.status = 503;
    res.set_content(R"({"error": {"message": "loading model", "code": 503}})", "application/json");
  });
  auto provider = Make(server.url());
  auto step = Collect(*provider, Prompt());
  ASSERT_FALSE(step.status.ok());
  EXPECT_EQ(step.status.error().code, "model.http_status");
  EXPECT_THAT(step.status.error().message, HasSubstr("503"));
  EXPECT_EQ(step.status.error().detail, "loading model");
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(HttpProviderDelivery, MalformedEventIsAnError) {
  ScriptedServer server([](const httplib::Request&, httplib::Response& res, const auto&) {
    ScriptedServer::StreamEvents(res, {Chunk("a", 1), "{not json"});
  });
  auto provider = Make(server.url());
  auto step = Collect(*provider, Prompt());
  ASSERT_FALSE(step.status.ok());
  EXPECT_EQ(step.status.error().code, "model.stream_malformed");
  EXPECT_EQ(server.request_count(), 1u);
}

std::string Nested(size_t levels) { return std::string(levels, '[') + std::string(levels, ']'); }

// Issue 24: an event a million levels deep overflowed the stack of the JSON parser and killed the
// process with every running turn. It is refused from the text; the text before it is kept and
// every part closed; the request is not re-sent.
TEST(HttpProviderDelivery, AnEventNestedTooDeepIsATypedErrorAfterTheTextSoFar) {
  ScriptedServer server([](const httplib::Request&, httplib::Response& res, const auto&) {
    ScriptedServer::StreamEvents(
        res,
        {Chunk("partial", 1), R"({"choices": [{"index": 0, "text": )" + Nested(1000000) + "}]}",
         Chunk("never", 2, "stop")});
  });
  auto provider = Make(server.url());
  auto step = Collect(*provider, Prompt());
  ASSERT_FALSE(step.status.ok());
  EXPECT_EQ(step.status.error().code, "model.too_deep");
  EXPECT_EQ(step.status.error().message,
            "a stream event nests deeper than 128 levels of arrays and objects");
  EXPECT_EQ(Joined(step.parts, PartType::kTextDelta), "partial");
  ExpectWellFormedStep(step.parts);
  EXPECT_EQ(step.parts.back().type, PartType::kError);
  EXPECT_EQ(server.request_count(), 1u);
  // The provider stays usable: the next step streams as usual.
  ScriptedServer fine([](const httplib::Request&, httplib::Response& res, const auto&) {
    ScriptedServer::StreamEvents(res, {Chunk("ok", 1, "stop")});
  });
  auto again = Collect(*Make(fine.url()), Prompt());
  EXPECT_TRUE(again.status.ok()) << again.status.error().ToString();
}

TEST(HttpProviderDelivery, AnEventExactlyAtTheDepthLimitIsRead) {
  ScriptedServer server([](const httplib::Request&, httplib::Response& res, const auto&) {
    nlohmann::json chunk = nlohmann::json::parse(Chunk("deep enough", 1, "stop"));
    chunk["padding"] = nlohmann::json::parse(Nested(127));  // 128 levels with the event object
    ScriptedServer::StreamEvents(res, {chunk.dump()});
  });
  auto step = Collect(*Make(server.url()), Prompt());
  ASSERT_TRUE(step.status.ok()) << step.status.error().ToString();
  EXPECT_EQ(Joined(step.parts, PartType::kTextDelta), "deep enough");
}

// The SSE reader buffers one event at most kMaxEventBytes; an engine that streams an endless event
// is stopped instead of growing memory without bound.
TEST(HttpProviderDelivery, AnEventLargerThanTheLimitIsATypedError) {
  ScriptedServer server([](const httplib::Request&, httplib::Response& res, const auto&) {
    ScriptedServer::StreamEvents(res,
                                 {Chunk("partial", 1), "\"" + std::string(9 << 20, 'x') + "\""});
  });
  auto step = Collect(*Make(server.url()), Prompt());
  ASSERT_FALSE(step.status.ok());
  EXPECT_EQ(step.status.error().code, "model.event_too_large");
  EXPECT_EQ(step.status.error().message,
            "a stream event is larger than 8 MiB; the stream was stopped");
  EXPECT_EQ(Joined(step.parts, PartType::kTextDelta), "partial");
  ExpectWellFormedStep(step.parts);
  EXPECT_EQ(server.request_count(), 1u);
}

// An error body too deep to read as JSON is reported as the raw text it is.
TEST(HttpProviderDelivery, AnErrorBodyNestedTooDeepIsReportedAsText) {
  ScriptedServer server([](const httplib::Request&, httplib::Response& res, const auto&) {
    res.status = 500;
    res.set_content(R"({"error": )" + Nested(30000) + "}", "application/json");
  });
  auto step = Collect(*Make(server.url()), Prompt());
  ASSERT_FALSE(step.status.ok());
  EXPECT_EQ(step.status.error().code, "model.http_status");
  EXPECT_EQ(step.status.error().detail, (R"({"error": )" + Nested(30000)).substr(0, 500));
}

TEST(HttpProviderDelivery, ErrorEventMidStreamIsReportedAfterTheTextSoFar) {
  // llama-server ends a stream this way when its output parser rejects what the model sampled.
  ScriptedServer server([](const httplib::Request&, httplib::Response& res, const auto&) {
    ScriptedServer::StreamEvents(
        res,
        {Chunk("partial", 1),
         R"({"error": {"code": 500, "message": "The model produced output that does not match",)"
         R"( "type": "server_error"}})"});
  });
  auto provider = Make(server.url());
  auto step = Collect(*provider, Prompt());
  ASSERT_FALSE(step.status.ok());
  EXPECT_EQ(step.status.error().code, "model.server_error");
  EXPECT_THAT(step.status.error().detail, HasSubstr("does not match"));
  EXPECT_EQ(Joined(step.parts, PartType::kTextDelta), "partial");
  ASSERT_FALSE(step.parts.empty());
  EXPECT_EQ(step.parts.back().type, PartType::kError);
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(HttpProviderDelivery, StreamEndingWithoutFinishIsInterrupted) {
  ScriptedServer server([](const httplib::Request&, httplib::Response& res, const auto&) {
    ScriptedServer::StreamEvents(res, {Chunk("a", 1)});
  });
  auto provider = Make(server.url());
  auto step = Collect(*provider, Prompt());
  ASSERT_FALSE(step.status.ok());
  EXPECT_EQ(step.status.error().code, "model.stream_interrupted");
}

TEST(HttpProviderCancel, CancelFromTheSinkAborts) {
  ScriptedServer server([](const httplib::Request&, httplib::Response& res, const auto&) {
    std::vector<std::string> events;
    for (int i = 0; i < 50; ++i) events.push_back(Chunk("x", 1));
    events.push_back(Chunk("", 1, "stop"));
    ScriptedServer::StreamEvents(res, events, false, 20ms);
  });
  auto provider = Make(server.url());
  CancelToken cancel;
  std::vector<formats::StreamPart> parts;
  auto status = provider->Stream(
      Prompt(),
      [&](const formats::StreamPart& p) {
        parts.push_back(p);
        if (p.type == PartType::kTextDelta) cancel.Cancel();
      },
      cancel);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, "model.cancelled");
  EXPECT_EQ(parts.back().type, PartType::kAbort);
  EXPECT_NE(Find(parts, PartType::kTextEnd), nullptr);
  EXPECT_EQ(server.request_count(), 1u);
  server.Stop();
}

TEST(HttpProviderCancel, CancelFromAnotherThreadEndsASilentStreamPromptly) {
  ScriptedServer server([](const httplib::Request&, httplib::Response& res,
                           const std::atomic<bool>& stopping) {
    res.set_chunked_content_provider("text/event-stream", [&stopping](size_t, httplib::DataSink&) {
      for (int i = 0; i < 500 && !stopping; ++i) std::this_thread::sleep_for(10ms);
      return false;
    });
  });
  HttpProviderOptions o;
  o.read_timeout = 30s;
  auto provider = Make(server.url(), o);
  CancelToken cancel;
  std::thread canceller([&] {
    std::this_thread::sleep_for(200ms);
    cancel.Cancel();
  });
  auto t0 = std::chrono::steady_clock::now();
  auto step = Collect(*provider, Prompt(), cancel);
  canceller.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
  ASSERT_FALSE(step.status.ok());
  EXPECT_EQ(step.status.error().code, "model.cancelled");
  EXPECT_EQ(step.parts.back().type, PartType::kAbort);
  server.Stop();
}

TEST(HttpProviderPool, SequentialStepsReuseOneKeptAliveConnection) {
  ScriptedServer server([](const httplib::Request&, httplib::Response& res, const auto&) {
    ScriptedServer::StreamEvents(res, {Chunk("Hi", 1), Chunk("", 2, "stop"), "[DONE]"});
  });
  auto provider = Make(server.url());
  for (int i = 0; i < 3; ++i) {
    auto step = Collect(*provider, Prompt());
    ASSERT_TRUE(step.status.ok()) << step.status.error().ToString();
    EXPECT_EQ(Joined(step.parts, PartType::kTextDelta), "Hi");
  }
  EXPECT_EQ(server.request_count(), 3u);
  EXPECT_EQ(provider->connections_opened(), 1);
  EXPECT_EQ(provider->connections_reused(), 2);
}

TEST(HttpProviderPool, AConnectionTheEngineClosedIsNeverReused) {
  // The engine answers and then closes (no keep-alive): the next step opens a new connection.
  ScriptedServer server([](const httplib::Request&, httplib::Response& res, const auto&) {
    res.set_header("Connection", "close");
    ScriptedServer::StreamEvents(res, {Chunk("Hi", 1), Chunk("", 2, "stop"), "[DONE]"});
  });
  auto provider = Make(server.url());
  for (int i = 0; i < 2; ++i) {
    auto step = Collect(*provider, Prompt());
    ASSERT_TRUE(step.status.ok()) << step.status.error().ToString();
  }
  EXPECT_EQ(provider->connections_opened(), 2);
  EXPECT_EQ(provider->connections_reused(), 0);
  EXPECT_EQ(server.request_count(), 2u);
}

// An engine that closes a kept-alive connection as the next request arrives on it (its idle
// timeout racing our reuse) answered nothing: the request goes once more on a new connection.
// Any other failure after sending is never re-sent (the tests above).
TEST(HttpProviderPool, ARequestOnAConnectionTheEngineClosedUnansweredGoesOnceOnANewOne) {
  int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener, 8), 0);
  socklen_t len = sizeof addr;
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  std::atomic<int> requests{0};
  const std::string body =
      "data: " + Chunk("Hi", 1) + "\n\ndata: " + Chunk("", 2, "stop") + "\n\ndata: [DONE]\n\n";
  const std::string answer =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
      "Connection: keep-alive\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  // Connection 1: answers one request, then closes as the second arrives. Connection 2: answers.
  std::thread engine([&] {
    auto read_request = [&](int fd) {
      std::string got;
      char buf[4096];
      while (got.find("\r\n\r\n") == std::string::npos) {
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) return false;
        got.append(buf, static_cast<size_t>(n));
      }
      const size_t at = got.find("Content-Length: ");
      const size_t want = std::stoul(got.substr(at + 16)) + got.find("\r\n\r\n") + 4;
      while (got.size() < want) {
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) return false;
        got.append(buf, static_cast<size_t>(n));
      }
      ++requests;
      return true;
    };
    int first = ::accept(listener, nullptr, nullptr);
    if (read_request(first)) (void)::send(first, answer.data(), answer.size(), MSG_NOSIGNAL);
    if (read_request(first)) ::close(first);  // took the request, answers nothing
    int second = ::accept(listener, nullptr, nullptr);
    if (read_request(second)) (void)::send(second, answer.data(), answer.size(), MSG_NOSIGNAL);
    ::close(second);
  });
  auto provider = Make("http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)));
  for (int i = 0; i < 2; ++i) {
    auto step = Collect(*provider, Prompt());
    ASSERT_TRUE(step.status.ok()) << i << ": " << step.status.error().ToString();
    EXPECT_EQ(Joined(step.parts, PartType::kTextDelta), "Hi");
    ExpectWellFormedStep(step.parts);
  }
  engine.join();
  ::close(listener);
  EXPECT_EQ(requests, 3);
  EXPECT_EQ(provider->stale_retries(), 1);
  EXPECT_EQ(provider->connections_opened(), 2);
}

TEST(HttpProviderPool, ManyStepsStreamAtOnceAndEachGetsOnlyItsOwnParts) {
  // Each request's reply names its affinity key, so a part delivered to the wrong step shows.
  ScriptedServer server([](const httplib::Request& req, httplib::Response& res, const auto&) {
    const std::string key = req.get_header_value("x-session-token");
    std::vector<std::string> events;
    for (int i = 0; i < 5; ++i) events.push_back(Chunk(key + ";", i));
    events.push_back(Chunk("", 9, "stop"));
    events.push_back("[DONE]");
    ScriptedServer::StreamEvents(res, events, false, 5ms);
  });
  HttpProviderOptions o;
  o.affinity_header = "x-session-token";
  auto provider = Make(server.url(), o);
  constexpr int kSteps = 6;  // within the scripted server's own thread pool
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, std::string> text;
  std::map<std::string, Status> ended;
  for (int i = 0; i < kSteps; ++i) {
    StepRequest r = Prompt();
    r.affinity_key = "k" + std::to_string(i);
    r.step_id = r.affinity_key + "-";
    const std::string key = r.affinity_key;
    provider->StreamAsync(
        r,
        [&, key](const formats::StreamPart& p) {
          std::lock_guard l(mu);
          if (p.type == PartType::kTextDelta) text[key] += p.delta;
        },
        CancelToken(),
        [&, key](Status s) {
          std::lock_guard l(mu);
          ended.emplace(key, std::move(s));
          cv.notify_all();
        });
  }
  std::unique_lock l(mu);
  ASSERT_TRUE(cv.wait_for(l, 20s, [&] { return ended.size() == kSteps; }));
  for (int i = 0; i < kSteps; ++i) {
    const std::string key = "k" + std::to_string(i);
    EXPECT_TRUE(ended.at(key).ok());
    std::string want;
    for (int j = 0; j < 5; ++j) want += key + ";";
    EXPECT_EQ(text[key], want);
  }
}

TEST(HttpProviderConfig, MissingKeyAndBadUrlAreErrors) {
  auto bad = HttpProvider::Create({.base_url = "ftp://x"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "model.bad_url");
  for (const char* url : {"http://127.0.0.1:99999", "http://127.0.0.1:80x", "http://[::1",
                          "http://user:pw@127.0.0.1:8080", "http://:8080"}) {
    auto r = HttpProvider::Create({.base_url = url});
    ASSERT_FALSE(r.ok()) << url;
    EXPECT_EQ(r.error().code, "model.bad_url") << url;
  }
  ::unsetenv("AFFORDANCE_TEST_MISSING_KEY");
  HttpProviderOptions o;
  o.api_key_env = "AFFORDANCE_TEST_MISSING_KEY";
  auto provider = Make("http://127.0.0.1:" + std::to_string(UnusedPort()), o);
  auto step = Collect(*provider, Prompt());
  ASSERT_FALSE(step.status.ok());
  EXPECT_EQ(step.status.error().code, "model.api_key");
  EXPECT_EQ(step.status.error().detail, "AFFORDANCE_TEST_MISSING_KEY");
  EXPECT_EQ(provider->connect_failures(), 0);
}

}  // namespace
}  // namespace affordance::model::testing

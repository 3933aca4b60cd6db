// `affordance render` / `affordance act` as a user runs them: the built binary, real files.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

struct Ran {
  int status;
  std::string out;
};

Ran Cli(const std::string& args, const std::string& stdin_text = "") {
  std::string cmd = std::string("cd '") + AFFORDANCE_SOURCE_DIR + "' && ";
  if (!stdin_text.empty()) cmd += "printf '%s' '" + stdin_text + "' | ";
  cmd += std::string("'") + AFFORDANCE_BINARY_DIR + "/affordance' " + args + " 2>/dev/null";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  int status = pclose(pipe);
  return {WEXITSTATUS(status), out};
}

const std::string kNotebook =
    "--model Qwen__Qwen3-4B-Instruct-2507 --view views/demo/notebook_chat.tsx "
    "--entry NotebookChat ";

TEST(CliRender, JsonWritesTokensSpansAndToolsWithoutDecoding) {
  Ran r = Cli("render " + kNotebook + "--state views/demo/notebook_state.json --json");
  ASSERT_EQ(r.status, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["tokens"].is_array());
  EXPECT_EQ(j["tokens"][0], 151644);  // <|im_start|>
  EXPECT_EQ(j["tools"].size(), 2u);
  EXPECT_EQ(j["tools"][1]["function"]["name"], "change__notes");
  bool found = false;
  for (const auto& s : j["spans"]) {
    if (s["kind"] == "action" && s["name"] == "change__notes") found = s["end"] > s["begin"];
  }
  EXPECT_TRUE(found);
}

TEST(CliRender, WithoutJsonPrintsTheDecodedPrompt) {
  Ran r = Cli("render " + kNotebook + "--state views/demo/notebook_state.json");
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(r.out.rfind("<|im_start|>system\n# Tools", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("notes: <|im_end|>\n<|im_start|>assistant\n"), std::string::npos);
}

TEST(CliRender, StateFromStdinBatchAndCache) {
  Ran one =
      Cli("render " + kNotebook + "--state - --json", R"({"numbers":[1,2,3],"question":"q"})");
  ASSERT_EQ(one.status, 0) << one.out;
  Ran batch = Cli("render " + kNotebook + "--state - --batch --cache --json",
                  R"([{"numbers":[1,2,3],"question":"q"},{"numbers":[4],"question":"r"}])");
  ASSERT_EQ(batch.status, 0) << batch.out;
  auto j = nlohmann::json::parse(batch.out);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["tokens"], nlohmann::json::parse(one.out)["tokens"]);
  EXPECT_NE(j[1]["tokens"], j[0]["tokens"]);
  // Inline JSON, as the help says (issue 26): the same tokens as from stdin.
  Ran inline_state =
      Cli("render " + kNotebook + "--state '{\"numbers\":[1,2,3],\"question\":\"q\"}' --json");
  ASSERT_EQ(inline_state.status, 0) << inline_state.out;
  EXPECT_EQ(nlohmann::json::parse(inline_state.out)["tokens"],
            nlohmann::json::parse(one.out)["tokens"]);
}

TEST(CliRender, ToolObjectsAndStateKeepTheKeyOrderTheyWereWrittenIn) {
  // The test view lives outside views/, so its @lib imports need the library named.
  setenv("AFFORDANCE_VIEWS_LIB", (std::string(AFFORDANCE_SOURCE_DIR) + "/views/lib").c_str(), 1);
  const std::string view =
      "--model Qwen__Qwen3-4B-Instruct-2507 --view "
      "tests/contract/adapters/data/key_order_view.tsx ";
  Ran r = Cli("render " + view + "--entry KeyOrderWithHistory --state -",
              R"({"history":[{"role":"tool","content":{"zeta":1,"alpha":{"y":2,"b":3}}}]})");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find(R"({"type": "function", "function": {"name": "click__search", )"
                       R"("parameters": {"type": "object", "properties": {"query": {"type": )"
                       R"("string"}, "limit": {"type": "integer"}}, "required": ["query"]}}})"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(R"({"zeta": 1, "alpha": {"y": 2, "b": 3}})"), std::string::npos) << r.out;
  Ran j = Cli("render " + view + "--entry KeyOrder --state - --json", R"({"history":[]})");
  ASSERT_EQ(j.status, 0) << j.out;
  EXPECT_NE(j.out.find(R"("tools":[{"type":"function","function":{"name":"click__search",)"
                       R"("parameters":{"type":"object","properties":{"query":)"),
            std::string::npos)
      << j.out;
}

TEST(CliRender, BadInputAndRenderFailuresExitNonZeroWithAnErrorObject) {
  Ran bad_json = Cli("render " + kNotebook + "--state - --json", "{nope");
  EXPECT_EQ(bad_json.status, 2);
  EXPECT_EQ(nlohmann::json::parse(bad_json.out)["error"]["code"], "cli.bad_state");
  Ran not_array = Cli("render " + kNotebook + "--state - --batch --json", R"({"numbers":[]})");
  EXPECT_EQ(not_array.status, 2);
  Ran missing = Cli("render " + kNotebook + "--state /nonexistent.json --json");
  EXPECT_NE(missing.status, 0);
  EXPECT_TRUE(nlohmann::json::parse(missing.out).contains("error"));
  Ran no_view =
      Cli("render --model Qwen__Qwen3-4B-Instruct-2507 --view views/demo/none.tsx "
          "--entry X --state - --json",
          "{}");
  EXPECT_NE(no_view.status, 0);
  EXPECT_EQ(
      nlohmann::json::parse(no_view.out)["error"]["code"].get<std::string>().rfind("view.", 0), 0u);
  // A render failure: numbers is not an array, so the app throws.
  Ran throws = Cli("render " + kNotebook + "--state - --json", R"({"numbers":5,"question":"q"})");
  EXPECT_EQ(throws.status, 1);
  EXPECT_TRUE(nlohmann::json::parse(throws.out)["error"].contains("message"));
  // Llama's encoder lacks Qwen's protocol tokens.
  Ran wrong_model =
      Cli("render --model meta-llama__Llama-3.1-8B-Instruct --view views/demo/notebook_chat.tsx "
          "--entry NotebookChat --state views/demo/notebook_state.json --json");
  EXPECT_EQ(wrong_model.status, 1);
  EXPECT_EQ(nlohmann::json::parse(wrong_model.out)["error"]["code"], "render.unknown_token");
}

TEST(CliAct, DispatchesOneCallAndPrintsTheReRender) {
  Ran r = Cli("act " + kNotebook +
              "--state views/demo/notebook_state.json --json "
              "--call '{\"name\":\"change__notes\",\"arguments\":{\"value\":\"done\"}}'");
  ASSERT_EQ(r.status, 0) << r.out;
  Ran decoded = Cli("act " + kNotebook +
                    "--state views/demo/notebook_state.json "
                    "--call '{\"name\":\"change__notes\",\"arguments\":{\"value\":\"done\"}}'");
  EXPECT_NE(decoded.out.find("notes: done<|im_end|>"), std::string::npos) << decoded.out;
  Ran unknown = Cli("act " + kNotebook +
                    "--state views/demo/notebook_state.json --json "
                    "--call '{\"name\":\"click__nothing\",\"arguments\":{}}'");
  EXPECT_EQ(unknown.status, 1);
  EXPECT_EQ(nlohmann::json::parse(unknown.out)["error"]["code"], "render.unknown_tool");
  Ran bad_call =
      Cli("act " + kNotebook + "--state views/demo/notebook_state.json --json --call 'nope'");
  EXPECT_EQ(bad_call.status, 2);
  EXPECT_EQ(nlohmann::json::parse(bad_call.out)["error"]["code"], "cli.bad_call");
}

// Issue 24: --state (a file: a million levels) and --call (an argument, which Linux caps at 128
// KiB: 60,000 levels) are refused before they are parsed.
TEST(CliRender, StateAndCallNestedTooDeepAreUsageErrors) {
  char tmpl[] = "/tmp/affordance-deep-state-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string state = dir + "/state.json";
  {
    FILE* f = std::fopen(state.c_str(), "w");
    const std::string text = "{\"numbers\": " + std::string(1000000, '[') +
                             std::string(1000000, ']') + ", \"question\": \"q\"}";
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
  Ran deep_state = Cli("render " + kNotebook + "--state " + state + " --json");
  EXPECT_EQ(deep_state.status, 2);
  auto e = nlohmann::json::parse(deep_state.out)["error"];
  EXPECT_EQ(e["code"], "cli.too_deep");
  EXPECT_EQ(e["message"], "the state nests deeper than 128 levels of arrays and objects");
  std::remove(state.c_str());
  std::remove(dir.c_str());
  Ran deep_call =
      Cli("act " + kNotebook + "--state views/demo/notebook_state.json --json --call '" +
          std::string(60000, '[') + std::string(60000, ']') + "'");
  EXPECT_EQ(deep_call.status, 2);
  e = nlohmann::json::parse(deep_call.out)["error"];
  EXPECT_EQ(e["code"], "cli.too_deep");
  EXPECT_EQ(e["message"], "--call nests deeper than 128 levels of arrays and objects");
}

}  // namespace

namespace {

// A fresh folder outside the repository (no "views" ancestor), removed by the destructor.
struct OutsideFolder {
  OutsideFolder() {
    char tmpl[] = "/tmp/affordance-own-app-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~OutsideFolder() { std::system(("rm -rf '" + path + "'").c_str()); }
  void Write(const std::string& name, const std::string& text) const {
    std::system(("mkdir -p \"$(dirname '" + path + "/" + name + "')\"").c_str());
    FILE* f = std::fopen((path + "/" + name).c_str(), "w");
    std::fputs(text.c_str(), f);
    std::fclose(f);
  }
  std::string path;
};

// Runs the built binary from `cwd` with `env` assignments ("" = AFFORDANCE_VIEWS_LIB unset).
Ran CliIn(const std::string& cwd, const std::string& env, const std::string& args) {
  std::string cmd = "cd '" + cwd + "' && env -u AFFORDANCE_VIEWS_LIB " + env + " '" +
                    AFFORDANCE_BINARY_DIR + "/affordance' " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  int status = pclose(pipe);
  return {WEXITSTATUS(status), out};
}

constexpr const char* kOwnApp = R"(
import { useState } from "affordance";
import { pyJson } from "@lib/json";
import { Qwen3App } from "@adapters/qwen3.tsx";
function Counter() {
  const [n, setN] = useState(0);
  return <button label="more" onClick={() => setN(n + 1)}>{pyJson({ n })}</button>;
}
export default function Own() {
  return <Qwen3App question="Count.">{<Counter key="c" />}</Qwen3App>;
}
)";

const std::string kOwnRender =
    "render --model Qwen__Qwen3-4B-Instruct-2507 --view app.tsx --entry Own --state state.json";

}  // namespace

TEST(CliRender, AViewInItsOwnFolderImportsLibAndAdaptersWithoutTheVariable) {
  OutsideFolder dir;
  dir.Write("app.tsx", kOwnApp);
  dir.Write("state.json", "{}");
  Ran r = CliIn(dir.path, "", kOwnRender);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("[more]{\"n\": 0}<|im_end|>"), std::string::npos) << r.out;
}

TEST(CliRender, TheVariableStillOverridesTheViewsLibrary) {
  OutsideFolder dir;
  dir.Write("app.tsx", R"(
import { greeting } from "@lib/greeting";
export default function Own() { return <box>{greeting}</box>; }
)");
  dir.Write("mylib/greeting.ts", "export const greeting = \"from my lib\";\n");
  dir.Write("state.json", "{}");
  // Without the variable, the shipped views/lib has no greeting module: a clear error.
  Ran missing = CliIn(dir.path, "", kOwnRender + " --json");
  EXPECT_NE(missing.status, 0);
  EXPECT_NE(missing.out.find("cannot import \\\"@lib/greeting\\\""), std::string::npos)
      << missing.out;
  Ran r = CliIn(dir.path, "AFFORDANCE_VIEWS_LIB='" + dir.path + "/mylib'", kOwnRender);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.rfind("from my lib", 0), 0u) << r.out;
}

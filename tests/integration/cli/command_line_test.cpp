// A newcomer's command-line habits (issue 42): a mistyped option or command is named once with
// the nearest known name, a JSON file that is not JSON says where (file:line:column) and what was
// expected, a mistyped connector or model name is bad input (exit 2, category "invalid") with the
// nearest name, and an app that lacks its component names the person's file. Each is read at the
// door a person meets it: the real binary's stderr, its `--json` error and its exit status.
#include "connect/process.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace affordance::cli {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;
using ::testing::StartsWith;

std::string Source(const std::string& rel) {
  return std::string(AFFORDANCE_SOURCE_DIR) + "/" + rel;
}

class Folder {
 public:
  Folder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "affordance-cli-XXXXXX");
    dir_ = mkdtemp(pattern.data());
    std::filesystem::create_directories(dir_ + "/connectors");
    for (const char* f : {"calendar.ics", "calendar.json"}) {
      std::filesystem::copy_file(Source(std::string("examples/connectors/") + f),
                                 dir_ + "/connectors/" + f);
    }
  }
  ~Folder() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string operator/(const std::string& name) const { return dir_ + "/" + name; }
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(*this / name, std::ios::binary) << text;
    return *this / name;
  }
  // The binary with `args`, its data in this folder.
  connect::ProcessOutput Cli(std::vector<std::string> args, bool connectors = true) const {
    std::vector<std::string> argv = {AFFORDANCE_CLI};
    argv.insert(argv.end(), args.begin(), args.end());
    if (args.size() > 0 && args[0] != "render" && args[0] != "tokenize") {
      argv.insert(argv.end(), {"--data", *this / "data"});
      if (connectors) argv.insert(argv.end(), {"--connectors", *this / "connectors"});
    }
    auto r = connect::RunProcess(argv, 60000);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().ToString());
    return r.ok() ? *r : connect::ProcessOutput{};
  }

 private:
  std::string dir_;
};

// Bare: no folders appended (the words are exactly the person's).
connect::ProcessOutput Bare(std::vector<std::string> args) {
  std::vector<std::string> argv = {AFFORDANCE_CLI};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = connect::RunProcess(argv, 60000);
  EXPECT_TRUE(r.ok());
  return r.ok() ? *r : connect::ProcessOutput{};
}

json ErrorOf(const connect::ProcessOutput& r) {
  json doc = json::parse(r.out, nullptr, false);
  EXPECT_TRUE(doc.is_object() && doc.contains("error")) << r.out << r.err;
  return doc.is_object() ? doc.value("error", json::object()) : json::object();
}

TEST(CommandLine, AMistypedOptionIsNamedOnceWithTheNearestOption) {
  auto run = Bare({"run", "--conectors", "examples/connectors", "hi"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err,
            "affordance run: unknown option \"--conectors\"; did you mean \"--connectors\"? "
            "(affordance run --help lists them)\n");
  EXPECT_EQ(run.out, "");
  // Not "--model is required": the typo is what is wrong.
  auto render =
      Bare({"render", "--modle", "x", "--view", "v.tsx", "--entry", "E", "--state", "{}"});
  EXPECT_EQ(render.exit_code, 2);
  EXPECT_EQ(render.err,
            "affordance render: unknown option \"--modle\"; did you mean \"--model\"? "
            "(affordance render --help lists them)\n");
  // --opt=value is read as --opt.
  auto equals = Bare({"run", "--thred=t_1", "hi"});
  EXPECT_THAT(equals.err, HasSubstr("unknown option \"--thred\"; did you mean \"--thread\"?"));
  // Nothing near: no guess, only where the list is.
  auto far = Bare({"run", "--zzzzzzzzzz", "hi"});
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_EQ(far.err,
            "affordance run: unknown option \"--zzzzzzzzzz\" (affordance run --help lists them)\n");
  // A value that looks like an option is the option's value, not a typo.
  auto value = Bare({"run", "--title", "--x", "--conectors", "c", "hi"});
  EXPECT_THAT(value.err, HasSubstr("\"--conectors\""));
  EXPECT_THAT(value.err, Not(HasSubstr("\"--x\"")));
}

TEST(CommandLine, AMistypedCommandIsNamedOnceWithTheNearestCommand) {
  auto top = Bare({"rendr", "--model", "x"});
  EXPECT_EQ(top.exit_code, 2);
  EXPECT_EQ(top.err,
            "affordance: unknown command \"rendr\"; did you mean \"render\"? "
            "(affordance --help lists them)\n");
  auto nested = Bare({"grants", "grnt", "calendar", "--read"});
  EXPECT_EQ(nested.exit_code, 2);
  EXPECT_EQ(nested.err,
            "affordance grants: unknown command \"grnt\"; did you mean \"grant\"? "
            "(affordance grants --help lists them)\n");
  // Known words with a missing value keep the parser's own message.
  auto missing = Bare({"render", "--view", "v.tsx"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("required"));
  EXPECT_EQ(Bare({"run", "--help"}).exit_code, 0);
}

TEST(CommandLine, AMistypedConnectorNameSuggestsTheNearestConnector) {
  Folder f;
  auto grant = f.Cli({"grants", "grant", "calender", "--read", "--json"});
  EXPECT_EQ(grant.exit_code, 2) << grant.out << grant.err;
  json e = ErrorOf(grant);
  EXPECT_EQ(e["code"], "connect.unknown_connector");
  EXPECT_EQ(e["message"], "no connector \"calender\"; did you mean \"calendar\"?");
  auto human = f.Cli({"grants", "grant", "calender", "--read"});
  EXPECT_THAT(human.err, HasSubstr("did you mean \"calendar\"?"));
  // Nothing near: no guess.
  auto far = f.Cli({"grants", "grant", "mailbox", "--read", "--json"});
  EXPECT_EQ(ErrorOf(far)["message"], "no connector \"mailbox\"");
}

// A wrong --model is bad input at every command that takes one: exit 2, category "invalid".
TEST(CommandLine, AWrongModelIsInvalidWithExitTwoAtEveryCommand) {
  Folder f;
  // A one-letter typo of a registered name: near enough to be named as the fix.
  const std::string typo = "Qwen__Qwen3-4B-Instrct-2507";
  const std::string script = f.Write("s.json", R"({"format": "qwen3", "steps": ["hi"]})");
  const std::vector<std::vector<std::string>> commands = {
      {"run", "--json", "--model", typo, "--script", script, "hi"},
      {"render", "--json", "--model", typo, "--view", Source("views/demo/notebook_app.tsx"),
       "--entry", "Notebook", "--state", "{}"},
      {"tokenize", "--json", "--model", typo},
  };
  for (const auto& args : commands) {
    auto r = f.Cli(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.out << r.err;
    json e = ErrorOf(r);
    EXPECT_EQ(e["code"], "tokenizer.model_not_found") << args[0];
    EXPECT_EQ(e["category"], "invalid") << args[0];
    EXPECT_THAT(e.value("message", ""), HasSubstr("--model \"" + typo + "\""));
    EXPECT_THAT(e.value("message", ""), HasSubstr("did you mean \"Qwen__Qwen3-4B-Instruct-2507\"?"))
        << args[0];
  }
  // The chat, too (its input a pipe): exit 2 before any prompt.
  auto chat = connect::RunProcess(
      {"/bin/sh", "-c",
       "echo /quit | '" + std::string(AFFORDANCE_CLI) + "' chat --model nope --script '" + script +
           "' --data '" + (f / "data") + "'"},
      60000);
  ASSERT_TRUE(chat.ok());
  EXPECT_EQ(chat->exit_code, 2) << chat->out << chat->err;
  EXPECT_THAT(chat->err, HasSubstr("--model \"nope\" is not a registered model name"));
}

// Every JSON file a command reads: "FILE:LINE:COLUMN: what the parser found; expected ...".
TEST(CommandLine, AJsonFileThatIsNotJsonSaysFileLineColumnAndWhatWasExpected) {
  Folder f;
  const std::string bad =
      f.Write("bad.json", "{\n  \"format\": \"qwen3\",\n  \"steps\": [\"a\",]\n}\n");
  // --script (run): the replay script.
  auto script = f.Cli({"run", "--json", "--script", bad, "hi"});
  EXPECT_EQ(script.exit_code, 2) << script.out << script.err;
  json e = ErrorOf(script);
  EXPECT_EQ(e["code"], "model.replay_script");
  EXPECT_EQ(e["category"], "invalid");
  EXPECT_THAT(e.value("detail", ""), StartsWith(bad + ":3:17: "));
  EXPECT_THAT(e.value("detail", ""), HasSubstr("expected"));
  auto human = f.Cli({"run", "--script", bad, "hi"});
  EXPECT_THAT(human.err, HasSubstr(bad + ":3:17: "));

  // --state (render).
  const std::string state = f.Write("state.json", "{\"title\": \"x\"\n \"items\": []}");
  auto render =
      f.Cli({"render", "--json", "--model", "Qwen__Qwen3-4B-Instruct-2507", "--view",
             Source("views/demo/notebook_app.tsx"), "--entry", "Notebook", "--state", state});
  EXPECT_EQ(render.exit_code, 2) << render.out << render.err;
  e = ErrorOf(render);
  EXPECT_EQ(e["code"], "cli.bad_state");
  EXPECT_THAT(e.value("detail", ""), StartsWith(state + ":2:8: "));
  EXPECT_THAT(e.value("detail", ""), HasSubstr("expected '}'"));

  // --app-props (run): a file and inline text.
  const std::string good = f.Write("good.json", R"({"format": "qwen3", "steps": ["hi"]})");
  const std::string props = f.Write("props.json", "{\"notes\": [1, 2\n");
  auto app =
      f.Cli({"run", "--json", "--script", good, "--app",
             Source("views/demo/notebook_app.tsx") + ":Notebook", "--app-props", props, "hi"});
  EXPECT_EQ(app.exit_code, 2) << app.out << app.err;
  e = ErrorOf(app);
  EXPECT_EQ(e["message"], "--app-props is not valid JSON");
  EXPECT_THAT(e.value("detail", ""), MatchesRegex(props + ":2:1: .*expected.*"));

  // A manifest in the connectors folder.
  f.Write("connectors/calendar.json", "{\n  \"slug\": \"calendar\",\n  \"version\" 1\n}\n");
  auto manifest = f.Cli({"run", "--json", "--script", good, "hi"});
  EXPECT_EQ(manifest.exit_code, 2) << manifest.out << manifest.err;
  e = ErrorOf(manifest);
  EXPECT_EQ(e["code"], "connect.manifest_invalid");
  EXPECT_THAT(e.value("detail", ""), HasSubstr("calendar.json:3:13: "));
  EXPECT_THAT(e.value("detail", ""), HasSubstr("expected ':'"));
}

TEST(CommandLine, AnAppWithoutItsComponentNamesThePersonsFileAndTheComponent) {
  Folder f;
  const std::string good = f.Write("good.json", R"({"format": "qwen3", "steps": ["hi"]})");
  std::filesystem::copy_file(Source("views/demo/notebook_app.tsx"), f / "todo.tsx");
  auto r = f.Cli({"run", "--json", "--script", good, "--app", f / "todo.tsx:Nope", "hi"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  json e = ErrorOf(r);
  EXPECT_EQ(e["code"], "harness.bad_app");
  EXPECT_EQ(e["category"], "invalid");
  EXPECT_EQ(e["message"], "the app view does not export a component \"Nope\"");
  EXPECT_EQ(e["detail"], f / "todo.tsx");
  EXPECT_THAT(r.out, Not(HasSubstr("frames/frame-")));
}

TEST(CommandLine, AnExhaustedReplayScriptCountsItsStepsInWords) {
  Folder f;
  const std::string call =
      R"(<tool_call>\n{\"name\": \"ListComponents\", \"arguments\": {}}\n</tool_call>)";
  const std::string one =
      f.Write("one.json", "{\"format\": \"qwen3\", \"steps\": [\"" + call + "\"]}");
  auto r = f.Cli({"run", "--script", one, "hi"});
  EXPECT_THAT(r.out + r.err, HasSubstr("(1 step played)"));
  EXPECT_THAT(r.out + r.err, Not(HasSubstr("1 steps")));
}

// An app author's `description` prop reaches the model: the tool `render --json` lists has it,
// and the prompt the adapter renders carries it in the tool table.
TEST(RenderDoor, ADescriptionPropIsTheProjectedToolsDescriptionInThePrompt) {
  Folder f;
  const std::string view = f.Write(
      "todo.tsx",
      "import { Qwen3App } from \"@adapters/qwen3.tsx\";\n"
      "export function Todo() {\n"
      "  return <box>{\"Buy milk\\n\"}<button label=\"Done: buy milk\"\n"
      "    description=\"Mark the to-do item buy milk as done\" onClick={() => {}} /></box>;\n"
      "}\n"
      "export default function TodoChat() {\n"
      "  return <Qwen3App question=\"What is left?\"><Todo key=\"todo\" /></Qwen3App>;\n"
      "}\n");
  const std::vector<std::string> args = {"render",  "--model", "Qwen__Qwen3-4B-Instruct-2507",
                                         "--view",  view,      "--entry",
                                         "default", "--state", "{}"};
  std::vector<std::string> with_json = args;
  with_json.push_back("--json");
  auto r = f.Cli(with_json);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json tools = json::parse(r.out)["tools"];
  ASSERT_EQ(tools.size(), 1u) << r.out;
  EXPECT_THAT(tools[0]["function"]["name"].get<std::string>(), StartsWith("click__Done_buy_milk_"));
  EXPECT_EQ(tools[0]["function"]["description"], "Mark the to-do item buy milk as done");
  auto prompt = f.Cli(args);
  ASSERT_EQ(prompt.exit_code, 0) << prompt.err;
  EXPECT_THAT(prompt.out, HasSubstr("\"description\": \"Mark the to-do item buy milk as done\""));
}

}  // namespace
}  // namespace affordance::cli

// `affordance run`, `affordance chat` and `affordance prompt audit` end to end: the real binary,
// a real data folder, the example calendar connector, the replay provider (a stand-in for a model,
// which cannot run here), and real process kills.
#include "connect/process.h"
#include "harness/owner.h"
#include "store/store.h"
#include "support.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>

#include <sstream>
#include <thread>

namespace affordance::harness::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

struct Cli {
  TempDir dir;
  Cli() {
    std::filesystem::create_directories(dir / "connectors");
    std::filesystem::copy_file(Source("examples/connectors/calendar.ics"),
                               dir / "connectors/calendar.ics");
    std::filesystem::copy_file(Source("examples/connectors/calendar.json"),
                               dir / "connectors/calendar.json");
    // Reads need grants: what a new user does once (README).
    auto granted = connect::RunProcess({AFFORDANCE_CLI, "grants", "grant", "calendar", "--read",
                                        "--data", dir / "data", "--connectors", dir / "connectors"},
                                       60000);
    EXPECT_TRUE(granted.ok() && granted->exit_code == 0)
        << (granted.ok() ? granted->out + granted->err : granted.error().ToString());
  }
  std::string Script(const json& steps, int delay_ms = 0) {
    static int n = 0;
    std::string path = dir / ("script" + std::to_string(n++) + ".json");
    WriteText(path,
              json{{"format", "qwen3"}, {"token_delay_ms", delay_ms}, {"steps", steps}}.dump());
    return path;
  }
  std::vector<std::string> Argv(const std::string& command, std::vector<std::string> args) {
    std::vector<std::string> argv = {AFFORDANCE_CLI, command,        "--data",
                                     dir / "data",   "--connectors", dir / "connectors"};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }
  connect::ProcessOutput Run(std::vector<std::string> args) {
    auto r = connect::RunProcess(Argv("run", std::move(args)), 120000);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().ToString());
    return r.ok() ? *r : connect::ProcessOutput{};
  }
  std::unique_ptr<store::Store> Store() {
    auto s = store::OpenSqlite(dir / "data/affordance.db");
    EXPECT_TRUE(s.ok());
    return std::move(*s);
  }
};

std::vector<json> Lines(const std::string& out) {
  std::vector<json> events;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) events.push_back(json::parse(line));
  }
  return events;
}

TEST(HarnessCli, RunJsonPrintsTheUiMessageStreamAndPersistsTheTurn) {
  Cli cli;
  auto script = cli.Script(
      {Call("RunConnectorCommand", {{"connector", "calendar"},
                                    {"request", {{"operation", "list_events"}, {"args", kWeek}}}}),
       "Three meetings."});
  auto out = cli.Run({"--provider", "replay", "--script", script, "--json", "What is next week?"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  auto events = Lines(out.out);
  ASSERT_GE(events.size(), 10u);
  EXPECT_EQ(events.front()["type"], "start");
  EXPECT_EQ(events.back()["type"], "finish");
  json turn;
  for (const auto& e : events) {
    if (e["type"] == "data-turn") turn = e["data"];
  }
  EXPECT_EQ(turn["status"], "answered");
  EXPECT_EQ(turn["truth"]["evidence"][0]["connector"], "calendar");
  auto store = cli.Store();
  auto threads = store->ListThreads();
  ASSERT_EQ(threads->size(), 1u);
  EXPECT_EQ((*threads)[0].title, "What is next week?");
  EXPECT_EQ((*threads)[0].messages, 2);

  // The human form streams the answer and one line per tool call.
  auto human =
      cli.Run({"--provider", "replay", "--script", cli.Script({"Plain answer."}), "hello"});
  ASSERT_EQ(human.exit_code, 0) << human.err;
  EXPECT_THAT(human.out, HasSubstr("Plain answer."));
  EXPECT_THAT(human.out, HasSubstr("— answered · 1 step"));

  auto audit = connect::RunProcess({AFFORDANCE_CLI, "prompt", "audit", "--data", cli.dir / "data",
                                    "--thread", (*threads)[0].id, "--json"},
                                   60000);
  ASSERT_TRUE(audit.ok());
  ASSERT_EQ(audit->exit_code, 0) << audit->out << audit->err;
  json a = json::parse(audit->out);
  ASSERT_EQ(a["steps"].size(), 2u);
  EXPECT_GT(a["steps"][0]["audit"]["owners"]["head"].get<int>(), 200);
  EXPECT_GT(a["steps"][1]["audit"]["owners"]["tool_results"].get<int>(), 0);
}

// Issue 41: a mounted app whose actions change as it is used (a button per open task), acted on
// three times by the replay model (a stand-in for a model). `prompt audit` shows the same head at
// every step, and each step's prompt keeps everything of the previous one but its app turn and
// generation prompt: the app's tools are disclosed with the app, not in the head.
TEST(HarnessCli, PromptAuditWithAMountedAppShowsTheSameHeadAtEveryStep) {
  Cli cli;
  const std::string props = cli.dir / "tasks.json";
  WriteText(props, R"({"tasks": ["Buy milk", "Call Ana", "File taxes"]})");
  auto script =
      cli.Script({Call("click__done_1", json::object()), Call("click__done_2", json::object()),
                  Call("click__done_3", json::object()), "All three are done."});
  auto run = cli.Run({"--provider", "replay", "--script", script, "--app",
                      Source("views/demo/tasks_app.tsx") + ":Tasks", "--app-props", props, "--json",
                      "Close every task."});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.out, Not(HasSubstr("harness.unknown_tool")));
  auto audit = connect::RunProcess(
      {AFFORDANCE_CLI, "prompt", "audit", "--data", cli.dir / "data", "--json"}, 60000);
  ASSERT_TRUE(audit.ok());
  ASSERT_EQ(audit->exit_code, 0) << audit->out << audit->err;
  const json steps = json::parse(audit->out)["steps"];
  ASSERT_EQ(steps.size(), 4u) << audit->out;
  const json& first = steps[0]["audit"];
  ASSERT_EQ(first["head_sha256"].get<std::string>().size(), 64u);
  for (size_t i = 1; i < steps.size(); ++i) {
    const json& was = steps[i - 1]["audit"];
    const json& now = steps[i]["audit"];
    EXPECT_EQ(now["head_sha256"], first["head_sha256"]) << "step " << i + 1;
    EXPECT_EQ(now["owners"]["head"], first["owners"]["head"]) << "step " << i + 1;
    EXPECT_GE(now["first_changed"].get<int64_t>(), was["total"].get<int64_t>() -
                                                       was["owners"]["apps"].get<int64_t>() -
                                                       was["owners"]["generation"].get<int64_t>())
        << "step " << i + 1;
  }
  // The human table prints the head's digest on every step.
  auto table =
      connect::RunProcess({AFFORDANCE_CLI, "prompt", "audit", "--data", cli.dir / "data"}, 60000);
  ASSERT_TRUE(table.ok());
  const std::string prefix = first["head_sha256"].get<std::string>().substr(0, 12);
  size_t seen = 0;
  for (size_t at = table->out.find(prefix); at != std::string::npos;
       at = table->out.find(prefix, at + 1)) {
    ++seen;
  }
  EXPECT_EQ(seen, 4u) << table->out;
}

// A folder of connectors a newcomer writes: a local SQLite database (its own source) and the
// printed-CLI fixture whose list of 12 ids fans out to detail reads, with the read grants.
void AddLocalAndFanOutConnectors(Cli& cli) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((cli.dir / "connectors/notes.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT);"
                         "INSERT INTO notes VALUES (1, 'Buy milk'), (2, 'Call Ana');",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  json notes = {{"slug", "notes"},
                {"title", "Notes"},
                {"source", {{"kind", "sqlite"}, {"path", "notes.db"}}},
                {"modes", {"local"}},
                {"operations",
                 {{{"name", "recent"},
                   {"kind", "list"},
                   {"description", "Notes, newest first"},
                   {"query", "SELECT id, title FROM notes ORDER BY id DESC"}}}}};
  WriteText(cli.dir / "connectors/notes.json", notes.dump());
  json fixture = json::parse(ReadText(Source("examples/connectors/fixture-cli.json")));
  fixture["source"]["command"] = FIXTURE_PP_CLI;
  WriteText(cli.dir / "connectors/fixture-cli.json", fixture.dump());
  for (const char* slug : {"notes", "fixture"}) {
    auto granted = connect::RunProcess({AFFORDANCE_CLI, "grants", "grant", slug, "--read", "--data",
                                        cli.dir / "data", "--connectors", cli.dir / "connectors"},
                                       60000);
    ASSERT_TRUE(granted.ok() && granted->exit_code == 0)
        << (granted.ok() ? granted->out + granted->err : granted.error().ToString());
  }
  setenv("XDG_DATA_HOME", (cli.dir / "xdg").c_str(), 1);
  setenv("FIXTURE_PP_TOKEN", "t", 1);
  setenv("FIXTURE_PP_ITEMS", "12", 1);  // the list holds 12 ids
}

json Read(const std::string& connector, const std::string& operation, int limit = 0) {
  json args = {{"connector", connector},
               {"request", {{"operation", operation}, {"args", json::object()}}}};
  if (limit > 0) args["limit"] = limit;
  return args;
}

// Issues 42 and 44 at the `run` doors (--json: data-truth, data-turn; the human form: the tool
// line, the legend, the status line): a local SQLite source reads as local, never "empty"; a
// fan-out with one failed detail read reads as partial, names the id, makes the claim citing it
// unresolved and the turn's weakest evidence partial; a limited list says how long it is.
TEST(HarnessCli, ALocalSourceAPartialFanOutAndALimitedListReadAsTheyAreAtEveryRunDoor) {
  Cli cli;
  AddLocalAndFanOutConnectors(cli);
  setenv("FIXTURE_PP_FAIL_IDS", "7", 1);
  const json steps = {Call("RunConnectorCommand", Read("notes", "recent")),
                      Call("RunConnectorCommand", Read("fixture", "item_ids")),
                      Call("RunConnectorCommand", Read("fixture", "item_ids", 5)),
                      "You have two notes [r1]. Eleven items were read [r2]."};
  auto out = cli.Run({"--provider", "replay", "--script", cli.Script(steps), "--json", "notes?"});
  unsetenv("FIXTURE_PP_FAIL_IDS");
  ASSERT_EQ(out.exit_code, 0) << out.out << out.err;
  std::vector<json> truths, outputs;
  json turn;
  for (const auto& e : Lines(out.out)) {
    if (e["type"] == "data-truth" && e["data"].contains("dataState")) truths.push_back(e["data"]);
    if (e["type"] == "tool-output-available") outputs.push_back(e["output"]);
    if (e["type"] == "data-turn") turn = e["data"];
  }
  ASSERT_EQ(truths.size(), 3u) << out.out;
  EXPECT_EQ(truths[0]["dataState"], "local");
  EXPECT_EQ(truths[1]["dataState"], "partial");
  ASSERT_EQ(outputs.size(), 3u);
  EXPECT_EQ(outputs[1]["status"], "partial");
  EXPECT_EQ(outputs[1]["returned_rows"], 11);
  EXPECT_EQ(outputs[1]["operation_ledger"][1]["fan_out"]["errors"][0]["id"], "7");
  EXPECT_EQ(outputs[1]["operation_ledger"][1]["fan_out"]["errors"][0]["operation"], "get_item");
  EXPECT_EQ(outputs[2]["total_rows"], 12);
  EXPECT_EQ(outputs[2]["returned_rows"], 5);
  EXPECT_EQ(outputs[2]["truncated"], true);
  EXPECT_EQ(outputs[2]["truncated_reason"], "limit");
  const json& truth = turn["truth"];
  EXPECT_EQ(truth["weakestEvidence"], "partial");
  EXPECT_EQ(truth["evidence"][0]["dataState"], "local");
  EXPECT_EQ(truth["evidence"][1]["dataState"], "partial");
  EXPECT_EQ(truth["claims"],
            json({{"source", 1}, {"effect", 0}, {"unresolved", 1}, {"inference", 0}}));
  EXPECT_EQ(turn["claims"][0]["class"], "source");
  EXPECT_EQ(turn["claims"][1]["class"], "unresolved");

  // The human form: the same facts in words.
  setenv("FIXTURE_PP_FAIL_IDS", "7", 1);
  auto human = cli.Run({"--provider", "replay", "--script", cli.Script(steps), "notes?"});
  unsetenv("FIXTURE_PP_FAIL_IDS");
  ASSERT_EQ(human.exit_code, 0) << human.out << human.err;
  EXPECT_THAT(human.out, HasSubstr("· executed · local"));
  EXPECT_THAT(human.out, Not(HasSubstr("empty")));
  EXPECT_THAT(human.out, HasSubstr("· executed · partial · 11 of 12 rows, 1 read failed: "
                                   "get_item id 7"));
  EXPECT_THAT(human.out, HasSubstr("· 5 of 12 rows, cut by the limit"));
  EXPECT_THAT(human.out, HasSubstr("source · RunConnectorCommand · notes · local · 2 rows"));
  EXPECT_THAT(human.out, HasSubstr("unresolved · RunConnectorCommand · fixture · partial · 11 rows"
                                   " · the read is partial"));
  EXPECT_THAT(human.out, HasSubstr("evidence partial"));
  EXPECT_THAT(human.out, HasSubstr("1 source, 1 unresolved"));

  // Every detail read failing is an error, as before, and says which.
  setenv("FIXTURE_PP_FAIL_IDS", "all", 1);
  auto failed = cli.Run({"--provider", "replay", "--script",
                         cli.Script({Call("RunConnectorCommand", Read("fixture", "item_ids")),
                                     "Nothing could be read."}),
                         "--json", "items?"});
  unsetenv("FIXTURE_PP_FAIL_IDS");
  ASSERT_EQ(failed.exit_code, 0) << failed.out << failed.err;
  std::string error;
  for (const auto& e : Lines(failed.out)) {
    if (e["type"] == "tool-output-error") error = e["errorText"];
    if (e["type"] == "data-turn") turn = e["data"];
  }
  EXPECT_THAT(error, HasSubstr("every detail read of item_ids failed (12 of 12)"));
  EXPECT_FALSE(turn["truth"].contains("weakestEvidence"));
}

// Issue 42 at the command line: a write grant that ends before anyone decides takes the approval
// with it. `approvals approve` answers authority.approval_expired, `approvals show` reads expired,
// and the next `run` on the thread shows it expired in the chat's words; nothing ran.
TEST(HarnessCli, AnApprovalThatExpiresWithItsGrantReadsExpiredAtTheCommandLine) {
  Cli cli;
  auto cmd = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = {AFFORDANCE_CLI};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--data", cli.dir / "data", "--connectors", cli.dir / "connectors"});
    auto r = connect::RunProcess(argv, 60000);
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : connect::ProcessOutput{};
  };
  ASSERT_EQ(cmd({"grants", "grant", "calendar", "--write", "--expires-in", "12"}).exit_code, 0);
  const int64_t grant_ends = store::NowMs() + 12000;
  const std::string before = ReadText(cli.dir / "connectors/calendar.ics");
  auto staged = cli.Run({"--provider", "replay", "--script",
                         cli.Script(StagingThen("Thursday is free", {})), "--json", "Book it."});
  ASSERT_EQ(staged.exit_code, 0) << staged.out << staged.err;
  std::string approval, thread;
  for (const auto& e : Lines(staged.out)) {
    if (e["type"] == "tool-approval-request") approval = e["approvalId"];
    if (e["type"] == "start") thread = e["messageMetadata"]["threadId"];
  }
  ASSERT_FALSE(approval.empty()) << staged.out;
  while (store::NowMs() <= grant_ends + 1500) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  auto late = cmd({"approvals", "approve", approval, "--json"});
  EXPECT_NE(late.exit_code, 0);
  EXPECT_EQ(json::parse(late.out)["error"]["code"], "authority.approval_expired") << late.out;
  auto shown = cmd({"approvals", "show", approval});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_THAT(shown.out, HasSubstr(" expired "));
  EXPECT_THAT(shown.out, HasSubstr("expired (authority.approval_expired)"));

  auto next =
      cli.Run({"--provider", "replay", "--script", cli.Script({"It expired, so nothing ran [r3]."}),
               "--thread", thread, "Is it in?"});
  ASSERT_EQ(next.exit_code, 0) << next.out << next.err;
  EXPECT_THAT(next.out, HasSubstr(approval + " calendar.create_event · expired"));
  EXPECT_THAT(next.out, HasSubstr("expired before anyone decided: the write grant that allowed it "
                                  "ended before a person decided. Nothing ran."));
  EXPECT_THAT(next.out, HasSubstr("the write expired before a person decided: nothing ran"));
  EXPECT_THAT(next.out, HasSubstr("1 unresolved"));
  EXPECT_EQ(ReadText(cli.dir / "connectors/calendar.ics"), before);
}

// No model configured: the process starts, what needs no model works, and the turn (the first
// thing that needs one) ends provider_error naming the options that configure one; exit 1.
TEST(HarnessCli, WithNoModelConfiguredTheTurnSaysWhichOptionsConfigureOne) {
  Cli cli;
  auto none = cli.Run({"--json", "hi"});
  EXPECT_EQ(none.exit_code, 1) << none.out << none.err;
  json turn;
  for (const auto& e : Lines(none.out)) {
    if (e["type"] == "data-turn") turn = e["data"];
  }
  EXPECT_EQ(turn["status"], "provider_error") << none.out;
  EXPECT_EQ(turn["error"]["code"], "model.not_configured");
  const std::string why = turn["error"]["message"];
  for (const char* flag :
       {"--provider replay --script", "--provider llama --gguf", "--provider openai --base-url"}) {
    EXPECT_NE(why.find(flag), std::string::npos) << why;
  }
  // --script alone means the replay provider.
  auto scripted = cli.Run({"--script", cli.Script({"Plain answer."}), "hello"});
  EXPECT_EQ(scripted.exit_code, 0) << scripted.err;
  EXPECT_NE(scripted.out.find("Plain answer."), std::string::npos) << scripted.out;
}

TEST(HarnessCli, BadInvocationsAreClearErrors) {
  Cli cli;
  auto missing =
      cli.Run({"--provider", "replay", "--script", cli.dir / "nope.json", "--json", "hi"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(json::parse(missing.out)["error"]["code"], "model.replay_script");
  auto provider = cli.Run({"--provider", "magic", "--json", "hi"});
  EXPECT_EQ(provider.exit_code, 2);
  EXPECT_EQ(json::parse(provider.out)["error"]["code"], "cli.bad_option");
  auto gguf = cli.Run({"--provider", "llama", "--gguf", cli.dir / "none.gguf", "--json", "hi"});
  EXPECT_EQ(gguf.exit_code, 2);
  EXPECT_EQ(json::parse(gguf.out)["error"]["code"], "model.not_found");
  auto thread = cli.Run(
      {"--provider", "replay", "--script", cli.Script({"x"}), "--thread", "t_0", "--json", "hi"});
  EXPECT_EQ(thread.exit_code, 2);
  EXPECT_EQ(json::parse(thread.out)["error"]["code"], "store.not_found");
  auto app = cli.Run({"--provider", "replay", "--script", cli.Script({"x"}), "--app",
                      "nowhere.tsx:App", "--json", "hi"});
  EXPECT_EQ(app.exit_code, 2);
  EXPECT_EQ(json::parse(app.out)["error"]["code"], "harness.bad_app");
  // An unreachable server: the turn runs and ends with provider_error (nothing was sent), and the
  // exit status says it failed (docs/HARNESS.md "Exit status").
  auto server =
      cli.Run({"--provider", "openai", "--base-url", "http://127.0.0.1:9", "--json", "hi"});
  ASSERT_EQ(server.exit_code, 1) << server.err;
  auto events = Lines(server.out);
  json turn;
  bool error = false;
  for (const auto& e : events) {
    if (e["type"] == "data-turn") turn = e["data"];
    if (e["type"] == "error") error = e["errorText"].get<std::string>().find("model.connect") == 0;
  }
  EXPECT_EQ(turn["status"], "provider_error");
  EXPECT_TRUE(error);
}

// The exit status table (docs/HARNESS.md "Exit status"): usage errors are 2 whatever the parser's
// own code, and `run` exits with the turn's end state.
TEST(HarnessCli, ExitStatusFollowsTheUsageErrorOrTheTurnsEndState) {
  Cli cli;
  auto typo = connect::RunProcess({AFFORDANCE_CLI, "rn", "hello"}, 10000);
  ASSERT_TRUE(typo.ok());
  EXPECT_EQ(typo->exit_code, 2);
  EXPECT_THAT(typo->err, HasSubstr("did you mean \"run\""));
  auto unknown = connect::RunProcess({AFFORDANCE_CLI, "zzzzzzzz"}, 10000);
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(unknown->exit_code, 2);
  EXPECT_THAT(unknown->err, Not(HasSubstr("did you mean")));
  EXPECT_EQ(cli.Run({"--no-such-option", "hi"}).exit_code, 2);
  EXPECT_EQ(cli.Run({"--provider", "replay", "--script", cli.Script({"x"})}).exit_code, 2);
  auto help = connect::RunProcess({AFFORDANCE_CLI, "run", "--help"}, 10000);
  ASSERT_TRUE(help.ok());
  EXPECT_EQ(help->exit_code, 0);

  auto answered = cli.Run(
      {"--provider", "replay", "--script", cli.Script({"Plain answer."}), "--json", "hello"});
  EXPECT_EQ(answered.exit_code, 0) << answered.err;
  // One step allowed, and the model still calls a tool: step_limit, no answer.
  const std::string call =
      "<tool_call>\n{\"name\": \"ListComponents\", \"arguments\": {}}\n</tool_call>";
  auto limited = cli.Run({"--provider", "replay", "--script", cli.Script({call, "late"}),
                          "--max-steps", "1", "--json", "hello"});
  EXPECT_EQ(limited.exit_code, 3) << limited.out << limited.err;
  json turn;
  for (const auto& e : Lines(limited.out)) {
    if (e["type"] == "data-turn") turn = e["data"];
  }
  EXPECT_EQ(turn["status"], "step_limit");
}

// Issue 24: files given to `run` are untrusted; a million levels are a usage error, refused before
// they are parsed: --app-props, --extra-body and the replay script.
TEST(HarnessCli, FilesNestedAMillionLevelsDeepAreUsageErrors) {
  Cli cli;
  const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  const std::string props = cli.dir / "props.json";
  WriteText(props, "{\"numbers\": " + deep + "}");
  auto app = cli.Run({"--provider", "replay", "--script", cli.Script({"x"}), "--app",
                      Source("views/demo/notebook_app.tsx") + ":Notebook", "--app-props", props,
                      "--json", "hi"});
  EXPECT_EQ(app.exit_code, 2);
  json e = json::parse(app.out)["error"];
  EXPECT_EQ(e["code"], "cli.too_deep");
  EXPECT_EQ(e["message"], "--app-props nests deeper than 128 levels of arrays and objects");
  auto extra = cli.Run({"--provider", "openai", "--base-url", "http://127.0.0.1:9", "--extra-body",
                        props, "--json", "hi"});
  EXPECT_EQ(extra.exit_code, 2);
  EXPECT_EQ(json::parse(extra.out)["error"]["message"],
            "--extra-body nests deeper than 128 levels of arrays and objects");
  const std::string script = cli.dir / "deep_script.json";
  WriteText(script, "{\"format\": \"qwen3\", \"steps\": [\"x\"], \"note\": " + deep + "}");
  auto replay = cli.Run({"--provider", "replay", "--script", script, "--json", "hi"});
  EXPECT_EQ(replay.exit_code, 2);
  e = json::parse(replay.out)["error"];
  EXPECT_EQ(e["code"], "model.too_deep");
  EXPECT_EQ(e["message"], "the replay script nests deeper than 128 levels of arrays and objects");
}

std::string Normalized(std::string reality) {
  // The time line and the sync ages move between two processes; the rest must be identical.
  std::istringstream in(reality);
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.rfind("local time:", 0) == 0) continue;
    if (auto at = line.find(", synced"); at != std::string::npos) {
      line = line.substr(0, at) + line.substr(line.find(", credentials"));
    }
    out += line + "\n";
  }
  return out;
}

TEST(HarnessCli, RealityIsRebuiltOnEveryTurnWhateverTheEntryPath) {
  Cli cli;
  // Entry path one: `affordance run`. Entry path two: `affordance chat` reading stdin.
  auto run = cli.Run({"--provider", "replay", "--script", cli.Script({"a"}), "first"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::string chat_cmd = "printf 'second\\n/quit\\n' | " + std::string(AFFORDANCE_CLI) +
                         " chat --data " + (cli.dir / "data") + " --connectors " +
                         (cli.dir / "connectors") + " --provider replay --script " +
                         cli.Script({"b"});
  auto chat = connect::RunProcess({"/bin/sh", "-c", chat_cmd}, 60000);
  ASSERT_TRUE(chat.ok());
  ASSERT_EQ(chat->exit_code, 0) << chat->err;
  EXPECT_THAT(chat->out, HasSubstr("b"));
  auto store = cli.Store();
  auto threads = store->ListThreads();
  ASSERT_EQ(threads->size(), 2u);
  std::vector<std::string> realities;
  for (const auto& t : *threads) {
    auto messages = store->LoadThread(t.id);
    ASSERT_EQ((*messages)[0].parts[0].kind, "reality");
    realities.push_back((*messages)[0].parts[0].data["text"]);
  }
  EXPECT_THAT(realities[0], HasSubstr("- calendar (Team calendar)"));
  EXPECT_EQ(Normalized(realities[0]), Normalized(realities[1]));
}

TEST(HarnessCli, KilledMidTurnTheDatabaseOpensShowsTheTurnInterruptedAndResumes) {
  Cli cli;
  // Three steps at 8 ms a token: the kill lands while step 2 streams.
  auto script = cli.Script(
      {Call("ListComponents", {{"names", {"Table"}}}),
       Call("RunConnectorCommand", {{"connector", "calendar"},
                                    {"request", {{"operation", "list_events"}, {"args", kWeek}}}}),
       "A long answer that will never finish because the process is killed while it streams, "
       "token after token after token after token after token after token after token."},
      8);
  auto argv = cli.Argv("run", {"--provider", "replay", "--script", script, "--json", "Next week?"});
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  // Wait until step 2 is running (steps 0 and 1 are persisted with their results).
  bool ready = false;
  for (int i = 0; i < 1500 && !ready; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (!std::filesystem::exists(cli.dir / "data/affordance.db")) continue;
    auto s = store::OpenSqlite(cli.dir / "data/affordance.db");
    if (!s.ok()) continue;
    auto threads = (*s)->ListThreads();
    if (!threads.ok() || threads->empty()) continue;
    auto messages = (*s)->LoadThread((*threads)[0].id);
    if (!messages.ok() || messages->size() < 2) continue;
    for (const auto& p : (*messages)[1].parts) {
      if (p.kind == "text" && p.step == 2 && p.data.value("text", "").size() > 10) ready = true;
    }
  }
  ASSERT_TRUE(ready) << "the turn never reached step 2";
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));

  auto store = cli.Store();
  auto recovered = store->RecoverInterrupted(harness::Abandoned);
  ASSERT_TRUE(recovered.ok());
  EXPECT_EQ(*recovered, 1);
  auto threads = store->ListThreads();
  const std::string thread = (*threads)[0].id;
  auto messages = store->LoadThread(thread);
  ASSERT_EQ(messages->size(), 2u);
  const auto& a = (*messages)[1];
  EXPECT_EQ(a.status, "interrupted");
  ASSERT_EQ(a.steps.size(), 3u);
  EXPECT_EQ(a.steps[0].status, "finished");
  EXPECT_EQ(a.steps[1].status, "finished");
  EXPECT_EQ(a.steps[2].status, "interrupted");
  int results = 0;
  for (const auto& p : a.parts) {
    EXPECT_FALSE(p.open) << p.kind;
    if (p.kind == "tool" && p.data.contains("resultText")) ++results;
  }
  EXPECT_EQ(results, 2);
  store.reset();

  // Resume: the next turn of the same thread runs on top of what was persisted.
  auto resumed = cli.Run({"--provider", "replay", "--script", cli.Script({"Resumed."}), "--thread",
                          thread, "--json", "Go on"});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  json turn;
  for (const auto& e : Lines(resumed.out)) {
    if (e["type"] == "data-turn") turn = e["data"];
  }
  EXPECT_EQ(turn["status"], "answered");
  auto audit = connect::RunProcess(
      {AFFORDANCE_CLI, "prompt", "audit", "--data", cli.dir / "data", "--thread", thread, "--json"},
      60000);
  json steps = json::parse(audit->out)["steps"];
  // The interrupted turn's two finished steps and their results are in the new frame.
  EXPECT_GT(steps[0]["audit"]["owners"]["assistant"].get<int>(), 10);
  EXPECT_GT(steps[0]["audit"]["owners"]["tool_results"].get<int>(), 10);
}

}  // namespace
}  // namespace affordance::harness::testing

namespace affordance::harness::testing {
namespace {

TEST(HarnessRecovery, ATurnOfALiveProcessIsNeverInterrupted) {
  TempDir dir;
  auto store = store::OpenSqlite(dir / "affordance.db").value();
  auto thread = store->CreateThread("t").value();
  // Ours (this process is alive), one of a dead process, one with no owner.
  auto live =
      store->AddMessage(thread.id, "assistant", "running", {{"owner", TurnOwner()}}).value();
  pid_t child = fork();
  if (child == 0) _exit(0);
  int status = 0;
  waitpid(child, &status, 0);
  auto dead = store
                  ->AddMessage(thread.id, "assistant", "running",
                               {{"owner", {{"pid", child}, {"start", 1}}}})
                  .value();
  auto none = store->AddMessage(thread.id, "assistant", "running", json::object()).value();
  auto recovered = store->RecoverInterrupted(Abandoned);
  ASSERT_TRUE(recovered.ok());
  EXPECT_EQ(*recovered, 2);
  EXPECT_EQ(store->LoadMessage(live.id)->status, "running");
  EXPECT_EQ(store->LoadMessage(dead.id)->status, "interrupted");
  EXPECT_EQ(store->LoadMessage(none.id)->status, "interrupted");
}

TEST(CapabilityRegistry, EveryCommandOfTheBinaryIsDeclared) {
  auto out = connect::RunProcess({AFFORDANCE_CLI, "capabilities", "--json"}, 60000);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->exit_code, 0) << out->err;
  json j = json::parse(out->out);
  ASSERT_GE(j["commands"].size(), 10u);
  for (const auto& command : j["commands"]) {
    bool found = false;
    for (const auto& c : j["capabilities"]) {
      if (c["door"] == "cli" && c["name"] == command) {
        found = true;
        EXPECT_FALSE(c["object"].get<std::string>().empty());
        EXPECT_FALSE(c["mode"].get<std::string>().empty());
      }
    }
    EXPECT_TRUE(found) << "the command \"" << command.get<std::string>()
                       << "\" is not declared in the capability registry";
  }
}

}  // namespace
}  // namespace affordance::harness::testing

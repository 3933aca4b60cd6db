// Issue 43 item 5: model-chosen values reached a printed CLI as options (`items get --all`,
// `items close --all --idempotency-key ...`) while the card showed only "Id --all". A printed CLI
// written by the test records every argv it is run with, so each test checks what really ran.
#include "connect/effect.h"
#include "connect/printed_cli.h"
#include "support.h"

#include <gmock/gmock.h>
#include <sys/stat.h>

#include <sstream>

namespace affordance::authority::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

// A printed CLI as a shell script: each argv is one line of its log, its words separated by the
// unit separator (0x1F); `items get` answers the item its last word names, `items close` closes it.
constexpr char kScript[] = R"(#!/bin/sh
log="$(dirname "$0")/argv.log"
for a in "$0" "$@"; do printf '%s\037' "$a" >> "$log"; done
printf '\n' >> "$log"
for last in "$@"; do :; done
case "$1 $2" in
  "items get") printf '{"results": {"id": "%s", "status": "closed"}, "meta": {"source": "live"}}\n' "$last" ;;
  "items close") printf '{"results": {"closed": true}}\n' ;;
  "items search") printf '{"results": [], "meta": {"source": "live"}}\n' ;;
  *) printf '{"error": "usage"}\n'; exit 2 ;;
esac
)";

json ScriptManifest(const std::string& command, bool end_of_options) {
  json m = json::parse(R"json({
    "slug": "script", "title": "Script items",
    "source": {"kind": "printed_cli", "command": "", "timeout_ms": 10000},
    "modes": ["live"],
    "operations": [
      {"name": "get_item", "kind": "detail",
       "args": {"type": "object", "properties": {"id": {"type": "string", "minLength": 1}},
                "required": ["id"], "additionalProperties": false},
       "argv": ["items", "get"], "positional": ["id"]},
      {"name": "search_items", "kind": "search",
       "args": {"type": "object", "properties": {"text": {"type": "string", "minLength": 1}},
                "required": ["text"], "additionalProperties": false},
       "argv": ["items", "search"]},
      {"name": "close_item", "kind": "mutation", "risk": "write",
       "args": {"type": "object", "properties": {"id": {"type": "string", "minLength": 1}},
                "required": ["id"], "additionalProperties": false},
       "argv": ["items", "close"], "positional": ["id"],
       "idempotency_flag": "idempotency-key",
       "verify": {"operation": "get_item", "args": {"id": "$id"}, "expect": {"status": "closed"}}}
    ]})json");
  m["source"]["command"] = command;
  m["source"]["end_of_options"] = end_of_options;
  return m;
}

struct ScriptWorld : World {
  std::string script, log;
  explicit ScriptWorld(bool end_of_options = true) {
    std::filesystem::create_directories(dir / "cli");
    script = dir / "cli/script-pp-cli";
    log = dir / "cli/argv.log";
    std::ofstream(script) << kScript;
    ::chmod(script.c_str(), 0755);
    std::ofstream(dir / "connectors/script.json") << ScriptManifest(script, end_of_options).dump();
    Open();
  }
  // Every argv the script was run with, in order.
  std::vector<std::vector<std::string>> Runs() const {
    std::vector<std::vector<std::string>> out;
    std::istringstream in(ReadText(log));
    for (std::string line; std::getline(in, line);) {
      std::vector<std::string> argv;
      std::string word;
      for (char c : line) {
        if (c == '\x1f') {
          argv.push_back(word);
          word.clear();
        } else {
          word += c;
        }
      }
      out.push_back(argv);
    }
    return out;
  }
  Result<connect::ConnectorResult> Read(const std::string& op, const json& args) {
    connect::ConnectorCommand cmd;
    cmd.connector = "script";
    cmd.request = {{"operation", op}, {"args", args}};
    return road->RunConnectorCommand(cmd);
  }
};

TEST(PrintedCliArgv, AReadPutsAPositionalValueAfterDoubleDashAndAFlagValueAfterEquals) {
  ScriptWorld w;
  auto read = w.Read("get_item", {{"id", "--all"}});
  ASSERT_TRUE(read.ok()) << read.error().ToString();
  ASSERT_EQ(read->rows.size(), 1u);
  EXPECT_EQ(read->rows[0]["id"], "--all");  // the CLI read it as the item's id
  auto search = w.Read("search_items", {{"text", "--all"}});
  ASSERT_TRUE(search.ok()) << search.error().ToString();
  auto runs = w.Runs();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0], (std::vector<std::string>{w.script, "items", "get", "--agent", "--data-source",
                                               "live", "--", "--all"}));
  EXPECT_EQ(runs[1], (std::vector<std::string>{w.script, "items", "search", "--text=--all",
                                               "--agent", "--data-source", "live"}));
}

TEST(PrintedCliArgv, AnApprovedWriteRunsExactlyTheArgvItsCardShowed) {
  ScriptWorld w;
  w.GrantWrite("script");
  auto staged = w.authority->Stage({"script", "close_item", {{"id", "--all"}}}, Actor::Model());
  ASSERT_TRUE(staged.ok()) << staged.error().ToString();
  const std::vector<std::string> expected = {
      w.script,  "items", "close", "--idempotency-key=" + IdempotencyKeyOf(staged->id),
      "--agent", "--",    "--all"};
  EXPECT_EQ(staged->effect["argv"], json(expected));
  std::string text;
  for (const auto& l : connect::EffectLines(staged->effect, 0, w.now_ms)) text += l + "\n";
  EXPECT_THAT(text, HasSubstr("  runs " + w.script + " items close --idempotency-key=idem-" +
                              staged->id + " --agent -- --all\n"));
  EXPECT_TRUE(w.Runs().empty());  // staging runs nothing

  ASSERT_TRUE(w.authority->Approve(staged->id, w.person).ok());
  auto ran = w.authority->Execute(staged->id);
  ASSERT_TRUE(ran.ok()) << ran.error().ToString();
  EXPECT_EQ(ran->state, "verified") << ran->ToJson().dump(1);
  auto runs = w.Runs();
  ASSERT_EQ(runs.size(), 2u);  // the write, then the verifying read
  EXPECT_EQ(runs[0], expected);
  EXPECT_EQ(runs[1], (std::vector<std::string>{w.script, "items", "get", "--agent", "--data-source",
                                               "live", "--", "--all"}));
}

TEST(PrintedCliArgv, ACliThatDoesNotReadDoubleDashIsNeverGivenAValueThatLooksLikeAnOption) {
  ScriptWorld w(/*end_of_options=*/false);
  auto read = w.Read("get_item", {{"id", "--all"}});
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().code, "connect.bad_args");
  EXPECT_THAT(read.error().message, HasSubstr("\"--all\" begins with '-'"));
  w.GrantWrite("script");
  auto staged = w.authority->Stage({"script", "close_item", {{"id", "-rf"}}}, Actor::Model());
  ASSERT_FALSE(staged.ok());
  EXPECT_EQ(staged.error().code, "authority.bad_args");
  EXPECT_EQ(staged.error().kind, ErrorKind::kInvalid);
  EXPECT_THAT(staged.error().message, HasSubstr("\"-rf\" begins with '-'"));
  EXPECT_TRUE(w.Runs().empty());  // the CLI never ran with either

  // A plain value still runs, with no `--` for this CLI.
  auto plain = w.Read("get_item", {{"id", "it-1"}});
  ASSERT_TRUE(plain.ok()) << plain.error().ToString();
  auto runs = w.Runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0], (std::vector<std::string>{w.script, "items", "get", "--agent", "--data-source",
                                               "live", "it-1"}));
}

TEST(PrintedCliArgv, ArgvTextQuotesWhatAShellWouldSplit) {
  EXPECT_EQ(connect::ArgvText({"cli", "items", "get", "--", "--all"}), "cli items get -- --all");
  EXPECT_EQ(connect::ArgvText({"cli", "a b", "it's", ""}), "cli 'a b' 'it'\\''s' ''");
  EXPECT_EQ(connect::ArgvText({"cli", "$(rm -rf ~)"}), "cli '$(rm -rf ~)'");
}

}  // namespace
}  // namespace affordance::authority::testing

// `affordance grants | approvals | activity | reconcile` run as the real binary against a real
// data folder and the example calendar: the human plane of a governed write, with --json, and
// each user-causable error with its code, message and exit status.
#include "connect/process.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include <sys/stat.h>
#include <unistd.h>
#include <chrono>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace {

using nlohmann::json;
using ::testing::HasSubstr;

struct Cli {
  std::string dir;
  Cli() {
    std::string pattern = (std::filesystem::temp_directory_path() / "affordance-govern-XXXXXX");
    dir = mkdtemp(pattern.data());
    std::filesystem::create_directories(dir + "/connectors");
    for (const char* f : {"calendar.ics", "calendar.json"}) {
      std::filesystem::copy_file(std::string(AFFORDANCE_SOURCE_DIR) + "/examples/connectors/" + f,
                                 dir + "/connectors/" + f);
    }
  }
  ~Cli() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  affordance::connect::ProcessOutput Run(std::vector<std::string> args) {
    std::vector<std::string> argv = {AFFORDANCE_CLI};
    argv.insert(argv.end(), args.begin(), args.end());
    for (const char* o : {"--data", "--connectors"}) {
      argv.push_back(o);
      argv.push_back(dir + (std::string(o) == "--data" ? "/data" : "/connectors"));
    }
    auto r = affordance::connect::RunProcess(argv, 60000);
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : affordance::connect::ProcessOutput{};
  }
  json Json(std::vector<std::string> args, int exit_code = 0) {
    args.push_back("--json");
    auto r = Run(std::move(args));
    EXPECT_EQ(r.exit_code, exit_code) << r.out << r.err;
    json j = json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.out;
    return j;
  }
  std::string Ics() {
    std::ifstream in(dir + "/connectors/calendar.ics");
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
};

const std::vector<std::string> kCreate = {
    "approvals",
    "stage",
    "calendar",
    "create_event",
    "--args",
    R"({"summary": "Retro", "start": "2026-12-04T15:00:00Z", "end": "2026-12-04T16:00:00Z"})"};

TEST(AuthorityCli, GrantStageApproveExecuteShowActivity) {
  Cli cli;
  // Staging needs a write grant; the error says how to get one.
  json refused = cli.Json(kCreate, 1);
  EXPECT_EQ(refused["error"]["code"], "authority.no_grant");
  EXPECT_THAT(refused["error"]["message"].get<std::string>(),
              HasSubstr("affordance grants grant calendar --write"));

  json g = cli.Json({"grants", "grant", "calendar", "--write"});
  EXPECT_EQ(g["grant"]["scope"], "connector:calendar");
  EXPECT_EQ(g["grant"]["access"], "write");
  json list = cli.Json({"grants", "list"});
  ASSERT_EQ(list["grants"].size(), 1u);

  json staged = cli.Json(kCreate);
  const std::string id = staged["approval"]["approvalId"];
  EXPECT_EQ(staged["approval"]["state"], "pending");
  EXPECT_THAT(cli.Ics(), ::testing::Not(HasSubstr("Retro")));
  json pending = cli.Json({"approvals", "list", "--status", "pending"});
  ASSERT_EQ(pending["approvals"].size(), 1u);
  EXPECT_EQ(pending["approvals"][0]["approvalId"], id);

  json done = cli.Json({"approvals", "approve", id, "--execute"});
  EXPECT_EQ(done["approval"]["state"], "verified");
  EXPECT_EQ(done["approval"]["idempotencyKey"], "idem-" + id);
  EXPECT_EQ(done["approval"]["receipt"]["outcome"], "executed");
  EXPECT_THAT(cli.Ics(), HasSubstr("SUMMARY:Retro"));

  auto show = cli.Run({"approvals", "show", id});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_THAT(show.out, HasSubstr("verified: calendar.create_event"));
  EXPECT_THAT(show.out, HasSubstr("receipt rc_"));

  json again = cli.Json({"approvals", "approve", id}, 2);
  EXPECT_EQ(again["error"]["code"], "authority.already_decided");
  json rerun = cli.Json({"approvals", "execute", id}, 2);
  EXPECT_EQ(rerun["error"]["code"], "authority.already_executed");

  json activity = cli.Json({"activity", "--subject", id});
  std::vector<std::string> kinds;
  for (const auto& e : activity["activity"]) kinds.push_back(e["kind"]);
  EXPECT_EQ(kinds, (std::vector<std::string>{"stage", "approve", "execute", "verify"}));
  json grants = cli.Json({"activity", "--kind", "grant"});
  ASSERT_EQ(grants["activity"].size(), 1u);
  EXPECT_THAT(grants["activity"][0]["actor"].get<std::string>(), HasSubstr("user:"));

  json reconciled = cli.Json({"reconcile"});
  EXPECT_TRUE(reconciled["reconciled"].empty());
  auto human = cli.Run({"reconcile"});
  EXPECT_THAT(human.out, HasSubstr("nothing to reconcile"));

  json revoked = cli.Json({"grants", "revoke", g["grant"]["id"]});
  EXPECT_NE(revoked["grant"]["revokedMs"], 0);
  EXPECT_TRUE(cli.Json({"grants", "list"})["grants"].empty());
}

TEST(AuthorityCli, DenyAndBadInputAreClearErrors) {
  Cli cli;
  cli.Json({"grants", "grant", "calendar", "--write"});
  const std::string id = cli.Json(kCreate)["approval"]["approvalId"];
  json denied = cli.Json({"approvals", "deny", id, "--reason", "not now"});
  EXPECT_EQ(denied["approval"]["state"], "denied");
  EXPECT_EQ(denied["approval"]["reason"], "not now");
  json late = cli.Json({"approvals", "approve", id}, 2);
  EXPECT_EQ(late["error"]["code"], "authority.already_decided");
  EXPECT_THAT(late["error"]["message"].get<std::string>(), HasSubstr("is already denied"));
  EXPECT_THAT(cli.Ics(), ::testing::Not(HasSubstr("Retro")));

  json tampered = cli.Json({"approvals", "approve", id + "0"}, 2);
  EXPECT_EQ(tampered["error"]["code"], "authority.unknown_approval");
  EXPECT_EQ(tampered["error"]["message"], "no approval request \"" + id + "0\"");

  json unknown = cli.Json({"approvals", "stage", "calendar", "drop_calendar"}, 2);
  EXPECT_EQ(unknown["error"]["code"], "authority.unknown_mutation");
  json bad = cli.Json(
      {"approvals", "stage", "calendar", "create_event", "--args", R"({"summary": "x"})"}, 2);
  EXPECT_EQ(bad["error"]["code"], "authority.bad_args");
  EXPECT_THAT(bad["error"]["message"].get<std::string>(), HasSubstr("start"));
  json notjson = cli.Json({"approvals", "stage", "calendar", "create_event", "--args", "[1"}, 2);
  EXPECT_EQ(notjson["error"]["code"], "authority.bad_args");
  EXPECT_EQ(notjson["error"]["message"], "--args must be a JSON object");

  json both = cli.Json({"grants", "grant", "calendar"}, 2);
  EXPECT_EQ(both["error"]["code"], "cli.bad_option");
  EXPECT_EQ(both["error"]["message"], "give exactly one of --read or --write");
  json nobody = cli.Json({"grants", "grant", "nope", "--read"}, 2);
  EXPECT_EQ(nobody["error"]["code"], "connect.unknown_connector");
  json revoke = cli.Json({"grants", "revoke", "g_missing"}, 2);
  EXPECT_EQ(revoke["error"]["code"], "authority.unknown_grant");
  json limit = cli.Json({"activity", "--limit", "0"}, 2);
  EXPECT_EQ(limit["error"]["message"], "--limit must be at least 1");
}

// Issue 43 item 4: a time that names no real instant is a usage error (exit 2) at staging, in
// both output modes, and the calendar file is not touched.
TEST(AuthorityCli, AnOutOfRangeTimeIsRefusedAtStagingWithExitTwo) {
  Cli cli;
  cli.Json({"grants", "grant", "calendar", "--write"});
  const std::string ics = cli.Ics();
  for (const char* t : {"2026-12-03T99:00:00Z", "2026-12-32T10:00:00Z", "2026-13-01T10:00:00Z",
                        "2026-02-30T10:00:00Z"}) {
    const std::string args =
        std::string(R"({"uid": "design-review@team", "start": ")") + t + R"("})";
    json bad = cli.Json({"approvals", "stage", "calendar", "update_event", "--args", args}, 2);
    EXPECT_EQ(bad["error"]["code"], "authority.bad_args") << t;
    EXPECT_THAT(bad["error"]["message"].get<std::string>(), HasSubstr(t));
    auto human = cli.Run({"approvals", "stage", "calendar", "update_event", "--args", args});
    EXPECT_EQ(human.exit_code, 2) << human.out << human.err;
    EXPECT_THAT(human.out + human.err, HasSubstr("is not an ISO 8601 UTC time"));
  }
  EXPECT_TRUE(cli.Json({"approvals", "list", "--status", "pending"})["approvals"].empty());
  EXPECT_EQ(cli.Ics(), ics);
}

// Issue 43 item 9: `approvals list`, `show` and `activity` printed U+009B (a CSI) raw inside their
// JSON lines. Every line now shows C1 and bidi characters (text) or escapes them (JSON).
TEST(AuthorityCli, C1AndBidiCharactersAreNeverPrintedRaw) {
  Cli cli;
  cli.Json({"grants", "grant", "calendar", "--write"});
  const std::string summary =
      "Budget \xC2\x9B"
      "31m sync \u202Egnp.exe";
  const std::string args =
      json{{"summary", summary}, {"start", "2026-12-04T15:00:00Z"}, {"end", "2026-12-04T16:00:00Z"}}
          .dump();
  json staged = cli.Json({"approvals", "stage", "calendar", "create_event", "--args", args});
  const std::string id = staged["approval"]["approvalId"];
  auto raw = [](const std::string& out) {
    return out.find("\xC2\x9B") != std::string::npos || out.find("\u202E") != std::string::npos;
  };
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{"approvals", "list"}, {"approvals", "show", id}, {"activity"}}) {
    auto human = cli.Run(cmd);
    ASSERT_EQ(human.exit_code, 0) << human.err;
    EXPECT_FALSE(raw(human.out)) << cmd[0] << " " << cmd[1];
    EXPECT_THAT(human.out, HasSubstr("⟨U+202E⟩")) << human.out;
    auto js = cmd;
    js.push_back("--json");
    auto machine = cli.Run(js);
    ASSERT_EQ(machine.exit_code, 0) << machine.err;
    EXPECT_FALSE(raw(machine.out)) << machine.out;
    EXPECT_THAT(machine.out, HasSubstr("\\u009b"));
    EXPECT_THAT(machine.out, HasSubstr("\\u202e"));
    // The same value: a JSON reader gets the summary back exactly.
    EXPECT_NE(json::parse(machine.out).dump().find(json(summary).dump().substr(1, 10)),
              std::string::npos);
  }
  auto show = cli.Run({"approvals", "show", id});
  EXPECT_THAT(show.out, HasSubstr("Create event “Budget ⟨U+009B⟩31m sync ⟨U+202E⟩gnp.exe”"));
  json back = cli.Json({"approvals", "show", id});
  EXPECT_EQ(back["approval"]["args"]["summary"], summary);
}

// Issue 26: "grants in force" are in force; granting twice adds nothing; an unchecked connector
// name is said.
TEST(AuthorityCli, GrantsListShowsOnlyGrantsInForceAndAGrantIsNotAddedTwice) {
  Cli cli;
  json first = cli.Json({"grants", "grant", "calendar", "--read"});
  json again = cli.Json({"grants", "grant", "calendar", "--read"});
  EXPECT_EQ(first["grant"]["id"], again["grant"]["id"]);
  json brief = cli.Json({"grants", "grant", "calendar", "--write", "--expires-in", "1"});
  EXPECT_EQ(cli.Json({"grants", "list"})["grants"].size(), 2u);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  json in_force = cli.Json({"grants", "list"});
  ASSERT_EQ(in_force["grants"].size(), 1u);  // the write grant expired
  EXPECT_EQ(in_force["grants"][0]["id"], first["grant"]["id"]);
  json all = cli.Json({"grants", "list", "--all"});
  EXPECT_EQ(all["grants"].size(), 2u);
  auto human = cli.Run({"grants", "list", "--all"});
  EXPECT_THAT(human.out, HasSubstr("(expired)"));

  // Without a connector folder the name cannot be checked: it is granted, with a warning.
  auto unchecked = affordance::connect::RunProcess(
      {AFFORDANCE_CLI, "grants", "grant", "zzz", "--read", "--data", cli.dir + "/data2"}, 60000);
  ASSERT_TRUE(unchecked.ok());
  EXPECT_EQ(unchecked->exit_code, 0);
  EXPECT_THAT(unchecked->err, HasSubstr("was not checked"));
}

TEST(AuthorityCli, TheNewDoorsAreDeclaredWithTheirModes) {
  auto out = affordance::connect::RunProcess({AFFORDANCE_CLI, "capabilities", "--json"}, 60000);
  ASSERT_TRUE(out.ok());
  json j = json::parse(out->out);
  std::map<std::string, json> cli;
  for (const auto& c : j["capabilities"]) {
    if (c["door"] == "cli") cli[c["name"]] = c;
  }
  EXPECT_EQ(cli["approvals"]["mode"], "approved_execution");
  EXPECT_EQ(cli["reconcile"]["mode"], "verified");
  EXPECT_EQ(cli["grants"]["mode"], "local_state");
  EXPECT_EQ(cli["activity"]["mode"], "read");
  EXPECT_THAT(cli["approvals"]["proof"].get<std::string>(), HasSubstr("fresh-read verification"));
  EXPECT_THAT(cli["approvals"]["receipt"].get<std::string>(), HasSubstr("receipt"));
}

unsigned ModeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// Issue 24: the data folder a first run creates is 0700 and the database 0600 even under a umask
// that takes nothing away; a folder an older version left 0755 / 0644 is tightened by the next
// run, which says so on stderr once.
TEST(AuthorityCli, TheDataFolderIsPrivateFromTheFirstRun) {
  Cli cli;
  const std::string data = cli.dir + "/data";
  auto grant = [&] {
    // umask 000: only the modes affordance sets itself count.
    auto r = affordance::connect::RunProcess(
        {"/bin/sh", "-c", "umask 000; exec \"$0\" \"$@\"", AFFORDANCE_CLI, "grants", "grant",
         "calendar", "--read", "--data", data, "--connectors", cli.dir + "/connectors"},
        60000);
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r->exit_code, 0) << r->out << r->err;
    return r->err;
  };
  EXPECT_EQ(grant(), "");
  EXPECT_EQ(ModeOf(data), 0700u);
  EXPECT_EQ(ModeOf(data + "/affordance.db"), 0600u);
  chmod(data.c_str(), 0755);
  chmod((data + "/affordance.db").c_str(), 0644);
  EXPECT_EQ(grant(), "affordance: made the data folder " + data +
                         " private: mode 0755 -> 0700 (it holds your data)\n"
                         "affordance: made the file " +
                         data + "/affordance.db private: mode 0644 -> 0600 (it holds your data)\n");
  EXPECT_EQ(ModeOf(data), 0700u);
  EXPECT_EQ(ModeOf(data + "/affordance.db"), 0600u);
  EXPECT_EQ(grant(), "");  // once
}

// Issue 24: --args is untrusted text, refused before it is parsed when it nests too deep.
TEST(AuthorityCli, ArgsNestedTooDeepAreAUsageError) {
  Cli cli;
  // Linux caps one argument at 128 KiB, so --args can carry 60,000 levels, not a million.
  std::vector<std::string> deep = kCreate;
  deep.back() = "{\"summary\": " + std::string(60000, '[') + std::string(60000, ']') + "}";
  json refused = cli.Json(deep, 2);
  EXPECT_EQ(refused["error"]["code"], "cli.too_deep");
  EXPECT_EQ(refused["error"]["message"],
            "--args nests deeper than 128 levels of arrays and objects");
}

}  // namespace

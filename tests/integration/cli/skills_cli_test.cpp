// `affordance skills list | show` and skills in `run` + `prompt audit`, end to end: the real
// binary, real folders in a temporary directory, the three sources ($AFFORDANCE_SKILLS set through
// env(1)), the replay provider standing in for a model.
#include "connect/process.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace affordance::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class Folder {
 public:
  Folder() {
    std::string pattern = (fs::temp_directory_path() / "affordance-skills-cli-XXXXXX");
    dir_ = mkdtemp(pattern.data());
  }
  ~Folder() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string operator/(const std::string& name) const { return dir_ + "/" + name; }
  std::string Write(const std::string& rel, const std::string& text) const {
    const std::string path = *this / rel;
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

 private:
  std::string dir_;
};

std::string Skill(const std::string& name, const std::string& description) {
  return "---\nname: " + name + "\ndescription: " + description + "\n---\n# " + name + "\n";
}

std::string Sha256Sum(const std::string& path) {
  const std::string cmd = "sha256sum '" + path + "'";
  FILE* p = popen(cmd.c_str(), "r");
  char buf[65] = {};
  const size_t n = p ? fread(buf, 1, 64, p) : 0;
  if (p) pclose(p);
  return std::string(buf, n);
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

connect::ProcessOutput Cli(std::vector<std::string> args, const std::string& env = "") {
  std::vector<std::string> argv = {"/usr/bin/env", "-u", "AFFORDANCE_SKILLS"};
  if (!env.empty()) argv.push_back("AFFORDANCE_SKILLS=" + env);
  argv.push_back(AFFORDANCE_CLI);
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = connect::RunProcess(argv, 60000);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().ToString());
  return r.ok() ? *r : connect::ProcessOutput{};
}

TEST(SkillsCli, ListAndShowJsonFollowThePrecedenceAndNameEveryRefusal) {
  Folder f;
  f.Write("flag/one/SKILL.md", Skill("one", "From the flag."));
  f.Write("env/one/SKILL.md", Skill("one", "From the environment."));
  f.Write("env/two/SKILL.md", Skill("two", "From the environment."));
  f.Write("data/skills/three/SKILL.md", Skill("three", "From the data folder."));
  f.Write("data/skills/broken/SKILL.md", "---\nname: broken\n");
  const std::string data = f / "data";
  auto list = Cli({"skills", "list", "--data", data, "--skills", f / "flag", "--json"},
                  ":" + (f / "env") + ":");
  ASSERT_EQ(list.exit_code, 0) << list.out << list.err;
  json j = json::parse(list.out);
  std::vector<std::string> sources;
  for (const auto& s : j["sources"]) sources.push_back(s["origin"].get<std::string>());
  EXPECT_THAT(sources, ElementsAre("--skills", "$AFFORDANCE_SKILLS", "data"));
  std::vector<std::string> ready;
  for (const auto& s : j["skills"]) {
    ready.push_back(s["name"].get<std::string>() + " " + s["origin"].get<std::string>());
  }
  EXPECT_THAT(ready, ElementsAre("one --skills", "three data", "two $AFFORDANCE_SKILLS"));
  EXPECT_EQ(j["skills"][0]["sha256"], Sha256Sum(f / "flag/one/SKILL.md"));
  ASSERT_EQ(j["refused"].size(), 2u);
  EXPECT_EQ(j["refused"][0]["name"], "one");
  EXPECT_EQ(j["refused"][0]["error"]["code"], "skills.duplicate_name");
  EXPECT_EQ(j["refused"][0]["error"]["category"], "conflict");
  EXPECT_EQ(j["refused"][1]["name"], "broken");
  EXPECT_EQ(j["refused"][1]["error"]["code"], "skills.bad_front_matter");
  EXPECT_THAT(j["refused"][1]["error"]["message"].get<std::string>(),
              HasSubstr("no closing line \"---\""));

  // show: the exact bytes and their digest, and the files beside it.
  f.Write("data/skills/three/references/guide.md", "more\n");
  auto show = Cli({"skills", "show", "three", "--data", data, "--json"});
  ASSERT_EQ(show.exit_code, 0) << show.out << show.err;
  json s = json::parse(show.out)["skill"];
  EXPECT_EQ(s["text"], ReadAll(f / "data/skills/three/SKILL.md"));
  EXPECT_EQ(s["sha256"], Sha256Sum(f / "data/skills/three/SKILL.md"));
  EXPECT_EQ(s["origin"], "data");
  EXPECT_EQ(s["files"], json::array({"references/guide.md"}));
  // The human forms.
  auto human = Cli({"skills", "list", "--data", data});
  ASSERT_EQ(human.exit_code, 0);
  EXPECT_THAT(human.out, HasSubstr("three"));
  EXPECT_THAT(human.out, HasSubstr("refused:\nbroken"));
  auto text = Cli({"skills", "show", "three", "--data", data});
  ASSERT_EQ(text.exit_code, 0);
  EXPECT_THAT(text.out, HasSubstr("sha256:      " + Sha256Sum(f / "data/skills/three/SKILL.md")));
  EXPECT_THAT(text.out, HasSubstr("beside it:   references/guide.md"));
  auto none = Cli({"skills", "list", "--data", f / "empty"});
  EXPECT_EQ(none.exit_code, 0);
  EXPECT_THAT(none.out, HasSubstr("no skills"));
}

TEST(SkillsCli, BadInvocationsAndBadNamesAreUsageErrors) {
  Folder f;
  f.Write("data/skills/broken/SKILL.md", "---\nname: broken\n");
  const std::string data = f / "data";
  EXPECT_EQ(Cli({"skills"}).exit_code, 2);
  EXPECT_EQ(Cli({"skills", "show", "--data", data}).exit_code, 2);  // no NAME
  EXPECT_EQ(Cli({"skills", "lst"}).exit_code, 2);
  auto typo = Cli({"skill", "list"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_THAT(typo.err, HasSubstr("did you mean \"skills\""));
  const struct {
    std::vector<std::string> args;
    std::string env;
    const char* code;
  } cases[] = {
      {{"skills", "show", "nope", "--data", data, "--json"}, "", "skills.not_found"},
      {{"skills", "show", "../etc", "--data", data, "--json"}, "", "skills.bad_name"},
      {{"skills", "show", "broken", "--data", data, "--json"}, "", "skills.bad_front_matter"},
      {{"skills", "list", "--skills", f / "missing", "--data", data, "--json"},
       "",
       "skills.no_source"},
      {{"skills", "list", "--data", data, "--json"}, f / "missing", "skills.no_source"},
      {{"run", "--data", data, "--skills", f / "missing", "--json", "hi"}, "", "skills.no_source"},
  };
  for (const auto& c : cases) {
    auto r = Cli(c.args, c.env);
    EXPECT_EQ(r.exit_code, 2) << c.code << ": " << r.out << r.err;
    ASSERT_FALSE(r.out.empty()) << c.code << ": " << r.err;
    EXPECT_EQ(json::parse(r.out)["error"]["code"], c.code);
  }
  // The human form names the code on stderr.
  auto human = Cli({"skills", "show", "nope", "--data", data});
  EXPECT_EQ(human.exit_code, 2);
  EXPECT_THAT(human.err, HasSubstr("no skill is named \"nope\""));
  EXPECT_THAT(human.err, HasSubstr("[skills.not_found]"));
}

// `run --skills` with a replay model that loads a skill; `prompt audit` shows it as its owner.
TEST(SkillsCli, ReplayRunLoadsASkillAndPromptAuditShowsItsOwnerDigestAndTokens) {
  Folder f;
  const std::string file = f.Write("skills/week-table/SKILL.md",
                                   Skill("week-table", "Answer calendar questions as one table."));
  const std::string script = f.Write(
      "script.json", json{{"format", "qwen3"},
                          {"steps",
                           {"<tool_call>\n{\"name\": \"ToolSearch\", \"arguments\": {\"query\": "
                            "\"skill:week-table\"}}\n</tool_call>",
                            "Done."}}}
                         .dump());
  const std::string data = f / "data";
  auto run = Cli({"run", "--data", data, "--skills", f / "skills", "--script", script, "--json",
                  "What is next week?"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.out, HasSubstr(Sha256Sum(file)));
  auto audit = Cli({"prompt", "audit", "--data", data, "--json"});
  ASSERT_EQ(audit.exit_code, 0) << audit.err;
  json a = json::parse(audit.out)["steps"][1]["audit"];
  ASSERT_EQ(a["skills"].size(), 1u);
  EXPECT_EQ(a["skills"][0]["owner"], "skill:week-table");
  EXPECT_EQ(a["skills"][0]["sha256"], Sha256Sum(file));
  const int64_t tokens = a["skills"][0]["tokens"];
  EXPECT_GT(tokens, 0);
  EXPECT_EQ(a["owners"]["skill:week-table"], tokens);
  auto human = Cli({"prompt", "audit", "--data", data});
  ASSERT_EQ(human.exit_code, 0);
  EXPECT_THAT(human.out, HasSubstr("step 1  skill:week-table  " + std::to_string(tokens) +
                                   " tokens  sha256 " + Sha256Sum(file)));
}

}  // namespace
}  // namespace affordance::cli

// `affordance artifacts` end to end: a real binary over a real data folder whose store holds
// artifacts saved through surface::SaveProgram (what ComposeUI does).
#include "surface/artifact.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <string>

namespace affordance::surface {
namespace {

using nlohmann::json;

struct CliRun {
  int exit = -1;
  std::string out;
};

CliRun Artifacts(const std::string& data, const std::string& args) {
  const std::string cmd =
      std::string(AFFORDANCE_CLI) + " artifacts " + args + " --data " + data + " 2>&1";
  CliRun r;
  FILE* p = popen(cmd.c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = pclose(p);
  r.exit = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(ArtifactsCli, ListShowBySlugAndVersionsWithJson) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "affordance-acli-XXXXXX").string();
  const std::string data = mkdtemp(pattern.data());
  {
    auto store = store::OpenSqlite(data + "/affordance.db");
    ASSERT_TRUE(store.ok()) << store.error().ToString();
    ComposeRequest r;
    r.program = "root = Stack([title])\ntitle = CardHeader(\"Week\")\n";
    r.kind = "live_app";
    r.app_slug = "week";
    ASSERT_TRUE(SaveProgram(**store, r).ok());
    ComposeRequest patch;
    patch.program = "title = CardHeader(\"Next week\")\n";
    patch.patch = true;
    patch.artifact = "week";
    patch.kind = "";  // keep the placement
    ASSERT_TRUE(SaveProgram(**store, patch).ok());
  }
  CliRun list = Artifacts(data, "list --json");
  ASSERT_EQ(list.exit, 0) << list.out;
  json l = json::parse(list.out);
  ASSERT_EQ(l["artifacts"].size(), 1u);
  EXPECT_EQ(l["artifacts"][0]["appSlug"], "week");
  EXPECT_EQ(l["artifacts"][0]["head"], 2);

  CliRun show = Artifacts(data, "show week --json");
  ASSERT_EQ(show.exit, 0) << show.out;
  json s = json::parse(show.out)["artifact"];
  EXPECT_EQ(s["kind"], "live_app");
  EXPECT_EQ(s["version"], 2);
  EXPECT_EQ(s["parent"], 1);
  EXPECT_EQ(s["patch"], "title = CardHeader(\"Next week\")\n");

  CliRun first = Artifacts(data, "show week --version 1 --json");
  ASSERT_EQ(first.exit, 0) << first.out;
  EXPECT_EQ(json::parse(first.out)["artifact"]["body"],
            "root = Stack([title])\ntitle = CardHeader(\"Week\")\n");

  CliRun versions = Artifacts(data, "versions week --json");
  ASSERT_EQ(versions.exit, 0) << versions.out;
  json v = json::parse(versions.out);
  ASSERT_EQ(v["versions"].size(), 2u);
  EXPECT_EQ(v["versions"][1]["parent"], 1);

  CliRun missing = Artifacts(data, "show nope --json");
  EXPECT_EQ(missing.exit, 2) << missing.out;
  EXPECT_NE(missing.out.find("store.not_found"), std::string::npos) << missing.out;

  // Issue 24: --args is refused before it is parsed when it nests too deep (Linux caps one
  // argument at 128 KiB, so 60,000 levels).
  CliRun deep =
      Artifacts(data, "query week q --json --connectors " + std::string(AFFORDANCE_SOURCE_DIR) +
                          "/examples/connectors " + "--args '" + std::string(60000, '[') +
                          std::string(60000, ']') + "'");
  EXPECT_EQ(deep.exit, 2) << deep.out.substr(0, 400);
  json e = json::parse(deep.out)["error"];
  EXPECT_EQ(e["code"], "cli.too_deep");
  EXPECT_EQ(e["message"], "--args nests deeper than 128 levels of arrays and objects");
  std::error_code ec;
  std::filesystem::remove_all(data, ec);
}

}  // namespace
}  // namespace affordance::surface

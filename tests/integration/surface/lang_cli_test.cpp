// `affordance lang parse | validate | prompt` as a user runs it: program on stdin, files as
// arguments, JSON on stdout, exit codes 0 / 1 (program has errors) / 2 (bad input files).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <fstream>
#include <string>

namespace {

struct LangRun {
  int status = -1;
  std::string out;
};

// CTest runs each test in its own process, in parallel: the pid keeps their files apart.
std::string TempFile(const std::string& name, const std::string& content) {
  std::string path =
      ::testing::TempDir() + "/affordance-lang-" + std::to_string(getpid()) + "-" + name;
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

LangRun Lang(const std::string& args, const std::string& stdin_text) {
  const std::string input = TempFile("lang_stdin.txt", stdin_text);
  const std::string cmd = std::string(AFFORDANCE_CLI) + " lang " + args + " < " + input + " 2>&1";
  LangRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

TEST(SurfaceCli, ParseJsonPrintsTheParseResult) {
  LangRun r = Lang("parse --json", "root = Stack([CardHeader(\"Hi\")])\n");
  ASSERT_EQ(r.status, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["root"]["typeName"], "Stack");
  EXPECT_EQ(j["root"]["props"]["children"][0]["props"]["title"], "Hi");
  EXPECT_EQ(j["meta"]["statementCount"], 1);
  EXPECT_TRUE(j.contains("stateDeclarations"));
  EXPECT_TRUE(j["queryStatements"].is_array());
}

TEST(SurfaceCli, ValidateReportsErrorsAndExitsOne) {
  const std::string handles = TempFile("handles.json", "[\"list\"]");
  LangRun r = Lang("validate --json --handles " + handles,
                   "root = Html(\"<img src=x onerror=alert(1)>\")\nq = Query(\"drop\", {}, {})\n");
  EXPECT_EQ(r.status, 1) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j["ok"].get<bool>());
  std::vector<std::string> codes;
  for (const auto& e : j["errors"]) codes.push_back(e["code"]);
  EXPECT_EQ(codes, (std::vector<std::string>{"runtime-handler", "unknown-handle"}));
  EXPECT_EQ(Lang("validate", "root = Stack([])\n").status, 0);
}

// Issue 43, item 2: the canvas that sent every row's summary to a listener is reported.
TEST(SurfaceCli, ValidateReportsACanvasThatLoadsFromAnotherHost) {
  LangRun r =
      Lang("validate --json",
           "root = Html(\"<img src='http://127.0.0.1:9/x?d={{#each events.rows}}"
           "{{summary}}|{{/each}}'><style>p{background:url(//e.example/y)}</style>"
           "<link rel=stylesheet href='HTTPS://e.example/x.css'>\", {events: {rows: []}})\n");
  EXPECT_EQ(r.status, 1) << r.out;
  auto j = nlohmann::json::parse(r.out);
  std::vector<std::string> codes;
  for (const auto& e : j["errors"]) codes.push_back(e["code"]);
  EXPECT_EQ(codes, (std::vector<std::string>{"external-url", "external-url", "external-url"}));
}

TEST(SurfaceCli, BadFilesGetCodesAndExitTwo) {
  const std::string lib = TempFile("bad_lib.json", "{\"$defs\": {\"A\": {\"required\": [\"x\"]}}}");
  LangRun r = Lang("parse --json --library " + lib, "root = A()\n");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(nlohmann::json::parse(r.out)["error"]["code"], "surface.library_invalid");
  const std::string notjson = TempFile("not_json.json", "{");
  EXPECT_EQ(
      nlohmann::json::parse(Lang("prompt --json --tools " + notjson, "").out)["error"]["code"],
      "surface.tools_invalid");
  const std::string empty = TempFile("empty.lang", "");
  LangRun patch = Lang("parse --json --existing " + empty, "a = 1\n");
  EXPECT_EQ(patch.status, 2);
  EXPECT_EQ(nlohmann::json::parse(patch.out)["error"]["code"], "surface.patch_without_program");
}

TEST(SurfaceCli, EditPatchMergesIntoTheExistingProgram) {
  const std::string existing =
      TempFile("existing.lang", "root = Stack([h])\nh = CardHeader(\"Old\")\n");
  LangRun r = Lang("parse --json --existing " + existing, "h = CardHeader(\"New\")\n");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(nlohmann::json::parse(r.out)["root"]["props"]["children"][0]["props"]["title"], "New");
}

TEST(SurfaceCli, PromptPrintsTheSystemPrompt) {
  LangRun r = Lang("prompt --edit-mode", "");
  ASSERT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("## Component Signatures"), std::string::npos);
  EXPECT_NE(r.out.find("Html(html: string"), std::string::npos);
  EXPECT_NE(r.out.find("## Edit Mode"), std::string::npos);
}

// Issue 24: files and programs are untrusted; a million levels are a typed error or a reported
// finding, never a crash.
TEST(SurfaceCli, InputNestedAMillionLevelsDeepIsRefusedOrReported) {
  const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  const std::string lib = TempFile("deep_lib.json", "{\"$defs\": " + deep + "}");
  LangRun l = Lang("parse --json --library " + lib, "root = Stack([])\n");
  EXPECT_EQ(l.status, 2);
  auto e = nlohmann::json::parse(l.out)["error"];
  EXPECT_EQ(e["code"], "surface.too_deep");
  EXPECT_EQ(e["message"], "the library file nests deeper than 128 levels of arrays and objects");
  const std::string handles = TempFile("deep_handles.json", deep);
  LangRun h = Lang("validate --json --handles " + handles, "root = Stack([])\n");
  EXPECT_EQ(h.status, 2);
  e = nlohmann::json::parse(h.out)["error"];
  EXPECT_EQ(e["code"], "cli.too_deep");
  EXPECT_EQ(e["message"], "the handle registry nests deeper than 128 levels of arrays and objects");
  LangRun p = Lang("validate --json", "root = Stack(" + deep + ")\n");
  EXPECT_EQ(p.status, 1) << p.out.substr(0, 400);
  bool reported = false;
  const nlohmann::json result = nlohmann::json::parse(p.out);
  for (const auto& err : result["errors"]) {
    reported = reported || err["code"] == "nesting-too-deep";
  }
  EXPECT_TRUE(reported) << p.out.substr(0, 400);
}

}  // namespace

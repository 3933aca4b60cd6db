// Lint: no string intent routing in the harness or the server.
//
// The model chooses; schemas and runtime boundaries constrain (DESIGN.md §5). Code under
// src/harness and src/server must not route user or model text with regular expressions or
// keyword tables. The scanner flags, per file:
//   - any regex engine: <regex>, std::regex, boost/regex, pcre, re2
//   - case folding of text (tolower/toupper/strcasecmp/icase), the first step of every keyword
//     lane ("if lower(text) contains 'weather' ...")
// Justified exceptions (each names the file and why):
//   - src/harness/registry.cpp: ToolSearch's ranking function lower-cases tool names,
//     descriptions and the query to score word overlap (BM25). It ranks tools for the model to
//     choose from; it never decides what runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const std::map<std::string, std::string> kExceptions = {
    {"src/harness/registry.cpp", "ToolSearch ranking (BM25 over lower-cased words)"},
};

std::vector<std::string> Violations(const std::string& text) {
  static const std::vector<std::string> kRegex = {"<regex>", "std::regex", "boost/regex", "pcre",
                                                  "re2/",    "RE2::",      "regcomp("};
  static const std::vector<std::string> kFold = {"tolower",     "toupper", "strcasecmp",
                                                 "strncasecmp", "icase",   "casefold"};
  std::vector<std::string> out;
  for (const auto& r : kRegex) {
    if (text.find(r) != std::string::npos) out.push_back("regex engine: " + r);
  }
  for (const auto& f : kFold) {
    if (text.find(f) != std::string::npos) out.push_back("case folding: " + f);
  }
  return out;
}

TEST(IntentLint, HarnessAndServerDoNotRouteTextWithRegexesOrKeywordTables) {
  const fs::path root = AFFORDANCE_SOURCE_DIR;
  int scanned = 0;
  for (const char* dir : {"src/harness", "src/server"}) {
    if (!fs::exists(root / dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      if (!entry.is_regular_file()) continue;
      const std::string rel = fs::relative(entry.path(), root).string();
      std::ifstream in(entry.path(), std::ios::binary);
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      ++scanned;
      if (kExceptions.count(rel)) continue;
      for (const auto& v : Violations(text)) ADD_FAILURE() << rel << ": " << v;
    }
  }
  EXPECT_GT(scanned, 5) << "the lint found no harness sources to scan";
}

TEST(IntentLint, TheScannerCatchesWhatItForbids) {
  EXPECT_FALSE(Violations("#include <regex>\nstd::regex lane(\"weather|forecast\");").empty());
  EXPECT_FALSE(Violations("if (ToLower(text).find(\"weather\")) ... std::tolower(c)").empty());
  EXPECT_TRUE(Violations("auto hits = registry.Search(query, 5);").empty());
}

}  // namespace

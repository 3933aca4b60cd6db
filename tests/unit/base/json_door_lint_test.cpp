// Lint: every nlohmann parse of text in src/ is a known one (issue 24).
//
// nlohmann's parser, and everything that later copies, dumps or walks what it built, recurses over
// the nesting of the text; a million '[' kill the process. So text from outside the process is
// depth-checked before it is parsed (base/json_limits.h: CheckJsonDepth, JsonTextDepth, ParseJson).
// This test makes a new parse visible: it counts, per file, the calls of nlohmann's text readers
// (::parse, ::accept, ::sax_parse, ::from_cbor, ...) whose input is neither a string literal nor
// the dump of a value already in memory (json <-> ordered_json conversions, bounded by the door
// that admitted the value), and compares them with the list below. Each entry says why its parses
// are safe. A new door goes through ParseJson or a depth check first, and then into this list;
// a removed parse is taken off the list, so the list stays true.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Allowed {
  int count;
  const char* why;
};

const std::map<std::string, Allowed> kAllowed = {
    {"src/base/json_limits.h", {1, "ParseJson: after CheckJsonDepth"}},
    {"src/base/json_limits.cpp",
     {1, "JsonSyntaxError: a SAX pass that builds no value, after the caller's depth check"}},
    {"src/formats/chat_deltas.cpp", {1, "tool-call arguments: after JsonTextDepth"}},
    {"src/formats/internal/call_body.cpp",
     {3,
      "the call body and an arguments string: after JsonTextDepth; the name: a string literal "
      "the cursor scanned (no nesting)"}},
    {"src/model/http_provider.cpp",
     {2,
      "SSE events: after CheckJsonDepth; error body: after "
      "JsonTextDepth"}},
    {"src/model/replay_provider.cpp", {1, "replay scripts: after CheckJsonDepth"}},
    {"src/render/renderer.cpp", {1, "an arguments string: after JsonTextDepth"}},
    {"src/connect/printed_cli.cpp", {1, "connector output: after JsonTextDepth"}},
    {"src/connect/manifest.cpp", {1, "manifests: after CheckJsonDepth"}},
    {"src/surface/library.cpp", {1, "library files: after CheckJsonDepth"}},
    {"src/store/codec.cpp", {1, "stored columns: after JsonTextDepth (kMaxStoredJsonDepth)"}},
    {"src/text/tokenizer_json.cpp", {1, "tokenizer_config.json: after CheckJsonDepth"}},
    {"src/text/json_reader.cpp",
     {1, "one number or literal the reader scanned (no brackets); the reader bounds nesting"}},
    {"src/view/view.cpp",
     {1, "hook state serialized by runtime.js, which refuses values deeper than 64 levels"}},
    {"src/authority/authority.cpp",
     {2, "the request text Stage itself wrote (a dump): when decided and when expired"}},
    {"src/connect/mcp_client.cpp", {1, "MCP server messages: after JsonTextDepth"}},
    {"src/connect/mcp_mirror.cpp", {3, "mirrored rows, fields and arguments: after JsonTextDepth"}},
    {"src/cli/session.cpp", {1, "--extra-body / --app-props: after CheckInputDepth"}},
    {"src/cli/cmd_tokenize.cpp", {2, "--jsonl lines and ID arrays: after CheckInputDepth"}},
    {"src/cli/cmd_approvals.cpp", {1, "--args: after CheckInputDepth"}},
    {"src/cli/cmd_artifacts.cpp", {1, "--args: after CheckInputDepth"}},
    {"src/cli/cmd_connector.cpp", {1, "--args: after CheckInputDepth"}},
    {"src/cli/cmd_lang.cpp", {1, "handle and tool files: after CheckInputDepth"}},
    {"src/cli/cmd_render.cpp", {2, "--state and --call: after CheckInputDepth"}},
    // The HTTP bodies go through ParseJson (server/api.cpp, artifact_api.cpp).
    {"src/server/mcp.cpp", {1, "MCP messages (HTTP and stdio): after CheckJsonDepth"}},
};

// Skips a string or character literal starting at text[i] (the quote); returns the index after it.
size_t SkipLiteral(const std::string& text, size_t i) {
  const char quote = text[i];
  for (++i; i < text.size() && text[i] != quote; ++i) {
    if (text[i] == '\\') ++i;
  }
  return i + 1;
}

// The first argument of the call whose '(' is at text[open]: up to the ',' or ')' at its depth.
std::string FirstArgument(const std::string& text, size_t open) {
  int depth = 0;
  size_t i = open + 1;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '"' || c == '\'') {
      i = SkipLiteral(text, i);
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) break;
      --depth;
    }
    if (c == ',' && depth == 0) break;
    ++i;
  }
  return text.substr(open + 1, i - open - 1);
}

bool IsLiteral(const std::string& arg) {
  const size_t first = arg.find_first_not_of(" \t\r\n");
  return first != std::string::npos && (arg[first] == '"' || arg.compare(first, 2, "R\"") == 0);
}

// The parses of text in one source file that the list must account for.
int CountTextParses(const std::string& text) {
  static const std::vector<std::string> kReaders = {
      "::parse(",        "::accept(",    "::sax_parse(",   "::from_cbor(",
      "::from_msgpack(", "::from_bson(", "::from_ubjson(", "::from_bjdata("};
  int count = 0;
  for (const auto& reader : kReaders) {
    for (size_t at = text.find(reader); at != std::string::npos; at = text.find(reader, at + 1)) {
      const size_t line = text.rfind('\n', at) + 1;  // npos + 1 == 0 on the first line
      if (text.substr(line, at - line).find("//") != std::string::npos) continue;  // a comment
      const std::string arg = FirstArgument(text, at + reader.size() - 1);
      if (IsLiteral(arg)) continue;
      if (arg.find("dump(") != std::string::npos) continue;  // a value already in memory
      ++count;
    }
  }
  return count;
}

TEST(JsonDoorLint, EveryParseOfTextInSrcIsAKnownCheckedOne) {
  const fs::path root = AFFORDANCE_SOURCE_DIR;
  std::map<std::string, int> found;
  for (const auto& entry : fs::recursive_directory_iterator(root / "src")) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".h")) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (int n = CountTextParses(text); n > 0) found[fs::relative(entry.path(), root).string()] = n;
  }
  for (const auto& [file, n] : found) {
    auto it = kAllowed.find(file);
    if (it == kAllowed.end()) {
      ADD_FAILURE() << file << ": " << n
                    << " parse(s) of JSON text not in the list; check the depth first "
                       "(base/json_limits.h) and add the file with the reason";
    } else if (it->second.count != n) {
      ADD_FAILURE() << file << ": " << n << " parse(s) of JSON text, the list says "
                    << it->second.count << " (" << it->second.why << "); update the list";
    }
  }
  for (const auto& [file, allowed] : kAllowed) {
    if (!found.count(file)) ADD_FAILURE() << file << ": listed but parses no JSON text any more";
  }
  EXPECT_GT(found.size(), 10u) << "the lint found no parses to check";
}

TEST(JsonDoorLint, TheScannerCountsWhatItMust) {
  EXPECT_EQ(CountTextParses("auto j = nlohmann::json::parse(body, nullptr, false);"), 1);
  EXPECT_EQ(CountTextParses("Json::parse(text.begin(), text.end())"), 1);
  EXPECT_EQ(CountTextParses("json::accept(s); json::from_msgpack(bytes);"), 2);
  EXPECT_EQ(CountTextParses("ojson::parse(x ? a.dump() : \"{}\")"), 0);  // a value in memory
  EXPECT_EQ(CountTextParses("json::parse(extra->dump())"), 0);
  EXPECT_EQ(CountTextParses("ojson::parse(R\"({\"type\": \"object\"})\")"), 0);
  EXPECT_EQ(CountTextParses("json::parse(\"[1, 2]\")"), 0);
  EXPECT_EQ(CountTextParses("// json::parse(body) would overflow\nint x;"), 0);
  EXPECT_EQ(CountTextParses("json::parse(f(\"a,b\"), nullptr)"), 1);
}

}  // namespace

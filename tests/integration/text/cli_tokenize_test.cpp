// `affordance tokenize` and `affordance detokenize` as a user runs them: real process, stdin in,
// stdout out, exit codes and JSON errors.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

namespace {

struct CliResult {
  int status;
  std::string out;
};

CliResult Cli(const std::string& args, const std::string& input) {
  static int counter = 0;
  auto in = std::filesystem::temp_directory_path() /
            ("affordance_text_cli_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
  std::ofstream(in, std::ios::binary) << input;
  std::string cmd = std::string(AFFORDANCE_CLI) + " " + args + " < " + in.string() + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  int status = pclose(p);
  std::filesystem::remove(in);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

constexpr const char* kQwen = "--model Qwen__Qwen3-4B-Instruct-2507";
constexpr const char* kLlama = "--model meta-llama__Llama-3.1-8B-Instruct";

TEST(TokenizeCli, PrintsIdsAndKeepsSpecialSpellingsAsText) {
  CliResult plain = Cli(std::string("tokenize ") + kQwen, "Hello world<|im_end|>");
  EXPECT_EQ(plain.status, 0);
  EXPECT_EQ(plain.out.rfind("9707 1879 ", 0), 0u) << plain.out;
  EXPECT_EQ(plain.out.find("151645"), std::string::npos);
  CliResult special =
      Cli(std::string("tokenize --special --json ") + kQwen, "Hello world<|im_end|>");
  EXPECT_EQ(special.status, 0);
  auto j = nlohmann::json::parse(special.out);
  EXPECT_EQ(j["ids"], nlohmann::json({9707, 1879, 151645}));
  EXPECT_EQ(j["pieces"], nlohmann::json({"Hello", "Ġworld", "<|im_end|>"}));
}

// The plain output is written through a 64 KiB buffer: a long text (many buffers of IDs) must
// print exactly the IDs --json reports, space-separated on one line; no input prints a newline.
TEST(TokenizeCli, LongOutputIsEveryIdOnOneLine) {
  std::string text;
  for (int i = 0; i < 3000; ++i)
    text +=
        "Hello мир 你好世界 नमस्ते สวัสดี "
        "👨‍👩‍👧‍👦 " +
        std::to_string(i * 7919) + "\n";
  CliResult plain = Cli(std::string("tokenize --special ") + kQwen, text);
  CliResult json = Cli(std::string("tokenize --special --json ") + kQwen, text);
  ASSERT_EQ(plain.status, 0);
  ASSERT_EQ(json.status, 0);
  std::string want;
  const nlohmann::json parsed = nlohmann::json::parse(json.out);
  for (const auto& id : parsed["ids"])
    want += (want.empty() ? "" : " ") + std::to_string(id.get<int>());
  want += "\n";
  EXPECT_GT(want.size(), size_t{3} << 16);
  EXPECT_EQ(plain.out, want);
  CliResult empty = Cli(std::string("tokenize ") + kQwen, "");
  EXPECT_EQ(empty.status, 0);
  EXPECT_EQ(empty.out, "\n");
}

TEST(TokenizeCli, JsonLinesBatchMode) {
  CliResult r =
      Cli(std::string("tokenize --jsonl --special ") + kLlama, "\"a b\"\n\"<|eot_id|>\"\n");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "[64,293]\n[128009]\n");
  CliResult bad = Cli(std::string("tokenize --jsonl --json ") + kLlama, "\"ok\"\nnot json\n");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.out.find("\"cli.bad_input\""), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("line 2"), std::string::npos) << bad.out;
}

TEST(TokenizeCli, DetokenizeReadsJsonArraysOrWhitespace) {
  EXPECT_EQ(Cli(std::string("detokenize ") + kQwen, "[9707, 1879, 151645]").out,
            "Hello world<|im_end|>");
  EXPECT_EQ(Cli(std::string("detokenize ") + kQwen, "9707\n1879 ").out, "Hello world");
}

TEST(TokenizeCli, ErrorsAreClearAndJsonInJsonMode) {
  CliResult range = Cli(std::string("detokenize --json ") + kQwen, "9707 99999999");
  EXPECT_EQ(range.status, 2);
  auto e = nlohmann::json::parse(range.out)["error"];
  EXPECT_EQ(e["code"], "tokenizer.unknown_id");
  CliResult utf8 = Cli(std::string("tokenize --json ") + kQwen, "ok \xFF");
  EXPECT_EQ(utf8.status, 2);
  EXPECT_EQ(nlohmann::json::parse(utf8.out)["error"]["detail"], "byte offset 3");
  CliResult model = Cli("tokenize --json --model no-such-model", "x");
  EXPECT_EQ(model.status, 2);
  EXPECT_EQ(nlohmann::json::parse(model.out)["error"]["code"], "tokenizer.model_not_found");
  CliResult word = Cli(std::string("detokenize ") + kQwen, "12 abc");
  EXPECT_EQ(word.status, 2);
}

// Issue 24: standard input is untrusted text; a million levels are refused before they are parsed.
TEST(TokenizeCli, InputNestedAMillionLevelsDeepIsATypedError) {
  const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  CliResult line = Cli(std::string("tokenize --jsonl --json ") + kQwen, "\"ok\"\n" + deep + "\n");
  EXPECT_EQ(line.status, 2);
  const size_t nl = line.out.find('\n');
  ASSERT_NE(nl, std::string::npos) << line.out;
  EXPECT_TRUE(nlohmann::json::parse(line.out.substr(0, nl)).is_array());  // line 1 was answered
  auto e = nlohmann::json::parse(line.out.substr(nl + 1))["error"];
  EXPECT_EQ(e["code"], "cli.too_deep");
  EXPECT_EQ(e["message"],
            "a --jsonl input line nests deeper than 128 levels of arrays and objects");
  EXPECT_EQ(e["detail"], "line 2: limit 128");
  CliResult ids = Cli(std::string("detokenize --json ") + kQwen, deep);
  EXPECT_EQ(ids.status, 2);
  e = nlohmann::json::parse(ids.out)["error"];
  EXPECT_EQ(e["code"], "cli.too_deep");
  EXPECT_EQ(e["message"],
            "the list of token IDs nests deeper than 128 levels of arrays and objects");
}

}  // namespace

// `affordance --version` says which source the binary was built from.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <regex>
#include <string>

namespace {

std::string RunCommand(const std::string& command, int* status) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  std::array<char, 4096> buf{};
  while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) out.append(buf.data(), n);
  *status = pclose(pipe);
  return out;
}

TEST(CliSmoke, VersionNamesTheGitCommit) {
  int status = 0;
  std::string out = RunCommand(std::string(AFFORDANCE_CLI) + " --version", &status);
  EXPECT_EQ(status, 0);
  // "affordance 0.1.0 (commit <40 hex>[-dirty])" inside a git checkout.
  EXPECT_TRUE(std::regex_search(
      out, std::regex(R"(^affordance \d+\.\d+\.\d+ \(commit [0-9a-f]{40}(-dirty)?\))")))
      << out;
}

TEST(CliSmoke, UnknownSubcommandFailsWithUsageError) {
  int status = 0;
  RunCommand(std::string(AFFORDANCE_CLI) + " no-such-command 2>/dev/null", &status);
  EXPECT_NE(status, 0);
}

}  // namespace

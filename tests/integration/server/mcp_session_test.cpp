// MCP session ids over real loopback HTTP are not bearer credentials (docs/MCP.md "Sessions and the
// trust root"): an operator session minted by the person's OS user, its id given to another OS user
// (nobody, via setuid) who also holds the access token, does not exist for that user, and cannot be
// ended by them; a flood of `initialize` from another user, or from the same user on the normal
// plane, pushes out only the flooder's own sessions. The replay provider stands in for the model.
#include "server_process.h"

#include <gtest/gtest.h>

#include <fstream>

namespace affordance::server::testing {
namespace {

using nlohmann::json;

const std::string kToken = "mcp-session-test-token-0123456789";

std::string Auth() {
  return "authorization: Bearer " + kToken + "\r\naccept: application/json\r\n";
}

json InitBody() {
  return {{"jsonrpc", "2.0"},
          {"id", 1},
          {"method", "initialize"},
          {"params",
           {{"protocolVersion", "2025-11-25"},
            {"capabilities", json::object()},
            {"clientInfo", {{"name", "session-test"}, {"version", "1"}}}}}};
}

std::string Init(int port, const std::string& extra = "") {
  return Http(port, "POST", "/mcp", InitBody().dump(), Auth() + extra).Header("mcp-session-id");
}

// "STATUS CODE TOOLS": the status of tools/list on `sid`, its error code, and whether it lists
// approve_action.
std::string ToolsList(int port, const std::string& sid) {
  auto r = Http(port, "POST", "/mcp", R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})",
                Auth() + "mcp-session-id: " + sid + "\r\n");
  json body = json::parse(r.body, nullptr, false);
  std::string code = body.is_object() ? body.value("/error/data/code"_json_pointer, "-") : "?";
  const bool approve = r.body.find("\"approve_action\"") != std::string::npos;
  return std::to_string(r.status) + " " + code + (approve ? " approve" : "");
}

TEST(McpSessionOwners, AnotherOsUserWithTheTokenAndTheIdGetsNothingAndFloodsOnlyItself) {
  TempDir dir;
  setenv("AFFORDANCE_ACCESS_TOKEN", kToken.c_str(), 1);
  ServerProcess server(dir / "data", Source("tests/integration/server/scripts/full.json"));
  unsetenv("AFFORDANCE_ACCESS_TOKEN");
  const int port = server.port();
  ASSERT_GT(port, 0) << server.first_line();
  std::string secret;
  std::ifstream(dir / "data/operator.secret") >> secret;
  ASSERT_EQ(secret.size(), 64u);

  const std::string op = Init(port, "affordance-operator-secret: " + secret + "\r\n");
  const std::string normal = Init(port);
  ASSERT_FALSE(op.empty());
  ASSERT_FALSE(normal.empty());
  EXPECT_EQ(ToolsList(port, op), "200 - approve");

  // The id and the token in another OS user's hands: no such session, and it cannot end it.
  const std::string stolen = AsNobody([&] {
    auto del = Http(port, "DELETE", "/mcp", "", Auth() + "mcp-session-id: " + op + "\r\n");
    return ToolsList(port, op) + " | " + ToolsList(port, normal) + " | " +
           std::to_string(del.status);
  });
  EXPECT_EQ(stolen, "404 mcp.unknown_session | 404 mcp.unknown_session | 404");
  EXPECT_EQ(ToolsList(port, op), "200 - approve");

  // 1,030 initialize calls from the other user (the repro of the issue): all answered, and every
  // session of the person's user lives on.
  const std::string flood = AsNobody([&] {
    int ok = 0;
    for (int i = 0; i < 1030; ++i) ok += Init(port).empty() ? 0 : 1;
    return std::to_string(ok);
  });
  EXPECT_EQ(flood, "1030");
  EXPECT_EQ(ToolsList(port, op), "200 - approve");
  EXPECT_EQ(ToolsList(port, normal), "200 -");

  // The person's own user flooding the normal plane ends its own oldest normal sessions only.
  for (int i = 0; i < 40; ++i) ASSERT_FALSE(Init(port).empty());
  EXPECT_EQ(ToolsList(port, normal), "404 mcp.unknown_session");  // beyond the per-client cap
  EXPECT_EQ(ToolsList(port, op), "200 - approve");
  EXPECT_TRUE(server.alive());
}

}  // namespace
}  // namespace affordance::server::testing

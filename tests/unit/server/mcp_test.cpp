// The MCP door's protocol core, tool table and trust root without a transport: the tool table is
// built from the capability registry (every real tool declared, every "mcp" declaration served),
// tools/list depends on the session, and every kind of bad message gets the JSON-RPC error the
// protocol names (shared/reference/mcp.md). The transports are tested end to end with the
// official TypeScript client (tests/integration/server/mcp_client.test.mjs).
#include "server/mcp.h"
#include "server/mcp_http.h"
#include "server/mcp_tools.h"
#include "server/operator_root.h"
#include "store/store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

namespace affordance::server {
namespace {

using authority::Access;
using authority::Capability;
using authority::CapabilityRegistry;
using mcp::McpProtocol;
using mcp::Session;
using mcp::ToolResult;
using nlohmann::json;

std::string TempDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("affordance-mcp-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

// The answer to one message (null when nothing is owed).
json Call(const McpProtocol& p, const std::shared_ptr<Session>& s, const json& message) {
  json out;
  auto parsed =
      McpProtocol::Parse(message.is_string() ? message.get<std::string>() : message.dump());
  if (parsed.error) return *parsed.error;
  p.Handle(parsed, s, [&](json r) { out = std::move(r); });
  return out;
}

json Request(json id, const std::string& method, json params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

json Init(const std::string& version = "2025-11-25") {
  return Request(1, "initialize",
                 {{"protocolVersion", version},
                  {"capabilities", json::object()},
                  {"clientInfo", {{"name", "unit"}, {"version", "1"}}}});
}

class McpProductTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir("product");
    auto store = store::OpenSqlite(dir_ + "/a.db");
    ASSERT_TRUE(store.ok()) << store.error().ToString();
    store_ = std::move(*store);
    tools_ = std::make_unique<ProductTools>(ProductToolsOptions{store_.get(), nullptr, nullptr});
    auto table = mcp::ToolTable::Build(CapabilityRegistry::Global(), tools_->Functions());
    ASSERT_TRUE(table.ok()) << table.error().ToString();
    protocol_ = std::make_unique<McpProtocol>(std::move(*table), ProductInfo());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::shared_ptr<Session> Initialized(bool operator_session) {
    auto s = std::make_shared<Session>("s", operator_session, "stdio");
    json r = Call(*protocol_, s, Init());
    EXPECT_TRUE(r.contains("result")) << r.dump();
    return s;
  }

  std::string dir_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<ProductTools> tools_;
  std::unique_ptr<McpProtocol> protocol_;
};

// The registry test of the MCP door: every tool function is declared (door mcp) and every
// declaration is served, each says what it governs, and the issue's tools all exist.
TEST_F(McpProductTest, EveryToolIsDeclaredAndEveryDeclarationIsServed) {
  const auto& table = protocol_->table();
  EXPECT_TRUE(table.unserved().empty()) << ::testing::PrintToString(table.unserved());
  const auto declared = CapabilityRegistry::Global().OfDoor("mcp");
  ASSERT_EQ(table.tools().size(), declared.size());
  ASSERT_EQ(table.tools().size(), tools_->Functions().size());
  for (const auto& tool : table.tools()) {
    const Capability* c = CapabilityRegistry::Global().Find("mcp", tool.capability.name);
    ASSERT_NE(c, nullptr) << tool.capability.name;
    EXPECT_FALSE(c->description.empty()) << c->name;
    EXPECT_EQ(c->params.value("type", ""), "object") << c->name;
    EXPECT_EQ(c->result.value("type", ""), "object") << c->name;
    if (c->mode != authority::Mode::kRead) {
      EXPECT_FALSE(c->proof.empty()) << c->name << " changes state: what proves it?";
    }
  }
  for (const char* required :
       {"ask", "read_connector", "list_connectors", "request_grant", "stage_action",
        "list_approvals", "show_approval", "read_activity", "compose_ui", "open_artifact",
        "approve_action", "deny_action", "grant"}) {
    EXPECT_NE(table.Find(required), nullptr) << required;
  }
  // The human plane is the operator's only.
  for (const char* op : {"approve_action", "deny_action", "grant", "revoke_grant"}) {
    EXPECT_EQ(table.Find(op)->capability.access, Access::kPerson) << op;
  }
}

TEST(McpToolTable, AToolWithoutDeclarationCannotExist) {
  CapabilityRegistry registry;
  auto fn = [](const mcp::ToolCall&, mcp::ToolReply reply) { reply(ToolResult::Ok({})); };
  auto table = mcp::ToolTable::Build(registry, {{"secret_door", fn}});
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(table.error().code, "mcp.undeclared_tool");
  EXPECT_EQ(table.error().detail, "secret_door");

  Capability c;
  c.door = "mcp";
  c.name = "loose";
  c.object = "thing";
  c.action = "read";
  c.params = {{"type", "string"}};  // not an object schema
  ASSERT_TRUE(registry.Declare(c).ok());
  auto bad = mcp::ToolTable::Build(registry, {{"loose", fn}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "mcp.bad_tool");
}

TEST_F(McpProductTest, ToolsListDependsOnTheSession) {
  auto names = [&](bool op) {
    std::set<std::string> out;
    for (const auto& t : protocol_->ListTools(*Initialized(op))) out.insert(t["name"]);
    return out;
  };
  auto normal = names(false);
  auto operator_tools = names(true);
  for (const char* op : {"approve_action", "deny_action", "grant", "revoke_grant"}) {
    EXPECT_EQ(normal.count(op), 0u) << op;
    EXPECT_EQ(operator_tools.count(op), 1u) << op;
  }
  EXPECT_EQ(normal.count("ask"), 1u);
  EXPECT_EQ(operator_tools.size(), normal.size() + 4);
  for (const auto& t : protocol_->ListTools(*Initialized(true))) {
    EXPECT_TRUE(t["inputSchema"].is_object());
    EXPECT_EQ(t["outputSchema"]["type"], "object");
    EXPECT_TRUE(t["annotations"].contains("readOnlyHint"));
  }
}

TEST_F(McpProductTest, VersionNegotiationAndLifecycle) {
  auto s = std::make_shared<Session>("s", false, "stdio");
  // Out of order: anything but initialize / ping first is refused.
  json early = Call(*protocol_, s, Request(7, "tools/list"));
  EXPECT_EQ(early["error"]["code"], mcp::kInvalidRequest);
  EXPECT_EQ(early["id"], 7);
  EXPECT_EQ(Call(*protocol_, s, Request(8, "ping"))["result"], json::object());

  json r = Call(*protocol_, s, Init("2025-06-18"));
  EXPECT_EQ(r["result"]["protocolVersion"], "2025-06-18");  // a revision we speak is echoed
  EXPECT_EQ(r["result"]["serverInfo"]["name"], "affordance");
  EXPECT_TRUE(r["result"]["capabilities"].contains("tools"));
  EXPECT_EQ(s->client_name(), "unit");
  json again = Call(*protocol_, s, Init());
  EXPECT_EQ(again["error"]["code"], mcp::kInvalidRequest);

  auto other = std::make_shared<Session>("o", false, "stdio");
  EXPECT_EQ(Call(*protocol_, other, Init("1999-01-01"))["result"]["protocolVersion"],
            std::string(mcp::kLatestVersion));
  json missing = Call(*protocol_, std::make_shared<Session>("m", false, "stdio"),
                      Request(2, "initialize", {{"capabilities", json::object()}}));
  EXPECT_EQ(missing["error"]["code"], mcp::kInvalidParams);

  // Notifications are owed nothing; the stateless probe is an error (clients fall back).
  EXPECT_TRUE(
      Call(*protocol_, s, {{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}).is_null());
  EXPECT_EQ(Call(*protocol_, s, Request(3, "server/discover"))["error"]["code"],
            mcp::kMethodNotFound);
  EXPECT_EQ(Call(*protocol_, s, Request(4, "resources/list"))["error"]["code"],
            mcp::kMethodNotFound);
  EXPECT_EQ(Call(*protocol_, s, Request(5, "tools/list", {{"cursor", "next"}}))["error"]["code"],
            mcp::kInvalidParams);
}

TEST_F(McpProductTest, MalformedMessagesGetJsonRpcErrors) {
  auto s = Initialized(false);
  EXPECT_EQ(Call(*protocol_, s, json("{not json"))["error"]["code"], mcp::kParseError);
  EXPECT_EQ(Call(*protocol_, s, json("[" + Request(1, "ping").dump() + "]"))["error"]["code"],
            mcp::kInvalidRequest);  // batches
  EXPECT_EQ(Call(*protocol_, s, json(R"({"id": 1, "method": "ping"})"))["error"]["code"],
            mcp::kInvalidRequest);  // no jsonrpc
  EXPECT_EQ(Call(*protocol_, s,
                 json(R"({"jsonrpc": "2.0", "id": 1.5, "method": "ping"})"))["error"]["code"],
            mcp::kInvalidRequest);
  EXPECT_EQ(Call(*protocol_, s, json(R"({"jsonrpc": "2.0", "id": 2, "method": 5})"))["error"]["id"],
            nullptr);
  EXPECT_EQ(
      Call(*protocol_, s, json(R"({"jsonrpc": "2.0", "id": 3, "params": {}})"))["error"]["code"],
      mcp::kInvalidRequest);
  EXPECT_EQ(Call(*protocol_, s, json(R"({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                                         "params": [1]})"))["error"]["code"],
            mcp::kInvalidParams);
  // A response from the client (we sent no request) is owed nothing.
  EXPECT_TRUE(Call(*protocol_, s, json(R"({"jsonrpc": "2.0", "id": 9, "result": {}})")).is_null());
}

TEST_F(McpProductTest, ToolCallErrors) {
  auto s = Initialized(false);
  json unknown = Call(*protocol_, s, Request(1, "tools/call", {{"name", "no_such_tool"}}));
  EXPECT_EQ(unknown["error"]["code"], mcp::kInvalidParams);
  EXPECT_EQ(unknown["error"]["data"]["code"], "mcp.unknown_tool");
  json noname = Call(*protocol_, s, Request(2, "tools/call", {{"arguments", json::object()}}));
  EXPECT_EQ(noname["error"]["code"], mcp::kInvalidParams);
  // Operator tools are not the normal session's, even when it knows their names.
  json approve = Call(
      *protocol_, s,
      Request(3, "tools/call", {{"name", "approve_action"}, {"arguments", {{"id", "apr_x"}}}}));
  EXPECT_EQ(approve["error"]["code"], mcp::kInvalidParams);
  EXPECT_EQ(approve["error"]["data"]["code"], "mcp.operator_only");
  // Arguments are checked against the declared input schema.
  json bad = Call(
      *protocol_, s,
      Request(4, "tools/call", {{"name", "read_activity"}, {"arguments", {{"limit", "many"}}}}));
  EXPECT_EQ(bad["error"]["code"], mcp::kInvalidParams);
  EXPECT_THAT(bad["error"]["message"].get<std::string>(), ::testing::HasSubstr("/limit"));
  json extra =
      Call(*protocol_, s,
           Request(5, "tools/call",
                   {{"name", "show_approval"}, {"arguments", {{"id", "a"}, {"sneaky", 1}}}}));
  EXPECT_EQ(extra["error"]["code"], mcp::kInvalidParams);
  json notobj =
      Call(*protocol_, s, Request(6, "tools/call", {{"name", "read_activity"}, {"arguments", 3}}));
  EXPECT_EQ(notobj["error"]["code"], mcp::kInvalidParams);
  // A tool's own failure is a result with isError, its text the error.
  json missing = Call(
      *protocol_, s,
      Request(7, "tools/call", {{"name", "show_approval"}, {"arguments", {{"id", "apr_nope"}}}}));
  ASSERT_TRUE(missing.contains("result")) << missing.dump();
  EXPECT_EQ(missing["result"]["isError"], true);
  EXPECT_FALSE(missing["result"].contains("structuredContent"));
  json text = json::parse(missing["result"]["content"][0]["text"].get<std::string>());
  EXPECT_EQ(text["error"]["code"], "authority.unknown_approval");
  // A turn needs the hub; without one, ask says so.
  json ask = Call(*protocol_, s,
                  Request(8, "tools/call", {{"name", "ask"}, {"arguments", {{"message", "hi"}}}}));
  EXPECT_EQ(ask["result"]["isError"], true);
}

TEST_F(McpProductTest, SuccessfulCallsCarryStructuredContentMatchingTheirSchema) {
  auto s = Initialized(false);
  json r = Call(*protocol_, s, Request(1, "tools/call", {{"name", "read_activity"}}));
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_FALSE(r["result"].contains("isError"));
  EXPECT_TRUE(r["result"]["structuredContent"]["activity"].is_array());
  EXPECT_EQ(json::parse(r["result"]["content"][0]["text"].get<std::string>()),
            r["result"]["structuredContent"]);
  json list = Call(*protocol_, s, Request(2, "tools/call", {{"name", "list_connectors"}}));
  EXPECT_EQ(list["result"]["structuredContent"]["connectors"], json::array());
}

// A tool declaration for protocol tests: door mcp, any object as arguments, `result` its output.
Capability TestTool(const std::string& name, const std::string& action, json result) {
  Capability c;
  c.door = "mcp";
  c.name = name;
  c.object = "thing";
  c.action = action;
  c.params = {{"type", "object"}};
  c.result = std::move(result);
  return c;
}

TEST(McpProtocolCore, AResultThatBreaksItsOutputSchemaIsNeverSent) {
  CapabilityRegistry registry;
  ASSERT_TRUE(registry
                  .Declare(TestTool("liar", "read",
                                    {{"type", "object"},
                                     {"properties", {{"n", {{"type", "integer"}}}}},
                                     {"required", {"n"}}}))
                  .ok());
  auto table =
      mcp::ToolTable::Build(registry, {{"liar", [](const mcp::ToolCall&, mcp::ToolReply reply) {
                                          reply(ToolResult::Ok({{"n", "not a number"}}));
                                        }}});
  ASSERT_TRUE(table.ok());
  McpProtocol p(std::move(*table), {});
  auto s = std::make_shared<Session>("s", false, "stdio");
  Call(p, s, Init());
  json r = Call(p, s, Request(2, "tools/call", {{"name", "liar"}}));
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_THAT(r["result"]["content"][0]["text"].get<std::string>(),
              ::testing::HasSubstr("mcp.bad_output"));
}

// A protocol with one tool, `wait`, that answers only when cancelled (or when `finish` runs).
struct WaitingTool {
  std::function<void()> finish;
  int stops = 0;
  std::unique_ptr<McpProtocol> protocol;

  WaitingTool() {
    CapabilityRegistry registry;
    EXPECT_TRUE(registry.Declare(TestTool("wait", "wait", {{"type", "object"}})).ok());
    auto table = mcp::ToolTable::Build(
        registry, {{"wait", [this](const mcp::ToolCall& call, mcp::ToolReply reply) {
                      finish = [reply] { reply(ToolResult::Ok({{"done", true}})); };
                      call.control->OnCancel([this, reply] {
                        ++stops;
                        reply(ToolResult::Fail(MakeError("test.cancelled", "stopped")));
                      });
                    }}});
    EXPECT_TRUE(table.ok());
    protocol = std::make_unique<McpProtocol>(std::move(*table), ProductInfo());
  }
};

json Notification(const std::string& method, json params) {
  return {{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

TEST(McpCancellation, ACancelledCallStopsAndOverStdioNothingIsSent) {
  WaitingTool t;
  auto s = std::make_shared<Session>("stdio", false, "stdio");
  Call(*t.protocol, s, Init());
  int replies = 0;
  json answer = "unset";
  auto parsed = McpProtocol::Parse(Request(7, "tools/call", {{"name", "wait"}}).dump());
  t.protocol->Handle(parsed, s, [&](json r) {
    ++replies;
    answer = std::move(r);
  });
  EXPECT_EQ(replies, 0);  // still running
  // The same id again while it runs: refused, and the running call is untouched.
  json dup = Call(*t.protocol, s, Request(7, "tools/call", {{"name", "wait"}}));
  EXPECT_EQ(dup["error"]["data"]["code"], "mcp.duplicate_request_id");
  // Another id, and a malformed notification, change nothing.
  Call(*t.protocol, s, Notification("notifications/cancelled", {{"requestId", 8}}));
  Call(*t.protocol, s, Notification("notifications/cancelled", json::array()));
  EXPECT_EQ(t.stops, 0);
  Call(*t.protocol, s,
       Notification("notifications/cancelled", {{"requestId", 7}, {"reason", "user abort"}}));
  EXPECT_EQ(t.stops, 1);
  EXPECT_EQ(replies, 1);
  EXPECT_TRUE(answer.is_null());  // nothing is sent for a cancelled call
  // Cancelling it again, or after it answered, is ignored.
  Call(*t.protocol, s, Notification("notifications/cancelled", {{"requestId", 7}}));
  EXPECT_EQ(t.stops, 1);
  // The session goes on.
  EXPECT_EQ(Call(*t.protocol, s, Request(9, "ping"))["result"], json::object());
}

TEST(McpCancellation, OverHttpTheCancelledCallStillAnswersItsPostAndFinishedCallsAreNotCancelled) {
  WaitingTool t;
  auto s = std::make_shared<Session>("h", false, "http");
  Call(*t.protocol, s, Init());
  json answer;
  auto parsed = McpProtocol::Parse(Request("a", "tools/call", {{"name", "wait"}}).dump());
  t.protocol->Handle(parsed, s, [&](json r) { answer = std::move(r); });
  Call(*t.protocol, s, Notification("notifications/cancelled", {{"requestId", "a"}}));
  EXPECT_EQ(t.stops, 1);
  EXPECT_EQ(answer["id"], "a");
  EXPECT_EQ(answer["result"]["isError"], true);
  // A call that answered first is not stopped by a late cancel.
  json second;
  parsed = McpProtocol::Parse(Request("b", "tools/call", {{"name", "wait"}}).dump());
  t.protocol->Handle(parsed, s, [&](json r) { second = std::move(r); });
  t.finish();
  EXPECT_EQ(second["result"]["structuredContent"]["done"], true);
  Call(*t.protocol, s, Notification("notifications/cancelled", {{"requestId", "b"}}));
  EXPECT_EQ(t.stops, 1);
}

// One POST /mcp through McpHttp, its deferred answer awaited.
HttpResponse PostMcp(McpHttp& http, const json& message, const std::string& session) {
  HttpRequest r;
  r.method = "POST";
  r.path = "/mcp";
  r.body = message.dump();
  r.peer_address = "127.0.0.1";
  r.peer_loopback = true;
  if (!session.empty()) r.headers.emplace_back("Mcp-Session-Id", session);
  HttpResponse out = http.Post(r);
  if (out.deferred) out.deferred([&](HttpResponse answer) { out = std::move(answer); });
  return out;
}

std::string SessionIdOf(const HttpResponse& r) {
  for (const auto& [name, value] : r.headers) {
    if (name == "mcp-session-id") return value;
  }
  return "";
}

TEST(McpHttpSessions, ASessionUnusedForTheIdleTimeoutHasEndedAndUseKeepsOneAlive) {
  CapabilityRegistry registry;
  auto table = mcp::ToolTable::Build(registry, {});
  ASSERT_TRUE(table.ok()) << table.error().ToString();
  McpProtocol protocol(std::move(*table), {});
  int64_t now = 1'000'000;
  const int64_t minute = 60'000;
  McpHttp http(protocol, {.idle_timeout_ms = 60 * minute, .now_ms = [&] { return now; }});

  const std::string id = SessionIdOf(PostMcp(http, Init(), ""));
  ASSERT_FALSE(id.empty());
  // Used every 50 minutes: alive for hours.
  for (int i = 0; i < 5; ++i) {
    now += 50 * minute;
    HttpResponse pong = PostMcp(http, Request(2 + i, "ping"), id);
    EXPECT_EQ(pong.status, 200) << pong.body;
  }
  EXPECT_EQ(http.sessions(), 1u);
  // Then unused for longer than the timeout: ended, and the client is told to initialize again.
  now += 61 * minute;
  EXPECT_EQ(http.sessions(), 0u);
  HttpResponse ended = PostMcp(http, Request(9, "ping"), id);
  EXPECT_EQ(ended.status, 404);
  EXPECT_EQ(json::parse(ended.body)["error"]["data"]["code"], "mcp.unknown_session");
  const std::string again = SessionIdOf(PostMcp(http, Init(), ""));
  EXPECT_FALSE(again.empty());
  EXPECT_NE(again, id);
  EXPECT_EQ(PostMcp(http, Request(10, "ping"), again).status, 200);
}

TEST(McpHttpSessions, IdleSessionsAreDroppedWhenOthersStartAndZeroMeansNever) {
  CapabilityRegistry registry;
  auto table = mcp::ToolTable::Build(registry, {});
  ASSERT_TRUE(table.ok());
  McpProtocol protocol(std::move(*table), {});
  int64_t now = 0;
  McpHttp timed(protocol, {.idle_timeout_ms = 1000, .now_ms = [&] { return now; }});
  for (int i = 0; i < 3; ++i) ASSERT_FALSE(SessionIdOf(PostMcp(timed, Init(), "")).empty());
  now += 5000;
  ASSERT_FALSE(SessionIdOf(PostMcp(timed, Init(), "")).empty());
  EXPECT_EQ(timed.sessions(), 1u);  // the three idle ones went when the fourth started

  McpHttp forever(protocol, {.idle_timeout_ms = 0, .now_ms = [&] { return now; }});
  const std::string id = SessionIdOf(PostMcp(forever, Init(), ""));
  now += 365LL * 24 * 3600 * 1000;
  EXPECT_EQ(PostMcp(forever, Request(2, "ping"), id).status, 200);
}

TEST(McpTrustRoot, CreatedOnceMode0600AndRefusedWhenOthersCanReadIt) {
  std::string dir = TempDir("root");
  auto first = LoadOperatorSecret(dir);
  ASSERT_TRUE(first.ok()) << first.error().ToString();
  EXPECT_EQ(first->size(), 64u);
  struct stat st {};
  ASSERT_EQ(stat((dir + "/operator.secret").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  auto second = LoadOperatorSecret(dir);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*second, *first);
  EXPECT_TRUE(SecretMatches(*first, *first));
  EXPECT_FALSE(SecretMatches(first->substr(1), *first));
  EXPECT_FALSE(SecretMatches("", ""));
  std::string other = *first;
  other[0] = other[0] == 'a' ? 'b' : 'a';
  EXPECT_FALSE(SecretMatches(other, *first));

  ASSERT_EQ(chmod((dir + "/operator.secret").c_str(), 0644), 0);
  auto unsafe = LoadOperatorSecret(dir);
  ASSERT_FALSE(unsafe.ok());
  EXPECT_EQ(unsafe.error().code, "mcp.trust_root_unsafe");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace affordance::server

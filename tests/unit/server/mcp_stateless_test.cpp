// The MCP door's stateless revision (2026-07-28) beside the session one, and its resources, without
// a network: the envelope and every way it can be wrong, server/discover, the stamps and cache
// fields of each result, the plane taken per request from the credential, the methods the revision
// removed, both eras on one stdio session, the resource kinds (planes, paging, reads, errors), and
// the Streamable HTTP rules of each era (headers, statuses, session owners and caps). The official
// clients test the same end to end (tests/integration/server/mcp_eras.test.mjs).
#include "server/mcp.h"
#include "server/mcp_http.h"
#include "server/mcp_tools.h"
#include "store/store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>

namespace affordance::server {
namespace {

using authority::Access;
using authority::Capability;
using authority::CapabilityRegistry;
using mcp::McpProtocol;
using mcp::Session;
using nlohmann::json;

json Call(const McpProtocol& p, const std::shared_ptr<Session>& s, const json& message) {
  json out;
  auto parsed = McpProtocol::Parse(message.dump());
  if (parsed.error) return *parsed.error;
  p.Handle(parsed, s, [&](json r) { out = std::move(r); });
  return out;
}

json Envelope(const std::string& version = "2026-07-28") {
  return {{"io.modelcontextprotocol/protocolVersion", version},
          {"io.modelcontextprotocol/clientInfo", {{"name", "unit-2026"}, {"version", "1"}}},
          {"io.modelcontextprotocol/clientCapabilities", json::object()}};
}

// A stateless request: params with the envelope.
json Stateless(json id, const std::string& method, json params = json::object(),
               json meta = Envelope()) {
  params["_meta"] = std::move(meta);
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

json Legacy(json id, const std::string& method, json params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

json Init() {
  return Legacy(1, "initialize",
                {{"protocolVersion", "2025-11-25"},
                 {"capabilities", json::object()},
                 {"clientInfo", {{"name", "unit-2025"}, {"version", "1"}}}});
}

const std::string kProgram = "root = Stack([note])\nnote = Callout(\"info\", \"Unit\", \"x\")\n";

class McpStatelessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        (std::filesystem::temp_directory_path() / ("affordance-mcp26-" + std::to_string(getpid())))
            .string();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    auto store = store::OpenSqlite(dir_ + "/a.db");
    ASSERT_TRUE(store.ok()) << store.error().ToString();
    store_ = std::move(*store);
    tools_ = std::make_unique<ProductTools>(ProductToolsOptions{store_.get(), nullptr, nullptr});
    auto door = ProductProtocol(*tools_);
    ASSERT_TRUE(door.ok()) << door.error().ToString();
    protocol_ = std::move(*door);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // What a transport proved: the plane, nothing else.
  std::shared_ptr<Session> Credential(bool operator_plane) {
    return std::make_shared<Session>("", operator_plane, "stdio");
  }
  json Ask(const json& message, bool operator_plane = false) {
    return Call(*protocol_, Credential(operator_plane), message);
  }
  std::string Compose(const std::string& title) {
    json r = Ask(Stateless(
        9, "tools/call",
        {{"name", "compose_ui"}, {"arguments", {{"program", kProgram}, {"title", title}}}}));
    EXPECT_FALSE(r["result"].value("isError", false)) << r.dump();
    return r["result"]["structuredContent"]["artifact"]["id"];
  }

  std::string dir_;
  std::unique_ptr<store::Store> store_;
  std::unique_ptr<ProductTools> tools_;
  std::unique_ptr<McpProtocol> protocol_;
};

TEST_F(McpStatelessTest, DiscoverNamesTheRevisionCapabilitiesAndInstructionsWithNoHandshake) {
  auto credential = Credential(false);
  json r = Call(*protocol_, credential, Stateless("d", "server/discover"));
  ASSERT_TRUE(r.contains("result")) << r.dump();
  const json& d = r["result"];
  EXPECT_EQ(d["supportedVersions"], json::array({"2026-07-28"}));
  EXPECT_EQ(d["capabilities"]["tools"]["listChanged"], false);
  EXPECT_EQ(d["capabilities"]["resources"], json({{"subscribe", false}, {"listChanged", false}}));
  EXPECT_FALSE(d["capabilities"].contains("logging"));  // deprecated, never offered
  EXPECT_NE(d["instructions"].get<std::string>().find("normal session"), std::string::npos);
  EXPECT_EQ(d["resultType"], "complete");
  EXPECT_EQ(d["ttlMs"], mcp::kDiscoverTtlMs);
  EXPECT_EQ(d["cacheScope"], "private");
  EXPECT_EQ(d["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "affordance");
  EXPECT_FALSE(d.contains("serverInfo"));  // moved into _meta by this revision
  // Nothing was remembered: the credential is no initialized session.
  EXPECT_FALSE(credential->initialized());
  EXPECT_NE(Ask(Stateless("d", "server/discover"), true)["result"]["instructions"]
                .get<std::string>()
                .find("operator session"),
            std::string::npos);
}

TEST_F(McpStatelessTest, ToolsListIsTheSessionListInNameOrderWithCacheFields) {
  json stateless = Ask(Stateless(1, "tools/list"));
  ASSERT_TRUE(stateless.contains("result")) << stateless.dump();
  EXPECT_EQ(stateless["result"]["ttlMs"], mcp::kToolsTtlMs);
  EXPECT_EQ(stateless["result"]["cacheScope"], "private");
  EXPECT_EQ(stateless["result"]["resultType"], "complete");
  auto session = std::make_shared<Session>("s", false, "stdio");
  ASSERT_TRUE(Call(*protocol_, session, Init()).contains("result"));
  json legacy = Call(*protocol_, session, Legacy(2, "tools/list"));
  EXPECT_EQ(legacy["result"]["tools"], stateless["result"]["tools"]);
  EXPECT_FALSE(legacy["result"].contains("ttlMs"));  // the 2025 result is unchanged
  EXPECT_FALSE(legacy["result"].contains("resultType"));
  std::vector<std::string> names;
  for (const auto& t : stateless["result"]["tools"]) names.push_back(t["name"]);
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(Ask(Stateless(3, "tools/list"))["result"]["tools"], stateless["result"]["tools"]);
}

TEST_F(McpStatelessTest, EveryMalformedEnvelopeIsInvalidParamsNamingTheKey) {
  struct Case {
    const char* what;
    json meta;
    std::string key;
  };
  const std::vector<Case> cases = {
      {"version not a string",
       {{"io.modelcontextprotocol/protocolVersion", 20260728},
        {"io.modelcontextprotocol/clientCapabilities", json::object()}},
       "io.modelcontextprotocol/protocolVersion"},
      {"empty version",
       {{"io.modelcontextprotocol/protocolVersion", ""},
        {"io.modelcontextprotocol/clientCapabilities", json::object()}},
       "io.modelcontextprotocol/protocolVersion"},
      {"no capabilities",
       {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"}},
       "io.modelcontextprotocol/clientCapabilities"},
      {"capabilities an array",
       {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
        {"io.modelcontextprotocol/clientCapabilities", json::array()}},
       "io.modelcontextprotocol/clientCapabilities"},
      {"extensions not objects",
       {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
        {"io.modelcontextprotocol/clientCapabilities", {{"extensions", {{"a/b", 1}}}}}},
       "io.modelcontextprotocol/clientCapabilities"},
      {"client info without version",
       {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
        {"io.modelcontextprotocol/clientCapabilities", json::object()},
        {"io.modelcontextprotocol/clientInfo", {{"name", "x"}}}},
       "io.modelcontextprotocol/clientInfo"},
      {"bad log level",
       {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
        {"io.modelcontextprotocol/clientCapabilities", json::object()},
        {"io.modelcontextprotocol/logLevel", "loud"}},
       "io.modelcontextprotocol/logLevel"},
      {"progress token an object",
       {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
        {"io.modelcontextprotocol/clientCapabilities", json::object()},
        {"progressToken", json::object()}},
       "progressToken"},
  };
  for (const auto& c : cases) {
    json r = Ask(Stateless(5, "tools/list", json::object(), c.meta));
    EXPECT_EQ(r["error"]["code"], mcp::kInvalidParams) << c.what << ": " << r.dump();
    EXPECT_EQ(r["error"]["data"]["envelope"]["key"], c.key) << c.what;
    EXPECT_EQ(r["id"], 5) << c.what;
  }
  // Without clientInfo the request is served (SHOULD, not MUST); the actor is "mcp:client".
  json meta = Envelope();
  meta.erase("io.modelcontextprotocol/clientInfo");
  EXPECT_TRUE(Ask(Stateless(6, "tools/list", json::object(), meta)).contains("result"));
}

TEST_F(McpStatelessTest, ARevisionWeDoNotServeGetsUnsupportedProtocolVersion) {
  for (const std::string v : {"2099-01-01", "1900-01-01", "2025-11-25", "2026-07-28 "}) {
    json r = Ask(Stateless(7, "tools/list", json::object(), Envelope(v)));
    EXPECT_EQ(r["error"]["code"], mcp::kUnsupportedProtocolVersion) << v << r.dump();
    EXPECT_EQ(r["error"]["data"]["supported"], json::array({"2026-07-28"}));
    EXPECT_EQ(r["error"]["data"]["requested"], v);
  }
}

TEST_F(McpStatelessTest, ThePlaneIsTakenFromEachRequestsCredential) {
  std::set<std::string> normal, op;
  const json normal_list = Ask(Stateless(1, "tools/list"));
  const json op_list = Ask(Stateless(1, "tools/list"), true);
  for (const auto& t : normal_list["result"]["tools"]) normal.insert(t["name"]);
  for (const auto& t : op_list["result"]["tools"]) op.insert(t["name"]);
  EXPECT_EQ(normal.count("approve_action"), 0u);
  EXPECT_EQ(op.count("approve_action"), 1u);
  EXPECT_EQ(op.size(), normal.size() + 4);
  json refused =
      Ask(Stateless(2, "tools/call",
                    {{"name", "grant"}, {"arguments", {{"connector", "c"}, {"access", "read"}}}}));
  EXPECT_EQ(refused["error"]["code"], mcp::kInvalidParams);
  EXPECT_EQ(refused["error"]["data"]["code"], "mcp.operator_only");
  // Typed errors for bad arguments, as in the session era.
  json bad =
      Ask(Stateless(3, "tools/call", {{"name", "show_approval"}, {"arguments", {{"id", 5}}}}));
  EXPECT_EQ(bad["error"]["data"]["code"], "mcp.bad_arguments");
  json unknown = Ask(Stateless(4, "tools/call", {{"name", "nope"}}));
  EXPECT_EQ(unknown["error"]["data"]["code"], "mcp.unknown_tool");
  // A tool's own failure is a result, stamped like every other.
  json failed = Ask(
      Stateless(5, "tools/call", {{"name", "show_approval"}, {"arguments", {{"id", "apr_none"}}}}));
  EXPECT_TRUE(failed["result"]["isError"]);
  EXPECT_EQ(failed["result"]["resultType"], "complete");
}

TEST_F(McpStatelessTest, MethodsTheRevisionRemovedOrWeDoNotOfferAreMethodNotFound) {
  for (const std::string m : {"ping", "initialize", "logging/setLevel", "subscriptions/listen",
                              "resources/subscribe", "prompts/list", "completion/complete"}) {
    json r = Ask(Stateless(1, m));
    EXPECT_EQ(r["error"]["code"], mcp::kMethodNotFound) << m << r.dump();
  }
}

TEST_F(McpStatelessTest, BothErasOnOneStdioSessionNeitherChangesTheOther) {
  auto session = std::make_shared<Session>("stdio", false, "stdio");
  // Stateless first: served, and the session is still to be initialized.
  EXPECT_TRUE(Call(*protocol_, session, Stateless(1, "tools/list")).contains("result"));
  EXPECT_FALSE(session->initialized());
  EXPECT_EQ(Call(*protocol_, session, Legacy(2, "tools/list"))["error"]["code"],
            mcp::kInvalidRequest);
  ASSERT_TRUE(Call(*protocol_, session, Init()).contains("result"));
  EXPECT_EQ(session->client_name(), "unit-2025");
  EXPECT_EQ(session->protocol_version(), "2025-11-25");
  EXPECT_TRUE(Call(*protocol_, session, Legacy(3, "ping")).contains("result"));
  EXPECT_TRUE(Call(*protocol_, session, Stateless(4, "server/discover")).contains("result"));
  EXPECT_EQ(session->client_name(), "unit-2025");  // the stateless client did not replace it
}

TEST_F(McpStatelessTest, ArtifactsAndApprovalsAreResourcesReadThroughTheirTools) {
  const std::string a = Compose("Unit artifact");
  store::ApprovalRecord apr;
  apr.id = "apr_unit";
  apr.connector = "calendar";
  apr.operation = "create_event";
  apr.request = R"({"x":1})";
  apr.created_ms = apr.updated_ms = 1'700'000'000'000;
  ASSERT_TRUE(store_->AddApproval(apr).ok());

  json list = Ask(Stateless(1, "resources/list"));
  ASSERT_TRUE(list.contains("result")) << list.dump();
  EXPECT_EQ(list["result"]["ttlMs"], mcp::kResourceListTtlMs);
  std::set<std::string> uris;
  for (const auto& r : list["result"]["resources"]) {
    uris.insert(r["uri"]);
    EXPECT_EQ(r["mimeType"], "application/json");
    EXPECT_TRUE(r["name"].is_string());
  }
  EXPECT_EQ(uris, (std::set<std::string>{"affordance://artifacts/" + a,
                                         "affordance://approvals/apr_unit"}));
  EXPECT_FALSE(list["result"].contains("nextCursor"));

  // A read holds what the tool returns, for the head and for one version.
  json head = Ask(Stateless(2, "resources/read", {{"uri", "affordance://artifacts/" + a}}));
  ASSERT_TRUE(head.contains("result")) << head.dump();
  EXPECT_EQ(head["result"]["ttlMs"], 0);
  const json& c = head["result"]["contents"][0];
  EXPECT_EQ(c["uri"], "affordance://artifacts/" + a);
  EXPECT_EQ(json::parse(c["text"].get<std::string>())["artifact"]["body"], kProgram);
  json opened =
      Ask(Stateless(3, "tools/call", {{"name", "open_artifact"}, {"arguments", {{"id", a}}}}));
  EXPECT_EQ(json::parse(c["text"].get<std::string>()), opened["result"]["structuredContent"]);
  json v1 =
      Ask(Stateless(4, "resources/read", {{"uri", "affordance://artifacts/" + a + "/versions/1"}}));
  EXPECT_GT(v1["result"]["ttlMs"].get<int64_t>(), 0);  // a version never changes
  json approval = Ask(Stateless(5, "resources/read", {{"uri", "affordance://approvals/apr_unit"}}));
  ASSERT_TRUE(approval.contains("result")) << approval.dump();
  EXPECT_EQ(
      json::parse(
          approval["result"]["contents"][0]["text"].get<std::string>())["approval"]["approvalId"],
      "apr_unit");

  // Not found: -32602 with data exactly {uri}, for every malformed or missing URI.
  for (const std::string& uri : std::vector<std::string>{
           "affordance://artifacts/a_none", "affordance://artifacts/" + a + "/versions/01",
           "affordance://artifacts/" + a + "/versions/0",
           "affordance://artifacts/" + a + "/versions/9", "affordance://artifacts/",
           "affordance://approvals/apr_none", "affordance://approvals/x/y", "file:///etc/passwd",
           ""}) {
    json r = Ask(Stateless(6, "resources/read", {{"uri", uri}}));
    EXPECT_EQ(r["error"]["code"], mcp::kInvalidParams) << uri << r.dump();
    EXPECT_EQ(r["error"]["data"], json({{"uri", uri}})) << uri;
  }
  EXPECT_EQ(Ask(Stateless(7, "resources/read"))["error"]["code"], mcp::kInvalidParams);

  // The templates, one page.
  json templates = Ask(Stateless(8, "resources/templates/list"));
  EXPECT_EQ(templates["result"]["resourceTemplates"].size(), 3u);
  EXPECT_EQ(templates["result"]["ttlMs"], mcp::kTemplatesTtlMs);

  // The session era serves the same resources, without the cache fields.
  auto session = std::make_shared<Session>("s", false, "stdio");
  json init = Call(*protocol_, session, Init());
  EXPECT_TRUE(init["result"]["capabilities"].contains("resources"));
  json legacy = Call(*protocol_, session,
                     Legacy(9, "resources/read", {{"uri", "affordance://artifacts/" + a}}));
  EXPECT_EQ(legacy["result"]["contents"], head["result"]["contents"]);
  EXPECT_FALSE(legacy["result"].contains("ttlMs"));
}

TEST_F(McpStatelessTest, TheResourceListPagesByUriWithOpaqueCursors) {
  std::set<std::string> made;
  for (int i = 0; i < 130; ++i) made.insert(Compose("t" + std::to_string(i)));
  std::set<std::string> seen;
  json cursor;
  int pages = 0;
  do {
    json params = json::object();
    if (!cursor.is_null()) params["cursor"] = cursor;
    json r = Ask(Stateless(1, "resources/list", params));
    ASSERT_TRUE(r.contains("result")) << r.dump();
    EXPECT_LE(r["result"]["resources"].size(), mcp::kResourcePage);
    for (const auto& e : r["result"]["resources"]) {
      EXPECT_TRUE(seen.insert(e["uri"]).second) << "repeated " << e["uri"];
    }
    cursor = r["result"].value("nextCursor", json());
    // A resource written between two pages does not move another across the cursor.
    if (pages == 0) made.insert(Compose("between pages"));
    ++pages;
  } while (!cursor.is_null());
  EXPECT_EQ(pages, 2);
  size_t found = 0;
  for (const auto& id : made) found += seen.count("affordance://artifacts/" + id);
  EXPECT_GE(found, 130u);  // every artifact that existed before the first page
  for (const json& bad : {json("zz"), json("abc"), json(7), json("")}) {
    EXPECT_EQ(Ask(Stateless(2, "resources/list", {{"cursor", bad}}))["error"]["code"],
              mcp::kInvalidParams);
  }
}

TEST(McpResourceTable, EveryKindSharesTheDeclaredPlaneOfAToolAndPrefixesNeverOverlap) {
  CapabilityRegistry registry;
  Capability c;
  c.door = "mcp";
  c.name = "peek";
  c.object = "thing";
  c.action = "read";
  c.params = {{"type", "object"}};
  c.result = {{"type", "object"}};
  Capability op = c;
  op.name = "peek_secret";
  op.access = Access::kPerson;
  ASSERT_TRUE(registry.Declare(c).ok() && registry.Declare(op).ok());
  auto fn = [](const mcp::ToolCall&, mcp::ToolReply reply) { reply(mcp::ToolResult::Ok({})); };
  auto tools = mcp::ToolTable::Build(registry, {{"peek", fn}, {"peek_secret", fn}});
  ASSERT_TRUE(tools.ok());
  auto kind = [](std::string name, std::string tool, std::string prefix) {
    mcp::ResourceKind k{std::move(name), std::move(tool), std::move(prefix), {}, {}, {}};
    k.list = [p = k.prefix](const Session&) -> Result<std::vector<json>> {
      return std::vector<json>{{{"uri", p + "1"}, {"name", "one"}}};
    };
    k.read = [](const std::string& uri, const Session&) -> Result<mcp::ResourceRead> {
      mcp::ResourceRead r;
      r.contents.push_back({{"uri", uri}, {"text", "x"}});
      return r;
    };
    return k;
  };
  EXPECT_EQ(mcp::ResourceTable::Build(*tools, {kind("a", "missing_tool", "x://a/")}).error().code,
            "mcp.bad_resource");
  EXPECT_EQ(mcp::ResourceTable::Build(*tools,
                                      {kind("a", "peek", "x://a/"), kind("b", "peek", "x://a/b/")})
                .error()
                .code,
            "mcp.bad_resource");
  EXPECT_EQ(mcp::ResourceTable::Build(*tools, {kind("a", "peek", "")}).error().code,
            "mcp.bad_resource");
  auto table = mcp::ResourceTable::Build(
      *tools, {kind("open", "peek", "x://open/"), kind("secret", "peek_secret", "x://secret/")});
  ASSERT_TRUE(table.ok()) << table.error().ToString();
  McpProtocol p(std::move(*tools), {}, std::move(*table));
  auto normal = std::make_shared<Session>("", false, "stdio");
  json list = Call(p, normal, Stateless(1, "resources/list"));
  ASSERT_EQ(list["result"]["resources"].size(), 1u) << list.dump();
  EXPECT_EQ(list["result"]["resources"][0]["uri"], "x://open/1");
  json refused = Call(p, normal, Stateless(2, "resources/read", {{"uri", "x://secret/1"}}));
  EXPECT_EQ(refused["error"]["data"]["code"], "mcp.operator_only");
  auto op_session = std::make_shared<Session>("", true, "stdio");
  EXPECT_EQ(Call(p, op_session, Stateless(3, "resources/list"))["result"]["resources"].size(), 2u);
  EXPECT_EQ(Call(p, op_session,
                 Stateless(4, "resources/read",
                           {{"uri", "x://secret/1"}}))["result"]["contents"][0]["text"],
            "x");
}

// ---- Streamable HTTP ---------------------------------------------------------------------------

struct Post {
  json body;
  std::vector<std::pair<std::string, std::string>> headers;
  uint32_t uid = 0;
  bool loopback = true;
};

HttpResponse Send(McpHttp& http, const Post& p) {
  HttpRequest r;
  r.method = "POST";
  r.path = "/mcp";
  r.body = p.body.dump();
  r.peer_address = p.loopback ? "127.0.0.1" : "192.0.2.7";
  r.peer_loopback = p.loopback;
  r.peer_uid = p.uid;
  r.headers = p.headers;
  HttpResponse out = http.Post(r);
  if (out.deferred) out.deferred([&](HttpResponse answer) { out = std::move(answer); });
  return out;
}

std::vector<std::pair<std::string, std::string>> Headers(const json& request) {
  std::vector<std::pair<std::string, std::string>> h = {{"MCP-Protocol-Version", "2026-07-28"},
                                                        {"Mcp-Method", request["method"]}};
  const json& params = request["params"];
  if (params.contains("name")) h.emplace_back("Mcp-Name", params["name"]);
  if (params.contains("uri")) h.emplace_back("Mcp-Name", params["uri"]);
  return h;
}

std::string SessionOf(const HttpResponse& r) {
  for (const auto& [name, value] : r.headers) {
    if (name == "mcp-session-id") return value;
  }
  return "";
}

const std::string kSecret(64, 'a');

TEST_F(McpStatelessTest, OverHttpEachStatelessRequestIsCheckedAgainstItsHeaders) {
  McpHttp http(*protocol_, {.operator_secret = kSecret});
  const json list = Stateless(1, "tools/list");
  HttpResponse ok = Send(http, {list, Headers(list)});
  EXPECT_EQ(ok.status, 200) << ok.body;
  EXPECT_TRUE(SessionOf(ok).empty());  // nothing minted
  EXPECT_EQ(http.sessions(), 0u);

  auto code = [](const HttpResponse& r) { return json::parse(r.body)["error"]["code"]; };
  auto without = [](std::vector<std::pair<std::string, std::string>> h, const std::string& name) {
    std::erase_if(h, [&](const auto& e) { return e.first == name; });
    return h;
  };
  HttpResponse r = Send(http, {list, without(Headers(list), "MCP-Protocol-Version")});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(code(r), mcp::kHeaderMismatch);
  r = Send(http, {list, without(Headers(list), "Mcp-Method")});
  EXPECT_EQ(code(r), mcp::kHeaderMismatch);
  auto h = without(Headers(list), "MCP-Protocol-Version");
  h.emplace_back("MCP-Protocol-Version", "2025-11-25");
  r = Send(http, {list, h});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(code(r), mcp::kHeaderMismatch);
  h = without(Headers(list), "Mcp-Method");
  h.emplace_back("Mcp-Method", "tools/call");
  EXPECT_EQ(code(Send(http, {list, h})), mcp::kHeaderMismatch);

  const json call =
      Stateless(2, "tools/call", {{"name", "list_approvals"}, {"arguments", json::object()}});
  EXPECT_EQ(Send(http, {call, Headers(call)}).status, 200);
  EXPECT_EQ(code(Send(http, {call, without(Headers(call), "Mcp-Name")})), mcp::kHeaderMismatch);
  h = without(Headers(call), "Mcp-Name");
  h.emplace_back("Mcp-Name", "=?base64?bGlzdF9hcHByb3ZhbHM=?=");  // "list_approvals"
  EXPECT_EQ(Send(http, {call, h}).status, 200);
  h.back().second = "=?base64?bGlzdF9hcHByb3ZhbHM?=";  // no padding: not Base64
  EXPECT_EQ(code(Send(http, {call, h})), mcp::kHeaderMismatch);
  h.back().second = "read_activity";
  EXPECT_EQ(code(Send(http, {call, h})), mcp::kHeaderMismatch);

  // The revision, the envelope and the method each have their status.
  const json future = Stateless(3, "tools/list", json::object(), Envelope("2099-01-01"));
  auto fh = Headers(future);
  fh[0].second = "2099-01-01";
  r = Send(http, {future, fh});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(code(r), mcp::kUnsupportedProtocolVersion);
  EXPECT_EQ(json::parse(r.body)["error"]["data"]["requested"], "2099-01-01");
  json meta = Envelope();
  meta.erase("io.modelcontextprotocol/clientCapabilities");
  const json broken = Stateless(4, "tools/list", json::object(), meta);
  r = Send(http, {broken, Headers(broken)});
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(code(r), mcp::kInvalidParams);
  const json gone = Stateless(5, "ping");
  r = Send(http, {gone, Headers(gone)});
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(code(r), mcp::kMethodNotFound);
  const json bad_args =
      Stateless(6, "tools/call", {{"name", "show_approval"}, {"arguments", {{"id", 1}}}});
  EXPECT_EQ(Send(http, {bad_args, Headers(bad_args)}).status, 200);  // in-band

  // A session id beside a stateless request is ignored, never echoed.
  auto sh = Headers(list);
  sh.emplace_back("Mcp-Session-Id", "made-up");
  r = Send(http, {list, sh});
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(SessionOf(r).empty());
}

TEST_F(McpStatelessTest, OverHttpTheOperatorPlaneIsProvedOnEveryStatelessRequest) {
  McpHttp http(*protocol_, {.operator_secret = kSecret});
  const json list = Stateless(1, "tools/list");
  auto names = [](const HttpResponse& r) {
    std::set<std::string> out;
    const json body = json::parse(r.body);
    for (const auto& t : body["result"]["tools"]) out.insert(t["name"]);
    return out;
  };
  auto h = Headers(list);
  h.emplace_back("affordance-operator-secret", kSecret);
  EXPECT_EQ(names(Send(http, {list, h})).count("approve_action"), 1u);
  EXPECT_EQ(names(Send(http, {list, Headers(list)})).count("approve_action"), 0u);
  h.back().second = std::string(64, 'b');
  HttpResponse wrong = Send(http, {list, h});
  EXPECT_EQ(wrong.status, 403);
  EXPECT_EQ(json::parse(wrong.body)["error"]["data"]["code"], "mcp.bad_operator_secret");
  h.back().second = kSecret;
  HttpResponse remote = Send(http, {list, h, 0, false});
  EXPECT_EQ(remote.status, 403);
  EXPECT_EQ(json::parse(remote.body)["error"]["data"]["code"], "mcp.operator_not_loopback");
}

TEST_F(McpStatelessTest, ASessionBelongsToWhoMadeItAndAFloodEvictsOnlyTheFlooder) {
  McpHttp http(*protocol_,
               {.operator_secret = kSecret, .max_sessions = 12, .max_sessions_per_client = 8});
  auto init = [&](uint32_t uid, bool op) {
    std::vector<std::pair<std::string, std::string>> h;
    if (op) h.emplace_back("affordance-operator-secret", kSecret);
    return SessionOf(Send(http, {Init(), h, uid}));
  };
  auto use = [&](const std::string& sid, uint32_t uid) {
    return Send(http, {Legacy(2, "tools/list"), {{"Mcp-Session-Id", sid}}, uid});
  };
  const std::string mine = init(1000, true);
  ASSERT_FALSE(mine.empty());
  EXPECT_EQ(use(mine, 1000).status, 200);
  // Another OS user with the id is told it does not exist, and it stays the owner's.
  HttpResponse stolen = use(mine, 0);
  EXPECT_EQ(stolen.status, 404);
  EXPECT_EQ(json::parse(stolen.body)["error"]["data"]["code"], "mcp.unknown_session");
  HttpRequest del;
  del.method = "DELETE";
  del.path = "/mcp";
  del.peer_address = "127.0.0.1";
  del.peer_loopback = true;
  del.peer_uid = 0;
  del.headers = {{"Mcp-Session-Id", mine}};
  EXPECT_EQ(http.Delete(del).status, 404);
  EXPECT_EQ(use(mine, 1000).status, 200);

  // One client floods initialize: it keeps at most its cap, and nobody else's session ends,
  // not even when the whole table is full (other owners fill it with their own 8 each).
  const std::string normal = init(1000, false);
  std::vector<std::string> others;
  for (uint32_t uid = 2000; uid < 2006; ++uid) others.push_back(init(uid, false));
  for (int i = 0; i < 300; ++i) ASSERT_FALSE(init(0, false).empty());
  EXPECT_EQ(http.sessions(), 12u);
  EXPECT_EQ(use(mine, 1000).status, 200);
  EXPECT_EQ(use(normal, 1000).status, 200);
  for (size_t i = 0; i < others.size(); ++i) EXPECT_EQ(use(others[i], 2000 + i).status, 200);
  // With room in the table, a client beyond its own cap loses its own least recently used.
  McpHttp roomy(*protocol_, {.operator_secret = kSecret, .max_sessions_per_client = 8});
  std::vector<std::string> own;
  for (int i = 0; i < 9; ++i) own.push_back(SessionOf(Send(roomy, {Init(), {}, 3000})));
  EXPECT_EQ(roomy.sessions(), 8u);
  auto in_roomy = [&](const std::string& sid) {
    return Send(roomy, {Legacy(2, "tools/list"), {{"Mcp-Session-Id", sid}}, 3000}).status;
  };
  EXPECT_EQ(in_roomy(own.front()), 404);
  EXPECT_EQ(in_roomy(own.back()), 200);
}

}  // namespace
}  // namespace affordance::server

// Fuzzes the stateless revision's door (2026-07-28; docs/MCP.md): the per-request `_meta` envelope
// and server/discover, through the protocol core and through Streamable HTTP (McpHttp::Post with
// the MCP-Protocol-Version / Mcp-Method / Mcp-Name headers). The first byte picks the plane, the
// method, the transport and which headers are sent; the rest is the `_meta` value as JSON (or, with
// bit 6, the whole message). Properties: nothing throws or crashes; a request gets exactly one
// answer with its id and exactly one of result / error; a result always carries resultType
// "complete" and the serverInfo stamp, a discover result the revision we serve; an error's code is
// one the specification names for these checks; over HTTP the status is the one its code maps to,
// no session is ever minted or kept, and every answer serializes.
#include "server/mcp.h"
#include "server/mcp_http.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <set>
#include <string_view>

namespace {

using affordance::authority::Access;
using affordance::authority::Capability;
using affordance::authority::CapabilityRegistry;
using affordance::server::HttpRequest;
using affordance::server::HttpResponse;
using affordance::server::McpHttp;
using affordance::server::mcp::McpProtocol;
using affordance::server::mcp::ResourceKind;
using affordance::server::mcp::ResourceRead;
using affordance::server::mcp::ResourceTable;
using affordance::server::mcp::Session;
using affordance::server::mcp::ToolCall;
using affordance::server::mcp::ToolReply;
using affordance::server::mcp::ToolResult;
using affordance::server::mcp::ToolTable;
using nlohmann::json;

const McpProtocol& Protocol() {
  static const McpProtocol* protocol = [] {
    static CapabilityRegistry registry;
    Capability echo;
    echo.door = "mcp";
    echo.name = "echo";
    echo.object = "thing";
    echo.action = "read";
    echo.params = {{"type", "object"}};
    echo.result = {{"type", "object"}};
    Capability op = echo;
    op.name = "decide";
    op.access = Access::kPerson;
    if (!registry.Declare(echo).ok() || !registry.Declare(op).ok()) std::abort();
    auto fn = [](const ToolCall& c, ToolReply reply) {
      reply(ToolResult::Ok({{"echo", c.arguments}}));
    };
    auto tools = ToolTable::Build(registry, {{"echo", fn}, {"decide", fn}});
    if (!tools.ok()) std::abort();
    ResourceKind kind;
    kind.name = "thing";
    kind.tool = "echo";
    kind.prefix = "fuzz://things/";
    kind.list = [](const Session&) -> affordance::Result<std::vector<json>> {
      return std::vector<json>{{{"uri", "fuzz://things/1"}, {"name", "one"}}};
    };
    kind.read = [](const std::string& uri, const Session&) -> affordance::Result<ResourceRead> {
      if (uri != "fuzz://things/1") {
        return affordance::MakeError("mcp.unknown_resource", "no such resource", uri);
      }
      ResourceRead r;
      r.contents.push_back({{"uri", uri}, {"text", "x"}});
      return r;
    };
    auto resources = ResourceTable::Build(*tools, {kind});
    if (!resources.ok()) std::abort();
    return new McpProtocol(std::move(*tools), {"affordance", "fuzz", ""}, std::move(*resources));
  }();
  return *protocol;
}

constexpr std::array<const char*, 8> kMethods = {
    "server/discover", "tools/list", "tools/call", "resources/read",
    "resources/list",  "ping",       "initialize", "resources/templates/list"};

void CheckAnswer(const json& reply, const json& id) {
  static const std::set<int> kCodes = {-32700, -32600, -32601, -32602, -32603, -32020, -32022};
  if (reply.value("jsonrpc", "") != "2.0") std::abort();
  if (reply.contains("result") == reply.contains("error")) std::abort();
  if (!id.is_null() && reply["id"] != id) std::abort();
  if (reply.contains("result")) {
    const json& r = reply["result"];
    if (r.value("resultType", "") != "complete") std::abort();
    if (!r["_meta"]["io.modelcontextprotocol/serverInfo"].is_object()) std::abort();
    if (r.contains("supportedVersions") && r["supportedVersions"] != json::array({"2026-07-28"})) {
      std::abort();
    }
  } else if (!kCodes.count(reply["error"].value("code", 0))) {
    std::abort();
  }
  (void)reply.dump(-1, ' ', false, json::error_handler_t::strict);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const McpProtocol& p = Protocol();
  const uint8_t flags = size > 0 ? data[0] : 0;
  std::string_view rest(reinterpret_cast<const char*>(data) + (size > 0 ? 1 : 0),
                        size > 0 ? size - 1 : 0);
  const std::string method = kMethods[(flags >> 1) & 7];
  std::string text;
  if (flags & 64) {
    text = std::string(rest);
  } else {
    json meta = json::parse(rest.begin(), rest.end(), nullptr, false);
    if (meta.is_discarded()) {
      meta = {{"io.modelcontextprotocol/protocolVersion", std::string(rest)},
              {"io.modelcontextprotocol/clientCapabilities", json::object()}};
    }
    json params = {{"_meta", meta}};
    if (method == "tools/call") params["name"] = (flags & 1) ? "decide" : "echo";
    if (method == "resources/read") params["uri"] = std::string(rest.substr(0, 24));
    text = json{{"jsonrpc", "2.0"}, {"id", 7}, {"method", method}, {"params", params}}.dump(
        -1, ' ', false, json::error_handler_t::replace);
  }
  auto parsed = McpProtocol::Parse(text);
  if (!(flags & 16)) {  // the protocol core
    auto credential = std::make_shared<Session>("", (flags & 1) != 0, "fuzz");
    int replies = 0;
    json reply;
    p.Handle(parsed, credential, [&](json r) {
      ++replies;
      reply = std::move(r);
    });
    if (credential->initialized()) std::abort();  // a stateless request never initializes
    if (parsed.kind == McpProtocol::Kind::kRequest) {
      if (replies != 1) std::abort();
      if (McpProtocol::EraOf(parsed) == McpProtocol::Era::kStateless) CheckAnswer(reply, parsed.id);
    } else if (parsed.kind != McpProtocol::Kind::kInvalid && replies != 0) {
      std::abort();
    }
    return 0;
  }
  // Streamable HTTP.
  static McpHttp http(p, {.operator_secret = std::string(64, 'f'), .now_ms = {}});
  HttpRequest r;
  r.method = "POST";
  r.path = "/mcp";
  r.body = text;
  r.peer_address = (flags & 32) ? "192.0.2.1" : "127.0.0.1";
  r.peer_loopback = !(flags & 32);
  if (!(flags & 128)) {
    r.headers.emplace_back("MCP-Protocol-Version",
                           (flags & 1) ? "2026-07-28" : std::string(rest.substr(0, 12)));
    r.headers.emplace_back("Mcp-Method", method);
    r.headers.emplace_back("Mcp-Name", std::string(rest.substr(0, 24)));
  }
  if (flags & 1) r.headers.emplace_back("affordance-operator-secret", std::string(64, 'f'));
  const size_t sessions_before = http.sessions();
  HttpResponse out = http.Post(r);
  if (out.deferred) out.deferred([&](HttpResponse answer) { out = std::move(answer); });
  for (const auto& [name, value] : out.headers) {
    if (name == "mcp-session-id" && parsed.method != "initialize") std::abort();
  }
  if (McpProtocol::EraOf(parsed) == McpProtocol::Era::kStateless) {
    if (http.sessions() > sessions_before) std::abort();  // nothing kept for a stateless request
    if (out.status == 202) return 0;
    json body = json::parse(out.body, nullptr, false);
    if (body.is_discarded()) std::abort();
    if (out.status == 403) return 0;  // the operator plane from elsewhere: refused before anything
    CheckAnswer(body, json());
    const int code = body.contains("error") ? body["error"].value("code", 0) : 0;
    const int want = code == 0                                                                ? 200
                     : code == -32601                                                         ? 404
                     : (code == -32020 || code == -32022 || code == -32700 || code == -32600) ? 400
                                                                                              : -1;
    if (want != -1 && out.status != want) std::abort();
  }
  return 0;
}

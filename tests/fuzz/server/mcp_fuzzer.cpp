// Fuzzes McpProtocol::Parse + Handle (docs/MCP.md): any bytes as one message to an initialized
// (or not) normal or operator session, optionally while another call runs. Properties: nothing
// throws or crashes; a request gets exactly one reply, a JSON-RPC 2.0 response with the request's
// id and exactly one of result / error, or null (nothing sent) when the call was cancelled; a
// notification or a response gets none; what is sent always serializes; a running call answers
// exactly once whatever the message was (it may cancel it).
#include "server/mcp.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>

namespace {

using affordance::authority::Access;
using affordance::authority::Capability;
using affordance::authority::CapabilityRegistry;
using affordance::server::mcp::McpProtocol;
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
    echo.params = {{"type", "object"},
                   {"properties",
                    {{"n", {{"type", "integer"}, {"maximum", 100}}},
                     {"s", {{"type", "string"}, {"maxLength", 64u}}}}},
                   {"additionalProperties", false}};
    echo.result = {{"type", "object"},
                   {"properties", {{"echo", {{"type", "object"}}}}},
                   {"required", {"echo"}}};
    Capability op = echo;
    op.name = "decide";
    op.access = Access::kPerson;
    if (!registry.Declare(echo).ok() || !registry.Declare(op).ok()) std::abort();
    auto fn = [](const ToolCall& c, ToolReply reply) {
      if (c.arguments.value("n", 0) == 7) {  // runs until cancelled
        return c.control->OnCancel([reply] {
          reply(ToolResult::Fail(affordance::MakeError("fuzz.cancelled", "cancelled")));
        });
      }
      if (c.arguments.value("n", 0) == 13) {
        return reply(ToolResult::Fail(affordance::MakeError("fuzz.unlucky", "thirteen")));
      }
      if (c.arguments.value("n", 0) == 42)
        return reply(ToolResult::Ok({{"echo", "not an object"}}));
      reply(ToolResult::Ok({{"echo", c.arguments}}));
    };
    auto table = ToolTable::Build(registry, {{"echo", fn}, {"decide", fn}});
    if (!table.ok()) std::abort();
    return new McpProtocol(std::move(*table), {});
  }();
  return *protocol;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const McpProtocol& p = Protocol();
  const uint8_t flags = size > 0 ? data[0] : 0;
  std::string_view text(reinterpret_cast<const char*>(data) + (size > 0 ? 1 : 0),
                        size > 0 ? size - 1 : 0);
  auto session = std::make_shared<Session>("fuzz", (flags & 1) != 0, "fuzz");
  if (flags & 2) {
    auto init = McpProtocol::Parse(
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})");
    p.Handle(init, session, [](json) {});
  }
  auto cancel = [&](const json& id) {
    p.Handle(McpProtocol::Parse(json{{"jsonrpc", "2.0"},
                                     {"method", "notifications/cancelled"},
                                     {"params", {{"requestId", id}}}}
                                    .dump()),
             session, [](json) { std::abort(); });
  };
  int running_replies = 0;
  if ((flags & 6) == 6) {  // a call that runs until cancelled
    p.Handle(
        McpProtocol::Parse(
            R"({"jsonrpc":"2.0","id":"running","method":"tools/call","params":{"name":"echo","arguments":{"n":7}}})"),
        session, [&](json r) {
          ++running_replies;
          if (!r.is_null()) std::abort();
        });
    if (running_replies != 0) std::abort();
  }
  auto parsed = McpProtocol::Parse(text);
  int replies = 0;
  json reply;
  p.Handle(parsed, session, [&](json r) {
    ++replies;
    reply = std::move(r);
  });
  using Kind = McpProtocol::Kind;
  if ((flags & 6) == 6) {
    cancel("running");  // ignored when the message cancelled it already
    if (running_replies != 1) std::abort();
  }
  if (parsed.kind == Kind::kRequest && replies == 0) {  // a call that runs until cancelled
    cancel(parsed.id);
    if (replies != 1 || !reply.is_null()) std::abort();
    return 0;
  }
  if (parsed.kind == Kind::kRequest) {
    if (replies != 1) std::abort();
    if (reply.value("jsonrpc", "") != "2.0" || reply["id"] != parsed.id) std::abort();
    if (reply.contains("result") == reply.contains("error")) std::abort();
  } else if (parsed.kind == Kind::kInvalid) {
    if (parsed.error && (replies != 1 || !reply.contains("error"))) std::abort();
    if (!parsed.error && replies != 0) std::abort();
  } else if (replies != 0) {
    std::abort();
  }
  if (replies == 1) (void)reply.dump(-1, ' ', false, json::error_handler_t::strict);
  return 0;
}

// The MCP door's semantic product surface (docs/MCP.md): what another AI or tool may do with
// affordance, each tool declared in the capability registry (door "mcp", mcp_tools.cpp):
//
//   ask              run a harness turn (the one loop, through the TurnHub) and return its final
//                    text, surfaces, truth states and turn report
//   read_connector   RunConnectorCommand under the caller's read grant (Activity records it)
//   list_connectors  connectors, their operations (mutations with risk and args schema),
//                    freshness and the grants in force
//   request_grant    records a request for a grant in Activity; only a person grants it
//   stage_action     stages an exact mutation (needs a write grant); nothing runs until a person
//                    approves it
//   list_approvals, show_approval   approval requests with their receipts and effect state
//   read_activity    the append-only Activity log
//   compose_ui       validates an OpenUI Lang program and stores it as an artifact version
//   open_artifact    an artifact (id or live-app slug) at its head or a version
// and, for the operator session only (access kOperator):
//   approve_action (optionally executing at once), deny_action, grant, revoke_grant
//
// A normal client acts as actor "mcp:<clientInfo.name>" (not a person: the authority refuses it
// every decision and grant even if a tool tried); the operator session acts as the local user
// ("user:<login>@mcp", a person).
//
// Thread safety: the functions may be called from several threads at once (the store and the
// road are thread-safe; each call makes its own Authority).
#pragma once

#include "connect/road.h"
#include "server/mcp.h"
#include "server/turn_hub.h"
#include "store/store.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace affordance::server {

struct ProductToolsOptions {
  store::Store* store = nullptr;
  TurnHub* hub = nullptr;
  connect::ConnectorRoad* road = nullptr;  // null: no connectors configured
};

// The server's name, version and instructions as MCP clients see them (both transports).
mcp::ServerInfo ProductInfo();

class ProductTools;
// The MCP door of the product over `tools` (which must outlive it): the tool table built from the
// capability registry, the resource kinds, ProductInfo. What `affordance mcp` and `affordance
// serve` both serve (mcp_resources.cpp).
Result<std::unique_ptr<mcp::McpProtocol>> ProductProtocol(ProductTools& tools);

class ProductTools {
 public:
  explicit ProductTools(ProductToolsOptions options);

  // Every tool function keyed by its declared name: what mcp::ToolTable::Build takes.
  std::map<std::string, mcp::ToolFn> Functions();

  // The resource kinds of the product (mcp_resources.cpp): artifacts (composed surfaces and live
  // apps; plane of open_artifact) and approvals (plane of show_approval). Each reads through its
  // tool, so a resource holds exactly what the tool returns. What mcp::ResourceTable::Build takes.
  std::vector<mcp::ResourceKind> Resources();

 private:
  void Ask(const mcp::ToolCall& c, mcp::ToolReply reply);
  mcp::ToolResult ReadConnector(const mcp::ToolCall& c);
  mcp::ToolResult ListConnectors(const mcp::ToolCall& c);
  mcp::ToolResult RequestGrant(const mcp::ToolCall& c);
  mcp::ToolResult StageAction(const mcp::ToolCall& c);
  mcp::ToolResult ListApprovals(const mcp::ToolCall& c);
  mcp::ToolResult ShowApproval(const mcp::ToolCall& c);
  mcp::ToolResult ReadActivity(const mcp::ToolCall& c);
  mcp::ToolResult ComposeUi(const mcp::ToolCall& c);
  mcp::ToolResult OpenArtifact(const mcp::ToolCall& c);
  mcp::ToolResult ApproveAction(const mcp::ToolCall& c);
  mcp::ToolResult DenyAction(const mcp::ToolCall& c);
  mcp::ToolResult GrantAccess(const mcp::ToolCall& c);
  mcp::ToolResult RevokeGrant(const mcp::ToolCall& c);

  ProductToolsOptions o_;
};

}  // namespace affordance::server

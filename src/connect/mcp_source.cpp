// The road's MCP source: the catalog from tools/list, reads as rows, writes (for authority) and
// the session's status. The protocol itself is mcp_client.cpp; sessions are mcp_hub.cpp.
#include "connect/internal/execution.h"
#include "connect/internal/mcp_catalog.h"
#include "connect/internal/mcp_hub.h"
#include "connect/road.h"

#include <chrono>

namespace affordance::connect {

using nlohmann::json;

namespace {

constexpr int kMaxPages = 50;

// The key under which an MCP write carries its idempotency key (servers may ignore it).
constexpr const char* kIdempotencyMeta = "io.affordance/idempotency_key";

}  // namespace

void ConnectorRoad::EnsureCatalog(const ConnectorManifest& m) const {
  if (mcp_->CatalogLoaded(m.slug)) return;
  std::lock_guard<std::mutex> lock(mcp_->CatalogLock(m.slug));
  if (mcp_->CatalogLoaded(m.slug)) return;
  json tools = json::array();
  json cursor;
  std::optional<Error> error;
  for (int page = 0; page < kMaxPages; ++page) {
    json params = json::object();
    if (!cursor.is_null()) params["cursor"] = cursor;
    McpReply reply = mcp_->Call(m, "tools/list", params, m.source.timeout_ms);
    if (!reply.result) {
      error = reply.result.error();
      break;
    }
    const json& r = *reply.result;
    if (!r.contains("tools") || !r["tools"].is_array()) {
      error = MakeError("connect.mcp_protocol", "the MCP server's tools/list has no tools array");
      break;
    }
    for (const auto& t : r["tools"]) tools.push_back(t);
    cursor = r.value("nextCursor", json());
    if (!cursor.is_string()) break;
  }
  if (error) {
    mcp_->SetCatalog(m.slug, false, {}, error);
    return;
  }
  auto info = mcp_->Info(m.slug);
  bool resources = info && info->capabilities.contains("resources");
  std::vector<std::string> notes;
  auto ops = McpOperations(m, tools, resources, notes);
  if (!ops) {
    mcp_->SetCatalog(m.slug, false, std::move(notes), ops.error());
    return;
  }
  // Written once, before any caller can hold one of its operations (the catalog was empty).
  const_cast<ConnectorManifest&>(m).operations = std::move(ops.value());
  mcp_->SetCatalog(m.slug, true, std::move(notes), std::nullopt);
}

Result<ConnectorRoad::Execution> ConnectorRoad::McpRead(const ConnectorManifest& m,
                                                        const Operation& op, const json& args) {
  json params = json::object();
  if (op.mcp_method == "tools/call") {
    params = {{"name", op.mcp_tool}, {"arguments", args}};
  } else if (op.mcp_method == "resources/read") {
    params = {{"uri", args.value("uri", "")}};
  }
  McpReply reply = mcp_->Call(m, op.mcp_method, params, m.source.timeout_ms);
  if (!reply.result) return reply.result.error();
  auto rows = McpRowsOf(op, *reply.result);
  if (!rows) return rows.error();
  Execution ex;
  ex.rows = std::move(rows->rows);
  ex.clipped = rows->clipped;
  LedgerEntry entry;
  entry.served_fields = std::move(rows->served_fields);
  ex.ledger.push_back(std::move(entry));
  Freshness& f = ex.snapshot.freshness;
  f.state = "live";
  f.synced_at = Now();
  f.age_s = 0;
  f.max_age_s = m.sync.max_age_s;
  return ex;
}

MutationOutcome ConnectorRoad::Mutate(const ConnectorManifest& m, const Operation& op,
                                      const json& args, const std::string& key) {
  if (m.source.kind != SourceKind::kMcp) return RunMutation(m, op, args, key);
  MutationOutcome o;
  if (op.kind != OperationKind::kMutation || op.mcp_method != "tools/call") {
    o.error = MakeError("connect.not_a_mutation", op.name + " is not a mutation");
    return o;
  }
  json params = {{"name", op.mcp_tool}, {"arguments", args}, {"_meta", {{kIdempotencyMeta, key}}}};
  McpReply reply = mcp_->Call(m, "tools/call", params, m.source.timeout_ms);
  if (!reply.result) {
    // Sent and then no answer (a timeout, the server died or broke the protocol): it may have
    // happened. Never sent: it did not.
    o.dispatch =
        reply.sent ? MutationOutcome::Dispatch::kUnknown : MutationOutcome::Dispatch::kFailed;
    o.error = reply.result.error();
    return o;
  }
  const json& r = *reply.result;
  if (r.value("isError", json()) == json(true)) {
    auto rows = McpRowsOf(op, r);  // the tool's own failure, in its words (bounded)
    o.dispatch = MutationOutcome::Dispatch::kFailed;
    o.error =
        rows ? MakeError("connect.mcp_tool_error", "the MCP tool reported an error") : rows.error();
    o.response = McpResponseOf(r);
    return o;
  }
  o.dispatch = MutationOutcome::Dispatch::kExecuted;
  o.response = McpResponseOf(r);
  return o;
}

json ConnectorRoad::McpStatus(const std::string& slug) const {
  const ConnectorManifest* m = Find(slug);
  if (m == nullptr || m->source.kind != SourceKind::kMcp) return nullptr;
  return mcp_->Status(slug);
}

}  // namespace affordance::connect

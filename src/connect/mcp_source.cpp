// The road's MCP source: the catalog from tools/list, reads as rows, writes (for authority) and
// the session's status. The protocol itself is mcp_client.cpp; sessions are mcp_hub.cpp.
#include "connect/internal/execution.h"
#include "connect/internal/mcp_catalog.h"
#include "connect/internal/mcp_hub.h"
#include "connect/internal/mcp_mirror.h"
#include "connect/road.h"

#include <chrono>

namespace affordance::connect {

using nlohmann::json;

namespace {

constexpr int kMaxPages = 50;

// The key under which an MCP write carries its idempotency key (servers may ignore it).
constexpr const char* kIdempotencyMeta = "io.affordance/idempotency_key";

}  // namespace

std::shared_ptr<const ConnectorManifest> ConnectorRoad::Catalog(size_t i) const {
  auto current = [&] {
    std::lock_guard<std::mutex> lock(catalogs_mu_);
    return catalogs_[i];
  };
  const ConnectorManifest& base = base_[i];
  if (base.source.kind != SourceKind::kMcp) return current();
  // The notification is taken once; whoever takes it reads the list again.
  bool changed = mcp_->TakeListChanged(base.slug);
  if (!changed && mcp_->CatalogLoaded(base.slug)) return current();
  std::lock_guard<std::mutex> loading(mcp_->CatalogLock(base.slug));
  if (!changed && mcp_->CatalogLoaded(base.slug)) return current();  // read meanwhile
  auto fresh = LoadCatalog(base);
  if (!fresh) return current();  // unreachable: the last catalog stays, the next call tries again
  std::lock_guard<std::mutex> lock(catalogs_mu_);
  catalogs_[i] = fresh;
  return fresh;
}

std::shared_ptr<const ConnectorManifest> ConnectorRoad::LoadCatalog(
    const ConnectorManifest& m) const {
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
    return nullptr;
  }
  auto info = mcp_->Info(m.slug);
  bool resources = info && info->capabilities.contains("resources");
  std::vector<std::string> notes;
  auto ops = McpOperations(m, tools, resources, notes);
  if (!ops) {
    mcp_->SetCatalog(m.slug, false, std::move(notes), ops.error());
    return nullptr;
  }
  auto out = std::make_shared<ConnectorManifest>(m);
  if (m.Supports(SourceMode::kLocal) || m.Supports(SourceMode::kAuto)) {
    // The mirror's tables, for SQL and the chooser.
    Operation sql;
    sql.name = m.FindOperation("sql") ? "mirror_sql" : "sql";
    for (const auto& op : *ops) {
      if (op.name == sql.name) sql.name = "mirror_sql_query";
    }
    sql.kind = OperationKind::kSql;
    sql.description =
        "One SELECT over the mirror: mcp_reads(operation, args, served_fields, read_at, rows), "
        "mcp_rows(operation, args, seq, row, read_at) with row a JSON object "
        "(json_extract(row, '$.field')).";
    sql.args_schema = {{"type", "object"},
                       {"additionalProperties", false},
                       {"required", {"query"}},
                       {"properties", {{"query", {{"type", "string"}, {"minLength", 1}}}}}};
    sql.documented_schema = sql.args_schema;
    sql.risk_source = "protocol";
    sql.handle = m.slug + "_" + sql.name;
    ops->push_back(std::move(sql));
    out->mirror_tables = {{"mcp_reads",
                           {{"operation", "TEXT"},
                            {"args", "TEXT"},
                            {"served_fields", "TEXT"},
                            {"read_at", "INTEGER"},
                            {"rows", "INTEGER"}},
                           "one row per mirrored read (args: the canonical JSON of its arguments)"},
                          {"mcp_rows",
                           {{"operation", "TEXT"},
                            {"args", "TEXT"},
                            {"seq", "INTEGER"},
                            {"row", "TEXT"},
                            {"read_at", "INTEGER"}},
                           "the rows of each mirrored read; row is a JSON object"}};
  }
  out->operations = std::move(ops.value());
  mcp_->SetCatalog(m.slug, true, std::move(notes), std::nullopt);
  return out;
}

Result<ConnectorRoad::Execution> ConnectorRoad::McpRead(const ConnectorManifest& m,
                                                        const Operation& op, const json& args,
                                                        SourceMode mode) {
  const bool mirrors = m.Supports(SourceMode::kLocal) || m.Supports(SourceMode::kAuto);
  const std::string path = MirrorPath(m);
  Execution ex;
  Freshness& f = ex.snapshot.freshness;
  f.max_age_s = m.sync.max_age_s;
  if (mirrors && mode != SourceMode::kLive) {
    auto kept = LoadMcpRead(path, op.name, args, options_.guard);
    if (!kept) return kept.error();
    if (kept->has_value()) {
      MirroredRead& read = **kept;
      f.synced_at = read.read_at;
      f.age_s = Now() - read.read_at;
      f.mirror_rows = static_cast<int64_t>(read.rows.size());
      bool stale = f.age_s > m.sync.max_age_s;
      f.state = stale ? "stale" : "mirrored";
      ex.snapshot.serving_decision = "mirror";
      if (mode == SourceMode::kAuto && (stale || Syncing(m.slug))) {
        // Served at once; the refresh (every stale read, live) runs in the background.
        if (!Syncing(m.slug)) (void)StartSync(m.slug);
        f.state = "syncing";
        ex.snapshot.serving_decision = "mirror_first_while_syncing";
      }
      ex.rows = std::move(read.rows);
      ex.source_truncated = read.truncated;
      LedgerEntry entry;
      entry.source = "mirror";
      entry.served_fields = std::move(read.served_fields);
      ex.ledger.push_back(std::move(entry));
      return ex;
    }
    if (mode == SourceMode::kLocal) {
      return MakeError("connect.mirror_empty",
                       "the mirror of \"" + m.slug + "\" holds no read of " + op.name +
                           " with these arguments; read it live (mode live or auto) first");
    }
  }
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
  ex.rows = std::move(rows->rows);
  ex.clipped = rows->clipped;
  f.state = "live";
  f.synced_at = Now();
  f.age_s = 0;
  ex.snapshot.serving_decision = "live";
  if (mirrors) {
    // Kept for local/auto reads and SQL; a mirror that cannot be written leaves the live rows
    // served (the next local read says the mirror holds nothing).
    (void)StoreMcpRead(path, op.name, args, ex.rows, rows->served_fields, f.synced_at);
    f.mirror_rows = static_cast<int64_t>(ex.rows.size());
  }
  LedgerEntry entry;
  entry.source = "live";
  entry.served_fields = std::move(rows->served_fields);
  ex.ledger.push_back(std::move(entry));
  return ex;
}

Result<int64_t> ConnectorRoad::SyncMcp(const ConnectorManifest& m, const ProgressFn& progress) {
  auto keys = MirroredReads(MirrorPath(m), options_.guard);
  if (!keys) return keys.error();
  int64_t rows = 0, done = 0;
  std::optional<Error> first_error;
  for (const auto& key : *keys) {
    if (progress) progress({"read", done, static_cast<int64_t>(keys->size())});
    ++done;
    const Operation* op = m.FindOperation(key.operation);
    if (op == nullptr || !op->readable()) continue;  // the catalog no longer has it as a read
    auto read = McpRead(m, *op, key.args, SourceMode::kLive);
    if (!read) {
      if (!first_error) first_error = read.error();
      continue;
    }
    rows += static_cast<int64_t>(read->rows.size());
  }
  if (progress) progress({"read", done, static_cast<int64_t>(keys->size())});
  if (first_error && rows == 0 && done > 0) return *first_error;
  return rows;
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
  auto m = Find(slug);
  if (m == nullptr || m->source.kind != SourceKind::kMcp) return nullptr;
  return mcp_->Status(slug);
}

}  // namespace affordance::connect

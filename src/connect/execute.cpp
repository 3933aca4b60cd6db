// Running one resolved operation against its source: the serving decision, mirror reads through
// the SQL guard, printed CLI calls, and the bounded parallel fan-out of ID-only lists.
#include "connect/internal/execution.h"
#include "connect/printed_cli.h"
#include "connect/road.h"
#include "connect/schema.h"

#include <algorithm>
#include <atomic>
#include <ctime>
#include <set>
#include <thread>

namespace affordance::connect {

using nlohmann::json;

namespace {

constexpr const char* kMirrorFirst = "mirror_first_while_syncing";

// Printed CLI results → rows: arrays give one row per element (scalars become {"value": x}, or
// {id_field: x} when the operation fans out), an object is one row, null is no rows.
std::vector<json> RowsOf(const json& results, const Operation& op) {
  std::vector<json> rows;
  auto add = [&](const json& v) {
    if (v.is_object())
      rows.push_back(v);
    else if (!op.detail_operation.empty())
      rows.push_back({{op.id_field, v}});
    else
      rows.push_back({{"value", v}});
  };
  if (results.is_array()) {
    for (const auto& v : results) add(v);
  } else if (!results.is_null()) {
    add(results);
  }
  return rows;
}

// The `query` argument of a sql operation ("" when absent or not a string; the guard refuses it).
std::string QueryArg(const json& args) {
  auto it = args.find("query");
  return it != args.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int64_t ParseTime(const json& v) {
  if (v.is_number_integer()) return v.get<int64_t>();
  if (!v.is_string()) return 0;
  std::tm tm{};
  const char* end = strptime(v.get_ref<const std::string&>().c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  return end ? static_cast<int64_t>(timegm(&tm)) : 0;
}

}  // namespace

Result<ConnectorRoad::Execution> ConnectorRoad::Execute(const ConnectorManifest& m,
                                                        const Operation& op, const json& args,
                                                        SourceMode mode, int64_t limit) {
  auto decision = Serve(m, mode);
  if (!decision) return decision.error();
  int64_t max_rows = std::max(options_.guard.max_rows, limit);
  Execution ex;
  ex.snapshot.serving_decision = *decision;
  auto once = ExecuteOnce(m, op, args, mode, max_rows);
  if (!once) {
    if (once.error().code == "connect.auth") {
      std::lock_guard<std::mutex> lock(mu_);
      syncs_[m.slug].credential_rejected = once.error().message;
    }
    return once.error();
  }
  Execution& first = once.value();
  ex.rows = std::move(first.rows);
  ex.source_truncated = first.source_truncated;
  ex.partial = first.partial;
  ex.ledger = std::move(first.ledger);
  ex.contracts = std::move(first.contracts);
  ex.clipped = first.clipped;
  if (m.source.kind == SourceKind::kMcp && !first.snapshot.serving_decision.empty()) {
    ex.snapshot.serving_decision = first.snapshot.serving_decision;
  }
  if (m.source.kind == SourceKind::kPrintedCli ||
      (m.source.kind == SourceKind::kMcp && op.kind != OperationKind::kSql)) {
    ex.snapshot.freshness = first.snapshot.freshness;
  } else {
    ex.snapshot.freshness = ReadFreshness(m);
    if (*decision == "live") {
      // The source was read during this call (sync, then the fresh mirror).
      ex.snapshot.freshness.state = "live";
      for (auto& e : ex.ledger) e.source = "live";
      for (auto& c : ex.contracts) c.source = "live";
    }
    if (*decision == kMirrorFirst) ex.snapshot.freshness.state = "syncing";
  }
  if (op.kind == OperationKind::kList && !op.detail_operation.empty()) {
    if (auto s = FanOut(m, op, mode, limit, ex); !s) return s.error();
  }
  ex.snapshot.credential_state = CredentialState(m);
  return ex;
}

Result<ConnectorRoad::Execution> ConnectorRoad::ExecuteOnce(const ConnectorManifest& m,
                                                            const Operation& op, const json& args,
                                                            SourceMode mode, int64_t max_rows,
                                                            SqlGuard* shared) {
  Execution ex;
  LedgerEntry entry;
  entry.command = op.name;
  entry.args = args;
  std::vector<std::string> columns;
  if (m.source.kind == SourceKind::kMcp && op.kind != OperationKind::kSql) {
    auto read = McpRead(m, op, args, mode);
    if (!read) return read.error();
    ex = std::move(read.value());
    if (static_cast<int64_t>(ex.rows.size()) > max_rows) {
      ex.rows.resize(static_cast<size_t>(max_rows));
      ex.source_truncated = true;
    }
    columns = std::move(ex.ledger.front().served_fields);
    entry.source = ex.ledger.front().source;
    ex.ledger.clear();
  } else if (m.source.kind == SourceKind::kPrintedCli) {
    SourceMode cli_mode =
        (mode == SourceMode::kAuto && Syncing(m.slug)) ? SourceMode::kLocal : mode;
    Result<CliReply> reply = MakeError("connect.cli_failed", "not run");
    if (op.kind == OperationKind::kSql) {
      // The statement must pass our guard against the CLI's mirror before the CLI sees it.
      std::string query = QueryArg(args);
      auto guard = SqlGuard::Open(PrintedCliMirrorPath(m.source), options_.guard);
      if (!guard) return guard.error();
      if (auto s = (*guard)->Check(query); !s) return s.error();
      reply = InvokePrintedCli(m.source, CliCall{{"sql"}, {query}}, std::nullopt);
    } else {
      reply = InvokePrintedCli(m.source, OperationCall(op, args), cli_mode);
    }
    if (!reply) return reply.error();
    ex.rows = RowsOf(reply->results, op);
    if (static_cast<int64_t>(ex.rows.size()) > max_rows) {
      ex.rows.resize(static_cast<size_t>(max_rows));
      ex.source_truncated = true;
    }
    ex.partial = reply->partial;
    const json& meta = reply->meta;
    std::string src = meta.contains("source") && meta["source"].is_string()
                          ? meta["source"].get<std::string>()
                          : ToString(cli_mode);
    entry.source = src == "local" ? "mirror" : src;
    Freshness& f = ex.snapshot.freshness;
    f.max_age_s = m.sync.max_age_s;
    f.synced_at = ParseTime(meta.value("synced_at", json()));
    f.age_s = f.synced_at ? Now() - f.synced_at : -1;
    if (entry.source == "live") {
      f.state = "live";
    } else if (Syncing(m.slug)) {
      f.state = "syncing";
    } else {
      f.state = f.synced_at && f.age_s > m.sync.max_age_s ? "stale" : "mirrored";
    }
    std::set<std::string> keys;
    for (const auto& row : ex.rows) {
      for (const auto& [k, v] : row.items()) keys.insert(k);
    }
    columns.assign(keys.begin(), keys.end());
  } else {
    std::unique_ptr<SqlGuard> own;
    if (!shared) {
      GuardLimits limits = options_.guard;
      limits.max_rows = max_rows;
      auto opened = SqlGuard::Open(MirrorPath(m), limits);
      if (!opened) return opened.error();
      own = std::move(opened.value());
    }
    SqlGuard* guard = shared ? shared : own.get();
    bool sql = op.kind == OperationKind::kSql;
    auto rows = guard->Run(sql ? QueryArg(args) : op.query, sql ? json::object() : args);
    if (!rows) return rows.error();
    ex.rows = std::move(rows->rows);
    ex.source_truncated = rows->truncated;
    columns = std::move(rows->columns);
    entry.source = m.source.kind == SourceKind::kSqlite ? "local" : "mirror";
  }
  // Declared served fields are a contract: rows carry those fields and nothing else.
  if (!op.served_fields.empty()) {
    std::vector<std::string> served;
    for (const auto& f : op.served_fields) {
      if (std::find(columns.begin(), columns.end(), f) != columns.end()) served.push_back(f);
    }
    for (auto& row : ex.rows) {
      json kept = json::object();
      for (const auto& f : served) {
        if (row.contains(f)) kept[f] = std::move(row[f]);
      }
      row = std::move(kept);
    }
    columns = std::move(served);
  }
  entry.served_fields = columns;
  entry.rows = static_cast<int64_t>(ex.rows.size());
  ex.contracts.push_back({op.handle, m.slug, op.name, args, entry.source, columns});
  ex.ledger.push_back(std::move(entry));
  return ex;
}

Status ConnectorRoad::FanOut(const ConnectorManifest& m, const Operation& list, SourceMode mode,
                             int64_t limit, Execution& ex) {
  const Operation* detail = m.FindOperation(list.detail_operation);
  if (!detail || ex.rows.empty()) return {};
  for (const auto& row : ex.rows) {
    bool id_only = row.is_object() && row.size() == 1 && row.contains(list.id_field) &&
                   (row[list.id_field].is_string() || row[list.id_field].is_number());
    if (!id_only) return {};  // rows already carry content: no fan-out
  }
  std::vector<json> ids;
  ex.listed = static_cast<int64_t>(ex.rows.size());
  for (const auto& row : ex.rows) {
    if (static_cast<int64_t>(ids.size()) >= limit) break;
    ids.push_back(row[list.id_field]);
  }
  for (const auto& id : ids) {
    if (auto s = ValidateArgs(detail->args_schema, json{{list.id_field, id}}); !s) {
      return MakeError(ErrorKind::kInvalid, "connect.bad_args",
                       detail->name + " cannot take the listed IDs: " + s.error().message);
    }
  }
  std::vector<std::optional<Result<Execution>>> reads(ids.size());
  std::atomic<size_t> next{0};
  size_t width = std::min<size_t>(static_cast<size_t>(m.source.max_parallel), ids.size());
  auto worker = [&] {
    // Mirror sources: one read-only connection per worker, reused for all its reads.
    std::unique_ptr<SqlGuard> guard;
    if (m.source.kind != SourceKind::kPrintedCli) {
      auto opened = SqlGuard::Open(MirrorPath(m), options_.guard);
      if (opened) guard = std::move(opened.value());
    }
    for (size_t i; (i = next.fetch_add(1)) < ids.size();) {
      reads[i] = ExecuteOnce(m, *detail, json{{list.id_field, ids[i]}}, mode, 1000, guard.get());
    }
  };
  std::vector<std::thread> threads;
  for (size_t t = 1; t < width; ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();

  std::vector<json> rows;
  std::set<std::string> served;
  json errors = json::array();
  json failed_ids = json::array();
  int64_t ok = 0;
  std::string source;
  std::optional<Error> first_error;
  for (size_t i = 0; i < reads.size(); ++i) {
    auto& r = reads[i];
    if (!r->ok()) {
      if (!first_error) first_error = r->error();
      // Which item is missing, by the read that failed: its id, operation and arguments.
      failed_ids.push_back(ids[i]);
      if (errors.size() < kMaxFanOutErrors) {
        errors.push_back({{"id", ids[i]},
                          {"operation", detail->name},
                          {"args", {{list.id_field, ids[i]}}},
                          {"code", r->error().code},
                          {"message", r->error().message.substr(0, 300)}});
      }
      continue;
    }
    ++ok;
    Execution& one = r->value();
    source = one.ledger[0].source;
    for (const auto& f : one.ledger[0].served_fields) served.insert(f);
    for (auto& row : one.rows) rows.push_back(std::move(row));
  }
  if (ok == 0 && first_error) {
    Error all = *first_error;
    all.message = "every detail read of " + list.name + " failed (" + std::to_string(ids.size()) +
                  " of " + std::to_string(ids.size()) + "); the first, " + detail->name + " " +
                  list.id_field + " " +
                  (ids[0].is_string() ? ids[0].get<std::string>() : ids[0].dump()) + ": " +
                  first_error->message;
    return all;
  }
  int64_t failed = static_cast<int64_t>(ids.size()) - ok;
  json id_list = ids;
  LedgerEntry entry;
  entry.command = detail->name;
  entry.args = {{list.id_field, id_list}};
  entry.served_fields.assign(served.begin(), served.end());
  entry.source = source;
  entry.rows = static_cast<int64_t>(rows.size());
  entry.fan_out = {{"of", list.name},  {"requested", ids.size()}, {"succeeded", ok},
                   {"failed", failed}, {"parallel", width},       {"listed", ex.listed}};
  if (!failed_ids.empty()) entry.fan_out["failed_ids"] = failed_ids;
  if (!errors.empty()) entry.fan_out["errors"] = errors;
  ex.contracts.push_back(
      {detail->handle, m.slug, detail->name, entry.args, source, entry.served_fields});
  ex.ledger.push_back(std::move(entry));
  ex.rows = std::move(rows);
  ex.partial = ex.partial || failed > 0;
  ex.source_truncated = false;
  return {};
}

Result<std::string> ConnectorRoad::Serve(const ConnectorManifest& m, SourceMode mode) {
  switch (m.source.kind) {
    case SourceKind::kSqlite:
      return std::string("local_source");
    case SourceKind::kPrintedCli:
      if (mode == SourceMode::kAuto && Syncing(m.slug)) return std::string(kMirrorFirst);
      return "cli_" + ToString(mode);
    case SourceKind::kMcp:
      return std::string("live");
    case SourceKind::kIcs:
      break;
  }
  SyncRecord record = ReadSyncRecord(MirrorPath(m));
  if (mode == SourceMode::kLive) {
    auto s = Sync(m.slug);
    if (!s) return s.error();
    return std::string("live");
  }
  if (mode == SourceMode::kLocal) {
    if (!record.synced) {
      return MakeError("connect.mirror_empty", "the mirror of \"" + m.slug +
                                                   "\" has never been synced; run `affordance "
                                                   "connector sync " +
                                                   m.slug + "` or use the live mode");
    }
    return std::string("mirror");
  }
  if (!record.synced) {  // auto, nothing to serve yet: read the source now
    auto s = Sync(m.slug);
    if (!s) return s.error();
    return std::string("live");
  }
  if (Syncing(m.slug)) return std::string(kMirrorFirst);
  if (Now() - record.synced_at > m.sync.max_age_s) {
    auto started = StartSync(m.slug);
    if (!started) return started.error();
    return std::string(kMirrorFirst);
  }
  return std::string("mirror");
}

}  // namespace affordance::connect

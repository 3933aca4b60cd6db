// RunMutation for SQLite and printed-CLI sources, and the idempotency-key lookups (mutate.h).
#include "connect/mutate.h"

#include "base/instant.h"
#include "connect/printed_cli.h"

#include <sqlite3.h>

namespace affordance::connect {

namespace {

using nlohmann::json;
using Dispatch = MutationOutcome::Dispatch;

MutationOutcome Failed(Error e) {
  MutationOutcome o;
  o.dispatch = Dispatch::kFailed;
  o.error = std::move(e);
  return o;
}

Status Bind(sqlite3_stmt* st, const json& args, const std::string& key) {
  for (int i = 1; i <= sqlite3_bind_parameter_count(st); ++i) {
    const char* raw = sqlite3_bind_parameter_name(st, i);
    if (raw == nullptr)
      return MakeError(ErrorKind::kInvalid, "connect.bad_args", "the statement has a ? parameter");
    std::string name = raw + 1;
    if (name == "idempotency_key") {
      sqlite3_bind_text(st, i, key.c_str(), -1, SQLITE_TRANSIENT);
      continue;
    }
    if (!args.contains(name) || args[name].is_null()) {
      sqlite3_bind_null(st, i);
    } else if (const json& v = args[name]; v.is_boolean()) {
      sqlite3_bind_int(st, i, v.get<bool>() ? 1 : 0);
    } else if (v.is_number_integer()) {
      sqlite3_bind_int64(st, i, v.get<int64_t>());
    } else if (v.is_number()) {
      sqlite3_bind_double(st, i, v.get<double>());
    } else {
      std::string text = v.is_string() ? v.get<std::string>() : v.dump();
      sqlite3_bind_text(st, i, text.c_str(), -1, SQLITE_TRANSIENT);
    }
  }
  return {};
}

// One transaction on a read-write connection of its own. Anything that fails before COMMIT
// returns is rolled back by SQLite: the effect did not happen.
MutationOutcome SqliteMutation(const ConnectorManifest& m, const Operation& op, const json& args,
                               const std::string& key) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(m.source.path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    std::string why = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return Failed(MakeError("connect.write_failed", "cannot open " + m.source.path +
                                                        " for "
                                                        "writing: " +
                                                        why));
  }
  sqlite3_busy_timeout(db, 5000);
  auto fail = [&](const std::string& what) {
    Error e = MakeError("connect.write_failed", what + ": " + sqlite3_errmsg(db), m.source.path);
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    return Failed(e);
  };
  if (sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) {
    return fail("cannot start the write transaction");
  }
  sqlite3_stmt* st = nullptr;
  const char* tail = nullptr;
  if (sqlite3_prepare_v2(db, op.statement.c_str(), -1, &st, &tail) != SQLITE_OK) {
    return fail("the statement of " + op.name + " does not prepare");
  }
  if (Status b = Bind(st, args, key); !b) {
    sqlite3_finalize(st);
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    return Failed(b.error());
  }
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return fail("the statement of " + op.name + " failed");
  json response = {{"changes", sqlite3_changes(db)},
                   {"last_insert_rowid", sqlite3_last_insert_rowid(db)}};
  if (sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
    return fail("cannot commit");
  }
  sqlite3_close(db);
  MutationOutcome o;
  o.dispatch = Dispatch::kExecuted;
  o.response = std::move(response);
  return o;
}

// A timeout, an output flood or an unclassified exit (a crash, a signal) after the command was
// started may have applied the effect; a typed refusal or a command that never started did not.
MutationOutcome CliMutation(const ConnectorManifest& m, const Operation& op, const json& args,
                            const std::string& key) {
  CliCall call = OperationCall(op, args);
  if (!op.idempotency_flag.empty()) call.words.push_back("--" + op.idempotency_flag + "=" + key);
  auto reply = InvokePrintedCli(m.source, call, std::nullopt);
  MutationOutcome o;
  if (reply) {
    o.dispatch = Dispatch::kExecuted;
    o.response = reply->results.is_object() ? reply->results : json{{"results", reply->results}};
    return o;
  }
  const std::string& code = reply.error().code;
  bool unknown = code == "connect.cli_timeout" || code == "connect.cli_output_too_large" ||
                 code == "connect.cli_failed" || code == "connect.cli_bad_output";
  o.dispatch = unknown ? Dispatch::kUnknown : Dispatch::kFailed;
  o.error = reply.error();
  return o;
}

}  // namespace

std::string DispatchName(MutationOutcome::Dispatch d) {
  switch (d) {
    case Dispatch::kExecuted:
      return "executed";
    case Dispatch::kFailed:
      return "failed";
    case Dispatch::kUnknown:
      return "outcome_unknown";
  }
  return "?";
}

MutationOutcome RunMutation(const ConnectorManifest& m, const Operation& op, const json& args,
                            const std::string& key) {
  if (op.kind != OperationKind::kMutation) {
    return Failed(MakeError("connect.not_a_mutation", op.name + " is not a mutation"));
  }
  switch (m.source.kind) {
    case SourceKind::kSqlite:
      return SqliteMutation(m, op, args, key);
    case SourceKind::kPrintedCli:
      return CliMutation(m, op, args, key);
    case SourceKind::kIcs: {
      auto written = WriteCalendar(m, op, args, key);
      if (!written) return Failed(written.error());
      MutationOutcome o;
      o.dispatch = Dispatch::kExecuted;
      o.response = std::move(*written);
      return o;
    }
    case SourceKind::kMcp:
      break;  // through its session: ConnectorRoad::Mutate
  }
  return Failed(MakeError("connect.write_failed", "this source's writes go through its road"));
}

Status CheckMutationArgs(const ConnectorManifest& m, const Operation& op, const json& args) {
  const json props = op.args_schema.is_object() ? op.args_schema.value("properties", json::object())
                                                : json::object();
  for (const auto& [name, schema] : props.items()) {
    if (!args.is_object() || !args.contains(name) || !args[name].is_string()) continue;
    const std::string format = schema.is_object() ? schema.value("format", "") : "";
    const std::string& text = args[name].get_ref<const std::string&>();
    std::string why;
    if (format == "date-time" && !ParseInstant(text, &why)) {
      return MakeError(ErrorKind::kInvalid, "connect.bad_args",
                       "/" + name + ": \"" + text + "\" is not an ISO 8601 time (" + why + ")");
    }
    if (format == "date" && !ParseDay(text, &why)) {
      return MakeError(
          ErrorKind::kInvalid, "connect.bad_args",
          "/" + name + ": \"" + text + "\" is not a day like 2026-12-03 (" + why + ")");
    }
  }
  if (m.source.kind == SourceKind::kIcs) return CheckCalendarArgs(op, args);
  if (m.source.kind == SourceKind::kPrintedCli) {
    auto argv = MutationArgv(m, op, args, "");
    if (!argv) return argv.error();
  }
  return {};
}

Result<KeyLookup> LookupIdempotencyKey(const ConnectorManifest& m, const Operation& op,
                                       const std::string& key) {
  KeyLookup out;
  if (m.source.kind == SourceKind::kIcs && op.effect == "create") {
    out.supported = true;
    std::string uid = CalendarUidFor(key);
    auto has = CalendarHasUid(m, uid);
    if (!has) return has.error();
    out.found = *has;
    out.response = {{"uid", uid}};
    return out;
  }
  if (m.source.kind == SourceKind::kPrintedCli && m.HasVerb("lookup")) {
    out.supported = true;
    auto reply = InvokePrintedCli(m.source, CliCall{{"lookup"}, {key}}, std::nullopt);
    if (!reply) {
      if (reply.error().code != "connect.not_found") return reply.error();
      return out;
    }
    out.found = true;
    out.response = reply->results;
    return out;
  }
  return out;
}

}  // namespace affordance::connect

#include "surface/query.h"

#include "surface/internal/evaluate.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace affordance::surface {
namespace {

using nlohmann::json;

std::string Fnv1a(const std::string& text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// Opens the artifact version into `opened` and finds the statement's binding in it.
Result<const QueryBinding*> FindQuery(store::Store& store, const QueryRequest& request,
                                      OpenedArtifact& opened) {
  auto found = OpenArtifact(store, request.artifact, request.version);
  if (!found) return found.error();
  opened = std::move(*found);
  for (const auto& q : opened.bindings.queries) {
    if (q.statement == request.statement) return &q;
  }
  std::string known;
  for (const auto& q : opened.bindings.queries) known += (known.empty() ? "" : ", ") + q.statement;
  return MakeError(ErrorKind::kNotFound, "surface.unknown_statement",
                   "version " + std::to_string(opened.version.version) + " of artifact " +
                       opened.artifact.id + " has no Query statement \"" + request.statement +
                       "\"" +
                       (known.empty() ? " (it binds no queries)" : " (queries: " + known + ")"));
}

}  // namespace

json BindingIdentity::ToJson() const {
  return {{"handle", handle}, {"connector", connector}, {"operation", operation},
          {"source", source}, {"args", args},           {"servedFields", served_fields}};
}

json SourceReceipt::ToJson() const {
  return {{"artifactId", artifact_id},
          {"version", version},
          {"statement", statement},
          {"preview", preview.ToJson()},
          {"live", live.ToJson()},
          {"argsFromState", args_from_state},
          {"match", match()},
          {"mismatches", mismatches},
          {"servedFrom", served_from},
          {"dataState", data_state},
          {"rows", rows},
          {"rowsDigest", rows_digest},
          {"executedMs", executed_ms}};
}

json QueryRun::ToJson() const {
  json j = {{"rows", rows}, {"truncated", truncated}, {"receipt", receipt.ToJson()}};
  if (mismatch) j["error"] = {{"code", mismatch->code}, {"message", mismatch->message}};
  return j;
}

Result<QueryRun> ExecuteQuery(store::Store& store, connect::ConnectorRoad& road,
                              authority::Authority* authority, const QueryRequest& request,
                              const authority::Actor& by) {
  OpenedArtifact opened;
  auto found = FindQuery(store, request, opened);
  if (!found) return found.error();
  const QueryBinding& b = **found;
  if (b.connector.empty() || b.operation.empty()) {
    return MakeError(ErrorKind::kConflict, "surface.not_live",
                     "Query(\"" + b.handle + "\") of statement \"" + b.statement +
                         "\" names no connector operation");
  }

  QueryRun run;
  SourceReceipt& r = run.receipt;
  r.artifact_id = opened.artifact.id;
  r.version = opened.version.version;
  r.statement = b.statement;
  r.preview = {b.handle, b.connector, b.operation, b.source, b.args, Sorted(b.served_fields)};
  r.args_from_state = !b.args_literal;
  json args = request.args ? *request.args : (b.args_literal ? b.args : json());
  if (!args.is_object()) {
    return MakeError(ErrorKind::kInvalid, "surface.args_required",
                     "the arguments of Query(\"" + b.handle +
                         "\") read $state; send the args "
                         "the surface resolved");
  }

  // The client names what it executes; the server runs the stored operation and proves that both
  // are the same. A client that asks for another handle gets a mismatch, not another read.
  const std::string handle = request.handle.empty() ? b.handle : request.handle;
  auto m = road.Find(b.connector);
  const connect::Operation* op = m != nullptr ? m->FindOperation(b.operation) : nullptr;
  if (handle != b.handle || op == nullptr || op->handle != b.handle) {
    r.live.handle = handle;
    r.mismatches.push_back("handle");
    r.executed_ms = store::NowMs();
    run.mismatch =
        MakeError(ErrorKind::kConflict, "surface.binding_mismatch",
                  "the surface executes Query(\"" + handle + "\") but statement \"" + b.statement +
                      "\" was composed with Query(\"" + b.handle + "\") of " + b.connector + "." +
                      b.operation + (op == nullptr ? ", which is not registered now" : "") +
                      "; nothing was read");
    return run;
  }
  if (authority != nullptr) {
    if (Status s = authority->AuthorizeRead(m->slug, op->name, by); !s) return s.error();
  }
  connect::ConnectorCommand cmd;
  cmd.connector = m->slug;
  cmd.request = {{"operation", op->name}, {"args", args}};
  auto result = road.RunConnectorCommand(cmd);
  if (!result) return result.error();
  r.executed_ms = store::NowMs();

  r.live.handle = op->handle;
  r.live.connector = result->connector;
  r.live.source = m->slug + ":" + connect::ToString(m->source.kind);
  std::vector<std::string> served;
  if (!result->operation_ledger.empty()) {
    const auto& first = result->operation_ledger.front();
    r.live.operation = first.command;
    r.live.args = first.args;
    r.served_from = first.source;
    for (const auto& e : result->operation_ledger) {
      served.insert(served.end(), e.served_fields.begin(), e.served_fields.end());
    }
  }
  r.live.served_fields = Sorted(served);
  r.data_state = result->mirror_snapshot.freshness.state;

  auto differs = [&](const char* what, bool different) {
    if (different) r.mismatches.push_back(what);
  };
  differs("handle", r.live.handle != r.preview.handle);
  differs("connector", r.live.connector != r.preview.connector);
  differs("operation", r.live.operation != r.preview.operation);
  differs("args", !r.args_from_state && r.live.args != r.preview.args);
  differs("source", !r.preview.source.empty() && r.live.source != r.preview.source);
  // An operation that declares no served fields serves whatever its source returns; the preview
  // then has nothing to hold the live rows to.
  differs("servedFields",
          !r.preview.served_fields.empty() && r.live.served_fields != r.preview.served_fields);

  json rows = json::array();
  for (const auto& row : result->rows) rows.push_back(row);
  r.rows = static_cast<int64_t>(result->rows.size());
  r.rows_digest = Fnv1a(rows.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  if (!r.match()) {
    std::string list;
    for (const auto& w : r.mismatches) list += (list.empty() ? "" : ", ") + w;
    run.mismatch = MakeError(ErrorKind::kConflict, "surface.binding_mismatch",
                             "the live result of \"" + b.statement +
                                 "\" does not refer to what the surface was composed with (" +
                                 list + " differ); its rows are not shown");
    return run;
  }
  run.rows = std::move(result->rows);
  run.truncated = result->truncated;
  return run;
}

BoundRows ReadBindings(store::Store& store, connect::ConnectorRoad* road,
                       authority::Authority* authority, const OpenedArtifact& artifact,
                       const ParseResult& program, const authority::Actor& by) {
  BoundRows out;
  for (const QueryBinding& b : artifact.bindings.queries) {
    BindingRows& rows = out[b.statement];
    if (road == nullptr) {
      rows.error = "no connector is configured here";
      continue;
    }
    QueryRequest req;
    req.artifact = artifact.artifact.id;
    req.version = artifact.version.version;
    req.statement = b.statement;
    if (!b.args_literal) {
      internal::EvalScope state(program, nullptr);
      req.args = json(state.Evaluate(Json(b.args)));
    }
    auto run = ExecuteQuery(store, *road, authority, req, by);
    if (!run) {
      rows.error = run.error().message;
    } else if (run->mismatch) {
      rows.error = run->mismatch->message;
    } else {
      rows.rows = std::move(run->rows);
      rows.truncated = run->truncated;
    }
  }
  return out;
}

Result<store::ApprovalRecord> StageMutation(store::Store& store, authority::Authority& authority,
                                            const std::string& artifact, int64_t version,
                                            const std::string& statement, const json& args,
                                            const authority::Actor& by) {
  auto opened = OpenArtifact(store, artifact, version);
  if (!opened) return opened.error();
  for (const auto& m : opened->bindings.mutations) {
    if (m.statement != statement) continue;
    if (m.connector.empty() || m.operation.empty()) {
      return MakeError(ErrorKind::kConflict, "surface.not_a_mutation",
                       "Mutation(\"" + m.handle + "\") of statement \"" + statement +
                           "\" names no connector mutation");
    }
    authority::StageRequest req;
    req.connector = m.connector;
    req.operation = m.operation;
    req.args = args;
    req.evidence = {{"artifactId", opened->artifact.id},
                    {"version", opened->version.version},
                    {"statement", statement},
                    {"surfaceId", opened->version.surface_id}};
    req.thread_id = opened->artifact.thread_id;
    return authority.Stage(req, by);
  }
  return MakeError(ErrorKind::kNotFound, "surface.unknown_statement",
                   "version " + std::to_string(opened->version.version) + " of artifact " +
                       opened->artifact.id + " has no Mutation statement \"" + statement + "\"");
}

}  // namespace affordance::surface

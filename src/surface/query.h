// Two-time grounding (docs/SURFACE.md): rows ground the model's judgment when it composes; the
// exact Query() handle executes again when the surface renders. ExecuteQuery re-executes one
// binding of a stored artifact through the connector road and returns the rows with a
// source-binding receipt that compares the live operation with the preview (the binding stored
// with the artifact version): same handle, connector, operation, arguments, source and served
// fields. A mismatch is an error the surface shows (`mismatch` is set and no rows are returned):
// never a silent substitution.
//
// Mutation() bindings are never executed here: StageMutation stages them through authority
// (governed writes: staged, approved by a person, executed once, verified).
//
// Thread safety: as the store's and the road's (any thread).
#pragma once

#include "authority/authority.h"
#include "base/result.h"
#include "connect/road.h"
#include "store/store.h"
#include "surface/artifact.h"
#include "surface/program.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace affordance::surface {

struct QueryRequest {
  std::string artifact;   // id or app slug
  int64_t version = 0;    // 0: the head
  std::string statement;  // the Query statement id ("events")
  std::string handle;     // the handle the client is about to execute ("" = the binding's)
  // The arguments the client resolved (a binding whose args read $state needs them); nullopt:
  // the binding's literal arguments.
  std::optional<nlohmann::json> args;
};

// What one side (preview or live) of a binding refers to.
struct BindingIdentity {
  std::string handle, connector, operation, source;
  nlohmann::json args = nlohmann::json::object();
  std::vector<std::string> served_fields;  // sorted
  nlohmann::json ToJson() const;
};

struct SourceReceipt {
  std::string artifact_id;
  int64_t version = 0;
  std::string statement;
  BindingIdentity preview;              // what the artifact version was composed with
  BindingIdentity live;                 // what ran now
  bool args_from_state = false;         // the preview's args read $state: the client's args ran
  std::vector<std::string> mismatches;  // "handle", "connector", "operation", "args", ...
  bool match() const { return mismatches.empty(); }
  std::string served_from;  // live | mirror | local
  std::string data_state;   // freshness of what was served (live, mirrored, stale, ...)
  int64_t rows = 0;
  std::string rows_digest;  // FNV-1a 64 of the rows' JSON text, 16 hex digits
  int64_t executed_ms = 0;
  nlohmann::json ToJson() const;
};

struct QueryRun {
  std::vector<nlohmann::json> rows;  // empty when the receipt does not match
  bool truncated = false;
  SourceReceipt receipt;
  std::optional<Error> mismatch;  // "surface.binding_mismatch" naming what differs
  // {rows, truncated, receipt} (+ error {code, message} on a mismatch)
  nlohmann::json ToJson() const;
};

// Re-executes a stored binding (see the file comment). The read needs a read grant (authority;
// null: not gated, for tests of the road alone), logged to Activity as `by`'s read. Errors:
// "store.not_found" (artifact), "surface.unknown_statement" (no Query statement of that id in the
// version), "surface.not_live" (the binding names no connector handle), connector and authority
// errors of the read.
Result<QueryRun> ExecuteQuery(store::Store& store, connect::ConnectorRoad& road,
                              authority::Authority* authority, const QueryRequest& request,
                              const authority::Actor& by);

// What a surface shows for one Query() binding: the rows a re-execution read, or why there are
// none (`error`: one line a person can act on, e.g. the connector is not configured, the read
// grant is missing, or the live result no longer matches the binding).
struct BindingRows {
  std::vector<nlohmann::json> rows;
  bool truncated = false;  // the source holds more rows than it returned
  std::optional<std::string> error;
};
using BoundRows = std::map<std::string, BindingRows, std::less<>>;  // by Query statement id

// Re-executes every Query() binding of `artifact` (parsed as `program`) the way the web UI does
// when it renders a surface: each through ExecuteQuery (the code path of POST /api/query), with
// the binding's literal arguments, or, for arguments that read $state, the arguments evaluated
// with the state defaults (what the web sends before anyone touches an input). Never fails: a
// binding whose rows cannot be read gets its reason in `error` (`road` null: "no connector is
// configured here").
BoundRows ReadBindings(store::Store& store, connect::ConnectorRoad* road,
                       authority::Authority* authority, const OpenedArtifact& artifact,
                       const ParseResult& program, const authority::Actor& by);

// Stages a Mutation() binding of an artifact with the arguments the gesture resolved: an approval
// request through authority (nothing runs until a person approves). Errors:
// "surface.unknown_statement", "surface.not_a_mutation", authority's.
Result<store::ApprovalRecord> StageMutation(store::Store& store, authority::Authority& authority,
                                            const std::string& artifact, int64_t version,
                                            const std::string& statement,
                                            const nlohmann::json& args, const authority::Actor& by);

}  // namespace affordance::surface

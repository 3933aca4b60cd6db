// Artifacts: every accepted ComposeUI program is a version of a durable artifact (docs/SURFACE.md
// "Artifacts"). This is the one writer of artifacts; the store (store.h) keeps them.
//
//   surface::ComposeRequest req;
//   req.program = text;               // the model's OpenUI Lang (a patch when req.patch)
//   req.kind = "live_app"; req.app_slug = "week";
//   req.handles = surface::HandlesOf(road);     // what Query()/Mutation() may name
//   req.evidence = surface::EvidenceOfThread(messages, message_id);  // rows that grounded it
//   surface::Composed c = surface::SaveProgram(store, req);
//   if (!c.ok()) ... c.error (code + message), c.errors (each problem with its code)
//   auto opened = surface::OpenArtifact(store, "week");   // id or app slug, head version
//
// A save validates the whole program (syntax, library, product checks, semantic checks against
// the handles and the evidence) before anything is written, then writes the version and moves the
// artifact's head in one store transaction: a save that cannot be validated or written whole
// leaves the previous version untouched (fail-closed).
//
// Identity: a request naming `artifact` (an id or an app slug) writes the next version of that
// artifact; a live_app whose app_slug already names an artifact writes its next version; anything
// else creates a new artifact. An edit-mode patch (`patch`) needs an existing artifact: the patch
// is merged into the head's body (surface::MergeProgram) and the version records its parent.
//
// Errors (Composed::error codes): "surface.invalid" (the program has errors; each one is in
// `errors` with its code), "surface.app_slug_required", "surface.bad_slug", "surface.bad_kind",
// "surface.patch_without_program" (a patch with no artifact to apply it to),
// "store.conflict" (another save moved the head first; nothing was written), "store.*".
//
// Thread safety: as the store's (any thread).
#pragma once

#include "base/result.h"
#include "store/store.h"
#include "surface/library.h"
#include "surface/program.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace affordance::connect {
class ConnectorRoad;
}

namespace affordance::surface {

// A handle a program may bind: a connector operation's query (or mutation) handle with the
// fields its rows serve (the operation's declared `served_fields`; empty: undeclared).
struct QueryHandle {
  std::string handle;     // "calendar_list_events"
  std::string connector;  // "calendar"
  std::string operation;  // "list_events"
  std::string source;     // the connector's source identity ("calendar:ics")
  std::vector<std::string> served_fields;
  bool mutation = false;
  std::string title;  // the connector's display title (its manifest's `title`; may be empty)
};

// One connector read that grounded the turn: a RunConnectorCommand (or <slug>__<op>) result.
struct Evidence {
  std::string tool_call_id;
  std::string connector;
  std::string handle;  // the query handle of the operation that produced the rows
  std::string operation;
  nlohmann::json args = nlohmann::json::object();
  std::string served_from;  // live | mirror | local (the ledger's source)
  std::vector<std::string> served_fields;
  std::vector<nlohmann::json> rows;
  bool this_turn = false;  // read by the turn that composes (multi-source synthesis counts these)
};

// Every readable and mutation handle of the road's connectors (empty for a null road).
std::vector<QueryHandle> HandlesOf(const connect::ConnectorRoad* road);

// The connector reads in the tool parts of `thread` (stored messages, oldest first). Reads in the
// message `current_message_id` are marked this_turn.
std::vector<Evidence> EvidenceOfThread(const std::vector<store::MessageRecord>& thread,
                                       const std::string& current_message_id);
// The thread's active artifact: the one its last stored surface with an artifact shows. It is what
// an edit-mode ComposeUI patches when the model names none, and what the reality block names.
struct ActiveArtifact {
  std::string artifact_id;
  int64_t version = 0;
  std::string surface_id;
  std::string kind = "inline";
  bool live = false;
};
std::optional<ActiveArtifact> ActiveArtifactOf(const std::vector<store::MessageRecord>& thread);

// One tool part's output (a ConnectorResult JSON) as evidence; empty when it is not one.
std::vector<Evidence> EvidenceOfResult(const nlohmann::json& connector_result);

// A Query() of a program: the statement, the handle it names and the arguments it was composed
// with (literal JSON, or the argument AST when it depends on $state), plus what the handle is.
struct QueryBinding {
  std::string statement;  // the statement id ("events")
  std::string handle;
  nlohmann::json args = nlohmann::json::object();  // literal args (args_literal) else the AST
  bool args_literal = true;
  std::string connector, operation, source;
  std::vector<std::string> served_fields;
  bool grounded = false;  // the turn's evidence holds a read of this handle with these args
  nlohmann::json ToJson() const;
  static QueryBinding FromJson(const nlohmann::json& j);
};

struct MutationBinding {
  std::string statement;
  std::string handle;
  nlohmann::json args = nlohmann::json::object();  // the argument AST (filled at gesture time)
  std::string connector, operation;
};

// The bindings of a parsed program (Query and Mutation statements with string-literal handles),
// resolved against `handles` (unknown handles keep empty connector / operation).
struct Bindings {
  std::vector<QueryBinding> queries;
  std::vector<MutationBinding> mutations;
  std::vector<std::string> sources;  // connectors the program presents data from, sorted
  bool live() const { return !queries.empty(); }
  // {queries: [...], mutations: [...], sources: [...]}: what the artifact version stores.
  nlohmann::json ToJson() const;
  static Bindings FromJson(const nlohmann::json& j);
};

Bindings BindingsOf(const ParseResult& parse, const std::vector<QueryHandle>& handles,
                    const std::vector<Evidence>& evidence);

struct ComposeRequest {
  std::string program;          // the exact Lang text the model wrote
  bool patch = false;           // edit mode: `program` is a patch of the artifact's head
  std::string kind = "inline";  // inline | panel | live_app ("live-app" is accepted)
  std::string app_slug;         // live_app only: [a-z0-9][a-z0-9-]{0,63}
  std::string title;
  std::string artifact;  // an id or app slug: write the next version of that artifact
  std::string thread_id, message_id, tool_call_id, surface_id;
  // The registry Query()/Mutation() must name; nullopt: handles are not checked (no connectors
  // are known: a program with Query() then fails unknown-handle only when a registry is given).
  std::optional<std::vector<QueryHandle>> handles;
  std::vector<Evidence> evidence;
  const Library* library = nullptr;  // default: Library::Default()
};

struct Composed {
  std::optional<Error> error;     // set when nothing was saved
  std::vector<LangError> errors;  // the program's problems (surface.invalid)
  store::ArtifactRecord artifact;
  store::ArtifactVersionRecord version;
  Bindings bindings;
  bool ok() const { return !error.has_value(); }
};

// Validates and saves (see the file comment). Never throws.
Composed SaveProgram(store::Store& store, const ComposeRequest& request);

struct OpenedArtifact {
  store::ArtifactRecord artifact;
  store::ArtifactVersionRecord version;  // the requested one (the head by default)
  Bindings bindings;
  bool live() const { return bindings.live(); }
  // {id, kind, appSlug, title, threadId, head, version, parent, body, patch, bindings, live,
  //  createdMs, updatedMs}
  nlohmann::json ToJson() const;
};

// An artifact by id or app slug at `version` (0: the head). "store.not_found" when unknown.
Result<OpenedArtifact> OpenArtifact(store::Store& store, const std::string& id_or_slug,
                                    int64_t version = 0);

// "live-app" -> "live_app"; other kinds unchanged.
std::string NormalizeKind(const std::string& kind);

}  // namespace affordance::surface

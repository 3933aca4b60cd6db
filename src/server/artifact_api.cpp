// The artifact routes (docs/SURFACE.md, docs/SERVER.md): reopening artifacts and live apps,
// re-executing a surface's Query() handles with a source-binding receipt (two-time grounding), and
// staging a surface's Mutation() through authority. Their route table is here too, beside the
// handlers: each entry declares a route and names its handler (Api::Handlers binds it).
#include "authority/capability.h"
#include "base/json_limits.h"
#include "server/api.h"
#include "server/internal/declare.h"
#include "surface/artifact.h"
#include "surface/live.h"
#include "surface/query.h"

namespace affordance::server {
namespace {

using authority::Access;
using authority::Mode;
using internal::Http;
using internal::Obj;
using nlohmann::json;
using ojson = nlohmann::ordered_json;

HttpResponse JsonResponse(int status, const json& body) {
  HttpResponse r;
  r.status = status;
  r.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
  return r;
}

Result<json> Body(const std::string& body) {
  auto j = ParseJson(body.empty() ? "{}" : body, "server.too_deep", "server.bad_json",
                     "the request body");
  if (!j) return j.error();
  if (!j->is_object())
    return MakeError(ErrorKind::kInvalid, "server.bad_json",
                     "the request body must be a JSON object");
  return j;
}

Error NoConnectors() {
  return MakeError(ErrorKind::kConflict, "server.no_connectors",
                   "no connector is configured (affordance serve --connectors DIR)");
}

const json kStr = {{"type", "string"}};

// The Query statement a client names by handle (and args) when it does not name the statement:
// the one whose literal args equal the client's, else the one whose args read $state.
std::string StatementFor(const surface::OpenedArtifact& a, const std::string& handle,
                         const json& args) {
  std::string fallback;
  for (const auto& q : a.bindings.queries) {
    if (q.handle != handle) continue;
    if (q.args_literal && q.args == args) return q.statement;
    if (!q.args_literal || fallback.empty()) fallback = q.statement;
  }
  return fallback;
}

}  // namespace

// The artifact routes: each one's declaration and its handler, one entry each (declare.h).
const internal::RouteTable<Api>& internal::ArtifactRoutes() {
  static const RouteTable<Api> kRoutes = {
      {Http("POST /api/query", "surface", "query", Access::kClient, Mode::kRead,
            "re-execute a surface's Query() handle; rows with a source-binding receipt (409 on a "
            "mismatch, no rows)",
            Obj({{"artifact", kStr},
                 {"version", {{"type", "integer"}}},
                 {"statement", kStr},
                 {"handle", kStr},
                 {"args", {{"type", "object"}}}},
                {"artifact"}),
            Obj({{"rows", {{"type", "array"}}}, {"receipt", {{"type", "object"}}}}),
            "the receipt: preview and live refer to the same handle, operation, args, source and "
            "served fields",
            "connector:<slug>:read", "source-binding receipt"),
       &Api::Query},
      {Http("GET /api/artifacts", "artifact", "list", Access::kClient, Mode::kRead,
            "saved ComposeUI artifacts, newest first", json::object(),
            Obj({{"artifacts", {{"type", "array"}}}})),
       &Api::ListArtifacts},
      {Http("GET /api/artifacts/{id}", "artifact", "read", Access::kClient, Mode::kRead,
            "an artifact by id or live-app slug at its head; a live app with its latest query "
            "runs, re-run after a mirror sync",
            Obj({{"id", kStr}}, {"id"}), Obj({{"artifact", {{"type", "object"}}}}), "",
            "connector:<slug>:read (live apps)"),
       &Api::ReadArtifact},
      {Http("POST /api/artifacts/{id}/mutations/{statement}", "approval", "stage", Access::kClient,
            Mode::kApprovedExecution,
            "stage a surface's Mutation() with the gesture's args (an approval request; nothing "
            "runs)",
            Obj({{"id", kStr}, {"statement", kStr}, {"args", {{"type", "object"}}}},
                {"id", "statement"}),
            Obj({{"approval", {{"type", "object"}}}}), "the approval request (status pending)",
            "connector:<slug>:write", "approval request apr_..."),
       &Api::StageArtifactMutation},
  };
  return kRoutes;
}

namespace {
const bool declared = internal::DeclareRoutes(internal::ArtifactRoutes());
}  // namespace

// Here, where surface::LiveApps is a complete type (api.h only declares it).
Api::Api(store::Store& store, TurnHub& hub, ApiOptions options)
    : store_(store), hub_(hub), options_(std::move(options)), authority_(store, nullptr) {}

Api::~Api() = default;

authority::Actor Api::ActorOf(const HttpRequest& r) const {
  if (r.plane == Access::kPerson) return options_.actor;
  return {r.credential, false};
}

HttpResponse Api::Query(const HttpRequest& r) {
  auto body = Body(r.body);
  if (!body) return ErrorResponse(body.error());
  if (options_.road == nullptr) return ErrorResponse(NoConnectors());
  surface::QueryRequest req;
  req.artifact = body->value("artifact", "");
  req.version = body->value("version", int64_t{0});
  req.statement = body->value("statement", "");
  req.handle = body->value("handle", "");
  if (auto a = body->find("args"); a != body->end()) {
    if (!a->is_object()) {
      return ErrorResponse(
          MakeError(ErrorKind::kInvalid, "server.bad_request", "args must be a JSON object"));
    }
    req.args = *a;
  }
  if (req.artifact.empty() || (req.statement.empty() && req.handle.empty())) {
    return ErrorResponse(MakeError(ErrorKind::kInvalid, "server.bad_request",
                                   "artifact and a statement or handle are required"));
  }
  if (req.statement.empty()) {
    auto opened = surface::OpenArtifact(store_, req.artifact, req.version);
    if (!opened) return ErrorResponse(opened.error());
    req.statement = StatementFor(*opened, req.handle, req.args.value_or(json::object()));
    if (req.statement.empty()) {
      // No statement binds this handle: the client executes something the artifact never
      // composed. That is a mismatch, answered without reading anything.
      surface::QueryRun run;
      run.receipt.artifact_id = opened->artifact.id;
      run.receipt.version = opened->version.version;
      run.receipt.live.handle = req.handle;
      run.receipt.mismatches = {"handle"};
      run.mismatch = MakeError(ErrorKind::kConflict, "surface.binding_mismatch",
                               "artifact " + opened->artifact.id + " binds no Query(\"" +
                                   req.handle + "\"); its rows are not shown");
      return JsonResponse(HttpStatusOf(run.mismatch->kind), run.ToJson());
    }
  }
  authority::Authority auth(store_, options_.road);
  auto run = surface::ExecuteQuery(store_, *options_.road, &auth, req, ActorOf(r));
  if (!run) return ErrorResponse(run.error());
  return JsonResponse(run->mismatch ? HttpStatusOf(run->mismatch->kind) : 200, run->ToJson());
}

HttpResponse Api::ListArtifacts(const HttpRequest&) {
  auto list = store_.ListArtifacts();
  if (!list) return ErrorResponse(list.error());
  json out = json::array();
  for (const auto& a : *list) out.push_back(a.ToJson());
  return JsonResponse(200, {{"artifacts", out}});
}

HttpResponse Api::ReadArtifact(const HttpRequest& r) {
  const std::string& ref = r.params.at("id");
  auto opened = surface::OpenArtifact(store_, ref);
  if (!opened) return ErrorResponse(opened.error());
  if (opened->artifact.kind != "live_app" || options_.road == nullptr) {
    return JsonResponse(200, {{"artifact", opened->ToJson()}});
  }
  std::lock_guard lock(live_mu_);
  if (!live_auth_) live_auth_ = std::make_unique<authority::Authority>(store_, options_.road);
  const authority::Actor reader = ActorOf(r);
  auto& live = live_[reader.name];
  if (!live) {
    live = std::make_unique<surface::LiveApps>(store_, *options_.road, live_auth_.get(), reader);
  }
  auto view = live->Open(opened->artifact.id);
  if (!view) return ErrorResponse(view.error());
  return JsonResponse(200, {{"artifact", view->ToJson()}});
}

HttpResponse Api::StageArtifactMutation(const HttpRequest& r) {
  auto body = Body(r.body);
  if (!body) return ErrorResponse(body.error());
  if (options_.road == nullptr) return ErrorResponse(NoConnectors());
  json args = body->value("args", json::object());
  if (!args.is_object()) {
    return ErrorResponse(
        MakeError(ErrorKind::kInvalid, "server.bad_request", "args must be a JSON object"));
  }
  authority::Authority auth(store_, options_.road);
  auto staged = surface::StageMutation(store_, auth, r.params.at("id"), body->value("version", 0),
                                       r.params.at("statement"), args, ActorOf(r));
  if (!staged) return ErrorResponse(staged.error());
  auto report = auth.Report(staged->id);
  if (!report) return ErrorResponse(report.error());
  return JsonResponse(200, {{"approval", report->ToJson()}});
}

}  // namespace affordance::server

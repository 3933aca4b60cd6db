// The HTTP routes of api.cpp, each declared in the capability registry (door "http") and bound to
// its handler by one table entry; artifact_api.cpp keeps its own table beside its handlers.
// Router::Build refuses a handler without a declaration.
#include "authority/capability.h"
#include "server/api.h"
#include "server/internal/declare.h"

namespace affordance::server {
namespace {

using authority::Access;
using authority::Mode;
using internal::Http;
using internal::Obj;
using nlohmann::json;

const json kStream = {{"type", "string"},
                      {"contentMediaType", "text/event-stream"},
                      {"description", "AI SDK UI message stream (SSE), ends with [DONE]"}};
const json kId = {{"type", "string"}};

// Every route api.cpp serves: its declaration and its handler, one entry each.
const internal::RouteTable<Api>& Routes() {
  static const internal::RouteTable<Api> kRoutes = {
      {Http("POST /api/chat", "thread", "converse", Access::kClient, Mode::kLocalState,
            "run a harness turn on the thread (the last message is the user's), or apply a "
            "person's approval decisions and continue it (the last message is the assistant's, "
            "its tool parts approval-responded; deciding needs the person's session: "
            "server.person_only otherwise); streams its UI message chunks",
            Obj({{"id", kId},
                 {"messages", {{"type", "array"}}},
                 {"trigger", kId},
                 {"messageId", kId}},
                {"id", "messages"}),
            kStream, "the turn's messages are persisted by the harness (data-turn)"),
       &Api::PostChat},
      {Http("GET /api/chat/{id}/stream", "thread", "resume", Access::kClient, Mode::kRead,
            "re-attach to the thread's running turn (204 when none)", Obj({{"id", kId}}, {"id"}),
            kStream),
       &Api::ResumeStream},
      {Http("POST /api/chat/{id}/cancel", "thread", "cancel", Access::kClient, Mode::kLocalState,
            "cancel the thread's running step (the turn ends with abort)",
            Obj({{"id", kId}}, {"id"}), Obj({{"cancelled", {{"type", "boolean"}}}}),
            "the turn is persisted with status cancelled"),
       &Api::CancelTurn},
      {Http("GET /api/threads", "thread", "list", Access::kClient, Mode::kRead,
            "threads, newest first", json::object(), Obj({{"threads", {{"type", "array"}}}})),
       &Api::ListThreads},
      {Http("POST /api/threads", "thread", "create", Access::kClient, Mode::kLocalState,
            "create an empty thread", Obj({{"title", kId}}),
            Obj({{"thread", {{"type", "object"}}}}), "the thread row"),
       &Api::CreateThread},
      {Http("GET /api/threads/{id}", "thread", "read", Access::kClient, Mode::kRead,
            "a thread as UI messages with all parts", Obj({{"id", kId}}, {"id"}),
            Obj({{"thread", {{"type", "object"}}}, {"messages", {{"type", "array"}}}})),
       &Api::ReadThread},
      {Http("PATCH /api/threads/{id}", "thread", "rename", Access::kClient, Mode::kLocalState,
            "rename a thread", Obj({{"id", kId}, {"title", kId}}, {"id", "title"}),
            Obj({{"thread", {{"type", "object"}}}}), "the thread row"),
       &Api::RenameThread},
      {Http("DELETE /api/threads/{id}", "thread", "delete", Access::kClient, Mode::kLocalState,
            "delete a thread with its messages", Obj({{"id", kId}}, {"id"}),
            Obj({{"deleted", kId}}), "the thread is gone from GET /api/threads"),
       &Api::DeleteThread},
      {Http("POST /api/threads/{id}/surfaces/{surfaceId}/ack", "surface", "acknowledge",
            Access::kClient, Mode::kLocalState,
            "a client painted / hydrated a live surface: moves its truth state",
            Obj({{"id", kId}, {"surfaceId", kId}, {"state", {{"enum", {"painted", "hydrated"}}}}},
                {"id", "surfaceId", "state"}),
            Obj({{"surfaceId", kId}, {"state", kId}}),
            "the client's acknowledgement, stored as the surface part's state"),
       &Api::AcknowledgeSurface},
      {Http("GET /deploy-truth", "server", "read", Access::kClient, Mode::kRead,
            "which binary this is: commit, build time, start time, pid, data, provider",
            json::object(), Obj({{"commit", kId}, {"pid", {{"type", "integer"}}}})),
       &Api::DeployTruth},
      // Open to anyone who reaches the server by its own name: the proof is in the request (a
      // loopback peer owned by the server's OS user, or a sign-in code), checked by the handler.
      {Http("POST /api/session", "session", "start", Access::kAnyone, Mode::kLocalState,
            "start the person's web session: for a loopback browser of the OS user who runs the "
            "server, or with a sign-in code from `affordance login-link` ({login})",
            Obj({{"login", kId}}),
            Obj({{"session",
                  Obj({{"token", kId}, {"plane", kId}, {"expiresAt", {{"type", "integer"}}}})}}),
            "a session token (HMAC of the trust root), sent back as x-affordance-session"),
       &Api::StartPersonSession},
      {Http("GET /", "web", "read", Access::kAnyone, Mode::kRead,
            "the web UI (static files built from web/)"),
       &Api::WebIndex},
      {Http("GET /assets/{file}", "web", "read", Access::kAnyone, Mode::kRead,
            "the web UI's bundled script and styles", Obj({{"file", kId}}, {"file"})),
       &Api::WebAsset},
  };
  return kRoutes;
}

const bool declared = internal::DeclareRoutes(Routes());

}  // namespace

std::map<std::string, Handler> Api::Handlers() {
  std::map<std::string, Handler> handlers;
  internal::BindRoutes(*this, Routes(), handlers);
  internal::BindRoutes(*this, internal::ArtifactRoutes(), handlers);
  return handlers;
}

}  // namespace affordance::server

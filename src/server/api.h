// The HTTP API's handlers (docs/SERVER.md lists every route). Each takes a parsed request and
// returns a response value; none of them writes messages (the harness does, through the hub) and
// the only state they move is the one a client is the evidence for: a surface's paint / hydrate
// acknowledgement, and a person's decision on a staged effect (through the authority).
#pragma once

#include "authority/authority.h"
#include "connect/road.h"
#include "server/gate.h"
#include "server/person_session.h"
#include "server/router.h"
#include "server/turn_hub.h"
#include "store/store.h"

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace affordance::surface {
class LiveApps;
}

namespace affordance::server {

struct ApiOptions {
  std::string web_root;                 // folder with index.html + assets/ ("" = no web UI)
  nlohmann::ordered_json deploy_truth;  // commit, build time, start time, pid, data, provider
  // Who decides approvals sent with a person session (server/gate.h): the person the server runs
  // for. A client (the access token, a local process without a session) never decides.
  authority::Actor actor = authority::Actor::LocalUser();
  // Mints the person's web sessions (POST /api/session); null: nobody can hold one.
  PersonSessions* sessions = nullptr;
  // The gate's refusals, shown by GET /deploy-truth, and the decisions refused here (null: not
  // counted, not shown).
  RefusalCounts* refusals = nullptr;
  // Slows sources that keep presenting wrong sign-in codes (shared with the gate's tokens; null:
  // never slowed). The person's own browser on this machine needs no code and is never slowed.
  CredentialBackoff* backoff = nullptr;
  // The connectors POST /api/query re-executes through (null: no connectors; the query routes
  // answer server.no_connectors). Reads need the person's read grant, as for the model.
  connect::ConnectorRoad* road = nullptr;
};

class Api {
 public:
  Api(store::Store& store, TurnHub& hub, ApiOptions options);
  ~Api();

  // Handlers keyed by route name ("POST /api/chat"): what Router::Build takes.
  std::map<std::string, Handler> Handlers();

  HttpResponse PostChat(const HttpRequest& r);
  HttpResponse ResumeStream(const HttpRequest& r);
  HttpResponse CancelTurn(const HttpRequest& r);
  HttpResponse ListThreads(const HttpRequest& r);
  HttpResponse CreateThread(const HttpRequest& r);
  HttpResponse ReadThread(const HttpRequest& r);
  HttpResponse RenameThread(const HttpRequest& r);
  HttpResponse DeleteThread(const HttpRequest& r);
  HttpResponse AcknowledgeSurface(const HttpRequest& r);
  HttpResponse DeployTruth(const HttpRequest& r);
  // The person's web session (person_session.h): minted for a loopback peer owned by the server's
  // OS user, or for a sign-in code from `affordance login-link`.
  HttpResponse StartPersonSession(const HttpRequest& r);
  // Artifacts and two-time grounding (artifact_api.cpp, docs/SURFACE.md).
  HttpResponse Query(const HttpRequest& r);
  HttpResponse ListArtifacts(const HttpRequest& r);
  HttpResponse ReadArtifact(const HttpRequest& r);
  HttpResponse StageArtifactMutation(const HttpRequest& r);
  HttpResponse WebIndex(const HttpRequest& r);
  HttpResponse WebAsset(const HttpRequest& r);

 private:
  // The stored thread a chat id names ("" when none). A stock useChat picks its own chat ids;
  // POST /api/chat creates the thread with that id.
  std::string ThreadFor(const std::string& chat_id);
  HttpResponse File(const std::string& path);
  // Who acted, as every record of this request names it (docs/SECURITY.md): the person (`actor`)
  // for a person session, else the client's credential ("client:token", "client:local").
  authority::Actor ActorOf(const HttpRequest& r) const;
  HttpResponse PostDecisions(const HttpRequest& r, const std::string& chat_id,
                             const nlohmann::ordered_json& message);

  store::Store& store_;
  TurnHub& hub_;
  ApiOptions options_;
  std::mutex authority_mu_;         // one Authority, used from every IO thread
  authority::Authority authority_;  // decisions only (no connector road)
  std::mutex live_mu_;
  std::unique_ptr<authority::Authority> live_auth_;  // used only under live_mu_
  // Live apps over options_.road, one per actor (its reads are logged as that actor's), made on
  // first use.
  std::map<std::string, std::unique_ptr<surface::LiveApps>> live_;
};

}  // namespace affordance::server

// The gate: every request passes it before a handler runs, and it decides the request's plane
// (docs/SECURITY.md owns the table; authority/capability.h names the planes):
//
//   1. Host. Only a Host that names this server is served: 127.0.0.1:PORT, localhost:PORT,
//      [::1]:PORT, the bound address when it is a specific one, and each public host the operator
//      configured. Anything else (a rebound DNS name, an empty or missing Host) is 421
//      "server.foreign_host" on every route, static files and /mcp included. This is what defeats
//      DNS rebinding: the browser sends the attacker's name.
//   2. Origin. A present Origin must be one of this server's own origins (http://<allowed host>,
//      and https:// for public hosts) or an origin the operator allowed for CORS; else 403
//      "server.foreign_origin". Never derived from the request's Host.
//   3. Fetch metadata. `Sec-Fetch-Site: cross-site` or `same-site` (another port of localhost is
//      same-site) is 403 "server.cross_site" on every request but a GET of the public static
//      files, unless the Origin is one the operator allowed.
//   4. Content type. A POST, PUT or PATCH, and any request with a body, must say
//      `Content-Type: application/json` (415 "server.bad_content_type"): the three content types a
//      foreign page may send without a CORS preflight (text/plain, form-encoded, multipart) are
//      thereby refused.
//   5. The plane. A valid person session (x-affordance-session, person_session.h) sent with no
//      Origin or one of our own: person. Else a matching `authorization: Bearer <access token>`:
//      client. Else, when no token is configured, a loopback peer owned by the OS user who runs
//      the server: client. Else: anyone. A route declared for a higher plane is refused: 401
//      "server.unauthorized" (a token is needed), 403 "server.foreign_user" (another OS user's
//      loopback connection, no token configured), 403 "server.person_only" (deciding).
//
//   A wrong access token is counted as "server.wrong_token" (whatever the route needs) and charged
//   to its source in GateOptions::backoff (credential_backoff.h); a source that must wait has its
//   token refused unchecked: 429 "server.slow_down". A valid person session is never slowed.
//
// Each refusal is counted by code in GateOptions::refusals (GET /deploy-truth shows them).
//
// Thread safety: immutable after construction; Admit from any thread.
#pragma once

#include "authority/capability.h"
#include "base/result.h"
#include "server/credential_backoff.h"
#include "server/person_session.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace affordance::server {

struct HttpRequest;

// Refusals by code, shared by the gate and whoever reports them. Thread-safe.
class RefusalCounts {
 public:
  void Count(const std::string& code);
  std::map<std::string, int64_t> Snapshot() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, int64_t> counts_;
};

struct GateOptions {
  uint16_t port = 0;      // the bound port
  std::string bind_host;  // the bound address ("127.0.0.1", "::1", "192.168.1.5", "0.0.0.0")
  // Names a browser or client uses to reach this server from elsewhere (remote mode, a reverse
  // proxy): "NAME" (then Host "NAME" or "NAME:PORT") or "NAME:PORT" (exactly that).
  std::vector<std::string> public_hosts;
  // Origins a page on another site may call from (CORS, answered with Access-Control-Allow-*);
  // exact strings like "https://app.example". Empty: no CORS headers are ever sent.
  std::vector<std::string> allowed_origins;
  std::string access_token;                  // "" = none configured
  const PersonSessions* sessions = nullptr;  // null: nobody can hold a person session
  uint32_t server_uid = 0;                   // the OS user who runs the server
  RefusalCounts* refusals = nullptr;         // null: not counted
  CredentialBackoff* backoff = nullptr;      // slows wrong access tokens (null: never slowed)
};

// Checks the configured names and origins. Errors: "server.bad_public_host",
// "server.bad_origin" (an origin is scheme://host[:port] with no path).
Status CheckGateOptions(const GateOptions& options);

class Gate {
 public:
  explicit Gate(GateOptions options);

  // Step 1 alone (it runs before routing, so a foreign Host learns nothing, not even a 404).
  bool HostAllowed(std::string_view host) const;

  struct Admission {
    authority::Access plane = authority::Access::kAnyone;
    bool person_session_invalid = false;  // a session was sent but is expired or not ours
    bool own_origin = true;               // no Origin, or one of our own (not a CORS origin)
    // The credential that met the plane, as records name who acted: "person" (a person
    // session), "client:token" (the access token), "client:local" (a loopback process of the
    // server's OS user on a server with no token), "anyone" (none).
    std::string credential = "anyone";
  };
  // Steps 2-5 for a request to a route that needs `needed`. The error's code is one of those above.
  Result<Admission> Admit(const HttpRequest& request, authority::Access needed) const;

  // Whether `origin` is one the operator allowed for CORS (then responses carry the CORS headers).
  bool CorsOrigin(std::string_view origin) const;
  // Headers of a CORS preflight answer / of a response to an allowed origin.
  std::vector<std::pair<std::string, std::string>> CorsHeaders(std::string_view origin,
                                                               bool preflight) const;

  // Counts a refusal the session makes itself (the Host, a preflight).
  void Count(const std::string& code) const;

  const GateOptions& options() const { return options_; }

 private:
  bool OwnOrigin(std::string_view origin) const;
  Error Refuse(ErrorKind kind, std::string code, std::string message) const;

  GateOptions options_;
  std::vector<std::string> hosts_;    // Host values we answer (compared case-insensitively)
  std::vector<std::string> origins_;  // our own origins (likewise)
};

}  // namespace affordance::server

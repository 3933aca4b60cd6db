// The router: built FROM the capability registry, so a route that is not declared cannot exist.
//
// A route's name is its capability name in the "http" door: "<METHOD> <pattern>", where the
// pattern's segments are literals or `{param}` (one non-empty segment). Router::Build takes the
// handlers the server implements, keyed by that name; a handler whose name is not declared is an
// error ("server.undeclared_route"), and a declared route nobody implements is reported by
// Unserved() (a test fails on it).
//
// Thread safety: immutable after Build; Find from any thread.
#pragma once

#include "authority/capability.h"
#include "base/result.h"
#include "server/protocol.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace affordance::server {

class ActiveTurn;

struct HttpRequest {
  std::string method;
  std::string path;  // percent-decoded per segment by Find
  std::string body;
  std::map<std::string, std::string> params;  // {param} values of the matched route
  ClientProtocol client;
  // The request's header fields (as sent, in arrival order) and its peer: what the MCP
  // door needs (Origin, MCP-Protocol-Version, Mcp-Session-Id; the operator session is minted only
  // for a loopback peer).
  std::vector<std::pair<std::string, std::string>> headers;
  std::string peer_address;
  bool peer_loopback = false;
  // For a loopback peer: the OS user owning its socket (server/peer_user.h), when known.
  std::optional<uint32_t> peer_uid;
  // Set by the gate (server/gate.h): the request's plane, and whether it carried a person
  // session that is no longer valid.
  authority::Access plane = authority::Access::kAnyone;
  bool person_session_invalid = false;
  bool own_origin = true;             // no Origin, or one of this server's own (not a CORS origin)
  std::string credential = "anyone";  // Gate::Admission::credential: who acted, for records
  // The first value of a header field (names compare case-insensitively), "" when absent.
  std::string Header(std::string_view name) const;
  bool HasHeader(std::string_view name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  // Set for a UI message stream: the session subscribes to this turn instead of sending `body`.
  std::shared_ptr<ActiveTurn> stream;
  // The stream re-attaches to a running turn (server/protocol.h ClientStream).
  bool resumed = false;
  // Set for a response that is not ready yet (an MCP tool call that runs a turn): the session
  // calls it once, at once, with the function that sends the response; that function may be
  // called from any thread, once (later calls are ignored).
  std::function<void(std::function<void(HttpResponse)>)> deferred;
};

// A JSON error response: the status is the error kind's (base/result.h HttpStatusOf), the body
// {"error": {code, message, detail?, category}} (see docs/SERVER.md).
HttpResponse ErrorResponse(const Error& error);

using Handler = std::function<HttpResponse(const HttpRequest&)>;

struct Route {
  authority::Capability capability;  // what the registry declares for it
  std::string method;
  std::vector<std::string> segments;  // "api", "threads", "{id}"
  Handler handler;
};

class Router {
 public:
  static Result<Router> Build(const authority::CapabilityRegistry& registry,
                              std::map<std::string, Handler> handlers);

  struct Match {
    const Route* route = nullptr;  // null: no route
    bool path_exists = false;      // some route has this path with another method
    std::map<std::string, std::string> params;
  };
  // Exact matching of the method and of literal segments (no case folding, no patterns).
  Match Find(std::string_view method, std::string_view path) const;

  const std::vector<Route>& routes() const { return routes_; }
  // Declared "http" capabilities that no handler serves.
  const std::vector<std::string>& unserved() const { return unserved_; }

 private:
  std::vector<Route> routes_;
  std::vector<std::string> unserved_;
};

// "/a/b%20c/" -> {"a", "b c"}; nullopt-like empty vector + false for a malformed escape.
bool SplitPath(std::string_view path, std::vector<std::string>& segments);

}  // namespace affordance::server

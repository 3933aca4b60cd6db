// How the server's HTTP routes are declared in the capability registry (door "http") and bound to
// their handlers: one builder and one route table for routes.cpp, artifact_api.cpp and
// mcp_http.cpp.
#pragma once

#include "authority/capability.h"
#include "server/router.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace affordance::server {
class Api;
}  // namespace affordance::server

namespace affordance::server::internal {

inline authority::Capability Http(std::string name, std::string object, std::string action,
                                  authority::Access access, authority::Mode mode,
                                  std::string description,
                                  nlohmann::json params = nlohmann::json::object(),
                                  nlohmann::json result = nlohmann::json::object(),
                                  std::string proof = "", std::string grant = "",
                                  std::string receipt = "") {
  return authority::MakeCapability("http", std::move(name), std::move(object), std::move(action),
                                   access, mode, std::move(description), std::move(params),
                                   std::move(result), std::move(grant), std::move(receipt),
                                   std::move(proof));
}

// A JSON Schema object with these properties.
inline nlohmann::json Obj(nlohmann::json properties,
                          nlohmann::json required = nlohmann::json::array()) {
  return {
      {"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(required)}};
}

// One route: its declaration and the member function of `Owner` that serves it, in one entry, so
// the route's name ("POST /api/chat") is written once. A table of them is declared at static
// initialisation (DeclareRoutes) and bound to the owner by the same table (BindRoutes), so a
// route cannot be served without its declaration nor declared under another name.
template <class Owner>
struct RouteEntry {
  authority::Capability capability;  // door "http", named "<METHOD> <pattern>"
  HttpResponse (Owner::*serve)(const HttpRequest&);
};

template <class Owner>
using RouteTable = std::vector<RouteEntry<Owner>>;

// Declares every route of `table` in the global registry (a declaration error aborts, as
// DeclareCapability does); returns true, for a static bool.
template <class Owner>
bool DeclareRoutes(const RouteTable<Owner>& table) {
  for (const auto& route : table) authority::DeclareCapability(route.capability);
  return true;
}

// Adds one handler per route of `table`, calling `owner`, keyed by the route's name: what
// Router::Build takes. `owner` must outlive the handlers.
template <class Owner>
void BindRoutes(Owner& owner, const RouteTable<Owner>& table,
                std::map<std::string, Handler>& handlers) {
  for (const auto& route : table) {
    handlers.emplace(route.capability.name, [&owner, serve = route.serve](const HttpRequest& r) {
      return (owner.*serve)(r);
    });
  }
}

// The routes served by artifact_api.cpp (Api::Handlers binds them with those of routes.cpp).
const RouteTable<Api>& ArtifactRoutes();

}  // namespace affordance::server::internal

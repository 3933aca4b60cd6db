#include "server/router.h"

#include <boost/beast/core/string.hpp>

namespace affordance::server {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsParam(const std::string& s) { return s.size() > 2 && s.front() == '{' && s.back() == '}'; }

}  // namespace

int StatusFor(const std::string& code) {
  static const std::map<std::string, int> kStatus = {
      {"server.bad_json", 400},
      {"server.bad_request", 400},
      {"server.bad_path", 400},
      {"server.bad_client_version", 400},
      {"server.empty_message", 400},
      {"server.unsupported_trigger", 400},
      {"harness.empty_message", 400},
      {"server.unauthorized", 401},
      {"server.not_found", 404},
      {"server.unknown_thread", 404},
      {"store.not_found", 404},
      {"server.unknown_surface", 404},
      {"server.no_active_turn", 404},
      {"server.no_web", 404},
      {"server.method_not_allowed", 405},
      {"server.timeout", 408},
      {"server.turn_active", 409},
      {"server.static_surface", 409},
      {"server.body_too_large", 413},
      {"server.busy", 503},
      {"server.stopping", 503},
      {"server.no_decision", 400},
      {"server.unknown_approval", 404},
      {"authority.already_decided", 409},
      {"authority.not_human", 403},
      {"harness.nothing_to_continue", 409},
      {"server.no_connectors", 409},
      {"surface.binding_mismatch", 409},
      {"surface.unknown_statement", 404},
      {"surface.not_a_live_app", 409},
      {"surface.not_live", 409},
      {"surface.not_a_mutation", 409},
      {"surface.args_required", 400},
      {"authority.no_grant", 403},
      {"authority.grant_expired", 403},
      {"authority.bad_args", 400},
      {"connect.bad_args", 400},
      // The gate (server/gate.h) and the person's session (person_session.h).
      {"server.foreign_host", 421},
      {"server.foreign_origin", 403},
      {"server.cross_site", 403},
      {"server.bad_content_type", 415},
      {"server.foreign_user", 403},
      {"server.person_only", 403},
      {"server.person_session_expired", 401},
      {"server.no_person_proof", 403},
      {"server.too_deep", 400},
      {"mcp.too_deep", 400},
  };
  auto it = kStatus.find(code);
  return it == kStatus.end() ? 500 : it->second;
}

std::string HttpRequest::Header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (boost::beast::iequals(k, boost::beast::string_view(name.data(), name.size())))
      return v;  // field names are case-insensitive (RFC 9110)
  }
  return "";
}

bool HttpRequest::HasHeader(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (boost::beast::iequals(k, boost::beast::string_view(name.data(), name.size()))) return true;
  }
  return false;
}

HttpResponse ErrorResponse(const Error& error) {
  HttpResponse r;
  r.status = StatusFor(error.code);
  r.body = ErrorBody(error);
  return r;
}

bool SplitPath(std::string_view path, std::vector<std::string>& segments) {
  segments.clear();
  if (path.empty() || path.front() != '/') return false;
  std::string current;
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '/') {
      if (!current.empty()) segments.push_back(std::move(current));
      current.clear();
      continue;
    }
    char c = path[i];
    if (c == '%') {
      if (i + 2 >= path.size()) return false;
      int hi = HexValue(path[i + 1]), lo = HexValue(path[i + 2]);
      if (hi < 0 || lo < 0) return false;
      c = static_cast<char>(hi * 16 + lo);
      i += 2;
    }
    current.push_back(c);
  }
  return true;
}

Result<Router> Router::Build(const authority::CapabilityRegistry& registry,
                             std::map<std::string, Handler> handlers) {
  Router router;
  for (const auto& cap : registry.OfDoor("http")) {
    auto h = handlers.find(cap.name);
    if (h == handlers.end()) {
      router.unserved_.push_back(cap.name);
      continue;
    }
    const size_t space = cap.name.find(' ');
    if (space == std::string::npos) {
      return MakeError("server.bad_route", "an http capability is named \"METHOD /path\"",
                       cap.name);
    }
    Route route;
    route.capability = cap;
    route.method = cap.name.substr(0, space);
    if (!SplitPath(cap.name.substr(space + 1), route.segments)) {
      return MakeError("server.bad_route", "the route's path is malformed", cap.name);
    }
    route.handler = std::move(h->second);
    handlers.erase(h);
    router.routes_.push_back(std::move(route));
  }
  if (!handlers.empty()) {
    return MakeError("server.undeclared_route",
                     "a route has a handler but no capability declaration (door \"http\")",
                     handlers.begin()->first);
  }
  return router;
}

Router::Match Router::Find(std::string_view method, std::string_view path) const {
  Match match;
  std::vector<std::string> segments;
  if (!SplitPath(path, segments)) return match;
  for (const auto& route : routes_) {
    if (route.segments.size() != segments.size()) continue;
    std::map<std::string, std::string> params;
    bool same = true;
    for (size_t i = 0; i < segments.size() && same; ++i) {
      const std::string& want = route.segments[i];
      if (IsParam(want)) {
        params[want.substr(1, want.size() - 2)] = segments[i];
      } else {
        same = want == segments[i];
      }
    }
    if (!same) continue;
    if (route.method != method) {
      match.path_exists = true;
      continue;
    }
    match.route = &route;
    match.params = std::move(params);
    return match;
  }
  return match;
}

}  // namespace affordance::server

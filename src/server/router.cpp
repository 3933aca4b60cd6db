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
  r.status = HttpStatusOf(error.kind);  // base/result.h: one mapping for every door
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

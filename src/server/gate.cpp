#include "server/gate.h"

#include "server/operator_root.h"
#include "server/router.h"

#include <boost/asio/ip/address.hpp>
#include <boost/beast/core/string.hpp>

#include <algorithm>
#include <cctype>

namespace affordance::server {
namespace {

using authority::Access;

// Host names, origins, media types and the auth scheme are case-insensitive protocol tokens
// (RFC 9110, RFC 6454); they are compared as such, never folded as text.
bool Same(std::string_view a, std::string_view b) {
  return boost::beast::iequals(boost::beast::string_view(a.data(), a.size()),
                               boost::beast::string_view(b.data(), b.size()));
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool Contains(const std::vector<std::string>& list, std::string_view value) {
  return std::any_of(list.begin(), list.end(),
                     [&](const std::string& e) { return Same(e, value); });
}

// "name", "name:port", "[v6]", "[v6]:port" with a name of letters, digits, '-', '.' (or a
// bracketed IPv6 address).
bool ValidHostEntry(std::string_view entry) {
  if (entry.empty() || entry.size() > 255) return false;
  std::string_view name = entry;
  std::string_view port;
  if (entry.front() == '[') {
    const size_t close = entry.find(']');
    if (close == std::string_view::npos) return false;
    boost::system::error_code ec;
    boost::asio::ip::make_address_v6(std::string(entry.substr(1, close - 1)), ec);
    if (ec) return false;
    name = {};
    if (close + 1 < entry.size()) {
      if (entry[close + 1] != ':') return false;
      port = entry.substr(close + 2);
    }
  } else if (const size_t colon = entry.find(':'); colon != std::string_view::npos) {
    name = entry.substr(0, colon);
    port = entry.substr(colon + 1);
    if (name.empty()) return false;
  }
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.') return false;
  }
  if (entry.find(':') != std::string_view::npos && entry.front() != '[' && port.empty()) {
    return false;
  }
  if (!port.empty()) {
    if (port.size() > 5 ||
        !std::all_of(port.begin(), port.end(), [](unsigned char c) { return std::isdigit(c); })) {
      return false;
    }
    if (std::stoi(std::string(port)) > 65535) return false;
  }
  return true;
}

bool HasPort(std::string_view entry) {
  if (!entry.empty() && entry.front() == '[') {
    return entry.find("]:") != std::string_view::npos;
  }
  return entry.find(':') != std::string_view::npos;
}

// scheme://host[:port], nothing after it.
bool ValidOrigin(std::string_view origin) {
  for (std::string_view scheme : {"http://", "https://"}) {
    if (origin.substr(0, scheme.size()) == scheme) {
      return ValidHostEntry(origin.substr(scheme.size()));
    }
  }
  return false;
}

}  // namespace

void RefusalCounts::Count(const std::string& code) {
  std::lock_guard lock(mu_);
  ++counts_[code];
}

std::map<std::string, int64_t> RefusalCounts::Snapshot() const {
  std::lock_guard lock(mu_);
  return counts_;
}

Status CheckGateOptions(const GateOptions& options) {
  for (const auto& h : options.public_hosts) {
    if (!ValidHostEntry(h)) {
      return MakeError("server.bad_public_host",
                       "--public-host is NAME or NAME:PORT (a DNS name, an IPv4 address or a "
                       "bracketed IPv6 address)",
                       h);
    }
  }
  for (const auto& o : options.allowed_origins) {
    if (!ValidOrigin(o)) {
      return MakeError("server.bad_origin",
                       "--allow-origin is an origin: http(s)://HOST[:PORT] with no path", o);
    }
  }
  return {};
}

Gate::Gate(GateOptions options) : options_(std::move(options)) {
  const std::string port = std::to_string(options_.port);
  auto add = [&](const std::string& host) {
    hosts_.push_back(host + ":" + port);
    if (options_.port == 80) hosts_.push_back(host);  // a browser leaves out the default port
  };
  add("127.0.0.1");
  add("localhost");
  add("[::1]");
  boost::system::error_code ec;
  const auto bound = boost::asio::ip::make_address(options_.bind_host, ec);
  if (!ec && !bound.is_unspecified()) {  // a wildcard names no host: public hosts do
    add(bound.is_v6() ? "[" + bound.to_string() + "]" : bound.to_string());
  }
  for (const auto& host : hosts_) origins_.push_back("http://" + host);

  for (const auto& entry : options_.public_hosts) {
    const std::string& h = entry;
    std::vector<std::string> names = {h};
    if (!HasPort(h)) names.push_back(h + ":" + port);
    for (const auto& n : names) {
      hosts_.push_back(n);
      // A public host may sit behind a TLS proxy: both schemes are its own origins.
      origins_.push_back("http://" + n);
      origins_.push_back("https://" + n);
    }
  }
}

bool Gate::HostAllowed(std::string_view host) const {
  host = Trim(host);
  return !host.empty() && Contains(hosts_, host);
}

bool Gate::OwnOrigin(std::string_view origin) const { return Contains(origins_, origin); }

bool Gate::CorsOrigin(std::string_view origin) const {
  return !origin.empty() && Contains(options_.allowed_origins, origin);
}

std::vector<std::pair<std::string, std::string>> Gate::CorsHeaders(std::string_view origin,
                                                                   bool preflight) const {
  std::vector<std::pair<std::string, std::string>> h = {
      {"access-control-allow-origin", std::string(origin)}, {"vary", "Origin"}};
  if (preflight) {
    h.emplace_back("access-control-allow-methods", "GET, POST, PATCH, DELETE");
    h.emplace_back("access-control-allow-headers",
                   "authorization, content-type, x-ai-sdk-version, mcp-session-id, "
                   "mcp-protocol-version, last-event-id");
    h.emplace_back("access-control-max-age", "600");
  } else {
    h.emplace_back("access-control-expose-headers", "mcp-session-id");
  }
  return h;
}

void Gate::Count(const std::string& code) const {
  if (options_.refusals) options_.refusals->Count(code);
}

Error Gate::Refuse(ErrorKind kind, std::string code, std::string message) const {
  Count(code);
  return MakeError(kind, std::move(code), std::move(message));
}

Result<Gate::Admission> Gate::Admit(const HttpRequest& r, Access needed) const {
  const std::string origin = r.Header("origin");
  const bool has_origin = r.HasHeader("origin");  // present, even empty or "null"
  const bool cors = CorsOrigin(origin);
  if (has_origin && !cors && !OwnOrigin(origin)) {
    return Refuse(ErrorKind::kForbidden, "server.foreign_origin",
                  "this Origin may not use this server (a page of another site); the operator "
                  "can allow one with --allow-origin");
  }
  // Public static files may be fetched by a page elsewhere that links to them (a navigation,
  // an image); everything else, and every write, is refused from another site.
  const bool safe = r.method == "GET" || r.method == "HEAD";
  if ((needed != Access::kAnyone || !safe) && !cors) {
    const std::string header = r.Header("sec-fetch-site");
    const std::string site(Trim(header));
    if (Same(site, "cross-site") || Same(site, "same-site")) {
      return Refuse(ErrorKind::kForbidden, "server.cross_site",
                    "a request from a page of another site (Sec-Fetch-Site: " + site +
                        ") may not use this server");
    }
  }
  const bool sends_body =
      r.method == "POST" || r.method == "PUT" || r.method == "PATCH" || !r.body.empty();
  if (sends_body) {
    const std::string type = r.Header("content-type");
    if (!Same(Trim(std::string_view(type).substr(0, type.find(';'))), "application/json")) {
      return Refuse(ErrorKind::kUnsupportedMedia, "server.bad_content_type",
                    "the request body must be sent as Content-Type: application/json");
    }
  }

  Admission a;
  a.own_origin = !has_origin || OwnOrigin(origin);
  const std::string session = r.Header(kPersonSessionHeader);
  // Only a page of our own origin holds the person's session; on a CORS origin's request the
  // header is ignored (that page is a client at most).
  if (!session.empty() && a.own_origin) {
    if (options_.sessions != nullptr && options_.sessions->Verify(session)) {
      a.plane = Access::kPerson;
      a.credential = "person";
    } else {
      a.person_session_invalid = true;
    }
  }
  const bool token_configured = !options_.access_token.empty();
  if (a.plane < Access::kClient && token_configured && r.HasHeader("authorization")) {
    const std::string auth = r.Header("authorization");
    constexpr std::string_view kBearer = "bearer ";
    const std::string source = CredentialBackoff::SourceOf(r);
    if (options_.backoff != nullptr) {
      if (const int64_t wait = options_.backoff->WaitMs(source); wait > 0) {
        return Refuse(ErrorKind::kTooManyRequests, "server.slow_down",
                      "too many wrong access tokens from here: try again in " +
                          std::to_string((wait + 999) / 1000) + " s");
      }
    }
    if (auth.size() > kBearer.size() &&
        Same(std::string_view(auth).substr(0, kBearer.size()), kBearer) &&
        SecretMatches(Trim(std::string_view(auth).substr(kBearer.size())), options_.access_token)) {
      a.plane = Access::kClient;
      a.credential = "client:token";
      if (options_.backoff != nullptr) options_.backoff->Succeed(source);
    } else {
      Count("server.wrong_token");
      if (options_.backoff != nullptr) options_.backoff->Fail(source);
    }
  }
  if (a.plane < Access::kClient && !token_configured && r.peer_loopback && r.peer_uid &&
      *r.peer_uid == options_.server_uid) {
    a.plane = Access::kClient;
    a.credential = "client:local";
  }
  if (a.plane >= needed) return a;
  if (needed == Access::kPerson) {
    if (a.person_session_invalid) {
      return Refuse(ErrorKind::kUnauthenticated, "server.person_session_expired",
                    "the web session has expired or was not made by this server: reload the page "
                    "to start a new one");
    }
    return Refuse(ErrorKind::kForbidden, "server.person_only",
                  "approving, denying and granting are the person's: use the web UI opened on "
                  "this machine, `affordance approvals approve|deny`, or an operator MCP session");
  }
  if (token_configured) {
    return Refuse(ErrorKind::kUnauthenticated, "server.unauthorized",
                  "this server needs authorization: Bearer <token>");
  }
  return Refuse(ErrorKind::kForbidden, "server.foreign_user",
                "this server serves only the OS user who started it; another user or a process "
                "it cannot identify needs the server to be started with an access token");
}

}  // namespace affordance::server

#include "server/mcp_http.h"

#include "authority/capability.h"
#include "server/internal/declare.h"
#include "server/operator_root.h"
#include "store/store.h"

#include <algorithm>
#include <optional>

namespace affordance::server {
namespace {

using nlohmann::json;

authority::Capability Route(std::string name, std::string action, authority::Mode mode,
                            std::string desc, std::string proof) {
  return authority::MakeCapability(
      "http", std::move(name), "mcp", std::move(action), authority::Access::kClient, mode,
      std::move(desc),
      {{"type", "object"}, {"description", "one JSON-RPC 2.0 message (MCP Streamable HTTP)"}},
      {{"type", "object"}, {"description", "one JSON-RPC 2.0 response, or 202"}}, "", "",
      std::move(proof));
}

// The MCP door's two routes: each one's declaration and its handler, one entry each (declare.h).
const internal::RouteTable<McpHttp>& Routes() {
  static const internal::RouteTable<McpHttp> kRoutes = {
      {Route("POST /mcp", "call", authority::Mode::kLocalState,
             "MCP over Streamable HTTP: initialize, tools/list, tools/call (each tool is declared "
             "in door mcp)",
             "each MCP tool's own proof (door mcp)"),
       &McpHttp::Post},
      {Route("DELETE /mcp", "end", authority::Mode::kLocalState,
             "end an MCP session (Mcp-Session-Id)", "later requests with the id get 404"),
       &McpHttp::Delete},
  };
  return kRoutes;
}

const bool declared = internal::DeclareRoutes(Routes());

HttpResponse JsonRpc(int status, const json& body) {
  HttpResponse r;
  r.status = status;
  r.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
  return r;
}

HttpResponse Refuse(int status, int code, const std::string& message,
                    const std::string& ours = "") {
  json data = nullptr;
  if (!ours.empty()) data = {{"code", ours}};
  return JsonRpc(status, mcp::ErrorMessage(nullptr, code, message, data));
}

HttpResponse Accepted() {
  HttpResponse r;
  r.status = 202;
  r.content_type.clear();
  return r;
}

}  // namespace

McpHttp::McpHttp(const mcp::McpProtocol& protocol, McpHttpOptions options)
    : protocol_(protocol), options_(std::move(options)) {}

std::map<std::string, Handler> McpHttp::Handlers() {
  std::map<std::string, Handler> handlers;
  internal::BindRoutes(*this, Routes(), handlers);
  return handlers;
}

size_t McpHttp::sessions() const {
  std::lock_guard lock(mu_);
  const int64_t now = Now();
  return static_cast<size_t>(std::count_if(sessions_.begin(), sessions_.end(),
                                           [&](const auto& e) { return !Idle(*e.second, now); }));
}

int64_t McpHttp::Now() const { return options_.now_ms ? options_.now_ms() : store::NowMs(); }

bool McpHttp::Idle(const mcp::Session& s, int64_t now) const {
  return options_.idle_timeout_ms > 0 && now - s.last_used_ms() > options_.idle_timeout_ms;
}

std::shared_ptr<mcp::Session> McpHttp::Find(const std::string& id, const std::string& owner) {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return nullptr;
  const int64_t now = Now();
  if (Idle(*it->second, now)) {  // ended while unused (a call still running keeps its session)
    sessions_.erase(it);
    return nullptr;
  }
  // Another credential, OS user or address naming it learns nothing and renews nothing.
  if (it->second->owner() != owner) return nullptr;
  it->second->Touch(now, ++uses_);
  return it->second;
}

void McpHttp::Add(std::shared_ptr<mcp::Session> session) {
  std::lock_guard lock(mu_);
  const int64_t now = Now();
  std::erase_if(sessions_, [&](const auto& entry) { return Idle(*entry.second, now); });
  // The least recently used session of `owner` ("" = of whoever holds the most).
  auto oldest_of = [&](const std::string& owner) {
    auto best = sessions_.end();
    for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
      if (it->second->owner() != owner) continue;
      if (best == sessions_.end() ||
          it->second->last_used_order() < best->second->last_used_order()) {
        best = it;
      }
    }
    return best;
  };
  size_t own = 0;
  for (const auto& [id, s] : sessions_) own += s->owner() == session->owner() ? 1 : 0;
  for (; own >= std::max<size_t>(1, options_.max_sessions_per_client); --own) {
    sessions_.erase(oldest_of(session->owner()));
  }
  while (!sessions_.empty() && sessions_.size() >= std::max<size_t>(1, options_.max_sessions)) {
    std::map<std::string, size_t> held;
    for (const auto& [id, s] : sessions_) ++held[s->owner()];
    auto most = std::max_element(held.begin(), held.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    sessions_.erase(oldest_of(most->first));
  }
  session->Touch(now, ++uses_);
  sessions_[session->id()] = std::move(session);
}

namespace {

// Who a request comes from, as a session's owner: the plane it asked for, its credential (the
// access token, or none: the loopback user), the OS user owning its socket and, for a peer
// elsewhere, its address. (A person's web session gives the MCP door nothing, so it is no part of
// it.) Two requests with the same owner are the same client as far as the server can tell.
std::string OwnerOf(const HttpRequest& r, bool operator_session) {
  std::string owner = operator_session ? "operator" : "normal";
  owner += r.HasHeader("authorization") ? ";token" : "";
  if (r.peer_uid) owner += ";uid=" + std::to_string(*r.peer_uid);
  if (!r.peer_loopback) owner += ";peer=" + r.peer_address;
  return owner;
}

HttpResponse HeaderMismatch(const json& id, const std::string& message) {
  return JsonRpc(400, mcp::ErrorMessage(id, mcp::kHeaderMismatch, "header mismatch: " + message));
}

// RFC 4648 Base64 with padding; nullopt for anything else.
std::optional<std::string> DecodeBase64(std::string_view in) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  if (in.empty() || in.size() % 4 != 0) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < in.size(); i += 4) {
    int v[4];
    for (int j = 0; j < 4; ++j) {
      const char c = in[i + j];
      const bool last = i + 4 == in.size();
      v[j] = c == '=' && last && j >= 2 ? -2 : value(c);
      if (v[j] == -1) return std::nullopt;
    }
    if (v[2] == -2 && v[3] != -2) return std::nullopt;
    out.push_back(static_cast<char>((v[0] << 2) | (v[1] >> 4)));
    if (v[2] != -2) out.push_back(static_cast<char>(((v[1] & 15) << 4) | (v[2] >> 2)));
    if (v[3] != -2) out.push_back(static_cast<char>(((v[2] & 3) << 6) | v[3]));
  }
  return out;
}

// An Mcp-Name value as the client meant it: a `=?base64?...?=` value decoded; nullopt for a
// malformed one.
std::optional<std::string> HeaderValue(std::string_view v) {
  constexpr std::string_view kPrefix = "=?base64?", kSuffix = "?=";
  if (v.size() >= kPrefix.size() + kSuffix.size() && v.substr(0, kPrefix.size()) == kPrefix &&
      v.substr(v.size() - kSuffix.size()) == kSuffix) {
    return DecodeBase64(v.substr(kPrefix.size(), v.size() - kPrefix.size() - kSuffix.size()));
  }
  return std::string(v);
}

// The body field Mcp-Name mirrors for `method` ("" when none does).
std::string NameField(const std::string& method) {
  if (method == "tools/call" || method == "prompts/get") return "name";
  if (method == "resources/read") return "uri";
  return "";
}

}  // namespace

std::variant<bool, HttpResponse> McpHttp::OperatorOf(const HttpRequest& r, const json& id) const {
  const std::string presented = r.Header(kOperatorSecretHeader);
  if (presented.empty()) return false;
  if (!r.peer_loopback) {
    return JsonRpc(403, mcp::ErrorMessage(id, mcp::kInvalidRequest,
                                          "the operator plane is only for a loopback client; this "
                                          "request came from " +
                                              r.peer_address,
                                          {{"code", "mcp.operator_not_loopback"}}));
  }
  if (!SecretMatches(presented, options_.operator_secret)) {
    return JsonRpc(403, mcp::ErrorMessage(id, mcp::kInvalidRequest,
                                          "the operator secret does not match the local trust "
                                          "root (operator.secret in the data folder)",
                                          {{"code", "mcp.bad_operator_secret"}}));
  }
  return true;
}

HttpResponse McpHttp::Initialize(const HttpRequest& r, const mcp::McpProtocol::Parsed& m) {
  if (!r.Header("mcp-session-id").empty()) {
    return JsonRpc(400, mcp::ErrorMessage(m.id, mcp::kInvalidRequest,
                                          "initialize starts a new session: send it without "
                                          "Mcp-Session-Id"));
  }
  auto plane = OperatorOf(r, m.id);
  if (auto* refused = std::get_if<HttpResponse>(&plane)) return std::move(*refused);
  const bool operator_session = std::get<bool>(plane);
  auto session = std::make_shared<mcp::Session>(RandomHex(16), operator_session, "http",
                                                OwnerOf(r, operator_session));
  json response;
  protocol_.Handle(m, session, [&](json j) { response = std::move(j); });
  if (!response.contains("result")) return JsonRpc(400, response);
  Add(session);
  HttpResponse out = JsonRpc(200, response);
  out.headers.emplace_back("mcp-session-id", session->id());
  return out;
}

// Host, Origin (an exact match against the server's own origins, never derived from Host),
// fetch metadata, Content-Type and the access token were checked by the gate (server/gate.h)
// before this handler runs.
HttpResponse McpHttp::Post(const HttpRequest& r) {
  const std::string accept = r.Header("accept");
  if (!accept.empty() && accept.find("application/json") == std::string::npos &&
      accept.find("*/*") == std::string::npos) {
    return Refuse(406, mcp::kInvalidRequest, "the client must accept application/json",
                  "mcp.not_acceptable");
  }
  auto m = mcp::McpProtocol::Parse(r.body);
  if (m.error) return JsonRpc(400, *m.error);
  if (mcp::McpProtocol::EraOf(m) == mcp::McpProtocol::Era::kStateless) return PostStateless(r, m);
  if (m.kind == mcp::McpProtocol::Kind::kRequest && m.method == "initialize") {
    return Initialize(r, m);
  }
  return PostSession(r, m);
}

// The order of the checks is the SDK's own (its inbound validation ladder): the envelope, the
// headers that disagree with the body, the revision, then the headers that are missing.
HttpResponse McpHttp::PostStateless(const HttpRequest& r, const mcp::McpProtocol::Parsed& m) {
  if (m.kind != mcp::McpProtocol::Kind::kRequest) {
    // No client notification means anything over HTTP in this revision (closing the stream is
    // the cancellation): accepted, nothing to do.
    return Accepted();
  }
  auto envelope = mcp::McpProtocol::ReadEnvelope(m);
  if (auto* bad = std::get_if<json>(&envelope)) return JsonRpc(400, *bad);
  const auto& e = std::get<mcp::McpProtocol::Envelope>(envelope);
  const bool has_version = r.HasHeader("mcp-protocol-version");
  const std::string version = r.Header("mcp-protocol-version");
  if (has_version && version != e.version) {
    return HeaderMismatch(
        m.id, "MCP-Protocol-Version names " + version + " but the body's _meta names " + e.version);
  }
  const bool has_method = r.HasHeader("mcp-method");
  if (has_method && r.Header("mcp-method") != m.method) {
    return HeaderMismatch(m.id, "Mcp-Method names " + r.Header("mcp-method") +
                                    " but the body's method is " + m.method);
  }
  if (auto unsupported = mcp::McpProtocol::CheckStatelessVersion(m.id, e.version)) {
    return JsonRpc(400, *unsupported);
  }
  if (!has_version) return HeaderMismatch(m.id, "the MCP-Protocol-Version header is missing");
  if (!has_method) return HeaderMismatch(m.id, "the Mcp-Method header is missing");
  if (const std::string field = NameField(m.method); !field.empty()) {
    const json& params = m.message["params"];
    auto body = params.find(field);
    if (body != params.end() && body->is_string()) {
      if (!r.HasHeader("mcp-name")) {
        return HeaderMismatch(m.id, "the Mcp-Name header is missing (params." + field + ")");
      }
      auto named = HeaderValue(r.Header("mcp-name"));
      if (!named) return HeaderMismatch(m.id, "the Mcp-Name header is not valid Base64");
      if (*named != body->get_ref<const std::string&>()) {
        return HeaderMismatch(m.id, "the Mcp-Name header does not match params." + field);
      }
    }
  }
  // The plane comes from this request's own credential; nothing else is known about its sender.
  auto plane = OperatorOf(r, m.id);
  if (auto* refused = std::get_if<HttpResponse>(&plane)) return std::move(*refused);
  auto credential = std::make_shared<mcp::Session>("", std::get<bool>(plane), "http");
  HttpResponse deferred;
  deferred.deferred = [this, m, credential](std::function<void(HttpResponse)> send) {
    protocol_.Handle(m, credential, [send](json response) {
      const bool unknown_method =
          response.contains("error") && response["error"].value("code", 0) == mcp::kMethodNotFound;
      send(JsonRpc(unknown_method ? 404 : 200, response));
    });
  };
  return deferred;
}

HttpResponse McpHttp::PostSession(const HttpRequest& r, const mcp::McpProtocol::Parsed& m) {
  const std::string id = r.Header("mcp-session-id");
  if (id.empty()) {
    if (m.kind == mcp::McpProtocol::Kind::kRequest && m.method == "server/discover") {
      // A probe without the stateless envelope is no request of the 2026-07-28 revision: say
      // which revisions we serve, as the specification's UnsupportedProtocolVersionError.
      return JsonRpc(400, mcp::ErrorMessage(m.id, mcp::kUnsupportedProtocolVersion,
                                            "server/discover needs the 2026-07-28 _meta envelope "
                                            "(io.modelcontextprotocol/protocolVersion)",
                                            {{"supported", mcp::StatelessVersions()}}));
    }
    return JsonRpc(400, mcp::ErrorMessage(m.id, mcp::kInvalidRequest,
                                          "missing Mcp-Session-Id: send initialize first, or "
                                          "send 2026-07-28 requests with their _meta envelope"));
  }
  // The owner does not depend on the plane the request claims now: an operator session is found
  // under its operator owner, a normal one under its normal owner.
  auto session = Find(id, OwnerOf(r, false));
  if (!session) session = Find(id, OwnerOf(r, true));
  if (!session) {
    return JsonRpc(404, mcp::ErrorMessage(m.id, mcp::kInvalidRequest,
                                          "unknown or ended MCP session: initialize again",
                                          {{"code", "mcp.unknown_session"}}));
  }
  if (session->operator_session() && !r.peer_loopback) {
    return JsonRpc(403, mcp::ErrorMessage(m.id, mcp::kInvalidRequest,
                                          "an operator session may be used only from a loopback "
                                          "client; this request came from " +
                                              r.peer_address,
                                          {{"code", "mcp.operator_not_loopback"}}));
  }
  if (const std::string v = r.Header("mcp-protocol-version");
      !v.empty() && !mcp::SupportedVersion(v)) {
    return JsonRpc(
        400, mcp::ErrorMessage(m.id, mcp::kInvalidRequest, "unsupported MCP-Protocol-Version: " + v,
                               {{"supported", mcp::SupportedVersions()}}));
  }
  if (m.kind != mcp::McpProtocol::Kind::kRequest) {
    protocol_.Handle(m, session, [](json) {});  // notifications/cancelled, ...: nothing is owed
    return Accepted();
  }
  HttpResponse deferred;
  deferred.deferred = [this, m, session](std::function<void(HttpResponse)> send) {
    protocol_.Handle(m, session, [send](json response) { send(JsonRpc(200, response)); });
  };
  return deferred;
}

HttpResponse McpHttp::Delete(const HttpRequest& r) {
  const std::string id = r.Header("mcp-session-id");
  if (id.empty()) {
    return Refuse(400, mcp::kInvalidRequest, "DELETE /mcp needs Mcp-Session-Id");
  }
  auto session = Find(id, OwnerOf(r, false));
  if (!session) session = Find(id, OwnerOf(r, true));
  if (session && session->operator_session() && !r.peer_loopback) {
    return Refuse(403, mcp::kInvalidRequest,
                  "an operator session may be used only from a loopback client",
                  "mcp.operator_not_loopback");
  }
  std::lock_guard lock(mu_);
  if (!session || sessions_.erase(id) == 0) {
    return Refuse(404, mcp::kInvalidRequest, "unknown or ended MCP session", "mcp.unknown_session");
  }
  HttpResponse ok;
  ok.status = 200;
  ok.body = R"({"ended":true})";
  return ok;
}

}  // namespace affordance::server

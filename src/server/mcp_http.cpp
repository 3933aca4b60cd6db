#include "server/mcp_http.h"

#include "authority/capability.h"
#include "server/internal/declare.h"
#include "server/operator_root.h"
#include "store/store.h"

#include <algorithm>

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

std::shared_ptr<mcp::Session> McpHttp::Find(const std::string& id) {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return nullptr;
  const int64_t now = Now();
  if (Idle(*it->second, now)) {  // ended while unused (a call still running keeps its session)
    sessions_.erase(it);
    return nullptr;
  }
  it->second->Touch(now);
  return it->second;
}

void McpHttp::Add(std::shared_ptr<mcp::Session> session) {
  std::lock_guard lock(mu_);
  const int64_t now = Now();
  std::erase_if(sessions_, [&](const auto& entry) { return Idle(*entry.second, now); });
  while (sessions_.size() >= std::max<size_t>(1, options_.max_sessions)) {
    auto oldest = std::min_element(sessions_.begin(), sessions_.end(), [](auto& a, auto& b) {
      return a.second->last_used_ms() < b.second->last_used_ms();
    });
    sessions_.erase(oldest);
  }
  session->Touch(now);
  sessions_[session->id()] = std::move(session);
}

HttpResponse McpHttp::Initialize(const HttpRequest& r, const mcp::McpProtocol::Parsed& m) {
  if (!r.Header("mcp-session-id").empty()) {
    return JsonRpc(400, mcp::ErrorMessage(m.id, mcp::kInvalidRequest,
                                          "initialize starts a new session: send it without "
                                          "Mcp-Session-Id"));
  }
  bool operator_session = false;
  const std::string presented = r.Header(kOperatorSecretHeader);
  if (!presented.empty()) {
    if (!r.peer_loopback) {
      return JsonRpc(
          403, mcp::ErrorMessage(m.id, mcp::kInvalidRequest,
                                 "the operator session is minted only for a loopback client; this "
                                 "request came from " +
                                     r.peer_address,
                                 {{"code", "mcp.operator_not_loopback"}}));
    }
    if (!SecretMatches(presented, options_.operator_secret)) {
      return JsonRpc(403, mcp::ErrorMessage(m.id, mcp::kInvalidRequest,
                                            "the operator secret does not match the local trust "
                                            "root (operator.secret in the data folder)",
                                            {{"code", "mcp.bad_operator_secret"}}));
    }
    operator_session = true;
  }
  auto session = std::make_shared<mcp::Session>(RandomHex(16), operator_session, "http");
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
  if (m.kind == mcp::McpProtocol::Kind::kRequest && m.method == "initialize") {
    return Initialize(r, m);
  }
  const std::string id = r.Header("mcp-session-id");
  if (id.empty()) {
    if (m.kind == mcp::McpProtocol::Kind::kRequest && m.method == "server/discover") {
      // The stateless revision's probe: answered (with an error) so its clients fall back.
      json response;
      auto probe = std::make_shared<mcp::Session>("", false, "http");
      protocol_.Handle(m, probe, [&](json j) { response = std::move(j); });
      return JsonRpc(200, response);
    }
    return JsonRpc(400, mcp::ErrorMessage(m.id, mcp::kInvalidRequest,
                                          "missing Mcp-Session-Id: send initialize first"));
  }
  auto session = Find(id);
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
  auto session = Find(id);
  if (session && session->operator_session() && !r.peer_loopback) {
    return Refuse(403, mcp::kInvalidRequest,
                  "an operator session may be used only from a loopback client",
                  "mcp.operator_not_loopback");
  }
  std::lock_guard lock(mu_);
  if (sessions_.erase(id) == 0) {
    return Refuse(404, mcp::kInvalidRequest, "unknown or ended MCP session", "mcp.unknown_session");
  }
  HttpResponse ok;
  ok.status = 200;
  ok.body = R"({"ended":true})";
  return ok;
}

}  // namespace affordance::server

// MCP's Streamable HTTP transport on `affordance serve` (docs/MCP.md): one endpoint, `/mcp`.
//
//   POST /mcp     one JSON-RPC message. A request is answered with 200 application/json (one
//                 response); a notification or a response gets 202 with no body. `initialize`
//                 starts a session: its answer carries `Mcp-Session-Id`, which every later
//                 request must send (400 without it, 404 for a session that ended or never
//                 existed). `MCP-Protocol-Version` on later requests must be a revision we speak
//                 (400 otherwise). Malformed JSON-RPC is 400 with a JSON-RPC error. Before any of
//                 it, the server's gate (gate.h) refuses a foreign Host (421), an Origin that is
//                 not exactly one of the server's own or the operator's (403), a cross-site fetch
//                 (403) and a body that is not application/json (415), as JSON-RPC errors.
//   DELETE /mcp   ends the session named by Mcp-Session-Id (200). A session unused for
//                 McpHttpOptions::idle_timeout_ms has ended too.
//   GET /mcp      405: the server sends no unsolicited messages (a client then only POSTs).
//
// The operator session: an `initialize` carrying `affordance-operator-secret: <the trust root>`
// (operator_root.h) from a loopback peer mints an operator session. The same header from any other
// peer is refused (403 "mcp.operator_not_loopback") even with the right secret, a wrong secret is
// 403 "mcp.bad_operator_secret", and an operator session's id is refused from a non-loopback peer.
// Both routes are declared in the capability registry (door "http"); each tool is declared in
// the "mcp" door.
//
// Thread safety: handlers run on any I/O thread; the session table has its own mutex.
#pragma once

#include "server/mcp.h"
#include "server/router.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace affordance::server {

inline constexpr std::string_view kOperatorSecretHeader = "affordance-operator-secret";

struct McpHttpOptions {
  std::string operator_secret;  // the trust root; "" = no operator session over HTTP
  size_t max_sessions = 1024;   // beyond it the least recently used session ends
  // A session not used for this long has ended (404: the client initializes again); 0 = never.
  int64_t idle_timeout_ms = 60 * 60 * 1000;
  std::function<int64_t()> now_ms;  // the clock (tests); unset = store::NowMs
};

class McpHttp {
 public:
  McpHttp(const mcp::McpProtocol& protocol, McpHttpOptions options);

  // Handlers keyed by route name: "POST /mcp", "DELETE /mcp".
  std::map<std::string, Handler> Handlers();

  HttpResponse Post(const HttpRequest& r);
  HttpResponse Delete(const HttpRequest& r);

  size_t sessions() const;

 private:
  std::shared_ptr<mcp::Session> Find(const std::string& id);
  int64_t Now() const;
  bool Idle(const mcp::Session& s, int64_t now) const;
  void Add(std::shared_ptr<mcp::Session> session);
  HttpResponse Initialize(const HttpRequest& r, const mcp::McpProtocol::Parsed& m);

  const mcp::McpProtocol& protocol_;
  McpHttpOptions options_;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<mcp::Session>> sessions_;
};

}  // namespace affordance::server

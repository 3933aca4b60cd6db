// MCP's Streamable HTTP transport on `affordance serve` (docs/MCP.md): one endpoint, `/mcp`, both
// protocol eras, chosen per POST by its body (McpProtocol::EraOf).
//
//   POST /mcp     one JSON-RPC message. A request is answered with 200 application/json (one
//                 response); a notification or a response gets 202 with no body. Malformed
//                 JSON-RPC is 400 with a JSON-RPC error. Before any of it, the server's gate
//                 (gate.h) refuses a foreign Host (421), an Origin that is not exactly one of the
//                 server's own or the operator's (403), a cross-site fetch (403) and a body that
//                 is not application/json (415), as JSON-RPC errors.
//     stateless (2026-07-28): nothing is kept; any node answers any request. The envelope must be
//                 well formed (400, -32602), `MCP-Protocol-Version` and `Mcp-Method` must be sent
//                 and match the body, `Mcp-Name` too for tools/call and resources/read (400,
//                 -32020 HeaderMismatch; Base64 `=?base64?...?=` values are decoded first), the
//                 revision must be one we serve (400, -32022). A method this revision lacks is 404
//                 (-32601); any other answer, errors of the call included, is 200.
//                 `Mcp-Session-Id` is ignored and never minted.
//     session (2025): `initialize` starts a session: its answer carries `Mcp-Session-Id`, which
//                 every later request must send (400 without it, 404 for a session that ended,
//                 never existed or is not the sender's). `MCP-Protocol-Version` on later requests
//                 must be a revision we speak (400 otherwise).
//   DELETE /mcp   ends the session named by Mcp-Session-Id (200). A session unused for
//                 McpHttpOptions::idle_timeout_ms has ended too.
//   GET /mcp      405: the server sends no unsolicited messages (a client then only POSTs).
//
// A session id is not a credential on its own: a session belongs to the credential, OS user and
// address that made it (its owner: the access token or the loopback user, the peer's uid, a
// remote peer's address, and the plane), and a request from anyone else naming it is answered as
// if it did not exist (404 "mcp.unknown_session"), without renewing it. Each owner holds at most
// max_sessions_per_client sessions (a new one ends that owner's least recently used), and when the
// whole table is full the least recently used session of the owner holding the most ends: a
// client flooding `initialize` pushes out only its own sessions.
//
// The operator plane: a request carrying `affordance-operator-secret: <the trust root>`
// (operator_root.h) from a loopback peer is the operator's -- every stateless request that
// carries it, or the session an `initialize` carrying it mints. The same header from any other
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
#include <variant>

namespace affordance::server {

inline constexpr std::string_view kOperatorSecretHeader = "affordance-operator-secret";

struct McpHttpOptions {
  std::string operator_secret;  // the trust root; "" = no operator session over HTTP
  size_t max_sessions = 1024;   // in all (see the file comment for which one ends beyond it)
  size_t max_sessions_per_client = 32;  // for one owner; beyond it its least recently used ends
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
  // The live session `id` when `owner` made it (renewed), else null.
  std::shared_ptr<mcp::Session> Find(const std::string& id, const std::string& owner);
  int64_t Now() const;
  bool Idle(const mcp::Session& s, int64_t now) const;
  void Add(std::shared_ptr<mcp::Session> session);
  // Whether the request is the operator's (its trust root header), or the 403 refusing it.
  std::variant<bool, HttpResponse> OperatorOf(const HttpRequest& r, const nlohmann::json& id) const;
  HttpResponse Initialize(const HttpRequest& r, const mcp::McpProtocol::Parsed& m);
  HttpResponse PostSession(const HttpRequest& r, const mcp::McpProtocol::Parsed& m);
  HttpResponse PostStateless(const HttpRequest& r, const mcp::McpProtocol::Parsed& m);

  const mcp::McpProtocol& protocol_;
  McpHttpOptions options_;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<mcp::Session>> sessions_;
  uint64_t uses_ = 0;  // counts Touch calls: the order of uses (guarded by mu_)
};

}  // namespace affordance::server

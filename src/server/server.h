// `affordance serve`'s HTTP server: Boost.Beast on Asio, asynchronous, so thousands of long-lived
// SSE streams share a few I/O threads. It parses requests, applies the limits and access rules
// below, and hands each request to the Router (built from the capability registry); a UI message
// stream response subscribes the connection to the turn and writes one SSE event per chunk.
//
// Limits (each breach is answered with a JSON error and the server stays up):
//   body_limit         request bodies larger than this -> 413 "server.body_too_large"
//   read_timeout_ms    a request (headers + body) that does not arrive in time -> 408 and close
//   write_timeout_ms   a write that a client does not drain in time -> the connection is dropped
//   stream_backlog     bytes queued for one slow stream client; more -> that client is dropped
// A dropped or half-closed client never stops a turn: it runs to its end and is persisted; the
// client can re-attach with GET /api/chat/{id}/stream.
//
// Access: the server binds loopback (127.0.0.1 / ::1) by default. Any other address needs
// allow_remote AND an access_token. A configured access_token has at least kMinAccessToken
// characters, on loopback too. Every request passes the gate
// (server/gate.h, docs/SECURITY.md): the Host must name this server, a foreign Origin or a
// cross-site fetch is refused, bodies are JSON, and the route's declared plane (anyone, client,
// person) must be met by the request's credential.
#pragma once

#include "base/result.h"
#include "server/gate.h"
#include "server/router.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace affordance::server {

struct ServerOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 3147;  // 0: any free port (see Server::port)
  bool allow_remote = false;
  std::string access_token;
  std::vector<std::string> public_hosts;     // GateOptions::public_hosts
  std::vector<std::string> allowed_origins;  // GateOptions::allowed_origins
  const PersonSessions* sessions = nullptr;  // who may hold a person session (null: nobody)
  RefusalCounts* refusals = nullptr;         // where the gate counts refusals (null: nowhere)
  CredentialBackoff* backoff = nullptr;      // slows wrong access tokens (null: never slowed)
  int io_threads = 2;
  size_t body_limit = 1 << 20;
  int read_timeout_ms = 15000;
  int write_timeout_ms = 30000;
  size_t stream_backlog = 8 << 20;
  std::string node;  // this node's name, sent as `x-affordance-node` on every response ("" none)
};

inline constexpr size_t kMinAccessToken = 16;

// Checks the bind rules above and the gate's names. Errors: "server.short_token" (an access token
// under kMinAccessToken characters, on any address), "server.bad_host" (not an IP address),
// "server.remote_needs_flag", "server.remote_needs_token" (no token), CheckGateOptions'.
Status CheckBind(const ServerOptions& options);

class Server {
 public:
  // Binds and starts serving on io_threads threads. Errors: CheckBind's, "server.bind" (the
  // address is in use or not ours).
  static Result<std::unique_ptr<Server>> Start(ServerOptions options, Router router);
  ~Server();

  uint16_t port() const;
  const Router& router() const;
  const Gate& gate() const;
  // Blocks until Stop() or SIGINT/SIGTERM.
  void Wait();
  // Stops accepting and closes every connection; running turns are not touched (the hub owns them).
  void Stop();

 private:
  struct Impl;
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace affordance::server

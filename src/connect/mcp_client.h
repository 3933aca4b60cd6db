// The MCP client under the connector road: one session with one MCP server (docs/CONNECTORS.md
// "MCP servers"). It speaks JSON-RPC 2.0 over stdio (a child process of ours: argv, never a
// shell, its own process group, a minimal environment plus the manifest's `env`, stderr kept in
// a bounded log) and asks for protocol 2025-11-25, accepting any revision the server answers
// with that we speak (kProtocolVersions), as the specification's version negotiation says; any
// other answer ends the session ("connect.mcp_version").
//
// Streamable HTTP (`url`): each message is one POST to the URL, answered as JSON or as an SSE
// stream (mcp_http.cpp); plain http:// only to a loopback host, so a bearer token never travels
// in clear ("connect.mcp_insecure_url").
//
// Every request has a deadline. What the session does with the server's bytes is bounded: a line
// longer than max_message_bytes, text that is not JSON-RPC, or JSON nested deeper than
// kMaxJsonDepth ends the session (the stream can no longer be trusted to stay in step), and every
// request waiting on it fails with that error. The server's own requests are answered (`ping`)
// or refused (-32601): it never gets to ask us for anything (sampling, roots, elicitation).
//
// Thread safety: Request may be called from several threads at once (answers are matched by id);
// Stop and the destructor from any one thread.
#pragma once

#include "base/result.h"
#include "connect/manifest.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace affordance::connect {

// The revisions we speak, newest first; the first is what initialize asks for.
inline constexpr const char* kProtocolVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26",
                                                    "2024-11-05"};

struct McpServerInfo {
  std::string name;          // serverInfo.name (bounded, untrusted)
  std::string version;       // serverInfo.version (bounded, untrusted)
  std::string instructions;  // untrusted text, at most 4,000 code points
  std::string protocol_version;
  nlohmann::json capabilities = nlohmann::json::object();
};

// The outcome of one request. `sent` says whether the request reached the server's input: a
// failure after it was sent (a timeout, the server dying) may have had its effect.
struct McpReply {
  Result<nlohmann::json> result = MakeError("connect.mcp_disconnected", "not sent");
  bool sent = false;
};

class McpSession {
 public:
  // Starts the server (stdio) and runs initialize + notifications/initialized within
  // source.init_timeout_ms. Errors: connect.mcp_start_failed (cannot start; an env variable it
  // names is unset, naming the variable only), connect.mcp_disconnected (exited during start, its
  // stderr's tail as detail), connect.mcp_timeout, connect.mcp_version, connect.mcp_protocol.
  static Result<std::unique_ptr<McpSession>> Open(const SourceSpec& source);
  virtual ~McpSession() = default;

  // Sends `method` with `params` and waits at most timeout_ms for its answer. A JSON-RPC error
  // answer is connect.mcp_error (message: the server's, bounded); no answer in time is
  // connect.mcp_timeout (the request is cancelled with notifications/cancelled); a session that
  // ended fails with the error that ended it.
  virtual McpReply Request(const std::string& method, const nlohmann::json& params,
                           int64_t timeout_ms) = 0;
  // True until the session ended (the server exited, a fatal protocol error, Stop()).
  virtual bool alive() const = 0;
  // Why the session ended (meaningful when !alive()).
  virtual Error death() const = 0;
  // Ends the session: the server's input is closed, it gets SIGTERM after a short grace, then
  // SIGKILL; waits for it.
  virtual void Stop() = 0;
  // The last bytes the server wrote to stderr (at most source.stderr_log_bytes).
  virtual std::string StderrLog() const = 0;
  // True once since the server last said notifications/tools/list_changed (or resources/...).
  bool TakeListChanged() { return list_changed_.exchange(false); }

  const McpServerInfo& info() const { return info_; }

 protected:
  McpServerInfo info_;
  std::atomic<bool> list_changed_{false};
};

// A Streamable HTTP endpoint. Errors: connect.mcp_bad_url (not an http(s) URL, or it carries a
// user name, password or fragment), connect.mcp_insecure_url (http:// to a host other than
// 127.0.0.1, localhost or [::1]).
struct McpUrl {
  std::string scheme;  // "http" | "https"
  std::string host;    // as written ("[::1]" keeps its brackets)
  int port = 0;
  std::string path;  // with the query, "/" when empty
  bool loopback = false;
};
Result<McpUrl> ParseMcpUrl(const std::string& url);

// The environment of a stdio server: PATH, HOME, USER, LANG, LC_ALL, TMPDIR and TZ from ours,
// then the manifest's `env` with ${NAME} replaced by our variable NAME. An unset NAME is
// connect.mcp_start_failed naming NAME (values are never put into errors or logs).
Result<std::vector<std::string>> McpEnvironment(const SourceSpec& source);

}  // namespace affordance::connect

// MCP: the product's semantic surface for other AIs and tools (docs/MCP.md). This file is the
// protocol core shared by both transports: JSON-RPC 2.0 messages, version negotiation,
// `initialize`, `ping`, `tools/list`, `tools/call`, and the table of tools, which is built FROM the
// capability registry (door "mcp") like the HTTP router: a tool without a declaration cannot
// exist, and a declared tool nobody implements is reported.
//
// Transports (mcp_http.h for Streamable HTTP on `affordance serve`, src/cli/cmd_mcp.cpp for stdio)
// own the framing and the session: they hand every message to McpProtocol::Handle with the
// session it belongs to and send what comes back.
//
// Sessions. A normal session is what any client gets; it sees the tools whose capability access
// is kUser or kAnyone. An operator session (it may approve, deny and grant: tools declared
// kOperator) is minted only by a transport that proved locality: stdio with `--operator`, or a
// loopback HTTP peer presenting the local trust root (operator_root.h). The core only reads the
// session's `operator_session` flag; it never mints one.
//
// Errors: a tool's own failure is a result with isError (its text is {"error": {code, message,
// detail?}}); an unknown tool, arguments that fail the tool's input schema, a tool the session may
// not call, and malformed or out-of-order messages are JSON-RPC errors (codes below).
//
// Thread safety: Handle may be called from any thread; a session's state is guarded by its own
// mutex. Tool functions may reply from another thread (`ask` replies when its turn ends).
#pragma once

#include "authority/capability.h"
#include "base/result.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace affordance::server::mcp {

// JSON-RPC error codes.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;

// The newest protocol revision we speak, and every one we accept (shared/reference/mcp.md).
inline constexpr std::string_view kLatestVersion = "2025-11-25";
bool SupportedVersion(std::string_view version);
const std::vector<std::string>& SupportedVersions();

// One running tools/call, which the client may cancel (notifications/cancelled). A tool that can
// stop early says how with OnCancel; it still answers (reply) as usual, and the answer to a
// cancelled call is not sent over stdio (the client no longer waits for it; over HTTP the POST
// still needs its response, which the client ignores).
class CallControl {
 public:
  // Runs `stop` when the call is cancelled, at once when it already was. Any thread.
  void OnCancel(std::function<void()> stop);
  void Cancel();
  bool cancelled() const;

 private:
  mutable std::mutex mu_;
  bool cancelled_ = false;
  std::vector<std::function<void()>> stops_;
};

// One client session (a stdio process, or one Mcp-Session-Id over HTTP).
class Session {
 public:
  Session(std::string id, bool operator_session, std::string transport);

  const std::string& id() const { return id_; }
  bool operator_session() const { return operator_; }
  const std::string& transport() const { return transport_; }  // "stdio" | "http"

  bool initialized() const;
  std::string protocol_version() const;  // "" before initialize
  std::string client_name() const;       // clientInfo.name ("" before initialize)
  int64_t last_used_ms() const;
  void Touch(int64_t now_ms);

  // Records a successful initialize; false when the session was already initialized.
  bool MarkInitialized(const std::string& version, const std::string& client_name);

  // The running tools/call requests, by JSON-RPC id (its JSON text). Track is false when a call
  // with that id is running already (ids must be unique among a session's requests).
  bool Track(const std::string& request_id, std::shared_ptr<CallControl> control);
  void Untrack(const std::string& request_id);
  // Cancels the running request `request_id`; false when none is running under that id.
  bool CancelRequest(const std::string& request_id);

 private:
  const std::string id_;
  const bool operator_;
  const std::string transport_;
  mutable std::mutex mu_;
  bool initialized_ = false;
  std::string version_;
  std::string client_;
  int64_t last_used_ms_ = 0;
  std::map<std::string, std::shared_ptr<CallControl>> running_;
};

// What a tool function answers: structured content (matching the tool's output schema), or an
// error reported as an isError result.
struct ToolResult {
  nlohmann::json structured = nlohmann::json::object();
  std::optional<Error> error;
  nlohmann::json error_data;  // more about the error (e.g. a program's problems), null when none
  static ToolResult Ok(nlohmann::json structured);
  static ToolResult Fail(Error error);
  // The `tools/call` result object ({content, structuredContent} or {content, isError: true}).
  nlohmann::json ToJson() const;
};

struct ToolCall {
  std::string name;
  nlohmann::json arguments = nlohmann::json::object();  // validated against the input schema
  std::shared_ptr<Session> session;
  std::shared_ptr<CallControl> control = std::make_shared<CallControl>();
};

using ToolReply = std::function<void(ToolResult)>;
// Calls `reply` exactly once, on any thread (at once for most tools).
using ToolFn = std::function<void(const ToolCall& call, ToolReply reply)>;

struct Tool {
  authority::Capability capability;  // door "mcp"; params = inputSchema, result = outputSchema
  ToolFn fn;
  // The tools/list entry: {name, title, description, inputSchema, outputSchema, annotations}.
  nlohmann::json ListEntry() const;
};

class ToolTable {
 public:
  // Errors: "mcp.undeclared_tool" (a function whose name has no "mcp" declaration),
  // "mcp.bad_tool" (a declaration whose params or result is not an object schema).
  static Result<ToolTable> Build(const authority::CapabilityRegistry& registry,
                                 std::map<std::string, ToolFn> fns);

  const Tool* Find(std::string_view name) const;
  const std::vector<Tool>& tools() const { return tools_; }
  // Declared "mcp" capabilities that no function serves.
  const std::vector<std::string>& unserved() const { return unserved_; }

 private:
  std::vector<Tool> tools_;
  std::vector<std::string> unserved_;
};

// Whether a session may see and call a tool of this access class.
bool MayUse(const Session& session, authority::Access access);

struct ServerInfo {
  std::string name = "affordance";
  std::string version;
  std::string instructions;
};

// A JSON-RPC error response.
nlohmann::json ErrorMessage(const nlohmann::json& id, int code, const std::string& message,
                            const nlohmann::json& data = nullptr);

class McpProtocol {
 public:
  McpProtocol(ToolTable tools, ServerInfo info);

  // What the message was, for transports that answer differently (HTTP: 202 for notifications
  // and responses, the session id header after initialize).
  enum class Kind { kRequest, kNotification, kResponse, kInvalid };
  struct Parsed {
    Kind kind = Kind::kInvalid;
    nlohmann::json message;  // the parsed object (kRequest, kNotification, kResponse)
    nlohmann::json id;       // the request's id (null otherwise)
    std::string method;
    std::optional<nlohmann::json> error;  // kInvalid: the error response to send
  };
  // Parses one message's text (a JSON object; batches are refused).
  static Parsed Parse(std::string_view text);

  // Handles one parsed message for `session`. `reply` is called exactly once for a request (with
  // the response, or null for a tools/call the client cancelled over a transport other than HTTP:
  // nothing is sent) and never for a notification or a response (nothing is owed).
  // notifications/cancelled cancels the session's running tools/call of that request id.
  using Reply = std::function<void(nlohmann::json response)>;
  void Handle(const Parsed& message, const std::shared_ptr<Session>& session, Reply reply) const;

  // The tools `session` may use, as tools/list entries.
  nlohmann::json ListTools(const Session& session) const;
  const ToolTable& table() const { return tools_; }

 private:
  nlohmann::json Initialize(const nlohmann::json& id, const nlohmann::json& params,
                            Session& session) const;
  void CallTool(const nlohmann::json& id, const nlohmann::json& params,
                const std::shared_ptr<Session>& session, Reply reply) const;

  ToolTable tools_;
  ServerInfo info_;
};

}  // namespace affordance::server::mcp

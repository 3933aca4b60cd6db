// MCP: the product's semantic surface for other AIs and tools (docs/MCP.md). This file is the
// protocol core shared by both transports: JSON-RPC 2.0 messages, both protocol eras, the table of
// tools, which is built FROM the capability registry (door "mcp") like the HTTP router (a tool
// without a declaration cannot exist, and a declared tool nobody implements is reported), and the
// table of resource kinds, each of which shares the plane of a tool.
//
// Two eras on one endpoint, chosen per message by its body (the 2026-07-28 specification's
// dual-era rule, EraOf):
//   - stateless (2026-07-28): every request carries `_meta` with
//     io.modelcontextprotocol/protocolVersion, .../clientCapabilities and (should) .../clientInfo;
//     `server/discover` names what we serve; there is no handshake and nothing is remembered
//     between requests. Results carry `resultType` and `_meta` io.modelcontextprotocol/serverInfo;
//     list and read results carry `ttlMs` and `cacheScope`.
//   - session (2025-11-25 and earlier): `initialize` starts a session, which remembers the
//     revision and the client's name; `ping` is answered.
//
// Transports (mcp_http.h for Streamable HTTP on `affordance serve`, src/cli/cmd_mcp.cpp for stdio)
// own the framing and the credential: they hand every message to McpProtocol::Handle with the
// Session that carries what the transport proved (the plane) and send what comes back. For a
// stateless request the core derives a per-request session from that credential and the
// request's own `_meta` (Session::ForRequest); nothing of it outlives the request.
//
// Planes. A normal session is what any client gets; it sees the tools whose capability access
// is kClient or kAnyone. An operator session (it may approve, deny and grant: tools declared
// kPerson) is minted only by a transport that proved locality: stdio with `--operator`, or a
// loopback HTTP peer presenting the local trust root (operator_root.h) -- on every stateless
// request, or once at `initialize` for a session. The core only reads the session's
// `operator_session` flag; it never mints one.
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
#include <variant>
#include <vector>

namespace affordance::server::mcp {

// JSON-RPC error codes.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
// The codes the 2026-07-28 specification reserves (-32020 .. -32099) that we send.
inline constexpr int kHeaderMismatch = -32020;
inline constexpr int kUnsupportedProtocolVersion = -32022;

// The newest session-era revision (what `initialize` answers when it does not speak the one
// asked for), and every session-era revision we accept (shared/reference/mcp.md).
inline constexpr std::string_view kLatestVersion = "2025-11-25";
bool SupportedVersion(std::string_view version);
const std::vector<std::string>& SupportedVersions();
// The stateless revisions we serve (server/discover's supportedVersions, and the `supported` of
// an UnsupportedProtocolVersion error): 2026-07-28.
inline constexpr std::string_view kStatelessVersion = "2026-07-28";
const std::vector<std::string>& StatelessVersions();

// The reserved `_meta` keys of the stateless revision.
inline constexpr std::string_view kProtocolVersionKey = "io.modelcontextprotocol/protocolVersion";
inline constexpr std::string_view kClientInfoKey = "io.modelcontextprotocol/clientInfo";
inline constexpr std::string_view kClientCapabilitiesKey =
    "io.modelcontextprotocol/clientCapabilities";
inline constexpr std::string_view kLogLevelKey = "io.modelcontextprotocol/logLevel";
inline constexpr std::string_view kServerInfoKey = "io.modelcontextprotocol/serverInfo";

// How long a client may cache each cacheable stateless result (`ttlMs`), and for whom
// (`cacheScope`). Every answer depends on the credential (the plane decides which tools and
// resources exist), so every scope is "private": a shared cache must not serve one credential's
// answer to another. The tool list and the templates change only when the server is upgraded;
// the resource list and a resource's head change whenever an artifact or approval does (0: re-read
// each time); an artifact version never changes once written.
inline constexpr int64_t kToolsTtlMs = 5 * 60 * 1000;
inline constexpr int64_t kDiscoverTtlMs = 5 * 60 * 1000;
inline constexpr int64_t kTemplatesTtlMs = 5 * 60 * 1000;
inline constexpr int64_t kResourceListTtlMs = 0;

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

// The calls running on behalf of one sender, by JSON-RPC id (its JSON text), so that
// notifications/cancelled can find them and a reused id is refused. A stdio process shares one
// among its session and its stateless requests (the ids come from one client); an HTTP session has
// its own; a stateless HTTP request has a fresh one (over HTTP a stateless request is cancelled by
// closing its stream, never by a notification).
class RunningCalls {
 public:
  // False when a call with that id is running already.
  bool Track(const std::string& request_id, std::shared_ptr<CallControl> control);
  void Untrack(const std::string& request_id);
  // Cancels the running request `request_id`; false when none is running under that id.
  bool Cancel(const std::string& request_id);

 private:
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<CallControl>> running_;
};

// One client session (a stdio process, or one Mcp-Session-Id over HTTP), or what a transport
// proved about one stateless request's sender.
class Session {
 public:
  // `owner`: who made it (mcp_http.cc: the credential, the OS user and the address it came from),
  // which a later request must match to use it; "" for stdio.
  Session(std::string id, bool operator_session, std::string transport, std::string owner = "");

  const std::string& id() const { return id_; }
  bool operator_session() const { return operator_; }
  const std::string& transport() const { return transport_; }  // "stdio" | "http"
  const std::string& owner() const { return owner_; }
  // The per-request session of a stateless request: this session's plane and transport, the
  // request's revision and client name, and this session's running calls.
  std::shared_ptr<Session> ForRequest(const std::string& version,
                                      const std::string& client_name) const;
  bool stateless() const { return stateless_; }

  bool initialized() const;
  std::string protocol_version() const;  // "" before initialize
  std::string client_name() const;       // clientInfo.name ("" before initialize)
  int64_t last_used_ms() const;
  // Marks a use at `now_ms`; `order` ranks uses that share a millisecond (the HTTP session table
  // counts them), so "least recently used" is exact.
  void Touch(int64_t now_ms, uint64_t order = 0);
  uint64_t last_used_order() const;

  // Records a successful initialize; false when the session was already initialized.
  bool MarkInitialized(const std::string& version, const std::string& client_name);

  // The running tools/call requests (RunningCalls), shared with the stateless requests made
  // from this session (ForRequest).
  RunningCalls& running() const { return *running_; }

 private:
  const std::string id_;
  const bool operator_;
  const std::string transport_;
  const std::string owner_;
  bool stateless_ = false;
  std::shared_ptr<RunningCalls> running_ = std::make_shared<RunningCalls>();
  mutable std::mutex mu_;
  bool initialized_ = false;
  std::string version_;
  std::string client_;
  int64_t last_used_ms_ = 0;
  uint64_t last_used_order_ = 0;
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
  // In tools/list order: sorted by name (byte order), the same on every node and every call, so
  // a client's prompt cache of the list stays valid.
  const std::vector<Tool>& tools() const { return tools_; }
  // Declared "mcp" capabilities that no function serves.
  const std::vector<std::string>& unserved() const { return unserved_; }

 private:
  std::vector<Tool> tools_;
  std::vector<std::string> unserved_;
};

// Whether a session may see and call a tool of this access class.
bool MayUse(const Session& session, authority::Access access);

// ---- resources -----------------------------------------------------------------------------

// What reading one resource gives: the resources/read `contents` (each {uri, mimeType, text} or
// {uri, mimeType, blob}) and how long a stateless client may cache them (`ttlMs`).
struct ResourceRead {
  nlohmann::json contents = nlohmann::json::array();
  int64_t ttl_ms = 0;
};

// One kind of resource the MCP door serves (artifacts, approvals; MCP Apps' ui:// views are
// further kinds). A kind is declared once and names the MCP tool whose plane it shares: a session
// lists, reads and sees the templates of a kind exactly when it may call that tool (MayUse), so a
// resource can never be more visible than the tool that returns the same facts.
struct ResourceKind {
  std::string name;  // "artifact", "approval"
  std::string tool;  // the MCP tool whose capability access decides who may use this kind
  // Every URI of this kind starts with it ("affordance://artifacts/"); no prefix is another's.
  std::string prefix;
  // resources/templates/list entries: {uriTemplate, name, title?, description?, mimeType?}.
  std::vector<nlohmann::json> templates;
  // Every resource of this kind as resources/list entries ({uri, name, title?, description?,
  // mimeType?}), each `uri` starting with `prefix`; any order (the table pages them by URI).
  std::function<Result<std::vector<nlohmann::json>>(const Session& session)> list;
  // The resource at `uri` (which starts with `prefix`). Errors: "mcp.unknown_resource" when it
  // does not exist (answered -32602 with data {uri}, the specification's "resource not found").
  std::function<Result<ResourceRead>(const std::string& uri, const Session& session)> read;
};

class ResourceTable {
 public:
  // Errors: "mcp.bad_resource" (a kind whose tool the table lacks, no list or read function, an
  // empty prefix, or a prefix that starts another's).
  static Result<ResourceTable> Build(const ToolTable& tools, std::vector<ResourceKind> kinds);

  const std::vector<ResourceKind>& kinds() const { return kinds_; }
  // The kind whose prefix `uri` starts with; null when none.
  const ResourceKind* KindOf(std::string_view uri) const;
  // Whether `session` may use `kind` (the plane of its tool).
  bool MayUse(const Session& session, const ResourceKind& kind) const;

 private:
  std::vector<ResourceKind> kinds_;
  std::vector<authority::Access> access_;  // kinds_[i]'s tool's access
};

// How many resources one resources/list page holds.
inline constexpr size_t kResourcePage = 100;

struct ServerInfo {
  std::string name = "affordance";
  std::string version;
  std::string instructions;
};

// A JSON-RPC error response, and a result response.
nlohmann::json ErrorMessage(const nlohmann::json& id, int code, const std::string& message,
                            const nlohmann::json& data = nullptr);
nlohmann::json SuccessMessage(const nlohmann::json& id, nlohmann::json result);

class McpProtocol {
 public:
  McpProtocol(ToolTable tools, ServerInfo info, ResourceTable resources = {});

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

  // The era a parsed request or notification belongs to, by its body alone: stateless when
  // params._meta holds io.modelcontextprotocol/protocolVersion (whatever its value; a bad one is
  // the envelope's error), else the session era (`initialize` without that key starts a session).
  enum class Era { kSession, kStateless };
  static Era EraOf(const Parsed& message);

  // A stateless request's envelope (`params._meta`).
  struct Envelope {
    std::string version;      // io.modelcontextprotocol/protocolVersion
    std::string client_name;  // clientInfo.name ("client" when the client gave none)
    nlohmann::json capabilities = nlohmann::json::object();  // clientCapabilities
  };
  // Reads the envelope of a stateless request, or returns the error response: -32602 naming the
  // key that is missing or malformed (protocolVersion: a non-empty string; clientCapabilities: an
  // object of objects; clientInfo, when present: {name, version} strings; logLevel, when present:
  // a syslog level). It does not check that we serve the revision (CheckStatelessVersion).
  static std::variant<Envelope, nlohmann::json> ReadEnvelope(const Parsed& message);
  // The specification's UnsupportedProtocolVersionError (-32022, data {supported, requested})
  // when `version` is not a stateless revision we serve; nullopt when it is.
  static std::optional<nlohmann::json> CheckStatelessVersion(const nlohmann::json& id,
                                                             const std::string& version);

  // Handles one parsed message for `session`. `reply` is called exactly once for a request (with
  // the response, or null for a tools/call the client cancelled over a transport other than HTTP:
  // nothing is sent) and never for a notification or a response (nothing is owed).
  // notifications/cancelled cancels the running tools/call of that request id among the
  // session's running calls. A stateless message (EraOf) is served from `session`'s plane,
  // transport and running calls alone (Session::ForRequest with the envelope's revision and
  // client): its initialization state is never read or changed.
  using Reply = std::function<void(nlohmann::json response)>;
  void Handle(const Parsed& message, const std::shared_ptr<Session>& session, Reply reply) const;

  // The tools `session` may use, as tools/list entries.
  nlohmann::json ListTools(const Session& session) const;
  const ToolTable& table() const { return tools_; }
  const ResourceTable& resources() const { return resources_; }

 private:
  nlohmann::json Initialize(const nlohmann::json& id, const nlohmann::json& params,
                            Session& session) const;
  void HandleStateless(const Parsed& m, const std::shared_ptr<Session>& session, Reply reply) const;
  // The methods both eras answer the same way (tools and resources); false when `method` is none
  // of them.
  bool HandleShared(const std::string& method, const nlohmann::json& id,
                    const nlohmann::json& params, const std::shared_ptr<Session>& session,
                    const Reply& reply) const;
  nlohmann::json Capabilities() const;
  nlohmann::json Instructions(const Session& session) const;
  void CallTool(const nlohmann::json& id, const nlohmann::json& params,
                const std::shared_ptr<Session>& session, Reply reply) const;
  nlohmann::json ListResources(const nlohmann::json& id, const nlohmann::json& params,
                               const Session& session) const;
  nlohmann::json ReadResource(const nlohmann::json& id, const nlohmann::json& params,
                              const Session& session) const;
  nlohmann::json ListTemplates(const nlohmann::json& id, const nlohmann::json& params,
                               const Session& session) const;

  ToolTable tools_;
  ServerInfo info_;
  ResourceTable resources_;
};

}  // namespace affordance::server::mcp

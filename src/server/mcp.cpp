#include "server/mcp.h"

#include "base/json_limits.h"
#include "connect/schema.h"

#include <algorithm>

namespace affordance::server::mcp {

using nlohmann::json;

const std::vector<std::string>& SupportedVersions() {
  static const std::vector<std::string> kVersions = {std::string(kLatestVersion), "2025-06-18",
                                                     "2025-03-26", "2024-11-05", "2024-10-07"};
  return kVersions;
}

bool SupportedVersion(std::string_view version) {
  const auto& all = SupportedVersions();
  return std::find(all.begin(), all.end(), version) != all.end();
}

const std::vector<std::string>& StatelessVersions() {
  static const std::vector<std::string> kVersions = {std::string(kStatelessVersion)};
  return kVersions;
}

// ---- Session ------------------------------------------------------------------------------------

Session::Session(std::string id, bool operator_session, std::string transport, std::string owner)
    : id_(std::move(id)),
      operator_(operator_session),
      transport_(std::move(transport)),
      owner_(std::move(owner)) {}

std::shared_ptr<Session> Session::ForRequest(const std::string& version,
                                             const std::string& client_name) const {
  auto s = std::make_shared<Session>(id_, operator_, transport_, owner_);
  s->stateless_ = true;
  s->running_ = running_;
  s->MarkInitialized(version, client_name);
  return s;
}

bool Session::initialized() const {
  std::lock_guard lock(mu_);
  return initialized_;
}

std::string Session::protocol_version() const {
  std::lock_guard lock(mu_);
  return version_;
}

std::string Session::client_name() const {
  std::lock_guard lock(mu_);
  return client_;
}

int64_t Session::last_used_ms() const {
  std::lock_guard lock(mu_);
  return last_used_ms_;
}

void CallControl::OnCancel(std::function<void()> stop) {
  {
    std::lock_guard lock(mu_);
    if (!cancelled_) {
      stops_.push_back(std::move(stop));
      return;
    }
  }
  stop();
}

void CallControl::Cancel() {
  std::vector<std::function<void()>> stops;
  {
    std::lock_guard lock(mu_);
    if (cancelled_) return;
    cancelled_ = true;
    stops.swap(stops_);
  }
  for (auto& stop : stops) stop();
}

bool CallControl::cancelled() const {
  std::lock_guard lock(mu_);
  return cancelled_;
}

bool RunningCalls::Track(const std::string& request_id, std::shared_ptr<CallControl> control) {
  std::lock_guard lock(mu_);
  return running_.emplace(request_id, std::move(control)).second;
}

void RunningCalls::Untrack(const std::string& request_id) {
  std::lock_guard lock(mu_);
  running_.erase(request_id);
}

bool RunningCalls::Cancel(const std::string& request_id) {
  std::shared_ptr<CallControl> control;
  {
    std::lock_guard lock(mu_);
    auto it = running_.find(request_id);
    if (it == running_.end()) return false;
    control = it->second;
  }
  control->Cancel();  // outside the lock: a stop may answer, which untracks
  return true;
}

void Session::Touch(int64_t now_ms, uint64_t order) {
  std::lock_guard lock(mu_);
  last_used_ms_ = now_ms;
  last_used_order_ = order;
}

uint64_t Session::last_used_order() const {
  std::lock_guard lock(mu_);
  return last_used_order_;
}

bool Session::MarkInitialized(const std::string& version, const std::string& client_name) {
  std::lock_guard lock(mu_);
  if (initialized_) return false;
  initialized_ = true;
  version_ = version;
  client_ = client_name;
  return true;
}

bool MayUse(const Session& session, authority::Access access) {
  return access != authority::Access::kPerson || session.operator_session();
}

// ---- results and tools --------------------------------------------------------------------------

ToolResult ToolResult::Ok(json structured) {
  ToolResult r;
  r.structured = std::move(structured);
  return r;
}

ToolResult ToolResult::Fail(Error error) {
  ToolResult r;
  r.error = std::move(error);
  return r;
}

json ToolResult::ToJson() const {
  auto dump = [](const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); };
  if (error) {
    json e = {{"code", error->code}, {"message", error->message}};
    if (!error->detail.empty()) e["detail"] = error->detail;
    e["category"] = ErrorKindName(error->kind);
    if (!error_data.is_null()) e["data"] = error_data;
    // No structuredContent: it would have to match the tool's output schema.
    return {{"content", json::array({{{"type", "text"}, {"text", dump({{"error", e}})}}})},
            {"isError", true}};
  }
  return {{"content", json::array({{{"type", "text"}, {"text", dump(structured)}}})},
          {"structuredContent", structured}};
}

json Tool::ListEntry() const {
  const auto& c = capability;
  json entry = {{"name", c.name}, {"description", c.description}, {"inputSchema", c.params}};
  if (!c.result.empty()) entry["outputSchema"] = c.result;
  std::string title = c.name;
  std::replace(title.begin(), title.end(), '_', ' ');
  entry["title"] = title;
  entry["annotations"] = {{"title", title},
                          {"readOnlyHint", c.mode == authority::Mode::kRead},
                          {"destructiveHint", c.mode == authority::Mode::kApprovedExecution},
                          {"openWorldHint", !c.grant.empty()}};
  return entry;
}

namespace {

Status CheckObjectSchema(const json& schema, const std::string& where) {
  if (!schema.is_object() || schema.value("type", json()) != "object") {
    return MakeError("mcp.bad_tool",
                     "an MCP tool's schemas must be JSON Schema objects of type object", where);
  }
  if (Status s = connect::CheckSchema(schema, where); !s) {
    return MakeError("mcp.bad_tool", s.error().message, where);
  }
  return {};
}

}  // namespace

// The tools are kept sorted by name: `fns` is a std::map, so Build sees them in that order.
Result<ToolTable> ToolTable::Build(const authority::CapabilityRegistry& registry,
                                   std::map<std::string, ToolFn> fns) {
  ToolTable table;
  for (auto& [name, fn] : fns) {
    const authority::Capability* c = registry.Find("mcp", name);
    if (c == nullptr) {
      return MakeError("mcp.undeclared_tool",
                       "an MCP tool must be declared in the capability registry (door mcp)", name);
    }
    if (Status s = CheckObjectSchema(c->params, name + " inputSchema"); !s) return s.error();
    if (Status s = CheckObjectSchema(c->result, name + " outputSchema"); !s) return s.error();
    table.tools_.push_back({*c, std::move(fn)});
  }
  for (const auto& c : registry.OfDoor("mcp")) {
    if (table.Find(c.name) == nullptr) table.unserved_.push_back(c.name);
  }
  return table;
}

const Tool* ToolTable::Find(std::string_view name) const {
  for (const auto& t : tools_) {
    if (t.capability.name == name) return &t;
  }
  return nullptr;
}

// ---- the protocol -------------------------------------------------------------------------------

json ErrorMessage(const json& id, int code, const std::string& message, const json& data) {
  json error = {{"code", code}, {"message", message}};
  if (!data.is_null()) error["data"] = data;
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", error}};
}

json SuccessMessage(const json& id, json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

McpProtocol::McpProtocol(ToolTable tools, ServerInfo info, ResourceTable resources)
    : tools_(std::move(tools)), info_(std::move(info)), resources_(std::move(resources)) {}

McpProtocol::Parsed McpProtocol::Parse(std::string_view text) {
  Parsed p;
  // Depth first: a message nested past the limit never becomes a value (json_limits.h).
  if (auto deep = CheckJsonDepth(text, "mcp.too_deep", "the message"); !deep) {
    p.error = ErrorMessage(nullptr, kInvalidRequest, deep.error().message,
                           {{"code", deep.error().code}, {"limit", kMaxJsonDepth}});
    return p;
  }
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded()) {
    p.error = ErrorMessage(nullptr, kParseError, "parse error: the message is not valid JSON");
    return p;
  }
  if (j.is_array()) {
    p.error = ErrorMessage(nullptr, kInvalidRequest,
                           "JSON-RPC batches are not supported: send one message at a time");
    return p;
  }
  if (!j.is_object() || j.value("jsonrpc", json()) != "2.0") {
    p.error = ErrorMessage(nullptr, kInvalidRequest,
                           "invalid request: a JSON-RPC 2.0 object with \"jsonrpc\": \"2.0\" is "
                           "expected");
    return p;
  }
  auto id = j.find("id");
  const bool has_id = id != j.end();
  if (has_id && !id->is_string() && !id->is_number_integer()) {
    p.error = ErrorMessage(nullptr, kInvalidRequest,
                           "invalid request: id must be a string or an integer");
    return p;
  }
  auto method = j.find("method");
  if (method != j.end()) {
    if (!method->is_string()) {
      p.error = ErrorMessage(has_id ? *id : json(), kInvalidRequest,
                             "invalid request: method must be a string");
      return p;
    }
    auto params = j.find("params");
    if (params != j.end() && !params->is_object()) {
      // A bad notification is dropped: nothing may be answered to a notification.
      if (has_id) p.error = ErrorMessage(*id, kInvalidParams, "params must be an object");
      return p;
    }
    p.kind = has_id ? Kind::kRequest : Kind::kNotification;
    p.method = method->get<std::string>();
    if (has_id) p.id = *id;
    p.message = std::move(j);
    return p;
  }
  if (has_id && (j.contains("result") || j.contains("error"))) {
    p.kind = Kind::kResponse;  // we send no requests: nothing to match it with
    p.message = std::move(j);
    return p;
  }
  p.error = ErrorMessage(has_id ? *id : json(), kInvalidRequest,
                         "invalid request: a message needs a method (or is a response)");
  return p;
}

json McpProtocol::ListTools(const Session& session) const {
  json list = json::array();
  for (const auto& t : tools_.tools()) {
    if (MayUse(session, t.capability.access)) list.push_back(t.ListEntry());
  }
  return list;
}

json McpProtocol::Initialize(const json& id, const json& params, Session& session) const {
  auto version = params.find("protocolVersion");
  if (version == params.end() || !version->is_string()) {
    return ErrorMessage(id, kInvalidParams, "initialize needs params.protocolVersion (a string)");
  }
  if (auto caps = params.find("capabilities"); caps != params.end() && !caps->is_object()) {
    return ErrorMessage(id, kInvalidParams, "params.capabilities must be an object");
  }
  std::string client;
  if (auto ci = params.find("clientInfo"); ci != params.end()) {
    if (!ci->is_object())
      return ErrorMessage(id, kInvalidParams, "params.clientInfo must be an object");
    if (auto n = ci->find("name"); n != ci->end() && n->is_string()) client = n->get<std::string>();
  }
  // The requested revision when we speak it, else our latest (the client decides whether to go on).
  const std::string chosen = SupportedVersion(version->get<std::string>())
                                 ? version->get<std::string>()
                                 : std::string(kLatestVersion);
  if (!session.MarkInitialized(chosen, client.empty() ? "client" : client)) {
    return ErrorMessage(id, kInvalidRequest,
                        "this session is already initialized (initialize is sent once)");
  }
  json result = {{"protocolVersion", chosen},
                 {"capabilities", Capabilities()},
                 {"serverInfo", {{"name", info_.name}, {"version", info_.version}}},
                 {"instructions", Instructions(session)}};
  return SuccessMessage(id, std::move(result));
}

json McpProtocol::Capabilities() const {
  // Nothing is pushed: the tool list of a plane is fixed and resources are re-read (ttlMs), so
  // neither list announces changes (and subscriptions/listen is not offered).
  json caps = {{"tools", {{"listChanged", false}}}};
  if (!resources_.kinds().empty()) {
    caps["resources"] = {{"subscribe", false}, {"listChanged", false}};
  }
  return caps;
}

json McpProtocol::Instructions(const Session& session) const {
  return info_.instructions +
         (session.operator_session()
              ? " This is an operator session: it may approve and deny staged actions and grant "
                "access."
              : " This is a normal session: approvals and grants are made by a person (the "
                "operator session or the command line), never by this client.");
}

void McpProtocol::CallTool(const json& id, const json& params,
                           const std::shared_ptr<Session>& session, Reply reply) const {
  auto name = params.find("name");
  if (name == params.end() || !name->is_string()) {
    return reply(ErrorMessage(id, kInvalidParams, "tools/call needs params.name (a string)"));
  }
  const Tool* tool = tools_.Find(name->get<std::string>());
  if (tool == nullptr) {
    return reply(ErrorMessage(id, kInvalidParams, "unknown tool: " + name->get<std::string>(),
                              {{"code", "mcp.unknown_tool"}}));
  }
  if (!MayUse(*session, tool->capability.access)) {
    return reply(ErrorMessage(
        id, kInvalidParams,
        "the tool " + tool->capability.name +
            " needs the operator session, which is minted only on this machine (stdio with "
            "--operator, or loopback HTTP with the local trust root)",
        {{"code", "mcp.operator_only"}}));
  }
  json args = json::object();
  if (auto a = params.find("arguments"); a != params.end() && !a->is_null()) {
    if (!a->is_object()) {
      return reply(ErrorMessage(id, kInvalidParams, "params.arguments must be an object"));
    }
    args = *a;
  }
  if (Status s = connect::ValidateArgs(tool->capability.params, args); !s) {
    return reply(
        ErrorMessage(id, kInvalidParams,
                     "invalid arguments for " + tool->capability.name + ": " + s.error().message,
                     {{"code", "mcp.bad_arguments"}}));
  }
  ToolCall call{tool->capability.name, std::move(args), session};
  const std::string request_id = id.dump();
  if (!session->running().Track(request_id, call.control)) {
    return reply(ErrorMessage(id, kInvalidRequest,
                              "a call with this request id is still running in this session: "
                              "request ids must be unique",
                              {{"code", "mcp.duplicate_request_id"}}));
  }
  const json output_schema = tool->capability.result;
  auto respond = [id, reply, output_schema, name = call.name, session, request_id,
                  control = call.control](ToolResult r) {
    session->running().Untrack(request_id);
    // A cancelled call's answer is not owed (null: nothing to send); over HTTP its POST still
    // needs a response.
    if (control->cancelled() && session->transport() != "http") return reply(json());
    // A result that does not match the declared output schema is our bug: say so, never send it.
    if (!r.error) {
      if (Status s = connect::ValidateArgs(output_schema, r.structured); !s) {
        r = ToolResult::Fail(MakeError("mcp.bad_output",
                                       "the " + name + " result does not match its output schema",
                                       s.error().message));
      }
    }
    reply(SuccessMessage(id, r.ToJson()));
  };
  try {
    tool->fn(call, respond);
  } catch (const std::exception& e) {
    respond(ToolResult::Fail(MakeError("mcp.internal", "the tool failed", e.what())));
  }
}

void McpProtocol::Handle(const Parsed& m, const std::shared_ptr<Session>& session,
                         Reply reply) const {
  if (m.kind == Kind::kInvalid) {
    if (m.error) reply(*m.error);
    return;
  }
  if (m.kind == Kind::kResponse) return;
  if (m.kind == Kind::kNotification) {  // nothing is owed, in either era
    if (m.method == "notifications/cancelled") {
      // Cancels a running tools/call of this sender; an unknown or finished id is ignored, as
      // the specification says (the call may have answered already).
      auto p = m.message.find("params");
      if (p != m.message.end() && p->is_object()) {
        if (auto r = p->find("requestId"); r != p->end()) session->running().Cancel(r->dump());
      }
    }
    return;
  }
  if (EraOf(m) == Era::kStateless) return HandleStateless(m, session, std::move(reply));
  static const json kEmpty = json::object();
  auto p = m.message.find("params");
  const json& params = p == m.message.end() ? kEmpty : *p;
  const json& id = m.id;
  if (m.method == "ping") return reply(SuccessMessage(id, json::object()));
  if (m.method == "initialize") return reply(Initialize(id, params, *session));
  if (m.method == "server/discover") {
    // A 2026-07-28 method, which carries its _meta envelope (and then never reaches here).
    return reply(ErrorMessage(id, kMethodNotFound,
                              "server/discover is a 2026-07-28 method: send it with its _meta "
                              "envelope (io.modelcontextprotocol/protocolVersion), or use "
                              "initialize"));
  }
  if (!session->initialized()) {
    return reply(ErrorMessage(
        id, kInvalidRequest,
        "the session is not initialized: send initialize first (got " + m.method + ")"));
  }
  if (HandleShared(m.method, id, params, session, reply)) return;
  reply(ErrorMessage(id, kMethodNotFound, "method not found: " + m.method));
}

bool McpProtocol::HandleShared(const std::string& method, const json& id, const json& params,
                               const std::shared_ptr<Session>& session, const Reply& reply) const {
  if (method == "tools/list") {
    if (auto c = params.find("cursor"); c != params.end() && !c->is_null()) {
      reply(ErrorMessage(id, kInvalidParams, "unknown cursor: the tool list has one page"));
    } else {
      json result = {{"tools", ListTools(*session)}};
      if (session->stateless()) {
        result["ttlMs"] = kToolsTtlMs;
        result["cacheScope"] = "private";
      }
      reply(SuccessMessage(id, std::move(result)));
    }
    return true;
  }
  if (method == "tools/call") {
    CallTool(id, params, session, reply);
    return true;
  }
  if (resources_.kinds().empty()) return false;  // no resources capability: method not found
  if (method == "resources/list") {
    reply(ListResources(id, params, *session));
    return true;
  }
  if (method == "resources/read") {
    reply(ReadResource(id, params, *session));
    return true;
  }
  if (method == "resources/templates/list") {
    reply(ListTemplates(id, params, *session));
    return true;
  }
  return false;
}

}  // namespace affordance::server::mcp

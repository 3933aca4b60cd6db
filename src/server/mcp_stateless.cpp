// The stateless era of the MCP protocol core (2026-07-28; mcp.h): the per-request envelope,
// server/discover, the stamps every stateless result carries, and the resources both eras serve
// (resources/list, resources/read, resources/templates/list over the ResourceTable).
#include "server/mcp.h"

#include <algorithm>
#include <array>

namespace affordance::server::mcp {

using nlohmann::json;

// ---- the envelope -------------------------------------------------------------------------------

namespace {

const json* MetaOf(const json& message) {
  auto p = message.find("params");
  if (p == message.end() || !p->is_object()) return nullptr;
  auto meta = p->find("_meta");
  return meta != p->end() && meta->is_object() ? &*meta : nullptr;
}

json EnvelopeError(const json& id, std::string_view key, const std::string& problem) {
  return ErrorMessage(id, kInvalidParams,
                      "invalid _meta envelope for protocol revision " +
                          std::string(kStatelessVersion) + ": " + std::string(key) + ": " + problem,
                      {{"envelope", {{"key", key}, {"problem", problem}}}});
}

bool IsObjectOfObjects(const json& j) {
  return j.is_object() &&
         std::all_of(j.begin(), j.end(), [](const json& v) { return v.is_object(); });
}

// The problem with a clientCapabilities value, "" when it is well formed: an object whose known
// members are objects (experimental and extensions: maps of objects).
std::string CapabilitiesProblem(const json& caps) {
  if (!caps.is_object()) return "expected an object";
  for (const char* key : {"sampling", "elicitation", "roots"}) {
    if (auto it = caps.find(key); it != caps.end() && !it->is_object()) {
      return std::string(key) + " must be an object";
    }
  }
  for (const char* key : {"experimental", "extensions"}) {
    if (auto it = caps.find(key); it != caps.end() && !IsObjectOfObjects(*it)) {
      return std::string(key) + " must be an object of objects";
    }
  }
  return "";
}

// The problem with a clientInfo value (an Implementation), "" when it is well formed.
std::string ClientInfoProblem(const json& info) {
  if (!info.is_object()) return "expected an object";
  for (const char* key : {"name", "version"}) {
    auto it = info.find(key);
    if (it == info.end() || !it->is_string()) return std::string(key) + " must be a string";
  }
  for (const char* key : {"title", "description", "websiteUrl"}) {
    if (auto it = info.find(key); it != info.end() && !it->is_string()) {
      return std::string(key) + " must be a string";
    }
  }
  if (auto it = info.find("icons"); it != info.end() && !it->is_array()) {
    return "icons must be an array";
  }
  return "";
}

bool IsLogLevel(const json& level) {
  static constexpr std::array<std::string_view, 8> kLevels = {
      "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"};
  return level.is_string() &&
         std::find(kLevels.begin(), kLevels.end(), level.get<std::string>()) != kLevels.end();
}

}  // namespace

McpProtocol::Era McpProtocol::EraOf(const Parsed& m) {
  if (m.kind != Kind::kRequest && m.kind != Kind::kNotification) return Era::kSession;
  const json* meta = MetaOf(m.message);
  return meta != nullptr && meta->contains(kProtocolVersionKey) ? Era::kStateless : Era::kSession;
}

std::variant<McpProtocol::Envelope, json> McpProtocol::ReadEnvelope(const Parsed& m) {
  const json* meta = MetaOf(m.message);
  if (meta == nullptr) return EnvelopeError(m.id, "_meta", "missing");
  Envelope e;
  auto version = meta->find(kProtocolVersionKey);
  if (version == meta->end()) return EnvelopeError(m.id, kProtocolVersionKey, "missing");
  if (!version->is_string() || version->get_ref<const std::string&>().empty()) {
    return EnvelopeError(m.id, kProtocolVersionKey, "expected a protocol revision string");
  }
  e.version = version->get<std::string>();
  auto caps = meta->find(kClientCapabilitiesKey);
  if (caps == meta->end()) return EnvelopeError(m.id, kClientCapabilitiesKey, "missing");
  if (std::string p = CapabilitiesProblem(*caps); !p.empty()) {
    return EnvelopeError(m.id, kClientCapabilitiesKey, p);
  }
  e.capabilities = *caps;
  e.client_name = "client";
  if (auto info = meta->find(kClientInfoKey); info != meta->end()) {
    if (std::string p = ClientInfoProblem(*info); !p.empty()) {
      return EnvelopeError(m.id, kClientInfoKey, p);
    }
    if (const auto& name = (*info)["name"].get_ref<const std::string&>(); !name.empty()) {
      e.client_name = name;
    }
  }
  if (auto level = meta->find(kLogLevelKey); level != meta->end() && !IsLogLevel(*level)) {
    return EnvelopeError(m.id, kLogLevelKey, "expected a log level (debug .. emergency)");
  }
  if (auto token = meta->find("progressToken");
      token != meta->end() && !token->is_string() && !token->is_number_integer()) {
    return EnvelopeError(m.id, "progressToken", "expected a string or an integer");
  }
  return e;
}

std::optional<json> McpProtocol::CheckStatelessVersion(const json& id, const std::string& version) {
  const auto& served = StatelessVersions();
  if (std::find(served.begin(), served.end(), version) != served.end()) return std::nullopt;
  return ErrorMessage(id, kUnsupportedProtocolVersion,
                      "unsupported protocol version: " + version +
                          " (this server serves 2026-07-28 per request; the 2025 revisions only "
                          "through initialize)",
                      {{"supported", served}, {"requested", version}});
}

// ---- stateless dispatch -------------------------------------------------------------------------

void McpProtocol::HandleStateless(const Parsed& m, const std::shared_ptr<Session>& session,
                                  Reply reply) const {
  auto envelope = ReadEnvelope(m);
  if (auto* error = std::get_if<json>(&envelope)) return reply(std::move(*error));
  const Envelope& e = std::get<Envelope>(envelope);
  if (auto unsupported = CheckStatelessVersion(m.id, e.version)) return reply(*unsupported);
  // Everything a session would have remembered comes from this request: the plane from the
  // transport's credential (`session`), the revision and the client from the envelope.
  auto request = session->ForRequest(e.version, e.client_name);
  // Every result of this revision says what it is and who answered (a cancelled call: nothing).
  const json server_info = {{"name", info_.name}, {"version", info_.version}};
  Reply stamped = [reply = std::move(reply), server_info](json response) {
    if (response.is_object()) {
      if (auto r = response.find("result"); r != response.end() && r->is_object()) {
        (*r)["resultType"] = "complete";
        (*r)["_meta"][std::string(kServerInfoKey)] = server_info;
      }
    }
    reply(std::move(response));
  };
  static const json kEmpty = json::object();
  auto p = m.message.find("params");
  const json& params = p == m.message.end() ? kEmpty : *p;
  if (m.method == "server/discover") {
    return stamped(SuccessMessage(m.id, {{"supportedVersions", StatelessVersions()},
                                         {"capabilities", Capabilities()},
                                         {"instructions", Instructions(*request)},
                                         {"ttlMs", kDiscoverTtlMs},
                                         {"cacheScope", "private"}}));
  }
  if (HandleShared(m.method, m.id, params, request, stamped)) return;
  // initialize, ping, logging/setLevel, resources/subscribe ... are not methods of this
  // revision (nor subscriptions/listen here: we emit no change notifications).
  stamped(ErrorMessage(m.id, kMethodNotFound,
                       "method not found: " + m.method + " (protocol revision " +
                           std::string(kStatelessVersion) + ")"));
}

// ---- resources ----------------------------------------------------------------------------------

Result<ResourceTable> ResourceTable::Build(const ToolTable& tools,
                                           std::vector<ResourceKind> kinds) {
  ResourceTable table;
  for (const auto& k : kinds) {
    const Tool* tool = tools.Find(k.tool);
    if (tool == nullptr) {
      return MakeError("mcp.bad_resource",
                       "a resource kind must name an MCP tool whose plane it shares", k.name);
    }
    if (!k.list || !k.read || k.prefix.empty()) {
      return MakeError("mcp.bad_resource", "a resource kind needs a URI prefix, list and read",
                       k.name);
    }
    for (const auto& other : kinds) {
      if (&other != &k && other.prefix.rfind(k.prefix, 0) == 0) {
        return MakeError("mcp.bad_resource", "two resource kinds' URI prefixes overlap",
                         k.name + " / " + other.name);
      }
    }
    table.access_.push_back(tool->capability.access);
  }
  table.kinds_ = std::move(kinds);
  return table;
}

const ResourceKind* ResourceTable::KindOf(std::string_view uri) const {
  for (const auto& k : kinds_) {
    if (uri.substr(0, k.prefix.size()) == k.prefix) return &k;
  }
  return nullptr;
}

bool ResourceTable::MayUse(const Session& session, const ResourceKind& kind) const {
  const auto i = static_cast<size_t>(&kind - kinds_.data());
  return i < access_.size() && mcp::MayUse(session, access_[i]);
}

namespace {

// Cursors are opaque to clients: the last URI of the page before, hex-encoded (a URI may hold
// anything a header or log would mangle).
std::string Hex(std::string_view s) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() * 2);
  for (unsigned char c : s) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

std::optional<std::string> Unhex(std::string_view s) {
  if (s.size() % 2 != 0) return std::nullopt;
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < s.size(); i += 2) {
    const int hi = digit(s[i]), lo = digit(s[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

void Cacheable(const Session& session, json& result, int64_t ttl_ms) {
  if (!session.stateless()) return;  // the session era has no cache fields
  result["ttlMs"] = ttl_ms;
  result["cacheScope"] = "private";
}

}  // namespace

// Pages by URI (keyset): a resource written between two pages lands on a later page or an
// earlier one, but never moves another across the cursor, so no resource is skipped or repeated.
json McpProtocol::ListResources(const json& id, const json& params, const Session& session) const {
  std::string after;
  if (auto c = params.find("cursor"); c != params.end() && !c->is_null()) {
    auto decoded = c->is_string() ? Unhex(c->get<std::string>()) : std::nullopt;
    if (!decoded || decoded->empty()) {
      return ErrorMessage(id, kInvalidParams, "invalid cursor: give a nextCursor this server sent");
    }
    after = *decoded;
  }
  std::vector<json> all;
  for (const auto& kind : resources_.kinds()) {
    if (!resources_.MayUse(session, kind)) continue;
    auto listed = kind.list(session);
    if (!listed) {
      return ErrorMessage(id, kInternalError, listed.error().message,
                          {{"code", listed.error().code}});
    }
    for (auto& e : *listed) all.push_back(std::move(e));
  }
  std::sort(all.begin(), all.end(),
            [](const json& a, const json& b) { return a.value("uri", "") < b.value("uri", ""); });
  json page = json::array();
  auto it = std::upper_bound(
      all.begin(), all.end(), after,
      [](const std::string& key, const json& e) { return key < e.value("uri", ""); });
  for (; it != all.end() && page.size() < kResourcePage; ++it) page.push_back(*it);
  json result = {{"resources", page}};
  if (it != all.end()) result["nextCursor"] = Hex(page.back().value("uri", ""));
  Cacheable(session, result, kResourceListTtlMs);
  return SuccessMessage(id, std::move(result));
}

json McpProtocol::ReadResource(const json& id, const json& params, const Session& session) const {
  auto u = params.find("uri");
  if (u == params.end() || !u->is_string()) {
    return ErrorMessage(id, kInvalidParams, "resources/read needs params.uri (a string)");
  }
  const std::string uri = u->get<std::string>();
  const ResourceKind* kind = resources_.KindOf(uri);
  // The specification's "resource not found": -32602 with data exactly {uri}.
  if (kind == nullptr)
    return ErrorMessage(id, kInvalidParams, "resource not found: " + uri, {{"uri", uri}});
  if (!resources_.MayUse(session, *kind)) {
    return ErrorMessage(
        id, kInvalidParams,
        "the resource " + uri + " needs the operator session, as its tool " + kind->tool + " does",
        {{"uri", uri}, {"code", "mcp.operator_only"}});
  }
  auto read = kind->read(uri, session);
  if (!read) {
    if (read.error().code == "mcp.unknown_resource") {
      return ErrorMessage(id, kInvalidParams, "resource not found: " + uri, {{"uri", uri}});
    }
    return ErrorMessage(id, kInternalError, read.error().message, {{"code", read.error().code}});
  }
  json result = {{"contents", std::move(read->contents)}};
  Cacheable(session, result, read->ttl_ms);
  return SuccessMessage(id, std::move(result));
}

json McpProtocol::ListTemplates(const json& id, const json& params, const Session& session) const {
  if (auto c = params.find("cursor"); c != params.end() && !c->is_null()) {
    return ErrorMessage(id, kInvalidParams, "unknown cursor: the template list has one page");
  }
  json templates = json::array();
  for (const auto& kind : resources_.kinds()) {
    if (!resources_.MayUse(session, kind)) continue;
    for (const auto& t : kind.templates) templates.push_back(t);
  }
  json result = {{"resourceTemplates", templates}};
  Cacheable(session, result, kTemplatesTtlMs);
  return SuccessMessage(id, std::move(result));
}

}  // namespace affordance::server::mcp

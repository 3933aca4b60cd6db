// The product's MCP resources (docs/MCP.md "Resources"): one ResourceKind per kind of thing a
// client may read by URI, each sharing the plane of the tool that returns the same facts, and each
// read through that tool so the two can never disagree.
//
//   affordance://artifacts/{id}                    an artifact (a composed surface or a live app;
//                                                  {id} may be a live app's slug) at its head
//   affordance://artifacts/{id}/versions/{version} one version of it (never changes)
//   affordance://approvals/{id}                    an approval request with its receipt
//
// MCP Apps' views (ui://affordance/...) are further kinds appended to Resources().
#include "server/mcp_tools.h"

#include <charconv>
#include <ctime>

namespace affordance::server {
namespace {

using nlohmann::json;

constexpr std::string_view kArtifactPrefix = "affordance://artifacts/";
constexpr std::string_view kApprovalPrefix = "affordance://approvals/";
constexpr std::string_view kJson = "application/json";
// An artifact version is immutable once written: a client may keep it for a day.
constexpr int64_t kVersionTtlMs = 24LL * 3600 * 1000;

std::string IsoTime(int64_t ms) {
  const std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Error UnknownResource(const std::string& uri) {
  return MakeError(ErrorKind::kNotFound, "mcp.unknown_resource", "no such resource", uri);
}

// A positive integer in its one canonical spelling (no sign, no leading zero), else 0.
int64_t CanonicalVersion(std::string_view text) {
  int64_t v = 0;
  if (text.empty() || text[0] == '0') return 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc() && end == text.data() + text.size() && v > 0 ? v : 0;
}

// What a tool answered, as a resource: its structured content as JSON text, or the error (a
// missing thing becomes "mcp.unknown_resource").
Result<mcp::ResourceRead> AsResource(const std::string& uri, const mcp::ToolResult& r,
                                     int64_t ttl_ms) {
  if (r.error) {
    if (r.error->kind == ErrorKind::kNotFound) return UnknownResource(uri);
    return *r.error;
  }
  mcp::ResourceRead read;
  read.contents.push_back(
      {{"uri", uri},
       {"mimeType", kJson},
       {"text", r.structured.dump(-1, ' ', false, json::error_handler_t::replace)}});
  read.ttl_ms = ttl_ms;
  return read;
}

mcp::ToolCall CallOf(const std::string& tool, json args, const mcp::Session& s) {
  mcp::ToolCall c;
  c.name = tool;
  c.arguments = std::move(args);
  c.session = std::make_shared<mcp::Session>(s.id(), s.operator_session(), s.transport());
  c.session->MarkInitialized(s.protocol_version(), s.client_name());
  return c;
}

}  // namespace

std::vector<mcp::ResourceKind> ProductTools::Resources() {
  mcp::ResourceKind artifacts;
  artifacts.name = "artifact";
  artifacts.tool = "open_artifact";
  artifacts.prefix = kArtifactPrefix;
  artifacts.templates = {
      {{"uriTemplate", std::string(kArtifactPrefix) + "{id}"},
       {"name", "artifact"},
       {"title", "Artifact (head)"},
       {"description",
        "A composed surface or live app at its head version, as open_artifact returns it; {id} "
        "is an artifact id (a_...) or a live app's slug"},
       {"mimeType", kJson}},
      {{"uriTemplate", std::string(kArtifactPrefix) + "{id}/versions/{version}"},
       {"name", "artifact-version"},
       {"title", "Artifact version"},
       {"description", "One version of an artifact (immutable once written)"},
       {"mimeType", kJson}}};
  artifacts.list = [this](const mcp::Session&) -> Result<std::vector<json>> {
    auto all = o_.store->ListArtifacts();
    if (!all) return all.error();
    std::vector<json> out;
    for (const auto& a : *all) {
      std::string what = a.kind == "live_app" ? "live app " + a.app_slug : a.kind + " surface";
      out.push_back({{"uri", std::string(kArtifactPrefix) + a.id},
                     {"name", a.id},
                     {"title", a.title.empty() ? "untitled " + what : a.title},
                     {"description", what + ", head version " + std::to_string(a.head)},
                     {"mimeType", kJson},
                     {"annotations", {{"lastModified", IsoTime(a.updated_ms)}}}});
    }
    return out;
  };
  artifacts.read = [this](const std::string& uri,
                          const mcp::Session& s) -> Result<mcp::ResourceRead> {
    std::string_view rest = std::string_view(uri).substr(kArtifactPrefix.size());
    int64_t version = 0;
    if (size_t at = rest.find("/versions/"); at != std::string_view::npos) {
      version = CanonicalVersion(rest.substr(at + 10));
      if (version == 0) return UnknownResource(uri);
      rest = rest.substr(0, at);
    }
    if (rest.empty() || rest.find('/') != std::string_view::npos) return UnknownResource(uri);
    json args = {{"id", std::string(rest)}};
    if (version > 0) args["version"] = version;
    return AsResource(uri, OpenArtifact(CallOf("open_artifact", std::move(args), s)),
                      version > 0 ? kVersionTtlMs : 0);
  };

  mcp::ResourceKind approvals;
  approvals.name = "approval";
  approvals.tool = "show_approval";
  approvals.prefix = kApprovalPrefix;
  approvals.templates = {
      {{"uriTemplate", std::string(kApprovalPrefix) + "{id}"},
       {"name", "approval"},
       {"title", "Approval request"},
       {"description",
        "A staged write's approval request (apr_...): the exact effect, who staged and decided "
        "it, its receipt and the weakest true state, as show_approval returns it"},
       {"mimeType", kJson}}};
  approvals.list = [this](const mcp::Session&) -> Result<std::vector<json>> {
    auto all = o_.store->ListApprovals("", "");
    if (!all) return all.error();
    std::vector<json> out;
    for (const auto& a : *all) {
      out.push_back({{"uri", std::string(kApprovalPrefix) + a.id},
                     {"name", a.id},
                     {"title", a.operation + " on " + a.connector + " (" + a.status + ")"},
                     {"mimeType", kJson},
                     {"annotations", {{"lastModified", IsoTime(a.updated_ms)}}}});
    }
    return out;
  };
  approvals.read = [this](const std::string& uri,
                          const mcp::Session& s) -> Result<mcp::ResourceRead> {
    const std::string id = uri.substr(kApprovalPrefix.size());
    if (id.empty() || id.find('/') != std::string::npos) return UnknownResource(uri);
    return AsResource(uri, ShowApproval(CallOf("show_approval", {{"id", id}}, s)), 0);
  };
  return {std::move(artifacts), std::move(approvals)};
}

Result<std::unique_ptr<mcp::McpProtocol>> ProductProtocol(ProductTools& tools) {
  auto table = mcp::ToolTable::Build(authority::CapabilityRegistry::Global(), tools.Functions());
  if (!table) return table.error();
  auto resources = mcp::ResourceTable::Build(*table, tools.Resources());
  if (!resources) return resources.error();
  return std::make_unique<mcp::McpProtocol>(std::move(*table), ProductInfo(),
                                            std::move(*resources));
}

}  // namespace affordance::server

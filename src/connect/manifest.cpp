#include "connect/manifest.h"

#include "base/json_limits.h"
#include "connect/mcp_client.h"
#include "connect/schema.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <set>
#include <string_view>

namespace affordance::connect {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Thrown only inside this file; ParseManifest turns it into an Error.
struct Invalid {
  std::string pointer;
  std::string problem;
};

[[noreturn]] void Fail(const std::string& pointer, const std::string& problem) {
  throw Invalid{pointer, problem};
}

void OnlyKeys(const json& obj, const std::string& ptr, std::initializer_list<std::string_view> ok) {
  for (const auto& [key, value] : obj.items()) {
    if (std::find(ok.begin(), ok.end(), key) == ok.end()) {
      std::string allowed;
      for (auto k : ok) allowed += (allowed.empty() ? "" : ", ") + std::string(k);
      Fail(ptr + "/" + key, "unknown key (allowed: " + allowed + ")");
    }
  }
}

const json& Object(const json& parent, const std::string& key, const std::string& ptr) {
  if (!parent.contains(key)) Fail(ptr + "/" + key, "is required");
  const json& v = parent[key];
  if (!v.is_object()) Fail(ptr + "/" + key, "must be an object");
  return v;
}

std::string String(const json& parent, const std::string& key, const std::string& ptr,
                   bool required, std::string fallback = {}) {
  if (!parent.contains(key)) {
    if (required) Fail(ptr + "/" + key, "is required");
    return fallback;
  }
  const json& v = parent[key];
  if (!v.is_string()) Fail(ptr + "/" + key, "must be a string");
  if (required && v.get_ref<const std::string&>().empty()) Fail(ptr + "/" + key, "is empty");
  return v.get<std::string>();
}

std::vector<std::string> Strings(const json& parent, const std::string& key,
                                 const std::string& ptr) {
  std::vector<std::string> out;
  if (!parent.contains(key)) return out;
  const json& v = parent[key];
  if (!v.is_array()) Fail(ptr + "/" + key, "must be an array of strings");
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string() || v[i].get_ref<const std::string&>().empty()) {
      Fail(ptr + "/" + key + "/" + std::to_string(i), "must be a non-empty string");
    }
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

int64_t Integer(const json& parent, const std::string& key, const std::string& ptr,
                int64_t fallback, int64_t min, int64_t max) {
  if (!parent.contains(key)) return fallback;
  const json& v = parent[key];
  if (!v.is_number_integer()) Fail(ptr + "/" + key, "must be an integer");
  int64_t n = v.get<int64_t>();
  if (n < min || n > max) {
    Fail(ptr + "/" + key, "must be between " + std::to_string(min) + " and " + std::to_string(max));
  }
  return n;
}

// Names: a lower-case letter, then lower-case letters, digits, '_' or '-'; at most 64 bytes.
bool IsName(const std::string& s, bool dash) {
  if (s.empty() || s.size() > 64 || !(s[0] >= 'a' && s[0] <= 'z')) return false;
  return std::all_of(s.begin(), s.end(), [&](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || (dash && c == '-');
  });
}

std::string Resolve(const std::string& base, const std::string& path) {
  if (path.empty() || base.empty() || fs::path(path).is_absolute()) return path;
  if (path[0] == '~') {
    const char* home = std::getenv("HOME");
    return home ? std::string(home) + path.substr(1) : path;
  }
  return (fs::path(base) / path).lexically_normal().string();
}

template <class E>
E Enum(const std::string& text, const std::string& ptr,
       std::initializer_list<std::pair<std::string_view, E>> values) {
  std::string names;
  for (const auto& [name, value] : values) {
    if (text == name) return value;
    names += (names.empty() ? "" : ", ") + std::string(name);
  }
  Fail(ptr, "\"" + text + "\" is not one of " + names);
}

OperationKind KindOf(const std::string& s, const std::string& ptr) {
  return Enum<OperationKind>(s, ptr,
                             {{"list", OperationKind::kList},
                              {"detail", OperationKind::kDetail},
                              {"search", OperationKind::kSearch},
                              {"sql", OperationKind::kSql},
                              {"mutation", OperationKind::kMutation}});
}

Operation ParseOperation(const json& j, const std::string& ptr, const ConnectorManifest& m) {
  if (!j.is_object()) Fail(ptr, "must be an object");
  OnlyKeys(j, ptr,
           {"name", "kind", "description", "args", "served_fields", "risk", "handle", "query",
            "argv", "positional", "detail_operation", "id_field", "statement", "effect",
            "idempotency_flag", "verify", "summary", "before"});
  Operation op;
  op.name = String(j, "name", ptr, true);
  if (!IsName(op.name, false)) Fail(ptr + "/name", "must match [a-z][a-z0-9_]* (64 bytes max)");
  op.kind = KindOf(String(j, "kind", ptr, true), ptr + "/kind");
  op.description = String(j, "description", ptr, false);
  op.args_schema = j.value("args", json{{"type", "object"}, {"additionalProperties", false}});
  if (auto s = CheckSchema(op.args_schema, ptr + "/args"); !s) Fail(s.error().message, "");
  if (!op.args_schema.is_object() || op.args_schema.value("type", json()) != "object") {
    Fail(ptr + "/args", "must be a JSON Schema with \"type\": \"object\"");
  }
  op.served_fields = Strings(j, "served_fields", ptr);
  std::string risk =
      String(j, "risk", ptr, false, op.kind == OperationKind::kMutation ? "write" : "read");
  op.risk = Enum<Risk>(
      risk, ptr + "/risk",
      {{"read", Risk::kRead}, {"write", Risk::kWrite}, {"destructive", Risk::kDestructive}});
  if ((op.kind == OperationKind::kMutation) != (op.risk != Risk::kRead)) {
    Fail(ptr + "/risk", op.kind == OperationKind::kMutation
                            ? "a mutation cannot have risk \"read\""
                            : "only a mutation may have risk \"write\" or \"destructive\"");
  }
  op.handle = String(j, "handle", ptr, false, m.slug + "_" + op.name);
  op.query = String(j, "query", ptr, false);
  op.argv = Strings(j, "argv", ptr);
  op.positional = Strings(j, "positional", ptr);
  op.detail_operation = String(j, "detail_operation", ptr, false);
  op.id_field = String(j, "id_field", ptr, false, "id");
  if (!op.detail_operation.empty() && op.kind != OperationKind::kList) {
    Fail(ptr + "/detail_operation", "only a list operation fans out to details");
  }
  const json& props = op.args_schema.value("properties", json::object());
  for (const auto& p : op.positional) {
    if (!props.contains(p)) Fail(ptr + "/positional", "\"" + p + "\" is not a declared argument");
  }
  bool cli = m.source.kind == SourceKind::kPrintedCli;
  bool reads = op.kind != OperationKind::kMutation && op.kind != OperationKind::kSql;
  if (op.kind == OperationKind::kSql) {
    if (!props.contains("query")) Fail(ptr + "/args", "a sql operation takes a \"query\" argument");
    if (cli && !m.HasVerb("sql")) Fail(ptr, "a printed CLI sql operation needs the \"sql\" verb");
  } else if (reads && cli && op.argv.empty()) {
    Fail(ptr + "/argv", "a printed CLI operation needs its verb words");
  } else if (reads && !cli && op.query.empty()) {
    Fail(ptr + "/query", "a read operation over a mirror needs its SELECT");
  }
  op.statement = String(j, "statement", ptr, false);
  op.effect = String(j, "effect", ptr, false);
  op.idempotency_flag = String(j, "idempotency_flag", ptr, false);
  if (j.contains("verify")) {
    const json& v = j["verify"];
    if (!v.is_object()) Fail(ptr + "/verify", "must be an object");
    OnlyKeys(v, ptr + "/verify", {"operation", "args", "expect", "absent"});
    op.verify_operation = String(v, "operation", ptr + "/verify", true);
    op.verify_args = v.value("args", json::object());
    op.verify_expect = v.value("expect", json::object());
    op.verify_absent = v.value("absent", false);
    if (!op.verify_args.is_object() || !op.verify_expect.is_object()) {
      Fail(ptr + "/verify", "args and expect must be objects");
    }
  }
  op.summary = String(j, "summary", ptr, false);
  if (j.contains("before")) {
    const json& b = j["before"];
    if (!b.is_object()) Fail(ptr + "/before", "must be an object");
    OnlyKeys(b, ptr + "/before", {"operation", "args"});
    op.before_operation = String(b, "operation", ptr + "/before", true);
    op.before_args = b.value("args", json::object());
    if (!op.before_args.is_object()) Fail(ptr + "/before/args", "must be an object");
  }
  if (op.kind == OperationKind::kMutation) {
    if (m.source.kind == SourceKind::kSqlite && op.statement.empty()) {
      Fail(ptr + "/statement", "a SQLite mutation needs its write statement");
    }
    if (m.source.kind == SourceKind::kIcs && op.effect != "create" && op.effect != "update" &&
        op.effect != "delete") {
      Fail(ptr + "/effect", "a calendar mutation needs effect create, update or delete");
    }
    if (cli && op.argv.empty()) Fail(ptr + "/argv", "a printed CLI mutation needs its verb words");
  } else if (!op.statement.empty() || !op.effect.empty() || !op.idempotency_flag.empty() ||
             !op.verify_operation.empty() || !op.summary.empty() || !op.before_operation.empty()) {
    Fail(ptr,
         "statement, effect, idempotency_flag, verify, summary and before belong to mutations");
  }
  if (!cli && !op.argv.empty()) Fail(ptr + "/argv", "only printed CLI operations have argv");
  if (cli && !op.query.empty()) Fail(ptr + "/query", "printed CLI operations run verbs, not SQL");
  return op;
}

SourceSpec ParseSource(const json& j, const std::string& ptr, const std::string& base) {
  SourceSpec s;
  s.kind = Enum<SourceKind>(String(j, "kind", ptr, true), ptr + "/kind",
                            {{"sqlite", SourceKind::kSqlite},
                             {"printed_cli", SourceKind::kPrintedCli},
                             {"ics", SourceKind::kIcs},
                             {"mcp", SourceKind::kMcp}});
  switch (s.kind) {
    case SourceKind::kMcp: {
      OnlyKeys(j, ptr,
               {"kind", "command", "args", "env", "cwd", "url", "bearer_env", "timeout_ms",
                "init_timeout_ms", "max_message_bytes", "stderr_log_bytes"});
      s.command = String(j, "command", ptr, false);
      s.url = String(j, "url", ptr, false);
      if (s.command.empty() == s.url.empty()) {
        Fail(ptr, "an MCP source needs exactly one of \"command\" (stdio) or \"url\" (HTTP)");
      }
      if (!s.url.empty()) {
        if (auto u = ParseMcpUrl(s.url); !u) {
          std::string why = u.error().message;
          const std::string lead = "the MCP server's url ";
          if (why.rfind(lead, 0) == 0) why = why.substr(lead.size());
          Fail(ptr + "/url", why + " (" + u.error().code + ")");
        }
      }
      if (s.command.find('/') != std::string::npos) s.command = Resolve(base, s.command);
      s.args = Strings(j, "args", ptr);
      if (j.contains("env")) {
        const json& env = j["env"];
        if (!env.is_object()) Fail(ptr + "/env", "must be an object of strings");
        for (const auto& [name, value] : env.items()) {
          if (!value.is_string()) Fail(ptr + "/env/" + name, "must be a string");
          if (name.empty() || name.find('=') != std::string::npos) {
            Fail(ptr + "/env/" + name, "is not a variable name");
          }
          s.env.emplace_back(name, value.get<std::string>());
        }
      }
      if (!s.url.empty() && (!s.args.empty() || !s.env.empty() || j.contains("cwd"))) {
        Fail(ptr, "args, env and cwd belong to a stdio MCP source (\"command\")");
      }
      s.cwd = Resolve(base, String(j, "cwd", ptr, false, base.empty() ? "" : "."));
      s.bearer_env = String(j, "bearer_env", ptr, false);
      if (!s.bearer_env.empty() && s.url.empty()) {
        Fail(ptr + "/bearer_env", "a bearer token belongs to an HTTP MCP source (\"url\")");
      }
      s.timeout_ms = Integer(j, "timeout_ms", ptr, 30000, 1, 3600000);
      s.init_timeout_ms = Integer(j, "init_timeout_ms", ptr, 10000, 1, 3600000);
      s.max_message_bytes = Integer(j, "max_message_bytes", ptr, 16 << 20, 1024, int64_t{1} << 30);
      s.stderr_log_bytes = Integer(j, "stderr_log_bytes", ptr, 64 << 10, 0, 64 << 20);
      s.max_parallel = 4;
      break;
    }
    case SourceKind::kSqlite:
      OnlyKeys(j, ptr, {"kind", "path", "max_parallel"});
      s.path = Resolve(base, String(j, "path", ptr, true));
      s.max_parallel = static_cast<int>(Integer(j, "max_parallel", ptr, 1, 1, 64));
      break;
    case SourceKind::kIcs:
      OnlyKeys(j, ptr, {"kind", "paths", "max_parallel"});
      s.max_parallel = static_cast<int>(Integer(j, "max_parallel", ptr, 1, 1, 64));
      s.paths = Strings(j, "paths", ptr);
      if (s.paths.empty()) Fail(ptr + "/paths", "needs at least one .ics file or folder");
      for (auto& p : s.paths) p = Resolve(base, p);
      break;
    case SourceKind::kPrintedCli:
      OnlyKeys(j, ptr,
               {"kind", "command", "mirror_path", "verbs", "timeout_ms", "max_parallel",
                "end_of_options"});
      if (j.contains("end_of_options")) {
        if (!j["end_of_options"].is_boolean())
          Fail(ptr + "/end_of_options", "must be true or false");
        s.end_of_options = j["end_of_options"].get<bool>();
      }
      s.command = String(j, "command", ptr, true);
      if (s.command.find('/') != std::string::npos) s.command = Resolve(base, s.command);
      s.mirror_path = Resolve(base, String(j, "mirror_path", ptr, false));
      s.verbs = Strings(j, "verbs", ptr);
      for (const auto& v : s.verbs) {
        if (v != "which" && v != "sql" && v != "sync" && v != "lookup") {
          Fail(ptr + "/verbs", "\"" + v + "\" is not one of which, sql, sync, lookup");
        }
      }
      s.timeout_ms = Integer(j, "timeout_ms", ptr, 30000, 1, 3600000);
      s.max_parallel = static_cast<int>(Integer(j, "max_parallel", ptr, 8, 1, 64));
      break;
  }
  return s;
}

std::vector<MirrorTable> ParseMirror(const json& j, const std::string& ptr) {
  OnlyKeys(j, ptr, {"tables"});
  std::vector<MirrorTable> tables;
  const json& arr = j.value("tables", json::array());
  if (!arr.is_array()) Fail(ptr + "/tables", "must be an array");
  for (size_t i = 0; i < arr.size(); ++i) {
    std::string at = ptr + "/tables/" + std::to_string(i);
    if (!arr[i].is_object()) Fail(at, "must be an object");
    OnlyKeys(arr[i], at, {"name", "columns", "description"});
    MirrorTable t{String(arr[i], "name", at, true), {}, String(arr[i], "description", at, false)};
    const json& cols = arr[i].value("columns", json::array());
    if (!cols.is_array() || cols.empty()) Fail(at + "/columns", "must be a non-empty array");
    for (size_t c = 0; c < cols.size(); ++c) {
      std::string cat = at + "/columns/" + std::to_string(c);
      if (!cols[c].is_object()) Fail(cat, "must be an object");
      OnlyKeys(cols[c], cat, {"name", "type"});
      t.columns.push_back(
          {String(cols[c], "name", cat, true), String(cols[c], "type", cat, false)});
    }
    tables.push_back(std::move(t));
  }
  return tables;
}

// An MCP manifest's operations entry: a refinement of one of the server's tools. The catalog
// itself comes from tools/list (mcp_catalog.cpp applies these to it).
McpToolOverride ParseMcpOverride(const json& j, const std::string& ptr) {
  if (!j.is_object()) Fail(ptr, "must be an object");
  OnlyKeys(j, ptr,
           {"tool", "name", "risk", "description", "served_fields", "handle", "verify", "summary",
            "before"});
  McpToolOverride o;
  o.tool = String(j, "tool", ptr, true);
  o.name = String(j, "name", ptr, false);
  if (!o.name.empty() && !IsName(o.name, false)) {
    Fail(ptr + "/name", "must match [a-z][a-z0-9_]* (64 bytes max)");
  }
  if (j.contains("risk")) {
    o.risk = Enum<Risk>(
        String(j, "risk", ptr, true), ptr + "/risk",
        {{"read", Risk::kRead}, {"write", Risk::kWrite}, {"destructive", Risk::kDestructive}});
  }
  o.description = String(j, "description", ptr, false);
  o.extras.served_fields = Strings(j, "served_fields", ptr);
  o.extras.handle = String(j, "handle", ptr, false);
  if (j.contains("verify")) {
    const json& v = j["verify"];
    if (!v.is_object()) Fail(ptr + "/verify", "must be an object");
    OnlyKeys(v, ptr + "/verify", {"operation", "args", "expect", "absent"});
    o.extras.verify_operation = String(v, "operation", ptr + "/verify", true);
    o.extras.verify_args = v.value("args", json::object());
    o.extras.verify_expect = v.value("expect", json::object());
    o.extras.verify_absent = v.value("absent", false);
    if (!o.extras.verify_args.is_object() || !o.extras.verify_expect.is_object()) {
      Fail(ptr + "/verify", "args and expect must be objects");
    }
  }
  o.extras.summary = String(j, "summary", ptr, false);
  if (j.contains("before")) {
    const json& b = j["before"];
    if (!b.is_object()) Fail(ptr + "/before", "must be an object");
    OnlyKeys(b, ptr + "/before", {"operation", "args"});
    o.extras.before_operation = String(b, "operation", ptr + "/before", true);
    o.extras.before_args = b.value("args", json::object());
    if (!o.extras.before_args.is_object()) Fail(ptr + "/before/args", "must be an object");
  }
  return o;
}

ConnectorManifest Parse(const json& j, const std::string& file) {
  if (!j.is_object()) Fail("", "a manifest must be a JSON object");
  OnlyKeys(j, "",
           {"slug", "title", "description", "source", "modes", "credentials", "mirror", "sync",
            "operations", "$comment"});
  ConnectorManifest m;
  m.file = file;
  m.slug = String(j, "slug", "", true);
  if (!IsName(m.slug, true)) Fail("/slug", "must match [a-z][a-z0-9_-]* (64 bytes max)");
  m.title = String(j, "title", "", true);
  m.description = String(j, "description", "", false);
  std::string base = file.empty() ? "" : fs::path(file).parent_path().string();
  if (base.empty() && !file.empty()) base = ".";
  m.source = ParseSource(Object(j, "source", ""), "/source", base);
  for (const auto& mode : Strings(j, "modes", "")) {
    auto parsed = ParseSourceMode(mode);
    if (!parsed) Fail("/modes", parsed.error().message);
    if (m.Supports(*parsed)) Fail("/modes", "\"" + mode + "\" is listed twice");
    m.modes.push_back(*parsed);
  }
  if (m.modes.empty()) Fail("/modes", "must list at least one of live, local, auto");
  if (m.source.kind == SourceKind::kSqlite &&
      (m.Supports(SourceMode::kLive) || m.Supports(SourceMode::kAuto))) {
    Fail("/modes", "a local SQLite database has only the \"local\" mode");
  }
  if (m.source.kind == SourceKind::kMcp && !m.Supports(SourceMode::kLive)) {
    Fail("/modes", "an MCP server is read live: its modes must include \"live\"");
  }
  if (j.contains("credentials")) {
    const json& c = Object(j, "credentials", "");
    OnlyKeys(c, "/credentials", {"env"});
    m.credential_env = Strings(c, "env", "/credentials");
  }
  if (j.contains("mirror")) m.mirror_tables = ParseMirror(Object(j, "mirror", ""), "/mirror");
  if (j.contains("sync")) {
    const json& s = Object(j, "sync", "");
    OnlyKeys(s, "/sync", {"max_age_s", "past_days", "future_days"});
    m.sync.max_age_s = Integer(s, "max_age_s", "/sync", 3600, 0, int64_t{1} << 40);
    m.sync.past_days = Integer(s, "past_days", "/sync", 30, 0, 36600);
    m.sync.future_days = Integer(s, "future_days", "/sync", 365, 0, 36600);
  }
  if (m.source.kind == SourceKind::kMcp) {
    // The catalog comes from the server; the manifest may only refine its tools.
    std::set<std::string> tools;
    const json& ops = j.value("operations", json::array());
    if (!ops.is_array()) Fail("/operations", "must be an array");
    for (size_t i = 0; i < ops.size(); ++i) {
      std::string at = "/operations/" + std::to_string(i);
      McpToolOverride o = ParseMcpOverride(ops[i], at);
      if (!tools.insert(o.tool).second) Fail(at + "/tool", "\"" + o.tool + "\" is listed twice");
      m.mcp_overrides.push_back(std::move(o));
    }
    return m;
  }
  if (!j.contains("operations") || !j["operations"].is_array() || j["operations"].empty()) {
    Fail("/operations", "must be a non-empty array");
  }
  std::set<std::string> names;
  const json& ops = j["operations"];
  for (size_t i = 0; i < ops.size(); ++i) {
    std::string at = "/operations/" + std::to_string(i);
    Operation op = ParseOperation(ops[i], at, m);
    if (!names.insert(op.name).second) Fail(at + "/name", "\"" + op.name + "\" is listed twice");
    m.operations.push_back(std::move(op));
  }
  for (size_t i = 0; i < m.operations.size(); ++i) {
    const Operation& op = m.operations[i];
    if (op.before_operation.empty()) continue;
    const Operation* b = m.FindOperation(op.before_operation);
    if (!b || !b->readable()) {
      Fail("/operations/" + std::to_string(i) + "/before/operation",
           "\"" + op.before_operation + "\" is not a readable operation of this connector");
    }
  }
  for (size_t i = 0; i < m.operations.size(); ++i) {
    const Operation& op = m.operations[i];
    if (op.verify_operation.empty()) continue;
    const Operation* v = m.FindOperation(op.verify_operation);
    if (!v || v->kind == OperationKind::kMutation) {
      Fail("/operations/" + std::to_string(i) + "/verify/operation",
           "\"" + op.verify_operation + "\" is not a readable operation of this connector");
    }
  }
  for (size_t i = 0; i < m.operations.size(); ++i) {
    const Operation& op = m.operations[i];
    if (op.detail_operation.empty()) continue;
    const Operation* d = m.FindOperation(op.detail_operation);
    if (!d || d->kind != OperationKind::kDetail) {
      Fail("/operations/" + std::to_string(i) + "/detail_operation",
           "\"" + op.detail_operation + "\" is not a detail operation of this connector");
    }
  }
  return m;
}

std::string EnvOr(const char* name, const char* xdg, const char* fallback) {
  if (const char* v = std::getenv(name); v && *v) return v;
  if (const char* v = std::getenv(xdg); v && *v) return std::string(v) + "/affordance/connectors";
  const char* home = std::getenv("HOME");
  return std::string(home ? home : ".") + fallback;
}

}  // namespace

std::string ToString(SourceMode mode) {
  switch (mode) {
    case SourceMode::kLive:
      return "live";
    case SourceMode::kLocal:
      return "local";
    case SourceMode::kAuto:
      return "auto";
  }
  return "?";
}
std::string ToString(SourceKind kind) {
  switch (kind) {
    case SourceKind::kSqlite:
      return "sqlite";
    case SourceKind::kPrintedCli:
      return "printed_cli";
    case SourceKind::kIcs:
      return "ics";
    case SourceKind::kMcp:
      return "mcp";
  }
  return "?";
}
std::string ToString(OperationKind kind) {
  switch (kind) {
    case OperationKind::kList:
      return "list";
    case OperationKind::kDetail:
      return "detail";
    case OperationKind::kSearch:
      return "search";
    case OperationKind::kSql:
      return "sql";
    case OperationKind::kMutation:
      return "mutation";
  }
  return "?";
}
std::string ToString(Risk risk) {
  switch (risk) {
    case Risk::kRead:
      return "read";
    case Risk::kWrite:
      return "write";
    case Risk::kDestructive:
      return "destructive";
  }
  return "?";
}

Result<SourceMode> ParseSourceMode(const std::string& text) {
  if (text == "live") return SourceMode::kLive;
  if (text == "local") return SourceMode::kLocal;
  if (text == "auto") return SourceMode::kAuto;
  return MakeError(ErrorKind::kInvalid, "connect.bad_mode",
                   "source mode must be live, local or auto", text);
}

const Operation* ConnectorManifest::FindOperation(const std::string& name) const {
  for (const auto& op : operations) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

bool ConnectorManifest::Supports(SourceMode mode) const {
  return std::find(modes.begin(), modes.end(), mode) != modes.end();
}

bool ConnectorManifest::HasVerb(const std::string& verb) const {
  return std::find(source.verbs.begin(), source.verbs.end(), verb) != source.verbs.end();
}

Result<ConnectorManifest> ParseManifest(const std::string& text, const std::string& file) {
  // Checked on the text: the schema checks and everything after them recurse over the value.
  if (auto deep = CheckJsonDepth(text, "connect.too_deep", "the manifest"); !deep) {
    Error e = deep.error();
    e.detail = file.empty() ? e.detail : file + ": " + e.detail;
    return e;
  }
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return MakeError(ErrorKind::kInvalid, "connect.manifest_invalid", "manifest is not valid JSON",
                     JsonSyntaxErrorIn(text, file));
  }
  try {
    return Parse(j, file);
  } catch (const Invalid& e) {
    std::string where = e.pointer.empty() ? "manifest" : e.pointer;
    std::string message = e.problem.empty() ? e.pointer : where + ": " + e.problem;
    return MakeError(ErrorKind::kInvalid, "connect.manifest_invalid", message, file);
  } catch (const json::exception& e) {
    return MakeError(ErrorKind::kInvalid, "connect.manifest_invalid",
                     std::string("manifest: ") + e.what(), file);
  }
}

Result<std::vector<ConnectorManifest>> LoadManifests(const std::string& dir) {
  std::vector<ConnectorManifest> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
      return MakeError(ErrorKind::kInvalid, "connect.manifest_unreadable", "cannot read manifest",
                       path.string());
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto m = ParseManifest(text, path.string());
    if (!m) return m.error();
    for (const auto& other : out) {
      if (other.slug == m->slug) {
        return MakeError(ErrorKind::kInvalid, "connect.manifest_invalid",
                         "slug \"" + m->slug + "\" is already used by " + other.file,
                         path.string());
      }
    }
    out.push_back(std::move(m.value()));
  }
  return out;
}

std::string DefaultManifestDir() {
  return EnvOr("AFFORDANCE_CONNECTORS", "XDG_CONFIG_HOME", "/.config/affordance/connectors");
}

std::string DefaultDataDir() {
  return EnvOr("AFFORDANCE_DATA", "XDG_DATA_HOME", "/.local/share/affordance/connectors");
}

}  // namespace affordance::connect

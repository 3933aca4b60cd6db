#include "surface/artifact.h"

#include "connect/road.h"
#include "surface/edit.h"
#include "surface/semantic.h"
#include "surface/validate.h"

#include <algorithm>
#include <set>

namespace affordance::surface {
namespace {

using nlohmann::json;

bool ValidSlug(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!alnum && !(i > 0 && c == '-')) return false;
  }
  return true;
}

json Strings(const std::vector<std::string>& v) { return json(v); }

std::vector<std::string> StringsOf(const json& j) {
  std::vector<std::string> out;
  if (!j.is_array()) return out;
  for (const auto& s : j) {
    if (s.is_string()) out.push_back(s.get<std::string>());
  }
  return out;
}

// Invalid UTF-8 in a program's literals (model output) becomes U+FFFD rather than throwing.
json ToPlainJson(const Value& v) {
  return json::parse(v.ToJson().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

// The JSON value of a literal argument AST; nullopt when it computes anything ($state, refs).
std::optional<json> LiteralOf(const Value& ast) {
  if (!ast.IsAst()) return std::nullopt;
  const std::string_view k = ast.AstKind();
  if (k == "Str" || k == "Num" || k == "Bool") return ToPlainJson(ast["v"]);
  if (k == "Null") return json(nullptr);
  if (k == "Arr") {
    json out = json::array();
    for (const Value* e : ast["els"].items()) {
      auto v = LiteralOf(*e);
      if (!v) return std::nullopt;
      out.push_back(std::move(*v));
    }
    return out;
  }
  if (k == "Obj") {
    json out = json::object();
    for (const Value* entry : ast["entries"].items()) {
      if (!entry->is_array() || entry->size() != 2 || !entry->at(0).is_string())
        return std::nullopt;
      auto v = LiteralOf(entry->at(1));
      if (!v) return std::nullopt;
      out[std::string(entry->at(0).string())] = std::move(*v);
    }
    return out;
  }
  return std::nullopt;
}

const QueryHandle* FindHandle(const std::vector<QueryHandle>& handles, const std::string& name) {
  for (const auto& h : handles) {
    if (h.handle == name) return &h;
  }
  return nullptr;
}

std::string ErrorSummary(const std::vector<LangError>& errors) {
  std::string first = errors.front().code + ": " + errors.front().message;
  return "the program was not accepted (" + std::to_string(errors.size()) + " error" +
         (errors.size() == 1 ? "" : "s") + "; first: " + first + ")";
}

Composed Fail(Error e) {
  Composed c;
  c.error = std::move(e);
  return c;
}

}  // namespace

std::string NormalizeKind(const std::string& kind) {
  return kind == "live-app" ? std::string("live_app") : kind;
}

std::vector<QueryHandle> HandlesOf(const connect::ConnectorRoad* road) {
  std::vector<QueryHandle> out;
  if (road == nullptr) return out;
  for (const auto& m : road->manifests()) {
    for (const auto& op : m.operations) {
      QueryHandle h;
      h.handle = op.handle;
      h.connector = m.slug;
      h.operation = op.name;
      h.source = m.slug + ":" + connect::ToString(m.source.kind);
      h.served_fields = op.served_fields;
      h.mutation = op.kind == connect::OperationKind::kMutation;
      h.title = m.title;
      out.push_back(std::move(h));
    }
  }
  return out;
}

std::vector<Evidence> EvidenceOfResult(const json& r) {
  std::vector<Evidence> out;
  if (!r.is_object() || !r.contains("operation_ledger") || !r.contains("rows")) return out;
  const json& contracts = r.value("query_contracts", json::array());
  const json& ledger = r["operation_ledger"];
  if (!ledger.is_array() || ledger.empty()) return out;
  // The rows belong to the first ledger entry (a fan-out's detail reads add served fields).
  const json& first = ledger[0];
  Evidence e;
  e.connector = r.value("connector", "");
  e.operation = first.value("command", "");
  e.args = first.value("args", json::object());
  e.served_from = first.value("source", "");
  std::set<std::string> served;
  for (const auto& entry : ledger) {
    for (const auto& f : StringsOf(entry.value("served_fields", json::array()))) served.insert(f);
  }
  e.served_fields.assign(served.begin(), served.end());
  for (const auto& c : contracts) {
    if (c.value("operation", "") == e.operation) e.handle = c.value("handle", "");
  }
  if (r["rows"].is_array()) {
    for (const auto& row : r["rows"]) e.rows.push_back(row);
  }
  out.push_back(std::move(e));
  return out;
}

std::optional<ActiveArtifact> ActiveArtifactOf(const std::vector<store::MessageRecord>& thread) {
  for (auto m = thread.rbegin(); m != thread.rend(); ++m) {
    for (auto p = m->parts.rbegin(); p != m->parts.rend(); ++p) {
      if (p->kind != "surface" || p->data.value("artifactId", "").empty()) continue;
      ActiveArtifact a;
      a.artifact_id = p->data.value("artifactId", "");
      a.version = p->data.value("version", int64_t{0});
      a.surface_id = p->key;
      a.kind = p->data.value("kind", "inline");
      a.live = p->data.value("live", false);
      return a;
    }
  }
  return std::nullopt;
}

std::vector<Evidence> EvidenceOfThread(const std::vector<store::MessageRecord>& thread,
                                       const std::string& current_message_id) {
  std::vector<Evidence> out;
  for (const auto& m : thread) {
    for (const auto& p : m.parts) {
      if (p.kind != "tool" || !p.data.contains("dataState") || !p.data.contains("output")) continue;
      for (auto& e : EvidenceOfResult(p.data["output"])) {
        e.tool_call_id = p.key;
        e.this_turn = m.id == current_message_id;
        out.push_back(std::move(e));
      }
    }
  }
  return out;
}

json QueryBinding::ToJson() const {
  return {{"statement", statement}, {"handle", handle},
          {"args", args},           {"argsLiteral", args_literal},
          {"connector", connector}, {"operation", operation},
          {"source", source},       {"servedFields", Strings(served_fields)},
          {"grounded", grounded}};
}

QueryBinding QueryBinding::FromJson(const json& j) {
  QueryBinding b;
  b.statement = j.value("statement", "");
  b.handle = j.value("handle", "");
  b.args = j.value("args", json::object());
  b.args_literal = j.value("argsLiteral", true);
  b.connector = j.value("connector", "");
  b.operation = j.value("operation", "");
  b.source = j.value("source", "");
  b.served_fields = StringsOf(j.value("servedFields", json::array()));
  b.grounded = j.value("grounded", false);
  return b;
}

json Bindings::ToJson() const {
  json q = json::array();
  for (const auto& b : queries) q.push_back(b.ToJson());
  json m = json::array();
  for (const auto& b : mutations) {
    m.push_back({{"statement", b.statement},
                 {"handle", b.handle},
                 {"args", b.args},
                 {"connector", b.connector},
                 {"operation", b.operation}});
  }
  return {{"queries", q}, {"mutations", m}, {"sources", Strings(sources)}};
}

Bindings Bindings::FromJson(const json& j) {
  Bindings b;
  if (!j.is_object()) return b;
  for (const auto& q : j.value("queries", json::array()))
    b.queries.push_back(QueryBinding::FromJson(q));
  for (const auto& m : j.value("mutations", json::array())) {
    b.mutations.push_back({m.value("statement", ""), m.value("handle", ""),
                           m.value("args", json::object()), m.value("connector", ""),
                           m.value("operation", "")});
  }
  b.sources = StringsOf(j.value("sources", json::array()));
  return b;
}

Bindings BindingsOf(const ParseResult& parse, const std::vector<QueryHandle>& handles,
                    const std::vector<Evidence>& evidence) {
  Bindings out;
  std::set<std::string> sources;
  for (const auto& q : parse.query_statements) {
    auto tool = q.tool->StringLiteral();
    if (!tool || !q.tool->IsAst()) continue;
    QueryBinding b;
    b.statement = std::string(q.statement_id);
    b.handle = std::string(*tool);
    if (q.args->is_null()) {
      b.args = json::object();
    } else if (auto literal = LiteralOf(*q.args)) {
      b.args = std::move(*literal);
    } else {
      b.args = ToPlainJson(*q.args);
      b.args_literal = false;
    }
    if (const QueryHandle* h = FindHandle(handles, b.handle)) {
      b.connector = h->connector;
      b.operation = h->operation;
      b.source = h->source;
      b.served_fields = h->served_fields;
      if (!b.connector.empty()) sources.insert(b.connector);
    }
    for (const auto& e : evidence) {
      if (e.handle == b.handle && b.args_literal && e.args == b.args) {
        b.grounded = true;
        if (b.served_fields.empty()) b.served_fields = e.served_fields;
      }
    }
    out.queries.push_back(std::move(b));
  }
  for (const auto& m : parse.mutation_statements) {
    auto tool = m.tool->StringLiteral();
    if (!tool || !m.tool->IsAst()) continue;
    MutationBinding b;
    b.statement = std::string(m.statement_id);
    b.handle = std::string(*tool);
    if (!m.args->is_null()) b.args = ToPlainJson(*m.args);
    if (const QueryHandle* h = FindHandle(handles, b.handle)) {
      b.connector = h->connector;
      b.operation = h->operation;
    }
    out.mutations.push_back(std::move(b));
  }
  for (const auto& s : GroundedSources(parse, evidence)) sources.insert(s);
  out.sources.assign(sources.begin(), sources.end());
  return out;
}

Composed SaveProgram(store::Store& store, const ComposeRequest& request) {
  const std::string asked = NormalizeKind(request.kind);
  if (!asked.empty() && asked != "inline" && asked != "panel" && asked != "live_app") {
    return Fail(MakeError("surface.bad_kind", "surface kind \"" + request.kind +
                                                  "\" is not one of inline, panel, live_app"));
  }
  if (!request.app_slug.empty() && !ValidSlug(request.app_slug)) {
    return Fail(MakeError("surface.bad_slug",
                          "app_slug \"" + request.app_slug +
                              "\" must be 1 to 64 of a-z, 0-9 and '-', starting with a letter "
                              "or digit"));
  }

  // Which artifact this writes: a named one, the live app holding the slug, or a new one.
  std::optional<OpenedArtifact> existing;
  const std::string target = !request.artifact.empty() ? request.artifact : request.app_slug;
  if (!target.empty()) {
    auto opened = OpenArtifact(store, target);
    if (opened) {
      existing = std::move(*opened);
    } else if (opened.error().code != "store.not_found" || !request.artifact.empty()) {
      return Fail(opened.error());
    }
  }
  // A new version keeps its artifact's placement unless the request names one.
  const std::string kind = !asked.empty() ? asked : existing ? existing->artifact.kind : "inline";
  const std::string slug = !request.app_slug.empty() ? request.app_slug
                           : existing                ? existing->artifact.app_slug
                                                     : "";
  if (kind == "live_app" && slug.empty()) {
    return Fail(MakeError("surface.app_slug_required", "a live_app surface needs an app_slug"));
  }
  std::string body = request.program;
  if (request.patch) {
    if (!existing) {
      return Fail(MakeError("surface.patch_without_program",
                            "an edit-mode patch needs an existing artifact to apply to",
                            request.artifact.empty() ? request.app_slug : request.artifact));
    }
    auto merged = MergeProgram(existing->version.body, request.program);
    if (!merged) return Fail(merged.error());
    body = std::move(*merged);
  }

  const Library& library = request.library ? *request.library : Library::Default();
  ValidationOptions options;
  if (request.handles) {
    std::vector<std::string> names;
    for (const auto& h : *request.handles) names.push_back(h.handle);
    options.handles = std::move(names);
  }
  Validation v = ValidateProgram(body, library, options);
  const std::vector<QueryHandle> no_handles;
  const auto& handles = request.handles ? *request.handles : no_handles;
  for (auto& e : CheckBindings(v.parse, handles, request.evidence))
    v.errors.push_back(std::move(e));
  if (!v.ok()) {
    Composed c = Fail(MakeError("surface.invalid", ErrorSummary(v.errors)));
    c.errors = std::move(v.errors);
    return c;
  }

  Composed c;
  c.bindings = BindingsOf(v.parse, handles, request.evidence);
  store::ArtifactRecord& a = c.artifact;
  store::ArtifactVersionRecord& ver = c.version;
  if (existing) {
    a = existing->artifact;
    ver.version = a.head + 1;
    ver.parent = a.head;
  } else {
    a.id = store::NewId("a_");
    a.thread_id = request.thread_id;
    ver.version = 1;
  }
  a.kind = kind;
  a.app_slug = slug;
  if (!request.title.empty() || !existing) a.title = request.title;
  ver.artifact_id = a.id;
  ver.body = std::move(body);
  ver.patch = request.patch ? request.program : "";
  ver.bindings = c.bindings.ToJson();
  ver.message_id = request.message_id;
  ver.tool_call_id = request.tool_call_id;
  ver.surface_id = request.surface_id;
  ver.created_ms = store::NowMs();
  if (Status s = store.SaveArtifactVersion(a, ver); !s) return Fail(s.error());
  a.head = ver.version;
  a.updated_ms = ver.created_ms;
  if (!existing) a.created_ms = ver.created_ms;
  return c;
}

json OpenedArtifact::ToJson() const {
  json j = artifact.ToJson();  // the record's own form, plus the opened version
  j["version"] = version.version;
  j["parent"] = version.parent;
  j["body"] = version.body;
  j["patch"] = version.patch;
  j["bindings"] = version.bindings;
  j["live"] = live();
  j["surfaceId"] = version.surface_id;
  return j;
}

Result<OpenedArtifact> OpenArtifact(store::Store& store, const std::string& id_or_slug,
                                    int64_t version) {
  auto a = store.GetArtifact(id_or_slug);
  if (!a) return a.error();
  auto v = store.GetArtifactVersion(a->id, version);
  if (!v) return v.error();
  OpenedArtifact out;
  out.artifact = std::move(*a);
  out.version = std::move(*v);
  out.bindings = Bindings::FromJson(out.version.bindings);
  return out;
}

}  // namespace affordance::surface

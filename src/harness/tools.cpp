#include "harness/tools.h"

#include "authority/authority.h"
#include "authority/capability.h"
#include "harness/registry.h"
#include "store/store.h"
#include "surface/artifact.h"
#include "surface/library.h"
#include "surface/prompt.h"

#include <set>

namespace affordance::harness {
namespace {

using ojson = nlohmann::ordered_json;
using authority::Access;
using authority::Mode;

authority::Capability ToolCapability(std::string name, std::string object, std::string action,
                                     Mode mode, std::string description, std::string grant = "") {
  return authority::ClientCapability("tool", std::move(name), std::move(object), std::move(action),
                                     mode, std::move(description), std::move(grant));
}

const bool declared = [] {
  authority::DeclareCapability(ToolCapability("AskUserQuestion", "turn", "ask", Mode::kRead,
                                              "ends the turn with a typed question"));
  authority::DeclareCapability(ToolCapability("ToolSearch", "tool", "attach", Mode::kRead,
                                              "ranks deferred tools and attaches them"));
  authority::DeclareCapability(ToolCapability("ListComponents", "component", "read", Mode::kRead,
                                              "OpenUI component signatures"));
  authority::DeclareCapability(ToolCapability("RunConnectorCommand", "connector", "read",
                                              Mode::kRead, "the one read road",
                                              "connector:<slug>:read"));
  authority::DeclareCapability(ToolCapability("ComposeUI", "surface", "compose", Mode::kLocalState,
                                              "validates and stores an OpenUI Lang program"));
  authority::DeclareCapability(ToolCapability("connector_operation", "connector", "read",
                                              Mode::kRead, "a deferred read operation <slug>__<op>",
                                              "connector:<slug>:read"));
  authority::DeclareCapability(ToolCapability("app_action", "app", "act", Mode::kLocalState,
                                              "an action projected from a mounted app"));
  return true;
}();

class SimpleTool : public Tool {
 public:
  explicit SimpleTool(ToolSpec spec) : spec_(std::move(spec)) {}
  const ToolSpec& spec() const override { return spec_; }

 protected:
  ToolSpec spec_;
};

// ---- AskUserQuestion -------------------------------------------------------------------------

class AskUserQuestion final : public SimpleTool {
 public:
  AskUserQuestion()
      : SimpleTool({"AskUserQuestion",
                    "Ask the user a question when you cannot proceed without their answer. "
                    "Offer choices when the answer is one of a few options. Ends your turn.",
                    ojson::parse(R"({"type": "object", "properties": {
                      "question": {"type": "string", "minLength": 1, "description": "the question"},
                      "choices": {"type": "array", "items": {"type": "string", "minLength": 1},
                                  "maxItems": 8, "description": "options the user can pick"}},
                      "required": ["question"], "additionalProperties": false})")}) {}

  ToolOutcome Execute(ToolContext&, const nlohmann::json& input) override {
    nlohmann::json out = {{"question", input.at("question")},
                          {"choices", input.value("choices", nlohmann::json::array())}};
    ToolOutcome o = ToolOutcome::Ok(out);
    o.ends_turn = true;
    o.model_text = "The question was shown to the user. Their answer will be the next message.";
    return o;
  }
};

// ---- ToolSearch ------------------------------------------------------------------------------

class ToolSearch final : public SimpleTool {
 public:
  ToolSearch()
      : SimpleTool({"ToolSearch",
                    "Find deferred tools (connector operations and other capabilities) and make "
                    "them callable from your next step. query: words describing what you need, "
                    "or \"select:name1,name2\" for exact tool names.",
                    ojson::parse(R"({"type": "object", "properties": {
                      "query": {"type": "string", "minLength": 1},
                      "max_results": {"type": "integer", "minimum": 1, "maximum": 10}},
                      "required": ["query"], "additionalProperties": false})")}) {}

  ToolOutcome Execute(ToolContext& ctx, const nlohmann::json& input) override {
    const std::string query = input.at("query").get<std::string>();
    const size_t max = input.value("max_results", 5);
    std::vector<const Tool*> found;
    // "select:" is this tool's own argument syntax (exact names), not a reading of user language.
    static constexpr std::string_view kSelect = "select:";
    if (query.compare(0, kSelect.size(), kSelect) == 0) {
      std::string names = query.substr(kSelect.size());
      size_t start = 0;
      while (start <= names.size()) {
        size_t comma = names.find(',', start);
        std::string name =
            names.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        while (!name.empty() && name.front() == ' ') name.erase(name.begin());
        while (!name.empty() && name.back() == ' ') name.pop_back();
        if (!name.empty()) {
          if (Status s = ctx.registry->Attach(name); !s) return ToolOutcome::Fail(s.error());
          found.push_back(ctx.registry->Find(name));
        }
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      if (found.empty()) {
        return ToolOutcome::Fail(
            MakeError("harness.bad_arguments", "select: needs at least one tool name"));
      }
    } else {
      for (const auto& hit : ctx.registry->Search(query, max)) {
        if (Status s = ctx.registry->Attach(hit.tool->spec().name); !s) {
          return ToolOutcome::Fail(s.error());
        }
        found.push_back(hit.tool);
      }
    }
    nlohmann::json tools = nlohmann::json::array();
    for (const Tool* t : found) {
      tools.push_back({{"name", t->spec().name},
                       {"description", t->spec().description},
                       {"parameters", nlohmann::json::parse(t->spec().parameters.dump())}});
    }
    nlohmann::json out = {{"attached", tools.size()}, {"tools", tools}};
    if (found.empty()) {
      out["note"] = "no deferred tool matches; try other words";
    } else {
      out["note"] = "these tools are callable from your next step";
    }
    return ToolOutcome::Ok(out);
  }
};

// ---- ListComponents --------------------------------------------------------------------------

class ListComponents final : public SimpleTool {
 public:
  ListComponents()
      : SimpleTool({"ListComponents",
                    "The OpenUI component vocabulary for ComposeUI: signatures of all components, "
                    "or of the named ones.",
                    ojson::parse(R"({"type": "object", "properties": {
                      "names": {"type": "array", "items": {"type": "string"}, "maxItems": 64}},
                      "additionalProperties": false})")}) {}

  ToolOutcome Execute(ToolContext&, const nlohmann::json& input) override {
    const surface::Library& lib = surface::Library::Default();
    nlohmann::json list = nlohmann::json::array();
    std::vector<std::string> unknown;
    auto add = [&](const surface::Component& c) {
      list.push_back(
          {{"name", c.name},
           {"signature", surface::ComponentSignature(c, lib.document()["$defs"][c.name])},
           {"description", c.description}});
    };
    if (input.contains("names")) {
      for (const auto& n : input["names"]) {
        if (const auto* c = lib.Find(n.get<std::string>())) {
          add(*c);
        } else {
          unknown.push_back(n.get<std::string>());
        }
      }
    } else {
      for (const auto& c : lib.components()) add(c);
    }
    if (!unknown.empty() && list.empty()) {
      std::string known;
      for (const auto& c : lib.components()) known += (known.empty() ? "" : ", ") + c.name;
      return ToolOutcome::Fail(MakeError("harness.unknown_component",
                                         "no component is named " + unknown.front(),
                                         "known: " + known));
    }
    nlohmann::json out = {{"components", list}};
    if (!unknown.empty()) out["unknown"] = unknown;
    return ToolOutcome::Ok(out);
  }
};

// ---- RunConnectorCommand and connector operations --------------------------------------------

// Reads need grants: the read grant of the connector (or of the named operation) is checked, and
// the read is written to Activity, before the road runs anything.
Status AuthorizeRead(authority::Authority* authority, const std::string& connector,
                     const std::string& operation) {
  if (authority == nullptr) return {};
  return authority->AuthorizeRead(connector, operation, authority::Actor::Model());
}

std::string NamedOperation(const nlohmann::json& request) {
  if (!request.is_object()) return "";
  const auto& op = request.value("operation", nlohmann::json());
  return op.is_string() ? op.get<std::string>() : "";
}

ToolOutcome ConnectorOutcome(Result<connect::ConnectorResult> result) {
  if (!result) return ToolOutcome::Fail(result.error());
  const connect::ConnectorResult& r = *result;
  ToolOutcome o = ToolOutcome::Ok(connect::ToJson(r));
  o.data_state = DataStateOf(r.mirror_snapshot.freshness.state, r.mirror_snapshot.credential_state);
  o.connector = r.connector;
  return o;
}

class RunConnectorCommand final : public SimpleTool {
 public:
  RunConnectorCommand(connect::ConnectorRoad* road, authority::Authority* authority)
      : SimpleTool({"RunConnectorCommand", "", {}}), road_(road), authority_(authority) {
    nlohmann::ordered_json connector = {{"type", "string"}};
    std::string slugs;
    if (road_ != nullptr && !road_->manifests().empty()) {
      nlohmann::ordered_json names = nlohmann::ordered_json::array();
      for (const auto& m : road_->manifests()) {
        names.push_back(m.slug);
        slugs += (slugs.empty() ? "" : ", ") + m.slug;
      }
      connector["enum"] = names;
    }
    spec_.description =
        "The one road to external data: read a connector. request is the user's words (a string) "
        "or {\"operation\": name, \"args\": {...}} for an exact operation. Returns rows with their "
        "operation ledger, query handles and freshness." +
        (slugs.empty() ? std::string(" No connector is configured.")
                       : " Connectors: " + slugs + ".");
    spec_.parameters = ojson::parse(R"({"type": "object", "properties": {
        "connector": {}, "request": {"type": ["string", "object"]},
        "limit": {"type": "integer", "minimum": 1, "maximum": 500},
        "mode": {"type": "string", "enum": ["auto", "local", "live"]}},
        "required": ["connector", "request"], "additionalProperties": false})");
    spec_.parameters["properties"]["connector"] = connector;
  }

  ToolOutcome Execute(ToolContext& ctx, const nlohmann::json& input) override {
    if (road_ == nullptr) {
      return ToolOutcome::Fail(
          MakeError(ErrorKind::kNotFound, "connect.unknown_connector",
                    "no connector is configured (affordance chat --connectors DIR)"));
    }
    auto command = connect::ParseConnectorCommand(input);
    if (!command) return ToolOutcome::Fail(command.error());
    if (road_->Find(command->connector) != nullptr) {
      Status allowed =
          AuthorizeRead(authority_, command->connector, NamedOperation(command->request));
      if (!allowed) return ToolOutcome::Fail(allowed.error());
    }
    return ConnectorOutcome(road_->RunConnectorCommand(*command, ctx.chooser));
  }

 private:
  connect::ConnectorRoad* road_;
  authority::Authority* authority_;
};

class ConnectorOperation final : public SimpleTool {
 public:
  ConnectorOperation(connect::ConnectorRoad& road, authority::Authority* authority,
                     const connect::ConnectorManifest& m, const connect::Operation& op)
      : SimpleTool({OperationToolName(m.slug, op.name),
                    m.title + ": " + op.description + " (connector " + m.slug + ", operation " +
                        op.name + ")",
                    ojson::parse(op.args_schema.is_object() ? op.args_schema.dump()
                                                            : std::string(R"({"type":"object"})")),
                    "connector_operation"}),
        road_(road),
        authority_(authority),
        slug_(m.slug),
        operation_(op.name) {}

  ToolOutcome Execute(ToolContext& ctx, const nlohmann::json& input) override {
    connect::ConnectorCommand command;
    command.connector = slug_;
    command.request = {{"operation", operation_}, {"args", input}};
    if (Status allowed = AuthorizeRead(authority_, slug_, operation_); !allowed) {
      return ToolOutcome::Fail(allowed.error());
    }
    return ConnectorOutcome(road_.RunConnectorCommand(command, ctx.chooser));
  }

 private:
  connect::ConnectorRoad& road_;
  authority::Authority* authority_;
  std::string slug_;
  std::string operation_;
};

// ---- ComposeUI -------------------------------------------------------------------------------

class ComposeUI final : public SimpleTool {
 public:
  ComposeUI(store::Store* store, std::vector<surface::QueryHandle> handles)
      : SimpleTool({"ComposeUI",
                    "Show the user an interface written in OpenUI Lang. It is validated before "
                    "anyone sees it; errors come back with codes. Bind source data with Query() "
                    "handles from the reality block. surface: inline (default), panel, or "
                    "live_app with an app_slug (a durable app reopened by its slug). edit: true "
                    "sends only the changed statements of the active artifact (or `artifact`).",
                    ojson::parse(R"({"type": "object", "properties": {
                      "program": {"type": "string", "minLength": 1},
                      "surface": {"type": "string", "enum": ["inline", "panel", "live_app"]},
                      "app_slug": {"type": "string", "minLength": 1, "maxLength": 64},
                      "edit": {"type": "boolean"},
                      "artifact": {"type": "string", "minLength": 1, "maxLength": 64}},
                      "required": ["program"], "additionalProperties": false})")}),
        store_(store),
        handles_(std::move(handles)) {}

  ToolOutcome Execute(ToolContext& ctx, const nlohmann::json& input) override {
    surface::ComposeRequest req;
    req.program = input.at("program").get<std::string>();
    req.kind = input.value("surface", "");
    req.app_slug = input.value("app_slug", "");
    req.patch = input.value("edit", false);
    req.artifact = input.value("artifact", "");
    req.thread_id = ctx.thread_id;
    req.message_id = ctx.message_id;
    req.tool_call_id = ctx.call_id;
    req.surface_id = store::NewId("s_");
    req.handles = handles_;
    if (store_ != nullptr && !ctx.thread_id.empty()) {
      if (auto thread = store_->LoadThread(ctx.thread_id); thread) {
        req.evidence = surface::EvidenceOfThread(*thread, ctx.message_id);
        if (req.patch && req.artifact.empty() && req.app_slug.empty()) {
          if (auto active = surface::ActiveArtifactOf(*thread)) req.artifact = active->artifact_id;
        }
      }
    }
    surface::Composed c = Compose(req);
    if (!c.ok()) {
      ToolOutcome o = ToolOutcome::Fail(*c.error);
      if (!c.errors.empty()) {
        nlohmann::json errors = nlohmann::json::array();
        for (const auto& e : c.errors) {
          errors.push_back(nlohmann::json::parse(surface::ErrorToJson(e).dump()));
        }
        o.output = {{"errors", errors}};
      }
      return o;
    }
    SurfaceDraft draft;
    draft.id = req.surface_id;
    draft.program = c.version.body;
    draft.kind = c.artifact.kind;
    draft.app_slug = c.artifact.app_slug;
    draft.live = c.bindings.live();
    draft.artifact_id = c.artifact.id;
    draft.version = c.version.version;
    draft.parent = c.version.parent;
    for (const auto& q : c.bindings.queries) draft.handles.push_back(q.handle);
    draft.sources = c.bindings.sources;
    nlohmann::json out = {{"surfaceId", draft.id},
                          {"surface", draft.kind},
                          {"artifactId", draft.artifact_id},
                          {"version", draft.version},
                          {"live", draft.live}};
    if (!draft.app_slug.empty()) out["appSlug"] = draft.app_slug;
    ToolOutcome o = ToolOutcome::Ok(out);
    o.model_text = "Accepted: surface " + draft.id + " (" + draft.kind + ", artifact " +
                   draft.artifact_id + " v" + std::to_string(draft.version) + ", " +
                   (draft.live ? "live: its queries run again when it is shown" : "static") +
                   "). It is shown with this message; do not repeat its content in prose.";
    o.surface = std::move(draft);
    return o;
  }

 private:
  // Without a store (tests of the tool alone) the program is validated but kept nowhere.
  surface::Composed Compose(const surface::ComposeRequest& req) {
    if (store_ != nullptr) return surface::SaveProgram(*store_, req);
    auto memory = store::OpenSqlite(":memory:");
    if (!memory) {
      surface::Composed c;
      c.error = memory.error();
      return c;
    }
    return surface::SaveProgram(**memory, req);
  }

  store::Store* store_;
  std::vector<surface::QueryHandle> handles_;
};

// ---- App actions -----------------------------------------------------------------------------

class AppAction final : public SimpleTool {
 public:
  AppAction(const render::Tool& projected, Frame& frame)
      : SimpleTool({projected.name, "An action of a mounted app (" + projected.event + ").",
                    projected.parameters, "app_action"}),
        frame_(frame) {}

  ToolOutcome Execute(ToolContext&, const nlohmann::json& input) override {
    if (Status s = frame_.Act(spec_.name, input); !s) return ToolOutcome::Fail(s.error());
    ToolOutcome o = ToolOutcome::Ok({{"dispatched", spec_.name}});
    o.model_text = "Done: the app handled " + spec_.name +
                   " and re-rendered; its current view is "
                   "in the app turn.";
    return o;
  }

 private:
  Frame& frame_;
};

}  // namespace

std::string OperationToolName(const std::string& slug, const std::string& operation) {
  std::string name;
  for (char c : slug + "__" + operation) {
    name.push_back(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ? c : '_');
  }
  if (name.size() > 64) name.resize(64);
  return name;
}

std::unique_ptr<Tool> MakeAskUserQuestion() { return std::make_unique<AskUserQuestion>(); }
std::unique_ptr<Tool> MakeToolSearch() { return std::make_unique<ToolSearch>(); }
std::unique_ptr<Tool> MakeListComponents() { return std::make_unique<ListComponents>(); }
std::unique_ptr<Tool> MakeRunConnectorCommand(connect::ConnectorRoad* road,
                                              authority::Authority* authority) {
  return std::make_unique<RunConnectorCommand>(road, authority);
}
std::unique_ptr<Tool> MakeComposeUI(store::Store* store,
                                    std::vector<surface::QueryHandle> handles) {
  return std::make_unique<ComposeUI>(store, std::move(handles));
}

std::vector<std::unique_ptr<Tool>> MakeConnectorOperations(connect::ConnectorRoad& road,
                                                           authority::Authority* authority) {
  std::vector<std::unique_ptr<Tool>> out;
  for (const auto& m : road.manifests()) {
    for (const auto& op : m.operations) {
      if (!op.readable()) continue;
      out.push_back(std::make_unique<ConnectorOperation>(road, authority, m, op));
    }
  }
  return out;
}

std::unique_ptr<Tool> MakeAppAction(const render::Tool& projected, Frame& frame) {
  return std::make_unique<AppAction>(projected, frame);
}

}  // namespace affordance::harness

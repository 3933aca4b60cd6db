// ComposeUI (resident): validates an OpenUI Lang program and stores it as an artifact version.
#include "harness/internal/simple_tool.h"
#include "harness/tools.h"
#include "store/store.h"
#include "surface/artifact.h"

namespace affordance::harness {
namespace {

const bool declared_ComposeUI = authority::DeclareCapability(
    ToolCapability("ComposeUI", "surface", "compose", authority::Mode::kLocalState,
                   "validates and stores an OpenUI Lang program"));

class ComposeUI final : public SimpleTool {
 public:
  ComposeUI(store::Store* store, std::vector<surface::QueryHandle> handles)
      : SimpleTool({"ComposeUI",
                    "Show the user an interface written in OpenUI Lang. It is validated before "
                    "anyone sees it; errors come back with codes. Bind source data with Query() "
                    "handles from the reality block. surface: inline (default), panel, or "
                    "live_app with an app_slug (a durable app reopened by its slug). edit: true "
                    "sends only the changed statements of the active artifact (or `artifact`).",
                    nlohmann::ordered_json::parse(R"({"type": "object", "properties": {
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

}  // namespace

std::unique_ptr<Tool> MakeComposeUI(store::Store* store,
                                    std::vector<surface::QueryHandle> handles) {
  return std::make_unique<ComposeUI>(store, std::move(handles));
}

}  // namespace affordance::harness

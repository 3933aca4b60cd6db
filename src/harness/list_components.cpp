// ListComponents (resident): the OpenUI Lang component signatures, on request.
#include "harness/internal/simple_tool.h"
#include "harness/tools.h"
#include "surface/library.h"
#include "surface/prompt.h"

namespace affordance::harness {
namespace {

const bool declared_ListComponents = authority::DeclareCapability(ToolCapability(
    "ListComponents", "component", "read", authority::Mode::kRead, "OpenUI component signatures"));

class ListComponents final : public SimpleTool {
 public:
  ListComponents()
      : SimpleTool({"ListComponents",
                    "The OpenUI component vocabulary for ComposeUI: signatures of all components, "
                    "or of the named ones.",
                    nlohmann::ordered_json::parse(R"({"type": "object", "properties": {
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

}  // namespace

std::unique_ptr<Tool> MakeListComponents() { return std::make_unique<ListComponents>(); }

}  // namespace affordance::harness

// App actions: each action a mounted app projects becomes a tool dispatched to its handler.
#include "harness/internal/simple_tool.h"
#include "harness/tools.h"

namespace affordance::harness {
namespace {

const bool declared_app_action = authority::DeclareCapability(
    ToolCapability("app_action", "app", "act", authority::Mode::kLocalState,
                   "an action projected from a mounted app"));

// The app's own words for what the action does (its element's `description` prop), else which
// event of a mounted app it is.
std::string DescriptionOf(const render::Tool& projected) {
  const std::string event = "An action of a mounted app (" + projected.event + ").";
  return projected.description.empty() ? event : projected.description + " " + event;
}

class AppAction final : public SimpleTool {
 public:
  AppAction(const render::Tool& projected, Frame& frame)
      : SimpleTool({projected.name, DescriptionOf(projected), projected.parameters, "app_action"}),
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

std::unique_ptr<Tool> MakeAppAction(const render::Tool& projected, Frame& frame) {
  return std::make_unique<AppAction>(projected, frame);
}

}  // namespace affordance::harness

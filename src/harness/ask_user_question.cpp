// AskUserQuestion (resident): ends the turn with a typed question for the person.
#include "harness/internal/simple_tool.h"
#include "harness/tools.h"

namespace affordance::harness {
namespace {

const bool declared_AskUserQuestion = authority::DeclareCapability(
    ToolCapability("AskUserQuestion", "turn", "ask", authority::Mode::kRead,
                   "ends the turn with a typed question"));

class AskUserQuestion final : public SimpleTool {
 public:
  AskUserQuestion()
      : SimpleTool({"AskUserQuestion",
                    "Ask the user a question when you cannot proceed without their answer. "
                    "Offer choices when the answer is one of a few options. Ends your turn.",
                    nlohmann::ordered_json::parse(R"({"type": "object", "properties": {
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

}  // namespace

std::unique_ptr<Tool> MakeAskUserQuestion() { return std::make_unique<AskUserQuestion>(); }

}  // namespace affordance::harness

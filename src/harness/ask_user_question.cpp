// AskUserQuestion (resident): ends the turn with a typed question for the person.
#include "authority/authority.h"
#include "authority/capability.h"
#include "harness/internal/simple_tool.h"
#include "harness/registry.h"
#include "harness/tools.h"
#include "store/store.h"
#include "surface/artifact.h"
#include "surface/library.h"
#include "surface/prompt.h"

#include <set>

namespace affordance::harness {
namespace {

using internal::SimpleTool;
using internal::ToolCapability;
using ojson = nlohmann::ordered_json;
using authority::Access;
using authority::Mode;

const bool declared_AskUserQuestion = authority::DeclareCapability(ToolCapability(
    "AskUserQuestion", "turn", "ask", Mode::kRead, "ends the turn with a typed question"));

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

}  // namespace

std::unique_ptr<Tool> MakeAskUserQuestion() { return std::make_unique<AskUserQuestion>(); }

}  // namespace affordance::harness

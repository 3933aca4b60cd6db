#include "harness/chooser.h"

#include "harness/registry.h"

namespace affordance::harness {

namespace {

const char* kChooserLaw =
    "You resolve one data request against one connector. Choose exactly ONE of the listed "
    "operations and give arguments that satisfy its schema, by calling choose_operation. If no "
    "operation can answer the request, call give_up with the reason. Do not answer the request "
    "yourself. Never use another connector.";

std::string RequestText(const connect::ChoiceRequest& r) {
  nlohmann::json candidates = nlohmann::json::array();
  for (const auto& c : r.candidates) candidates.push_back(connect::ToJson(c));
  nlohmann::json tables = nlohmann::json::array();
  for (const auto& t : r.mirror_tables) {
    nlohmann::json cols = nlohmann::json::array();
    for (const auto& c : t.columns) cols.push_back(c.name + " " + c.type);
    tables.push_back({{"name", t.name}, {"description", t.description}, {"columns", cols}});
  }
  nlohmann::json j = {{"connector", r.connector}, {"title", r.title}, {"request", r.request},
                      {"candidates", candidates}, {"step", r.step},   {"max_steps", r.max_steps}};
  if (!tables.empty()) j["mirror_tables"] = tables;
  if (r.previous_error) {
    j["previous_choice"] = r.previous_choice;
    j["previous_error"] = r.previous_error->code + ": " + r.previous_error->ToString();
  }
  return j.dump(2);
}

}  // namespace

ModelChooser::ModelChooser(model::Provider& provider, std::unique_ptr<Frame> frame,
                           bool chat_messages, int max_tokens)
    : provider_(&provider),
      frame_(std::move(frame)),
      chat_messages_(chat_messages),
      max_tokens_(max_tokens) {}

Result<connect::Choice> ModelChooser::Choose(const connect::ChoiceRequest& request) {
  nlohmann::ordered_json names = nlohmann::ordered_json::array();
  for (const auto& c : request.candidates) names.push_back(c.operation);
  nlohmann::ordered_json choose = nlohmann::ordered_json::parse(R"({"type": "function",
      "function": {"name": "choose_operation",
      "description": "Run this operation of the connector with these arguments.",
      "parameters": {"type": "object", "properties": {"operation": {"type": "string"},
      "args": {"type": "object"}}, "required": ["operation", "args"]}}})");
  choose["function"]["parameters"]["properties"]["operation"]["enum"] = names;
  nlohmann::ordered_json give_up = nlohmann::ordered_json::parse(R"({"type": "function",
      "function": {"name": "give_up", "description": "No operation can answer the request.",
      "parameters": {"type": "object", "properties": {"reason": {"type": "string"}},
      "required": ["reason"]}}})");
  nlohmann::ordered_json tools = nlohmann::ordered_json::array({choose, give_up});

  std::vector<TranscriptTurn> transcript(1);
  transcript[0].content = RequestText(request);
  auto prompt = frame_->Render(kChooserLaw, tools, transcript);
  if (!prompt) return prompt.error();
  model::StepRequest step;
  step.step_id = "c" + std::to_string(++sub_steps_) + "-";
  step.max_tokens = max_tokens_;
  if (chat_messages_) {
    step.messages = prompt->messages;
    step.tools = prompt->tools;
  } else {
    step.prompt = prompt->tokens;
  }
  model::CollectedStep collected = model::Collect(*provider_, step, cancel_);
  if (!collected.status) return collected.status.error();
  std::string prose;
  for (const auto& part : collected.parts) {
    if (part.type == formats::PartType::kTextDelta) prose += part.delta;
    if (part.type != formats::PartType::kToolCall) continue;
    connect::Choice choice;
    if (part.tool_name == "choose_operation") {
      choice.operation = part.input.value("operation", "");
      choice.args = part.input.value("args", nlohmann::json::object());
      if (choice.operation.empty()) choice.reason = "the model chose no operation";
    } else {
      choice.reason = part.tool_name == "give_up" ? part.input.value("reason", "")
                                                  : "the model called " + part.tool_name;
    }
    return choice;
  }
  connect::Choice none;
  none.reason = "the model made no choice" + (prose.empty() ? "" : ": " + prose);
  return none;
}

}  // namespace affordance::harness

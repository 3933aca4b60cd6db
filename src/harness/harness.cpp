#include "harness/harness.h"

#include "connect/schema.h"
#include "harness/adapter.h"
#include "harness/chooser.h"
#include "harness/frame_text.h"
#include "harness/tools.h"

#include <algorithm>
#include <chrono>

namespace affordance::harness {

namespace {

int64_t SystemClock() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string Interrupted(const std::string& tool) {
  return EvidenceText(tool, "error harness.interrupted: the turn ended before this call ran");
}

}  // namespace

nlohmann::json TurnReport::ToJson() const {
  nlohmann::json steps = nlohmann::json::array();
  int64_t prompt = 0, cached = 0, generated = 0;
  nlohmann::json evidence = nlohmann::json::array();
  nlohmann::json surfaces = nlohmann::json::array();
  for (const auto& s : ledger) {
    steps.push_back(harness::ToJson(s));
    prompt += s.prompt_tokens;
    cached += s.cached_prompt_tokens;
    generated += s.generated_tokens;
    for (const auto& c : s.calls) {
      if (c.data_state) {
        evidence.push_back({{"toolCallId", c.id},
                            {"connector", c.connector},
                            {"dataState", DataStateName(*c.data_state)}});
      }
    }
  }
  nlohmann::json truth = {{"message", "persisted"}, {"evidence", evidence}};
  if (auto weakest = WeakestEvidence(ledger)) truth["weakestEvidence"] = DataStateName(*weakest);
  nlohmann::json counts = nlohmann::json::object();
  for (auto c : {ClaimClass::kSource, ClaimClass::kEffect, ClaimClass::kUnresolved,
                 ClaimClass::kInference}) {
    counts[std::string(ClaimClassName(c))] = 0;
  }
  nlohmann::json claim_list = nlohmann::json::array();
  int64_t invalid = 0;
  for (const auto& c : claims) {
    auto& n = counts[std::string(ClaimClassName(c.cls))];
    n = n.get<int64_t>() + 1;
    invalid += static_cast<int64_t>(c.invalid.size());
    claim_list.push_back(c.ToJson());
  }
  truth["claims"] = std::move(counts);
  truth["invalidCitations"] = invalid;
  nlohmann::json j = {{"threadId", thread_id},
                      {"messageId", message_id},
                      {"status", TurnStatusName(status)},
                      {"truth", truth},
                      {"claims", claim_list},
                      {"usage",
                       {{"prompt_tokens", prompt},
                        {"cached_prompt_tokens", cached},
                        {"generated_tokens", generated}}},
                      {"steps", steps}};
  // Why a turn ended without an answer, in the words of the step that ended it.
  if (!ledger.empty() && !ledger.back().error_code.empty() &&
      (status == TurnStatus::kProviderError || status == TurnStatus::kHarnessError)) {
    j["error"] = {{"code", ledger.back().error_code}, {"message", ledger.back().error_text}};
  }
  return j;
}

Harness::Harness(store::Store& store, model::Provider& provider, Frame& frame,
                 connect::ConnectorRoad* road, HarnessOptions options)
    : store_(store), provider_(provider), frame_(frame), road_(road), options_(std::move(options)) {
  if (!options_.clock) options_.clock = SystemClock;
  authority_ = std::make_unique<authority::Authority>(store_, road_);
  // Registration cannot fail for these fixed, distinct names.
  (void)registry_.AddResident(MakeAskUserQuestion());
  RescanSkills();
  (void)registry_.AddResident(MakeToolSearch(&skills_));
  (void)registry_.AddResident(MakeListComponents());
  (void)registry_.AddResident(MakeRunConnectorCommand(road_, authority_.get()));
  (void)registry_.AddResident(MakeComposeUI(&store_, surface::HandlesOf(road_)));
  if (road_ != nullptr) {
    for (auto& tool : MakeConnectorOperations(*road_, authority_.get())) {
      (void)registry_.AddDeferred(std::move(tool));
    }
    (void)registry_.AddDeferred(MakeInvokeMutation(*authority_, road_));
  }
  resident_json_ = nlohmann::ordered_json::array();
  for (const Tool* t : registry_.Resident()) resident_json_.push_back(t->spec().ToJson());
  if (const auto* syntax = formats::TurnSyntaxOf(frame_.tokenizer())) {
    for (auto end : syntax->end_of_turn) {
      if (auto id = frame_.tokenizer().TokenIdOf(end)) end_tokens_.push_back(*id);
    }
  }
  FrameOptions plain = frame_.options();
  plain.apps.clear();
  if (auto chooser_frame = Frame::Load(plain); chooser_frame) {
    chooser_ = std::make_unique<ModelChooser>(provider_, std::move(*chooser_frame),
                                              options_.chat_messages, options_.max_tokens);
  }
}

Harness::~Harness() = default;

void Harness::RescanSkills() { skills_ = skills::SkillCatalog::Scan(options_.skills); }

std::vector<TranscriptTurn> Harness::Transcript(
    const std::vector<store::MessageRecord>& messages) const {
  std::vector<TranscriptTurn> out;
  for (const auto& m : messages) {
    if (m.role == "user") {
      for (const auto& p : m.parts) {
        if (p.kind != "reality" && p.kind != "text") continue;
        TranscriptTurn t;
        t.role = TranscriptTurn::Role::kUser;
        t.owner =
            p.kind == "reality" ? TranscriptTurn::Owner::kReality : TranscriptTurn::Owner::kUser;
        t.content = p.data.value("text", "");
        out.push_back(std::move(t));
      }
      continue;
    }
    std::vector<const store::StepRecord*> steps;
    for (const auto& s : m.steps) steps.push_back(&s);
    std::sort(steps.begin(), steps.end(),
              [](const auto* a, const auto* b) { return a->index < b->index; });
    for (const store::StepRecord* s : steps) {
      if (s->status != "finished") continue;
      TranscriptTurn a;
      a.role = TranscriptTurn::Role::kAssistant;
      a.owner = TranscriptTurn::Owner::kAssistant;
      a.tokens.assign(s->tokens.begin(), s->tokens.end());
      while (!a.tokens.empty() && std::find(end_tokens_.begin(), end_tokens_.end(),
                                            a.tokens.back()) != end_tokens_.end()) {
        a.tokens.pop_back();
      }
      a.tool_calls = nlohmann::json::array();
      std::vector<TranscriptTurn> results;
      for (const auto& p : m.parts) {
        if (p.step != s->index) continue;
        if (p.kind == "text") a.content += p.data.value("text", "");
        if (p.kind != "tool") continue;
        const std::string name = p.data.value("toolName", "");
        a.tool_calls.push_back({{"id", p.key},
                                {"name", name},
                                {"arguments", p.data.value("input", nlohmann::json::object())}});
        TranscriptTurn r;
        r.role = TranscriptTurn::Role::kTool;
        r.owner = TranscriptTurn::Owner::kToolResult;
        r.tool_call_id = p.key;
        r.content = p.data.contains("resultText") ? p.data["resultText"].get<std::string>()
                                                  : Interrupted(name);
        if (p.data.contains("skill") && p.data["skill"].is_object()) {
          // The digest persisted with the result: the bytes this turn read, whatever the file
          // holds now.
          r.owner = TranscriptTurn::Owner::kSkill;
          r.skill = p.data["skill"].value("name", "");
          r.skill_sha256 = p.data["skill"].value("sha256", "");
        }
        results.push_back(std::move(r));
      }
      if (a.tokens.empty() && a.content.empty() && a.tool_calls.empty()) continue;
      out.push_back(std::move(a));
      for (auto& r : results) out.push_back(std::move(r));
    }
  }
  return out;
}

}  // namespace affordance::harness

// ToolSearch (resident): ranks the deferred tools and attaches the chosen ones for the next step;
// loads the operator's skills by exact name ("skill:NAME"), each file body with its digest.
#include "harness/internal/simple_tool.h"
#include "harness/registry.h"
#include "harness/tools.h"

namespace affordance::harness {
namespace {

const bool declared_ToolSearch = authority::DeclareCapability(
    ToolCapability("ToolSearch", "tool", "attach", authority::Mode::kRead,
                   "ranks deferred tools and attaches them; loads the operator's skills by "
                   "digest"));

nlohmann::json Disclosed(const Tool& t) {
  return {{"name", t.spec().name},
          {"description", t.spec().description},
          {"parameters", nlohmann::json::parse(t.spec().parameters.dump())}};
}

// "skill:" (every skill, and the refused ones with why) or "skill:NAME" (its SKILL.md, by digest,
// with the deferred tools it names attached).
ToolOutcome Skill(ToolContext& ctx, const skills::SkillCatalog* catalog, std::string name) {
  while (!name.empty() && name.front() == ' ') name.erase(name.begin());
  while (!name.empty() && name.back() == ' ') name.pop_back();
  static const skills::SkillCatalog kNone;
  const skills::SkillCatalog& skills = catalog != nullptr ? *catalog : kNone;
  if (name.empty()) {
    nlohmann::json ready = nlohmann::json::array();
    for (const auto& s : skills.ready()) {
      ready.push_back({{"name", s.name}, {"description", s.description}, {"tools", s.tools}});
    }
    nlohmann::json refused = nlohmann::json::array();
    for (const auto& r : skills.refused()) {
      refused.push_back({{"name", r.name}, {"code", r.error.code}, {"message", r.error.message}});
    }
    return ToolOutcome::Ok(
        {{"skills", ready},
         {"refused", refused},
         {"note", ready.empty() ? "no skill is ready"
                                : "load one with ToolSearch {\"query\": \"skill:NAME\"}"}});
  }
  auto loaded = skills.Load(name);
  if (!loaded) return ToolOutcome::Fail(loaded.error());
  const skills::Skill& skill = loaded->skill;
  nlohmann::json tools = nlohmann::json::array();
  nlohmann::json unavailable = nlohmann::json::array();
  for (const auto& t : skill.tools) {
    if (ctx.registry->IsDeferred(t) && ctx.registry->Attach(t)) {
      tools.push_back(Disclosed(*ctx.registry->Find(t)));
    } else if (ctx.registry->FindCallable(t) == nullptr) {
      unavailable.push_back(t);  // no such tool here (a connector that is not configured)
    }
  }
  nlohmann::json attached = {{"attached", tools.size()}, {"tools", tools}};
  if (!unavailable.empty()) attached["unavailable"] = unavailable;
  attached["note"] = tools.empty() ? "the skill is loaded; follow it for this task"
                                   : "the skill is loaded; its tools are callable from your next "
                                     "step";
  ToolOutcome o = ToolOutcome::Ok(attached);
  o.output["skill"] = {{"name", skill.name}, {"sha256", skill.sha256}, {"bytes", skill.bytes}};
  // The digest marker: the sha256 of exactly the bytes between the marker line and "\n</skill>".
  o.model_text = "<skill name=\"" + skill.name + "\" sha256=\"" + skill.sha256 + "\" bytes=\"" +
                 std::to_string(skill.bytes) + "\">\n" + loaded->text + "\n</skill>\n" +
                 attached.dump();
  o.skill = SkillEntry{skill.name, skill.sha256, skill.bytes};
  return o;
}

class ToolSearch final : public SimpleTool {
 public:
  explicit ToolSearch(const skills::SkillCatalog* skills)
      : SimpleTool({"ToolSearch",
                    "Find deferred tools (connector operations and other capabilities) and make "
                    "them callable from your next step. query: words describing what you need, "
                    "or \"select:name1,name2\" for exact tool names, or \"skill:NAME\" to load "
                    "a skill (\"skill:\" lists them).",
                    nlohmann::ordered_json::parse(R"({"type": "object", "properties": {
                      "query": {"type": "string", "minLength": 1},
                      "max_results": {"type": "integer", "minimum": 1, "maximum": 10}},
                      "required": ["query"], "additionalProperties": false})")}),
        skills_(skills) {}

  ToolOutcome Execute(ToolContext& ctx, const nlohmann::json& input) override {
    const std::string query = input.at("query").get<std::string>();
    const size_t max = input.value("max_results", 5);
    std::vector<const Tool*> found;
    // "select:" is this tool's own argument syntax (exact names), not a reading of user language.
    static constexpr std::string_view kSelect = "select:";
    // So is "skill:": an exact skill name, looked up in the operator's catalog.
    static constexpr std::string_view kSkill = "skill:";
    if (query.compare(0, kSkill.size(), kSkill) == 0) {
      return Skill(ctx, skills_, query.substr(kSkill.size()));
    }
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
    for (const Tool* t : found) tools.push_back(Disclosed(*t));
    nlohmann::json out = {{"attached", tools.size()}, {"tools", tools}};
    if (found.empty()) {
      out["note"] = "no deferred tool matches; try other words";
    } else {
      out["note"] = "these tools are callable from your next step";
    }
    return ToolOutcome::Ok(out);
  }

 private:
  const skills::SkillCatalog* skills_;
};

}  // namespace

std::unique_ptr<Tool> MakeToolSearch(const skills::SkillCatalog* skills) {
  return std::make_unique<ToolSearch>(skills);
}

}  // namespace affordance::harness

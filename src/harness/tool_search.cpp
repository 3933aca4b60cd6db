// ToolSearch (resident): ranks the deferred tools and attaches the chosen ones for the next step.
#include "harness/internal/simple_tool.h"
#include "harness/registry.h"
#include "harness/tools.h"

namespace affordance::harness {
namespace {

const bool declared_ToolSearch = authority::DeclareCapability(
    ToolCapability("ToolSearch", "tool", "attach", authority::Mode::kRead,
                   "ranks deferred tools and attaches them"));

class ToolSearch final : public SimpleTool {
 public:
  ToolSearch()
      : SimpleTool({"ToolSearch",
                    "Find deferred tools (connector operations and other capabilities) and make "
                    "them callable from your next step. query: words describing what you need, "
                    "or \"select:name1,name2\" for exact tool names.",
                    nlohmann::ordered_json::parse(R"({"type": "object", "properties": {
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

}  // namespace

std::unique_ptr<Tool> MakeToolSearch() { return std::make_unique<ToolSearch>(); }

}  // namespace affordance::harness

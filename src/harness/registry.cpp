#include "harness/registry.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <unordered_map>

namespace affordance::harness {

nlohmann::ordered_json ToolSpec::ToJson() const {
  nlohmann::ordered_json function;
  function["name"] = name;
  if (!description.empty()) function["description"] = description;
  function["parameters"] = parameters;
  nlohmann::ordered_json tool;
  tool["type"] = "function";
  tool["function"] = std::move(function);
  return tool;
}

bool IsValidToolName(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  for (unsigned char c : name) {
    if (!std::isalnum(c) && c != '_' && c != '-') return false;
  }
  return true;
}

Status ToolRegistry::CheckName(const std::string& name) const {
  if (!IsValidToolName(name)) {
    return MakeError("harness.bad_tool_name",
                     "a tool name must be 1-64 letters, digits, '_' or '-'", name);
  }
  if (Find(name) != nullptr) {
    return MakeError("harness.duplicate_tool", "two tools are named \"" + name + "\"");
  }
  return {};
}

Status ToolRegistry::AddResident(std::unique_ptr<Tool> tool) {
  if (Status s = CheckName(tool->spec().name); !s) return s;
  resident_.push_back(std::move(tool));
  return {};
}

Status ToolRegistry::AddDeferred(std::unique_ptr<Tool> tool) {
  if (Status s = CheckName(tool->spec().name); !s) return s;
  std::string name = tool->spec().name;
  deferred_.emplace(std::move(name), std::move(tool));
  return {};
}

Status ToolRegistry::SetAppTools(std::vector<std::unique_ptr<Tool>> tools) {
  app_.clear();
  std::set<std::string> seen;
  for (auto& tool : tools) {
    const std::string& name = tool->spec().name;
    if (Find(name) != nullptr || !seen.insert(name).second) {
      app_.clear();
      return MakeError("harness.duplicate_tool",
                       "the app action \"" + name + "\" has the name of another tool");
    }
  }
  app_ = std::move(tools);
  return {};
}

Status ToolRegistry::Attach(const std::string& name) {
  if (deferred_.count(name) == 0) {
    std::string known;
    for (const auto& hit : Search(name, 3)) {
      known += (known.empty() ? "" : ", ") + hit.tool->spec().name;
    }
    return MakeError("harness.unknown_tool", "no deferred tool is named \"" + name + "\"",
                     known.empty() ? "" : "closest: " + known);
  }
  attached_.insert(name);
  return {};
}

Tool* ToolRegistry::FindCallable(const std::string& name) const {
  for (const auto& t : resident_) {
    if (t->spec().name == name) return t.get();
  }
  if (attached_.count(name)) {
    auto it = deferred_.find(name);
    if (it != deferred_.end()) return it->second.get();
  }
  for (const auto& t : app_) {
    if (t->spec().name == name) return t.get();
  }
  return nullptr;
}

Tool* ToolRegistry::Find(const std::string& name) const {
  for (const auto& t : resident_) {
    if (t->spec().name == name) return t.get();
  }
  if (auto it = deferred_.find(name); it != deferred_.end()) return it->second.get();
  for (const auto& t : app_) {
    if (t->spec().name == name) return t.get();
  }
  return nullptr;
}

std::vector<const Tool*> ToolRegistry::Resident() const {
  std::vector<const Tool*> out;
  for (const auto& t : resident_) out.push_back(t.get());
  return out;
}

std::vector<const Tool*> ToolRegistry::Deferred() const {
  std::vector<const Tool*> out;
  for (const auto& [name, t] : deferred_) out.push_back(t.get());
  return out;
}

std::vector<const Tool*> ToolRegistry::AppTools() const {
  std::vector<const Tool*> out;
  for (const auto& t : app_) out.push_back(t.get());
  return out;
}

namespace {

// Lower-cased pieces of letters and digits ("calendar__list_events" -> calendar, list, events).
// Bytes >= 0x80 stay inside pieces, so non-ASCII words are compared as they are.
std::vector<std::string> Pieces(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c >= 0x80) {
      cur.push_back(static_cast<char>(std::tolower(c)));
    } else if (!cur.empty()) {
      out.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

}  // namespace

std::vector<SearchHit> ToolRegistry::Search(const std::string& query, size_t max_results) const {
  std::vector<std::string> terms = Pieces(query);
  std::vector<SearchHit> hits;
  if (terms.empty() || deferred_.empty()) return hits;
  // BM25 (k1 = 1.2, b = 0.75); the name counts twice so an exact verb outranks a passing mention.
  struct Doc {
    const Tool* tool;
    std::unordered_map<std::string, int> tf;
    size_t length = 0;
  };
  std::vector<Doc> docs;
  std::unordered_map<std::string, int> df;
  double total = 0;
  for (const auto& [name, tool] : deferred_) {
    Doc d{tool.get(), {}, 0};
    std::vector<std::string> words = Pieces(name);
    std::vector<std::string> more = Pieces(name);
    words.insert(words.end(), more.begin(), more.end());
    more = Pieces(tool->spec().description);
    words.insert(words.end(), more.begin(), more.end());
    for (const auto& w : words) d.tf[w]++;
    d.length = words.size();
    total += static_cast<double>(d.length);
    for (const auto& [w, n] : d.tf) df[w]++;
    docs.push_back(std::move(d));
  }
  const double avg = total / static_cast<double>(docs.size());
  const double n = static_cast<double>(docs.size());
  for (const auto& d : docs) {
    double score = 0;
    for (const auto& term : terms) {
      auto it = d.tf.find(term);
      double f = 0;
      if (it != d.tf.end()) {
        f = it->second;
      } else {
        // A prefix of a word counts half ("event" finds "events").
        for (const auto& [w, c] : d.tf) {
          if (term.size() >= 3 && w.compare(0, term.size(), term) == 0) f += 0.5 * c;
        }
      }
      if (f == 0) continue;
      double docs_with = df.count(term) ? df.at(term) : 1;
      double idf = std::log(1 + (n - docs_with + 0.5) / (docs_with + 0.5));
      score += idf * f * 2.2 / (f + 1.2 * (0.25 + 0.75 * static_cast<double>(d.length) / avg));
    }
    if (score > 0) hits.push_back({d.tool, score});
  }
  std::stable_sort(hits.begin(), hits.end(),
                   [](const SearchHit& a, const SearchHit& b) { return a.score > b.score; });
  if (hits.size() > max_results) hits.resize(max_results);
  return hits;
}

}  // namespace affordance::harness

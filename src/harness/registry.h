// ToolRegistry: every tool the model can reach, and which of them it can call now.
//
//   resident   always declared in the frame's stable head (exactly the five product tools)
//   deferred   never declared in the head; found with ToolSearch (every connector operation,
//              later mutations). The resident list never grows with the number of connectors.
//   attached   deferred tools whose schema ToolSearch disclosed in a tool result during this
//              turn: callable from the next step on (the head, and so the prefix cache, unchanged)
//   app        actions projected from mounted apps by the last frame render
//
// Callable = resident + attached + app. Names are unique across all four sets.
// Not thread-safe: one turn at a time uses a registry.
#pragma once

#include "harness/tool.h"

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace affordance::harness {

struct SearchHit {
  const Tool* tool = nullptr;
  double score = 0;
};

class ToolRegistry {
 public:
  // Errors: "harness.duplicate_tool" when the name is taken, "harness.bad_tool_name".
  Status AddResident(std::unique_ptr<Tool> tool);
  Status AddDeferred(std::unique_ptr<Tool> tool);
  // Replaces the app tools (after each frame render). App tools whose names collide with a
  // resident or deferred tool are refused with "harness.duplicate_tool".
  Status SetAppTools(std::vector<std::unique_ptr<Tool>> tools);

  // Makes a deferred tool callable ("harness.unknown_tool" naming close matches otherwise).
  Status Attach(const std::string& name);
  void ClearAttached() { attached_.clear(); }
  const std::set<std::string>& attached() const { return attached_; }

  // The callable tool of that name, or null.
  Tool* FindCallable(const std::string& name) const;
  // Any known tool (callable or only deferred), or null.
  Tool* Find(const std::string& name) const;
  bool IsDeferred(const std::string& name) const { return deferred_.count(name) > 0; }

  std::vector<const Tool*> Resident() const;  // in registration order
  std::vector<const Tool*> Deferred() const;  // sorted by name
  std::vector<const Tool*> AppTools() const;  // in projection order

  // Ranks deferred tools by how well their name and description cover the query's words
  // (BM25 over lower-cased word pieces; a ranking function, not a router: the model decides).
  std::vector<SearchHit> Search(const std::string& query, size_t max_results) const;

 private:
  Status CheckName(const std::string& name) const;

  std::vector<std::unique_ptr<Tool>> resident_;
  std::map<std::string, std::unique_ptr<Tool>> deferred_;
  std::vector<std::unique_ptr<Tool>> app_;
  std::set<std::string> attached_;
};

// True for ^[A-Za-z0-9_-]{1,64}$ (the OpenAI function-name rule).
bool IsValidToolName(const std::string& name);

}  // namespace affordance::harness

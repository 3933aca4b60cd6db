// Schema-aware lowering of statements to the ParseResult tree: lang-core's materialize.ts and
// validation.ts. Values are JSON (nlohmann::ordered_json) because lang-core's values are plain
// JavaScript objects: element nodes and AST nodes are recognised by shape exactly as there.
#pragma once

#include "surface/internal/build.h"

#include <unordered_set>

namespace affordance::surface::internal {

// Bounds that keep a hostile program from exhausting the stack or memory (lang-core has none).
inline constexpr size_t kMaxReferenceDepth = 400;
inline constexpr size_t kMaxMaterializedNodes = 50'000;

struct MaterializeContext {
  std::unordered_map<std::string, const Statement*> syms;
  const Library* library = nullptr;
  std::vector<LangError> errors;
  std::vector<std::string> unresolved;
  std::unordered_set<std::string> visited;
  bool partial = false;
  std::string current_statement;
  std::unordered_set<std::string> unreached;
  size_t budget = kMaxMaterializedNodes;
  bool reported_budget = false;
  bool reported_depth = false;
};

// A JSON object built in place: Obj("k", "Str", "v", text). Avoids the temporary arrays that
// nlohmann's initializer-list constructor allocates for every key/value pair.
inline void PutFields(Json&) {}
template <class V, class... Rest>
void PutFields(Json& o, const char* key, V&& value, Rest&&... rest) {
  o.get_ref<Json::object_t&>().emplace_back(key, Json(std::forward<V>(value)));
  PutFields(o, std::forward<Rest>(rest)...);
}
template <class... Args>
Json Obj(Args&&... args) {
  Json o(Json::value_t::object);
  o.get_ref<Json::object_t&>().reserve(sizeof...(Args) / 2);
  PutFields(o, std::forward<Args>(args)...);
  return o;
}
// materializeValue(): literals become plain values, catalog components become element nodes
// with named props (validated against their schema), runtime expressions stay AST nodes.
Json MaterializeValue(const Node& node, MaterializeContext& ctx);

bool IsAstJson(const Json& value);
bool IsElementJson(const Json& value);

}  // namespace affordance::surface::internal

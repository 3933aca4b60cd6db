#include "base/json_limits.h"

#include <utility>
#include <vector>

namespace affordance {

int JsonTextDepth(std::string_view text, int limit) {
  int depth = 0;
  int deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character, whatever it is, cannot end the string
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '[':
      case '{':
        if (++depth > deepest) {
          deepest = depth;
          if (deepest > limit) return deepest;
        }
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return deepest;
}

namespace {

// Depth-first over an explicit stack of (value, depth): a value's own recursion is never used.
template <class Json>
int ValueDepth(const Json& value, int limit) {
  int deepest = 0;
  std::vector<std::pair<const Json*, int>> stack{{&value, 0}};
  while (!stack.empty()) {
    auto [v, depth] = stack.back();
    stack.pop_back();
    if (!v->is_structured()) continue;
    const int inner = depth + 1;
    if (inner > deepest) {
      deepest = inner;
      if (deepest > limit) return deepest;
    }
    for (const auto& child : *v) {
      if (child.is_structured()) stack.emplace_back(&child, inner);
    }
  }
  return deepest;
}

}  // namespace

int JsonValueDepth(const nlohmann::json& value, int limit) { return ValueDepth(value, limit); }
int JsonValueDepth(const nlohmann::ordered_json& value, int limit) {
  return ValueDepth(value, limit);
}

Status CheckJsonDepth(std::string_view text, std::string_view too_deep_code, std::string_view what,
                      int limit) {
  if (JsonTextDepth(text, limit) <= limit) return {};
  return MakeError(ErrorKind::kInvalid, std::string(too_deep_code),
                   std::string(what) + " nests deeper than " + std::to_string(limit) +
                       " levels of arrays and objects",
                   "limit " + std::to_string(limit));
}

}  // namespace affordance

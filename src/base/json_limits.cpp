#include "base/json_limits.h"

#include <algorithm>
#include <cstdlib>
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

namespace affordance {
namespace {

// Accepts everything and keeps the first syntax error: where it is and the parser's words.
class SyntaxProbe : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& e) override {
    failed = true;
    byte = position;
    message = e.what();
    return false;
  }

  bool failed = false;
  std::size_t byte = 0;
  std::string message;
};

}  // namespace

std::string JsonSyntaxError(std::string_view text) {
  SyntaxProbe probe;
  try {
    nlohmann::json::sax_parse(text.begin(), text.end(), &probe);
  } catch (const std::exception& e) {
    return std::string("1:1: ") + e.what();
  }
  if (!probe.failed) return "";
  // nlohmann: "[json.exception.parse_error.101] parse error at line L, column C: PROBLEM" (the
  // position of the character it stopped at); other errors (a number out of range) name only the
  // byte, from which the line and column are counted here.
  std::string problem = probe.message;
  size_t line = 0, column = 0;
  if (size_t at = problem.find(" at line "); at != std::string::npos) {
    char* end = nullptr;
    line = std::strtoul(problem.c_str() + at + 9, &end, 10);
    if (end != nullptr && std::string_view(end).rfind(", column ", 0) == 0) {
      column = std::strtoul(end + 9, &end, 10);
    }
    if (end != nullptr && *end == ':') problem = std::string(end + 1);
  } else if (size_t tag = problem.find("] "); tag != std::string::npos) {
    problem = problem.substr(tag + 2);
  }
  if (line == 0 || column == 0) {
    const size_t stop = std::min(probe.byte == 0 ? 0 : probe.byte - 1, text.size());
    line = 1;
    column = 1;
    for (size_t i = 0; i < stop; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
  }
  const size_t first = problem.find_first_not_of(' ');
  problem = first == std::string::npos ? "" : problem.substr(first);
  return std::to_string(line) + ":" + std::to_string(column) + ": " + problem;
}

std::string JsonSyntaxErrorIn(std::string_view text, std::string_view file) {
  std::string where = JsonSyntaxError(text);
  if (where.empty() || file.empty()) return where;
  return std::string(file) + ":" + where;
}

}  // namespace affordance

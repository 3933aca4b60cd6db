// Transcription of lang-core 0.2.18 src/parser/merge.ts.
#include "surface/edit.h"

#include "surface/internal/json_text.h"
#include "surface/syntax.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace affordance::surface {
namespace {

struct ParsedStatement {
  std::string id;
  Node ast;
  std::string raw;
};

// splitStatementSource(): statement texts at bracket depth 0 (no ternary continuation).
std::vector<std::string> SplitSource(std::string_view input) {
  std::vector<std::string> out;
  int depth = 0;
  internal::QuoteTracker quotes;
  size_t start = 0;
  for (size_t i = 0; i < input.size(); ++i) {
    const char c = input[i];
    if (quotes.Consume(c)) continue;
    if (c == '(' || c == '[' || c == '{') {
      depth++;
    } else if (c == ')' || c == ']' || c == '}') {
      depth = depth > 0 ? depth - 1 : 0;
    } else if (c == '\n' && depth <= 0) {
      std::string_view stmt = internal::JsTrim(input.substr(start, i - start));
      if (!stmt.empty()) out.emplace_back(stmt);
      start = i + 1;
    }
  }
  std::string_view tail = internal::JsTrim(input.substr(start));
  if (!tail.empty()) out.emplace_back(tail);
  return out;
}

// The statements' trees and the texts they view live in `arena`.
std::vector<ParsedStatement> ParseStatements(std::string_view input, Arena& arena) {
  std::vector<ParsedStatement> out;
  std::string_view trimmed = internal::JsTrim(input);
  if (trimmed.empty()) return out;
  for (std::string& raw : SplitSource(trimmed)) {
    const std::string_view text = arena.Copy(raw);
    std::vector<Token> tokens = Tokenize(text, arena);
    std::vector<RawStatement> stmts = SplitStatements(tokens, text, nullptr);
    if (stmts.empty()) continue;
    out.push_back(
        {std::string(stmts[0].id), ParseExpression(stmts[0].tokens, arena).node, std::move(raw)});
  }
  return out;
}

void CollectRefs(const Node& node, std::vector<std::string>* out) {
  if (node.kind == NodeKind::kRef || node.kind == NodeKind::kRuntimeRef)
    out->emplace_back(node.text);
  for (const Node& k : node.kids) CollectRefs(k, out);
}

}  // namespace

Result<std::string> MergeProgram(std::string_view existing, std::string_view patch,
                                 std::string_view root_id) {
  Arena arena;
  std::vector<ParsedStatement> current = ParseStatements(existing, arena);
  std::vector<ParsedStatement> changes = ParseStatements(StripFences(patch), arena);
  if (current.empty()) {
    return MakeError("surface.patch_without_program",
                     "an edit patch needs an existing program to apply to",
                     "send the whole program first, then patches");
  }
  if (changes.empty()) return std::string(existing);

  std::vector<std::string> order;
  std::unordered_map<std::string, std::string> merged;
  std::unordered_map<std::string, Node> asts;
  for (ParsedStatement& s : current) {
    if (!merged.count(s.id)) order.push_back(s.id);
    merged[s.id] = std::move(s.raw);
    asts[s.id] = std::move(s.ast);
  }
  // lang-core keeps one order entry per existing statement, duplicates included.
  order.clear();
  for (const ParsedStatement& s : current) order.push_back(s.id);

  for (ParsedStatement& s : changes) {
    if (s.ast.kind == NodeKind::kNull) {
      merged.erase(s.id);
      asts.erase(s.id);
      auto it = std::find(order.begin(), order.end(), s.id);
      if (it != order.end()) order.erase(it);
      continue;
    }
    if (!merged.count(s.id)) order.push_back(s.id);
    merged[s.id] = std::move(s.raw);
    asts[s.id] = std::move(s.ast);
  }

  const std::string root(root_id);
  if (asts.count(root)) {
    std::unordered_set<std::string> reachable{root};
    std::vector<std::string> queue{root};
    while (!queue.empty()) {
      std::string id = std::move(queue.back());
      queue.pop_back();
      auto a = asts.find(id);
      if (a == asts.end()) continue;
      std::vector<std::string> refs;
      CollectRefs(a->second, &refs);
      for (const std::string& ref : refs) {
        if (!reachable.count(ref) && asts.count(ref)) {
          reachable.insert(ref);
          queue.push_back(ref);
        }
      }
    }
    for (const std::string& id : order) {
      if (!id.empty() && id[0] == '$') reachable.insert(id);
    }
    for (size_t i = order.size(); i-- > 0;) {
      if (!reachable.count(order[i])) {
        merged.erase(order[i]);
        order.erase(order.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
  }

  std::string out;
  bool first = true;
  for (const std::string& id : order) {
    auto it = merged.find(id);
    if (it == merged.end()) continue;
    if (!first) out += '\n';
    out += it->second;
    first = false;
  }
  return out;
}

}  // namespace affordance::surface

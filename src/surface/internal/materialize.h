// Schema-aware lowering of statements to the ParseResult tree: lang-core's materialize.ts and
// validation.ts. Values are arena Values (value.h) shaped like lang-core's plain JavaScript
// values: element nodes and AST nodes are recognised by shape exactly as there.
#pragma once

#include "surface/internal/build.h"
#include "surface/internal/tree.h"

#include <unordered_set>

namespace affordance::surface::internal {

// Bounds that keep a hostile program from exhausting the stack or memory (lang-core has none).
inline constexpr size_t kMaxReferenceDepth = 400;
// Counted as serialized: a value that appears twice in the tree (args and mappedProps of a
// component call inside an expression) is charged twice.
inline constexpr size_t kMaxMaterializedNodes = 50'000;
// The tree a program materializes to, with its references inlined, is no taller than one
// statement may be. Each statement is bounded on its own (kMaxTreeHeight), but a chain of
// references inlines one into the next: 200 statements of 250 brackets each made a tree 50,000
// levels deep, and every recursive walker after it (materializing, ToJson, its dump) overflowed
// the stack (issue 24).
inline constexpr size_t kMaxMaterializedDepth = kMaxTreeHeight;

// What validation reads from one JSON Schema fragment, looked up once per parse.
struct ScalarInfo {
  std::string expected;  // "string" | "number" | "boolean" | ""
  const Json* enum_values = nullptr;
  Json const_holder;
  bool has_enum = false;
};
struct SchemaFacts {
  bool is_object = false;             // the schema is a JSON object (else nothing is checked)
  bool composite = false;             // $ref / anyOf / oneOf / allOf
  const std::string* type = nullptr;  // "type" when it is a string
  bool literal = false;               // a type string, an enum array or a const
  ScalarInfo scalar;
};

struct MaterializeContext {
  explicit MaterializeContext(Arena& arena) : tree(arena) {}

  TreeBuilder tree;
  const StatementTable* table = nullptr;  // the statements references resolve to
  const Library* library = nullptr;
  std::vector<LangError> errors;
  std::vector<std::string> unresolved;
  std::vector<std::string_view> visited;  // the reference chain being expanded
  bool partial = false;
  std::string_view current_statement;
  std::vector<uint8_t> unreached;  // per statement of `table`: not referenced yet
  size_t budget = kMaxMaterializedNodes;
  bool reported_budget = false;
  bool reported_depth = false;
  size_t depth = 0;  // nesting of the value being built (see kMaxMaterializedDepth)
  bool reported_tree_depth = false;
  // How many values each shared value stands for once serialized (see ChargeShared).
  std::unordered_map<const Value*, size_t> expanded;
  std::unordered_map<const Json*, SchemaFacts> schema_facts;
};

// materializeValue(): literals become plain values, catalog components become element nodes
// with named props (validated against their schema), runtime expressions stay AST nodes.
const Value* MaterializeValue(const Node& node, MaterializeContext& ctx);

// The raw AST as lang-core serializes it ({k: "Comp", name, args}, {k: "Str", v}, ...).
const Value* AstValue(const Node& node, TreeBuilder& tree);

}  // namespace affordance::surface::internal

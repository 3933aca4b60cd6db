// Building Values in an arena (used by materialization; see value.h for the tree itself).
//
// Values are built bottom-up and may be edited until the parse returns (schema validation fills
// in defaults and drops invalid props, the entry element gets its statementId). Arrays and
// objects grow in the arena by doubling; a grown list leaves its old storage behind, which the
// arena frees with everything else.
#pragma once

#include "surface/value.h"

namespace affordance::surface::internal {

class TreeBuilder {
 public:
  explicit TreeBuilder(Arena& arena) : arena_(arena) {}

  Arena& arena() { return arena_; }

  static Value* Null() { return const_cast<Value*>(&Value::Null()); }  // never edited
  Value* Bool(bool b);
  Value* Int(int64_t i);
  Value* Double(double d);
  // A JavaScript number: integral values within 2^53 are stored as integers (JSON.stringify).
  Value* Number(double v);
  Value* String(std::string_view s);        // copies `s` into the arena
  Value* StaticString(std::string_view s);  // `s` must outlive the arena (a literal)

  Value* Array(size_t reserve = 0);
  Value* Object(size_t reserve = 0);
  Value* ElementObject(size_t reserve) { return Shaped(Object(reserve), Value::Shape::kElement); }
  Value* AstObject(size_t reserve) { return Shaped(Object(reserve), Value::Shape::kAst); }

  void Push(Value* array, const Value* item);
  void EraseAt(Value* array, size_t index);
  // Appends a member whose key is known not to be present (keys of objects built here).
  void Append(Value* object, std::string_view key, const Value* value);
  // JavaScript `o[key] = value`: replaces the member in place, or appends it.
  void Set(Value* object, std::string_view key, const Value* value);
  void Erase(Value* object, std::string_view key);

  // A deep copy of a JSON value (schema defaults).
  Value* FromJson(const Json& json);

  // Values are only edited while they are built; they are stored as const in their parents.
  static Value* Mutable(const Value* v) { return const_cast<Value*>(v); }

 private:
  static Value* Shaped(Value* v, Value::Shape shape) {
    v->shape_ = shape;
    return v;
  }
  Value* New(Value::Type type);
  Arena& arena_;
};

}  // namespace affordance::surface::internal

// The value tree of a parsed OpenUI Lang program, allocated in an arena.
//
// A ParseResult (program.h) holds its root element, state defaults and statement ASTs as `Value`s:
// the same shapes as lang-core's plain JavaScript values (null, boolean, number, string, array,
// object), so a Value converts one to one to JSON with ToJson(). Two object shapes are special,
// and they are recognised by shape exactly as lang-core does (an object literal written to look
// like one counts as one):
//
//   element node  {type: "element", typeName, props, partial, hasDynamicProps[, statementId]}
//   AST node      {k: "Comp" | "Str" | "Num" | ... , ...}  (a runtime expression, kept unevaluated)
//
// Every Value, string and child list lives in one Arena (a bump allocator) owned by the
// ParseResult; nothing is freed node by node. Values are immutable once the parse returns, and
// references to them stay valid as long as any copy of the ParseResult (which shares the arena)
// is alive.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace affordance::surface {

using Json = nlohmann::ordered_json;

namespace internal {
class TreeBuilder;
}

// A bump allocator: memory is handed out from large blocks and released all at once.
// Only trivially destructible objects are placed in it.
class Arena {
 public:
  Arena() = default;
  ~Arena();
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  void* Allocate(size_t bytes, size_t align);
  template <class T>
  T* AllocateArray(size_t n) {
    static_assert(std::is_trivially_destructible_v<T>);
    return static_cast<T*>(Allocate(n * sizeof(T), alignof(T)));
  }
  // A copy of `s` owned by the arena.
  std::string_view Copy(std::string_view s);
  // Bytes handed out so far (for tests and benchmarks).
  size_t used() const { return used_; }

 private:
  struct Block {
    char* data;
    size_t size;
  };
  std::vector<Block> blocks_;
  char* cur_ = nullptr;
  char* end_ = nullptr;
  size_t next_block_ = 16 * 1024;
  size_t used_ = 0;
};

class Value {
 public:
  enum class Type : uint8_t { kNull, kBool, kInt, kDouble, kString, kArray, kObject };
  struct Member {
    std::string_view key;
    const Value* value;
  };

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_bool() const { return type_ == Type::kBool; }
  bool is_number() const { return type_ == Type::kInt || type_ == Type::kDouble; }
  bool is_string() const { return type_ == Type::kString; }
  bool is_array() const { return type_ == Type::kArray; }
  bool is_object() const { return type_ == Type::kObject; }

  bool boolean() const { return type_ == Type::kBool && u_.b; }
  // The number as a double (0 when not a number). Integral values are stored as kInt, like
  // JSON.stringify prints them.
  double number() const {
    return type_ == Type::kInt ? static_cast<double>(u_.i) : type_ == Type::kDouble ? u_.d : 0;
  }
  std::string_view string() const {
    return type_ == Type::kString ? std::string_view(u_.s.ptr, u_.s.len) : std::string_view();
  }

  // Array elements (empty unless an array).
  std::span<const Value* const> items() const {
    return type_ == Type::kArray ? std::span<const Value* const>(u_.items, size_)
                                 : std::span<const Value* const>();
  }
  // Object members in insertion order (empty unless an object).
  std::span<const Member> members() const {
    return type_ == Type::kObject ? std::span<const Member>(u_.members, size_)
                                  : std::span<const Member>();
  }
  // Number of array elements or object members.
  size_t size() const { return is_array() || is_object() ? size_ : 0; }
  // Array element `i`, or the null value when out of range or not an array.
  const Value& at(size_t i) const;
  // Object member `key`, or nullptr when absent or not an object.
  const Value* Find(std::string_view key) const;
  // Object member `key`, or the null value when absent.
  const Value& operator[](std::string_view key) const;

  // ── Element nodes ──
  bool IsElement() const;
  std::string_view TypeName() const;  // "" unless an element
  const Value& Props() const;         // the props object (null unless element)
  const Value* Prop(std::string_view name) const { return Props().Find(name); }
  std::optional<std::string_view> StatementId() const;  // the statement it was defined by
  bool Partial() const;
  bool HasDynamicProps() const;

  // ── AST nodes ──
  bool IsAst() const;
  std::string_view AstKind() const;  // "Comp", "Str", ... ("" unless an AST node)
  // A string literal: a string value or a {k: "Str", v: "..."} AST node.
  std::optional<std::string_view> StringLiteral() const;

  // lang-core's JSON for this value.
  Json ToJson() const;

  static const Value& Null();

 private:
  friend class internal::TreeBuilder;
  enum class Shape : uint8_t { kPlain, kElement, kAst };  // how an object was built

  Type type_ = Type::kNull;
  Shape shape_ = Shape::kPlain;
  uint32_t size_ = 0;
  uint32_t capacity_ = 0;
  union U {
    bool b;
    int64_t i;
    double d;
    struct {
      const char* ptr;
      size_t len;
    } s;
    const Value** items;
    Member* members;
  } u_{};
};

}  // namespace affordance::surface

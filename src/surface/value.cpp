// The arena and the value tree of a parsed program (value.h, internal/tree.h).
#include "surface/value.h"

#include "surface/internal/tree.h"

#include <cmath>
#include <cstring>

namespace affordance::surface {

// ── Arena ────────────────────────────────────────────────────────────────────────────────────

namespace {

// Blocks of freed arenas, kept per thread for the next parse: a parse then writes to memory the
// process already has instead of faulting in fresh pages. Bounded, so a huge program's blocks go
// back to the system.
constexpr size_t kPoolLimit = 8 << 20;

thread_local bool t_pool_gone = false;  // trivially destructible: readable at any time

struct BlockPool {
  std::vector<std::pair<char*, size_t>> blocks;
  size_t bytes = 0;
  ~BlockPool() {
    for (auto& [data, size] : blocks) delete[] data;
    t_pool_gone = true;  // arenas freed later (static objects) free their blocks directly
  }
};

BlockPool& Pool() {
  thread_local BlockPool pool;
  return pool;
}

}  // namespace

Arena::~Arena() {
  if (t_pool_gone) {
    for (const Block& b : blocks_) delete[] b.data;
    return;
  }
  BlockPool& pool = Pool();
  for (const Block& b : blocks_) {
    if (pool.bytes + b.size <= kPoolLimit) {
      pool.blocks.emplace_back(b.data, b.size);
      pool.bytes += b.size;
    } else {
      delete[] b.data;
    }
  }
}

void* Arena::Allocate(size_t bytes, size_t align) {
  auto aligned = [&](char* p) {
    return reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(p) + align - 1) & ~(align - 1));
  };
  char* p = cur_ ? aligned(cur_) : nullptr;
  if (!p || p + bytes > end_) {
    size_t size = next_block_;
    while (size < bytes + align) size *= 2;
    if (next_block_ < (size_t{1} << 20)) next_block_ *= 2;
    char* data = nullptr;
    if (!t_pool_gone) {
      BlockPool& pool = Pool();
      for (size_t k = pool.blocks.size(); k-- > 0;) {  // the latest pooled block that fits
        if (pool.blocks[k].second >= size) {
          data = pool.blocks[k].first;
          size = pool.blocks[k].second;
          pool.bytes -= size;
          pool.blocks.erase(pool.blocks.begin() + static_cast<ptrdiff_t>(k));
          break;
        }
      }
    }
    if (!data) data = new char[size];
    blocks_.push_back(Block{data, size});
    cur_ = data;
    end_ = cur_ + size;
    p = aligned(cur_);
  }
  cur_ = p + bytes;
  used_ += bytes;
  return p;
}

std::string_view Arena::Copy(std::string_view s) {
  if (s.empty()) return {};
  char* p = static_cast<char*>(Allocate(s.size(), 1));
  std::memcpy(p, s.data(), s.size());
  return {p, s.size()};
}

// ── Value ────────────────────────────────────────────────────────────────────────────────────

namespace {

bool IsAstKindName(std::string_view k) {
  static constexpr std::string_view kNames[] = {
      "Comp",     "Str",        "Num",   "Bool",    "Null",    "Arr",    "Obj",   "Ref",   "Ph",
      "StateRef", "RuntimeRef", "BinOp", "UnaryOp", "Ternary", "Member", "Index", "Assign"};
  for (std::string_view n : kNames) {
    if (n == k) return true;
  }
  return false;
}

}  // namespace

const Value& Value::Null() {
  static const Value kNull;
  return kNull;
}

const Value& Value::at(size_t i) const { return is_array() && i < size_ ? *u_.items[i] : Null(); }

const Value* Value::Find(std::string_view key) const {
  if (type_ != Type::kObject) return nullptr;
  for (uint32_t i = 0; i < size_; ++i) {
    if (u_.members[i].key == key) return u_.members[i].value;
  }
  return nullptr;
}

const Value& Value::operator[](std::string_view key) const {
  const Value* v = Find(key);
  return v ? *v : Null();
}

bool Value::IsElement() const {
  if (type_ != Type::kObject) return false;
  if (shape_ == Shape::kElement) return true;
  if (shape_ == Shape::kAst) return false;  // built with a "k" kind and no "type"
  const Value* type = Find("type");
  const Value* name = Find("typeName");
  const Value* props = Find("props");
  const Value* partial = Find("partial");
  return type && type->string() == "element" && type->is_string() && name && name->is_string() &&
         props && (props->is_object() || props->is_array()) && partial && partial->is_bool();
}

std::string_view Value::TypeName() const {
  return IsElement() ? (*this)["typeName"].string() : std::string_view();
}

const Value& Value::Props() const { return IsElement() ? (*this)["props"] : Null(); }

std::optional<std::string_view> Value::StatementId() const {
  if (!IsElement()) return std::nullopt;
  const Value* id = Find("statementId");
  if (!id || !id->is_string()) return std::nullopt;
  return id->string();
}

bool Value::Partial() const { return IsElement() && (*this)["partial"].boolean(); }
bool Value::HasDynamicProps() const { return IsElement() && (*this)["hasDynamicProps"].boolean(); }

bool Value::IsAst() const {
  if (type_ != Type::kObject) return false;
  if (shape_ == Shape::kAst) return true;
  if (shape_ == Shape::kElement) return false;
  const Value* k = Find("k");
  return k && k->is_string() && IsAstKindName(k->string());
}

std::string_view Value::AstKind() const {
  return IsAst() ? (*this)["k"].string() : std::string_view();
}

std::optional<std::string_view> Value::StringLiteral() const {
  if (is_string()) return string();
  if (AstKind() == "Str") {
    const Value& v = (*this)["v"];
    if (v.is_string()) return v.string();
  }
  return std::nullopt;
}

Json Value::ToJson() const {
  switch (type_) {
    case Type::kNull:
      return nullptr;
    case Type::kBool:
      return u_.b;
    case Type::kInt:
      return u_.i;
    case Type::kDouble:
      return u_.d;  // NaN and Infinity dump as null, like JSON.stringify
    case Type::kString:
      return std::string(u_.s.ptr, u_.s.len);
    case Type::kArray: {
      Json out(Json::value_t::array);
      auto& arr = out.get_ref<Json::array_t&>();
      arr.reserve(size_);
      for (uint32_t i = 0; i < size_; ++i) arr.push_back(u_.items[i]->ToJson());
      return out;
    }
    case Type::kObject: {
      Json out(Json::value_t::object);
      auto& obj = out.get_ref<Json::object_t&>();
      obj.reserve(size_);
      for (uint32_t i = 0; i < size_; ++i) {
        obj.emplace_back(std::string(u_.members[i].key), u_.members[i].value->ToJson());
      }
      return out;
    }
  }
  return nullptr;
}

// ── TreeBuilder ──────────────────────────────────────────────────────────────────────────────

namespace internal {

Value* TreeBuilder::New(Value::Type type) {
  Value* v = new (arena_.Allocate(sizeof(Value), alignof(Value))) Value();
  v->type_ = type;
  return v;
}

Value* TreeBuilder::Bool(bool b) {
  Value* v = New(Value::Type::kBool);
  v->u_.b = b;
  return v;
}

Value* TreeBuilder::Int(int64_t i) {
  Value* v = New(Value::Type::kInt);
  v->u_.i = i;
  return v;
}

Value* TreeBuilder::Double(double d) {
  Value* v = New(Value::Type::kDouble);
  v->u_.d = d;
  return v;
}

Value* TreeBuilder::Number(double d) {
  // Range first: converting an out-of-range double to an integer is undefined behaviour.
  if (d > -9007199254740992.0 && d < 9007199254740992.0 && d == std::trunc(d)) {
    return Int(static_cast<int64_t>(d));
  }
  return Double(d);
}

Value* TreeBuilder::String(std::string_view s) { return StaticString(arena_.Copy(s)); }

Value* TreeBuilder::StaticString(std::string_view s) {
  Value* v = New(Value::Type::kString);
  v->u_.s.ptr = s.data();
  v->u_.s.len = s.size();
  return v;
}

Value* TreeBuilder::Array(size_t reserve) {
  Value* v = New(Value::Type::kArray);
  if (reserve) {
    v->u_.items = arena_.AllocateArray<const Value*>(reserve);
    v->capacity_ = static_cast<uint32_t>(reserve);
  }
  return v;
}

Value* TreeBuilder::Object(size_t reserve) {
  Value* v = New(Value::Type::kObject);
  if (reserve) {
    v->u_.members = arena_.AllocateArray<Value::Member>(reserve);
    v->capacity_ = static_cast<uint32_t>(reserve);
  }
  return v;
}

void TreeBuilder::Push(Value* array, const Value* item) {
  if (array->size_ == array->capacity_) {
    const uint32_t cap = array->capacity_ ? array->capacity_ * 2 : 4;
    const Value** grown = arena_.AllocateArray<const Value*>(cap);
    if (array->size_) std::memcpy(grown, array->u_.items, array->size_ * sizeof(const Value*));
    array->u_.items = grown;
    array->capacity_ = cap;
  }
  array->u_.items[array->size_++] = item;
}

void TreeBuilder::EraseAt(Value* array, size_t index) {
  if (index >= array->size_) return;
  std::memmove(array->u_.items + index, array->u_.items + index + 1,
               (array->size_ - index - 1) * sizeof(const Value*));
  array->size_--;
}

void TreeBuilder::Append(Value* object, std::string_view key, const Value* value) {
  if (object->size_ == object->capacity_) {
    const uint32_t cap = object->capacity_ ? object->capacity_ * 2 : 4;
    Value::Member* grown = arena_.AllocateArray<Value::Member>(cap);
    if (object->size_)
      std::memcpy(grown, object->u_.members, object->size_ * sizeof(Value::Member));
    object->u_.members = grown;
    object->capacity_ = cap;
  }
  object->u_.members[object->size_++] = Value::Member{key, value};
}

void TreeBuilder::Set(Value* object, std::string_view key, const Value* value) {
  for (uint32_t i = 0; i < object->size_; ++i) {
    if (object->u_.members[i].key == key) {
      object->u_.members[i].value = value;
      return;
    }
  }
  Append(object, arena_.Copy(key), value);
}

void TreeBuilder::Erase(Value* object, std::string_view key) {
  for (uint32_t i = 0; i < object->size_; ++i) {
    if (object->u_.members[i].key == key) {
      std::memmove(object->u_.members + i, object->u_.members + i + 1,
                   (object->size_ - i - 1) * sizeof(Value::Member));
      object->size_--;
      return;
    }
  }
}

Value* TreeBuilder::FromJson(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null:
      return Null();
    case Json::value_t::boolean:
      return Bool(j.get<bool>());
    case Json::value_t::number_integer:
      return Int(j.get<int64_t>());
    case Json::value_t::number_unsigned: {
      const uint64_t u = j.get<uint64_t>();
      return u <= static_cast<uint64_t>(INT64_MAX) ? Int(static_cast<int64_t>(u))
                                                   : Double(static_cast<double>(u));
    }
    case Json::value_t::number_float:
      return Double(j.get<double>());
    case Json::value_t::string:
      return String(j.get_ref<const std::string&>());
    case Json::value_t::array: {
      Value* a = Array(j.size());
      for (const Json& e : j) Push(a, FromJson(e));
      return a;
    }
    case Json::value_t::object: {
      Value* o = Object(j.size());
      for (auto it = j.begin(); it != j.end(); ++it)
        Append(o, arena_.Copy(it.key()), FromJson(it.value()));
      return o;
    }
    default:
      return Null();  // binary and discarded values never occur in a schema
  }
}

}  // namespace internal
}  // namespace affordance::surface

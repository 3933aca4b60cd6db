#include "surface/internal/evaluate.h"

#include "surface/ast.h"

#include <cmath>
#include <cstdlib>
#include <optional>

namespace affordance::surface::internal {
namespace {

const Json kNull;

const Json& Field(const Json& node, const char* key) {
  auto it = node.find(key);
  return it == node.end() ? kNull : *it;
}

std::string Text(const Json& node, const char* key) {
  const Json& v = Field(node, key);
  return v.is_string() ? v.get<std::string>() : "";
}

bool IsAstNode(const Json& v) { return v.is_object() && v.contains("k") && v["k"].is_string(); }

// JavaScript's Number(s): surrounding whitespace ignored, "" is 0, anything unparsable NaN.
double NumberOfString(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n\r\f\v");
  if (b == std::string::npos) return 0;
  size_t e = s.find_last_not_of(" \t\n\r\f\v");
  std::string t = s.substr(b, e - b + 1);
  if (t == "Infinity" || t == "+Infinity") return INFINITY;
  if (t == "-Infinity") return -INFINITY;
  char* end = nullptr;
  double d = t.rfind("0x", 0) == 0 || t.rfind("0X", 0) == 0
                 ? static_cast<double>(std::strtoull(t.c_str() + 2, &end, 16))
                 : std::strtod(t.c_str(), &end);
  if (end == nullptr || *end != '\0' || t.find_first_of("iInN") != std::string::npos) return NAN;
  return d;
}

bool IsNumeric(const Json& v) {
  return v.is_number() || (v.is_string() && !v.get<std::string>().empty() &&
                           !std::isnan(NumberOfString(v.get<std::string>())));
}

Json NumberJson(double d) {
  if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9007199254740992.0) {
    return Json(static_cast<int64_t>(d));
  }
  return Json(d);
}

// JavaScript's `a == b` on JSON values (objects and arrays compare by value: there is no
// identity to compare).
bool LooseEquals(const Json& a, const Json& b) {
  if (a.is_null() || b.is_null()) return a.is_null() && b.is_null();
  if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
  if (a.type() == b.type()) return a == b;
  if (a.is_boolean()) return LooseEquals(Json(a.get<bool>() ? 1 : 0), b);
  if (b.is_boolean()) return LooseEquals(a, Json(b.get<bool>() ? 1 : 0));
  if (a.is_number() && b.is_string())
    return a.get<double>() == NumberOfString(b.get<std::string>());
  if (a.is_string() && b.is_number())
    return NumberOfString(a.get<std::string>()) == b.get<double>();
  if (a.is_structured() != b.is_structured()) return JsString(a) == JsString(b);
  return false;
}

// Merge sort by `less` on indices: stable like Array.prototype.sort, and safe whatever `less`
// answers (a comparator that is not a strict weak order cannot send it out of bounds).
template <class Less>
void MergeSort(std::vector<size_t>& v, Less less) {
  if (v.size() < 2) return;
  std::vector<size_t> left(v.begin(), v.begin() + static_cast<long>(v.size() / 2));
  std::vector<size_t> right(v.begin() + static_cast<long>(v.size() / 2), v.end());
  MergeSort(left, less);
  MergeSort(right, less);
  size_t i = 0, j = 0, k = 0;
  while (i < left.size() && j < right.size())
    v[k++] = less(right[j], left[i]) ? right[j++] : left[i++];
  while (i < left.size()) v[k++] = left[i++];
  while (j < right.size()) v[k++] = right[j++];
}

// resolveField: a dotted path into an object.
Json Resolve(const Json& item, const std::string& path) {
  if (path.empty()) return item;
  const Json* cur = &item;
  size_t start = 0;
  while (start <= path.size()) {
    size_t dot = path.find('.', start);
    std::string key =
        path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(key);
    if (it == cur->end()) return nullptr;
    cur = &*it;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return *cur;
}

Json Sort(const Json& arr, const Json& field, const Json& dir) {
  if (!arr.is_array()) return arr;
  const std::string f = field.is_null() ? "" : JsString(field);
  const bool desc = (dir.is_null() ? "asc" : JsString(dir)) == "desc";
  std::vector<Json> keys;
  for (const Json& item : arr) keys.push_back(f.empty() ? item : Resolve(item, f));
  std::vector<size_t> order(arr.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  MergeSort(order, [&](size_t a, size_t b) {
    const Json& av = keys[a];
    const Json& bv = keys[b];
    if (IsNumeric(av) && IsNumeric(bv)) {
      double diff = ToNumber(av) - ToNumber(bv);
      return desc ? diff > 0 : diff < 0;
    }
    int cmp =
        JsString(av.is_null() ? Json("") : av).compare(JsString(bv.is_null() ? Json("") : bv));
    return desc ? cmp > 0 : cmp < 0;
  });
  Json out = Json::array();
  for (size_t i : order) out.push_back(arr[i]);
  return out;
}

Json Filter(const Json& arr, const Json& field, const Json& op, const Json& value) {
  if (!arr.is_array()) return Json::array();
  const std::string f = field.is_null() ? "" : JsString(field);
  const std::string o = op.is_null() ? "==" : JsString(op);
  Json out = Json::array();
  for (const Json& item : arr) {
    Json v = f.empty() ? item : Resolve(item, f);
    bool keep = false;
    if (o == "==") keep = LooseEquals(v, value);
    if (o == "!=") keep = !LooseEquals(v, value);
    if (o == ">") keep = ToNumber(v) > ToNumber(value);
    if (o == "<") keep = ToNumber(v) < ToNumber(value);
    if (o == ">=") keep = ToNumber(v) >= ToNumber(value);
    if (o == "<=") keep = ToNumber(v) <= ToNumber(value);
    if (o == "contains") {
      keep =
          JsString(v.is_null() ? Json("") : v).find(JsString(value.is_null() ? Json("") : value)) !=
          std::string::npos;
    }
    if (keep) out.push_back(item);
  }
  return out;
}

// The eager data builtins; nullopt when `name` is not one.
std::optional<Json> Builtin(const std::string& name, const std::vector<Json>& a) {
  auto arg = [&](size_t i) -> const Json& { return i < a.size() ? a[i] : kNull; };
  const Json& x = arg(0);
  const bool list = x.is_array();
  auto fold = [&](double init, auto op) {
    double acc = init;
    for (const Json& v : x) acc = op(acc, ToNumber(v));
    return acc;
  };
  if (name == "Count") return Json(list ? x.size() : 0);
  if (name == "First") return list && !x.empty() ? x.front() : kNull;
  if (name == "Last") return list && !x.empty() ? x.back() : kNull;
  if (name == "Sum")
    return NumberJson(list ? fold(0, [](double s, double v) { return s + v; }) : 0);
  if (name == "Avg") {
    if (!list || x.empty()) return Json(0);
    return NumberJson(fold(0, [](double s, double v) { return s + v; }) / x.size());
  }
  if (name == "Min" || name == "Max") {
    if (!list || x.empty()) return Json(0);
    const bool min = name == "Min";
    return NumberJson(fold(ToNumber(x.front()), [min](double s, double v) {
      return min ? std::fmin(s, v) : std::fmax(s, v);
    }));
  }
  if (name == "Sort") return Sort(x, arg(1), arg(2));
  if (name == "Filter") return Filter(x, arg(1), arg(2), arg(3));
  if (name == "Round") {
    double factor = std::pow(10.0, arg(1).is_null() ? 0 : ToNumber(arg(1)));
    return NumberJson(std::round(ToNumber(x) * factor) / factor);
  }
  if (name == "Abs") return NumberJson(std::fabs(ToNumber(x)));
  if (name == "Floor") return NumberJson(std::floor(ToNumber(x)));
  if (name == "Ceil") return NumberJson(std::ceil(ToNumber(x)));
  return std::nullopt;
}

// JavaScript's string length: UTF-16 code units (a code point above U+FFFF is two).
size_t Utf16Length(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) n += c >= 0xF0 ? 2 : 1;
  }
  return n;
}

bool IsAction(const std::string& name) {
  return name == "Action" || name == "Run" || name == "ToAssistant" || name == "OpenUrl" ||
         name == "Set" || name == "Reset";
}

}  // namespace

bool Truthy(const Json& v) {
  if (v.is_null()) return false;
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number()) {
    double d = v.get<double>();
    return d != 0 && !std::isnan(d);
  }
  if (v.is_string()) return !v.get<std::string>().empty();
  return true;
}

double ToNumber(const Json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    double d = NumberOfString(v.get<std::string>());
    return std::isnan(d) ? 0 : d;
  }
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  return 0;
}

std::string JsString(const Json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return v.dump();
  if (v.is_number()) return JsNumberString(v.get<double>());
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out += ",";
      if (!v[i].is_null()) out += JsString(v[i]);
    }
    return out;
  }
  return "[object Object]";
}

EvalScope::EvalScope(const ParseResult& program, const BoundRows* rows)
    : program_(program), rows_(rows) {
  for (const QueryStatement& q : program.query_statements) {
    const std::string name(q.statement_id);
    const BindingRows* read = nullptr;
    if (rows_ != nullptr) {
      auto it = rows_->find(name);
      if (it != rows_->end() && !it->second.error) read = &it->second;
    }
    Json value;
    if (read != nullptr) {
      Json list = Json::array();
      for (const auto& row : read->rows) list.push_back(Json(row));
      value = Json{{"rows", std::move(list)}};
    } else {
      value = Evaluate(q.defaults->ToJson());
    }
    query_values_.emplace_back(name, std::move(value));
  }
}

Json EvalScope::Ref(const std::string& name) {
  for (auto it = locals_.rbegin(); it != locals_.rend(); ++it) {
    if (it->first == name) return it->second;
  }
  return nullptr;  // references to statements were inlined by the parser
}

Json EvalScope::RuntimeRef(const Json& node) {
  const std::string name = Text(node, "n");
  if (Text(node, "refType") == "mutation") {
    return Json{{"status", "idle"}, {"data", nullptr}, {"error", nullptr}};
  }
  for (const auto& [statement, value] : query_values_) {
    if (statement != name) continue;
    queries_read_.insert(name);
    return value;
  }
  return nullptr;
}

Json EvalScope::Each(const Json& args) {
  if (!args.is_array() || args.size() < 3) return Json::array();
  Json arr = Evaluate(args[0]);
  if (!arr.is_array()) return Json::array();
  const Json& var = args[1];
  std::string name = Text(var, "k") == "Ref"   ? Text(var, "n")
                     : Text(var, "k") == "Str" ? Text(var, "v")
                                               : "";
  if (name.empty()) return Json::array();
  Json out = Json::array();
  for (const Json& item : arr) {
    locals_.emplace_back(name, item);
    out.push_back(Evaluate(args[2]));
    locals_.pop_back();
  }
  return out;
}

Json EvalScope::Call(const Json& node) {
  const std::string name = Text(node, "name");
  const Json& args = Field(node, "args");
  if (name == "Each") return Each(args);
  if (IsAction(name)) return Json{{"action", name}};
  if (const Json& mapped = Field(node, "mappedProps"); mapped.is_object()) {
    Json props = Json::object();
    for (const auto& [key, value] : mapped.items()) props[key] = Evaluate(value);
    return Json{{"type", "element"},
                {"typeName", name},
                {"props", std::move(props)},
                {"partial", false},
                {"hasDynamicProps", false}};
  }
  std::vector<Json> values;
  if (args.is_array()) {
    for (const Json& a : args) values.push_back(Evaluate(a));
  }
  return Builtin(name, values).value_or(nullptr);
}

Json EvalScope::BinOp(const Json& node) {
  const std::string op = Text(node, "op");
  Json left = Evaluate(Field(node, "left"));
  if (op == "&&") return Truthy(left) ? Evaluate(Field(node, "right")) : left;
  if (op == "||") return Truthy(left) ? left : Evaluate(Field(node, "right"));
  Json right = Evaluate(Field(node, "right"));
  const double l = ToNumber(left), r = ToNumber(right);
  if (op == "+") {
    if (left.is_string() || right.is_string()) {
      return (left.is_null() ? "" : JsString(left)) + (right.is_null() ? "" : JsString(right));
    }
    return NumberJson(l + r);
  }
  if (op == "-") return NumberJson(l - r);
  if (op == "*") return NumberJson(l * r);
  if (op == "/") return NumberJson(r == 0 ? 0 : l / r);
  if (op == "%") return NumberJson(r == 0 ? 0 : std::fmod(l, r));
  if (op == "==") return LooseEquals(left, right);
  if (op == "!=") return !LooseEquals(left, right);
  if (op == ">") return l > r;
  if (op == "<") return l < r;
  if (op == ">=") return l >= r;
  if (op == "<=") return l <= r;
  return nullptr;
}

Json EvalScope::Member(const Json& node) {
  Json obj = Evaluate(Field(node, "obj"));
  const std::string field = Text(node, "field");
  if (obj.is_array()) {
    if (field == "length") return obj.size();
    Json out = Json::array();
    for (const Json& item : obj) {
      auto it = item.is_object() ? item.find(field) : item.end();
      out.push_back(item.is_object() && it != item.end() ? *it : kNull);
    }
    return out;
  }
  if (obj.is_string() && field == "length") return Utf16Length(obj.get<std::string>());
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(field);
  return it == obj.end() ? kNull : *it;
}

Json EvalScope::Index(const Json& node) {
  Json obj = Evaluate(Field(node, "obj"));
  Json idx = Evaluate(Field(node, "index"));
  if (obj.is_null() || idx.is_null()) return nullptr;
  if (obj.is_array()) {
    double i = ToNumber(idx);
    if (i < 0 || i != std::floor(i) || i >= static_cast<double>(obj.size())) return nullptr;
    return obj[static_cast<size_t>(i)];
  }
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(JsString(idx));
  return it == obj.end() ? kNull : *it;
}

Json EvalScope::Evaluate(const Json& node) {
  if (!IsAstNode(node)) {
    // A value the parser already materialized (an object or array literal of an argument) may
    // still hold expressions, such as an Html canvas's {events: events}: those are evaluated.
    if (node.is_object()) {
      Json out = Json::object();
      for (auto it = node.begin(); it != node.end(); ++it) out[it.key()] = Evaluate(it.value());
      return out;
    }
    if (node.is_array()) {
      Json out = Json::array();
      for (const Json& e : node) out.push_back(Evaluate(e));
      return out;
    }
    return node;
  }
  const std::string k = node["k"].get<std::string>();
  if (k == "Str" || k == "Num" || k == "Bool") return Field(node, "v");
  if (k == "Null" || k == "Ph" || k == "Assign") return nullptr;
  if (k == "StateRef") {
    const std::string name = Text(node, "n");
    for (auto it = locals_.rbegin(); it != locals_.rend(); ++it) {
      if (it->first == name) return it->second;
    }
    const Value* v = program_.State(name);
    return v != nullptr ? v->ToJson() : Json();
  }
  if (k == "Ref") return Ref(Text(node, "n"));
  if (k == "RuntimeRef") return RuntimeRef(node);
  if (k == "Arr") {
    Json out = Json::array();
    for (const Json& e : Field(node, "els")) out.push_back(Evaluate(e));
    return out;
  }
  if (k == "Obj") {
    Json out = Json::object();
    for (const Json& entry : Field(node, "entries")) {
      if (entry.is_array() && entry.size() == 2 && entry[0].is_string()) {
        out[entry[0].get<std::string>()] = Evaluate(entry[1]);
      }
    }
    return out;
  }
  if (k == "Comp") return Call(node);
  if (k == "BinOp") return BinOp(node);
  if (k == "UnaryOp") {
    Json operand = Evaluate(Field(node, "operand"));
    const std::string op = Text(node, "op");
    if (op == "!") return !Truthy(operand);
    if (op == "-") return NumberJson(-ToNumber(operand));
    return nullptr;
  }
  if (k == "Ternary") {
    return Truthy(Evaluate(Field(node, "cond"))) ? Evaluate(Field(node, "then"))
                                                 : Evaluate(Field(node, "else"));
  }
  if (k == "Member") return Member(node);
  if (k == "Index") return Index(node);
  return nullptr;
}

}  // namespace affordance::surface::internal

// The contract between the view runtime (src/view) and layout (src/render): the tree of intrinsic
// nodes a render produces, and the hook through which a view's asChatTools() call reaches layout.
//
// The view runtime calls function components and hooks in QuickJS and hands layout a tree of plain
// C++ values: text runs, intrinsic elements (lower-case JSX types such as "box", "scroll",
// "input", "button", "token"; the vocabulary and its rules belong to src/render and
// docs/RUNTIME.md), their handlers, and opaque token blocks produced by earlier asChatTools calls.
#pragma once

#include "base/result.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace affordance::view {

// Identifies one mounted handler (an element's on* prop). Stable across renders while the element
// stays mounted at the same component path with the same event; the function it calls is the one
// from the latest render (fresh closures and setters). Freed when the element unmounts. 0 = none.
using HandlerId = uint64_t;

// What a handler's parameter list declares, read from its source (never inferred from names).
struct HandlerSignature {
  enum class Kind {
    kNoParams,      // () => ...
    kDestructured,  // ({ value, mode = "append" }) => ...
    kSingle,        // (event) => ...  : one plain parameter, an unconstrained object
    kOther,         // anything else (several parameters, rest, array patterns): unconstrained
  };
  struct Field {
    std::string name;
    bool optional = false;  // the field has a default value
  };
  Kind kind = Kind::kNoParams;
  std::vector<Field> fields;  // kDestructured only, in source order
};

struct Handler {
  std::string event;  // the prop name as written: "onChange", "onClick", "onTimeout", ...
  HandlerId id = 0;
  HandlerSignature signature;
};

struct Node;

// An element's children: immutable once built and shared by copies, so a Node is cheap to copy
// (the view keeps the conversions of replayed subtrees and hands out copies every render).
class NodeList {
 public:
  NodeList() = default;
  NodeList(std::vector<Node> nodes);  // NOLINT: implicit, as a vector would be
  NodeList(std::initializer_list<Node> nodes);

  // Defined after Node (a complete type is needed).
  const std::vector<Node>& vec() const;
  operator const std::vector<Node>&() const { return vec(); }  // NOLINT
  size_t size() const;
  bool empty() const { return size() == 0; }
  const Node& operator[](size_t i) const;
  const Node& front() const;
  const Node& back() const;
  std::vector<Node>::const_iterator begin() const;
  std::vector<Node>::const_iterator end() const;

 private:
  std::shared_ptr<const std::vector<Node>> nodes_;
};

// An element's props: a JSON object shared by the copies of a node and copied only when one of
// them is changed (nodes are copied out of the view's conversion cache on every render). Reads as
// the JSON it holds; an empty object until set.
class Props {
 public:
  using Json = nlohmann::ordered_json;
  Props() = default;
  Props(Json json) : json_(std::make_shared<Json>(std::move(json))) {}  // NOLINT: implicit
  Props(std::initializer_list<nlohmann::detail::json_ref<Json>> init) : Props(Json(init)) {}
  template <class Other, std::enable_if_t<nlohmann::detail::is_basic_json<Other>::value &&
                                              !std::is_same_v<Other, Json>,
                                          int> = 0>
  Props(const Other& other) : Props(Json(other)) {}  // NOLINT: implicit, from nlohmann::json

  const Json& json() const { return json_ ? *json_ : EmptyObject(); }
  operator const Json&() const { return json(); }  // NOLINT: reads as its JSON
  // The JSON to change: this node's own copy from now on.
  Json& mutable_json() {
    if (!json_) {
      json_ = std::make_shared<Json>(Json::object());
    } else if (json_.use_count() > 1) {
      json_ = std::make_shared<Json>(*json_);
    }
    return *json_;
  }

  Json::const_iterator find(const std::string& key) const { return json().find(key); }
  Json::const_iterator begin() const { return json().begin(); }
  Json::const_iterator end() const { return json().end(); }
  bool contains(const std::string& key) const { return json().contains(key); }
  template <class T>
  auto value(const std::string& key, T&& fallback) const {
    return json().value(key, std::forward<T>(fallback));
  }
  size_t size() const { return json().size(); }
  bool empty() const { return json().empty(); }
  std::string dump(int indent = -1) const { return json().dump(indent); }
  const Json& operator[](const std::string& key) const { return json()[key]; }
  Json& operator[](const std::string& key) { return mutable_json()[key]; }
  friend bool operator==(const Props& a, const Props& b) { return a.json() == b.json(); }
  friend bool operator==(const Props& a, const Json& b) { return a.json() == b; }
  friend std::ostream& operator<<(std::ostream& os, const Props& p) { return os << p.json(); }

 private:
  static const Json& EmptyObject() {
    static const Json kEmpty = Json::object();
    return kEmpty;
  }
  std::shared_ptr<Json> json_;
};

struct Node {
  enum class Kind { kText, kElement, kBlock };
  Kind kind = Kind::kText;

  // kText: one text run (strings as written; numbers already formatted as JavaScript's String()).
  std::string text;

  // kElement: intrinsic type, plain props (every prop except children, key and function-valued
  // props, converted to JSON), handlers (function-valued on* props, in prop order), children.
  std::string type;
  Props props;
  std::vector<Handler> handlers;
  NodeList children;
  // The element's component path, e.g. "NotebookChat/Qwen3App/box[0]"; unique within a render.
  std::string path;

  // kBlock: a laid-out tree returned by an earlier asChatTools call (owned by src/render; opaque
  // here). Emitting `tree` from asChatTools's result as a child produces this node.
  std::shared_ptr<const void> block;
};

inline NodeList::NodeList(std::vector<Node> nodes)
    : nodes_(nodes.empty() ? nullptr
                           : std::make_shared<const std::vector<Node>>(std::move(nodes))) {}
inline NodeList::NodeList(std::initializer_list<Node> nodes) : NodeList(std::vector<Node>(nodes)) {}
inline const std::vector<Node>& NodeList::vec() const {
  static const std::vector<Node> kEmpty;
  return nodes_ ? *nodes_ : kEmpty;
}
inline size_t NodeList::size() const { return nodes_ ? nodes_->size() : 0; }
inline const Node& NodeList::operator[](size_t i) const { return (*nodes_)[i]; }
inline const Node& NodeList::front() const { return nodes_->front(); }
inline const Node& NodeList::back() const { return nodes_->back(); }
inline std::vector<Node>::const_iterator NodeList::begin() const { return vec().begin(); }
inline std::vector<Node>::const_iterator NodeList::end() const { return vec().end(); }

// What asChatTools(children, options) hands back to the view: the opaque laid-out block (placed in
// the JS element tree as `tree`) and the tool objects (given to JS as `tools`).
struct ChatTools {
  std::shared_ptr<const void> block;
  nlohmann::ordered_json tools = nlohmann::ordered_json::array();
  // Set by a hook given its previous result (ChatToolsHookWithPrevious) when the tools are the
  // previous ones: `tools` is then left empty and the view keeps the previous tool objects.
  bool same_tools = false;
};

// Called synchronously while a component calls asChatTools(children, options). `children` is the
// children subtree, already reconciled into intrinsic nodes; `options` is the options object as
// JSON (e.g. {"callable": false}). An Error becomes a JavaScript exception thrown from
// asChatTools, and so a render error with the same code and message.
using ChatToolsHook = std::function<Result<ChatTools>(const std::vector<Node>& children,
                                                      const nlohmann::ordered_json& options)>;

// The same, also given the result this call site got last time (nullptr on its first layout), so
// a hook can answer `same_tools` instead of building tool objects that did not change (an act that
// changed the app but not its actions).
using ChatToolsHookWithPrevious = std::function<Result<ChatTools>(
    const std::vector<Node>& children, const nlohmann::ordered_json& options,
    const ChatTools* previous)>;

}  // namespace affordance::view

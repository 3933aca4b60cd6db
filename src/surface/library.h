// A component library: the vocabulary a program may use, read from lang-core's library JSON Schema
// document so libraries move freely between this runtime and the JavaScript ecosystem.
//
// Document shape (what lang-core's `library.toJSONSchema()` emits, plus optional keys of its
// LibrarySpec):
//   {"$defs": {Name: {"type": "object", "properties": {...}, "required": [...],
//                     "description": "..."}, ...},
//    "root": "Name"?, "componentGroups": [{"name", "components": [...], "notes": [...]}]?}
// Property order is positional order: `Name(a, b)` maps a and b to the first two properties.
#pragma once

#include "base/result.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace affordance::surface {

using Json = nlohmann::ordered_json;

struct Param {
  std::string name;
  bool required = false;
  std::optional<Json> default_value;  // the schema's "default" (null is a default too)
  Json schema;                        // the property's JSON Schema fragment
};

struct Component {
  std::string name;
  std::string description;
  std::vector<Param> params;  // positional order
};

struct ComponentGroup {
  std::string name;
  std::vector<std::string> components;
  std::vector<std::string> notes;
};

class Library {
 public:
  // Reads a library document. Errors: "surface.library_not_json" (not JSON) and
  // "surface.library_invalid" (checks of lang-core's validateChatLibrary: shape, root, $ref
  // targets, required names, groups; the message names the first problem, `detail` lists all
  // with their lang-core issue codes), "surface.too_deep" (nested deeper than kMaxJsonDepth,
  // refused before it is parsed).
  static Result<Library> FromJson(std::string_view text);

  // The product's default library (src/surface/default_library.json, embedded at build time):
  // layout and data components plus the `Html(html, data, mounts)` canvas with `HtmlMount` slots.
  static const Library& Default();

  const Component* Find(std::string_view name) const;
  const std::vector<Component>& components() const { return components_; }
  const std::vector<ComponentGroup>& groups() const { return groups_; }
  // The library's root component name, or "" when the document names none.
  const std::string& root() const { return root_; }
  // The document as read (for prompt signatures and re-export).
  const Json& document() const { return document_; }

 private:
  std::vector<Component> components_;
  // Looked up by string_view without building a std::string (heterogeneous lookup).
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, size_t, NameHash, std::equal_to<>> index_;
  std::vector<ComponentGroup> groups_;
  std::string root_;
  Json document_;
};

}  // namespace affordance::surface

#include "surface/library.h"

#include "base/json_limits.h"

#include <algorithm>
#include <cstdlib>

namespace affordance::surface {

extern const char* const kDefaultLibraryJson;  // generated from default_library.json

namespace {

struct Issue {
  std::string code, message;
};

void CollectRefIssues(const Json& node, const std::string& path, const Json& defs,
                      std::vector<Issue>* issues) {
  if (node.is_array()) {
    for (size_t i = 0; i < node.size(); ++i) {
      CollectRefIssues(node[i], path + "/" + std::to_string(i), defs, issues);
    }
    return;
  }
  if (!node.is_object()) return;
  auto ref = node.find("$ref");
  if (ref != node.end() && ref->is_string()) {
    const std::string& r = ref->get_ref<const std::string&>();
    const std::string prefix = "#/$defs/";
    bool ok = r.size() > prefix.size() && r.compare(0, prefix.size(), prefix) == 0 &&
              defs.contains(r.substr(prefix.size()));
    if (!ok) {
      issues->push_back({"unresolved-ref", "Unresolvable $ref \"" + r + "\" at " + path +
                                               " — refs must be \"#/$defs/<name>\" pointing at "
                                               "a component in $defs."});
    }
  }
  for (auto it = node.begin(); it != node.end(); ++it) {
    if (it.key() == "$ref") continue;
    CollectRefIssues(it.value(), path + "/" + it.key(), defs, issues);
  }
}

std::vector<Issue> CheckDocument(const Json& doc) {
  std::vector<Issue> issues;
  if (!doc.is_object()) return {{"invalid-shape", "the library must be a JSON object."}};
  auto root = doc.find("root");
  if (root != doc.end() && (!root->is_string() || root->get<std::string>().empty())) {
    issues.push_back({"invalid-shape", "root, when present, must be a non-empty string."});
  }
  auto defs = doc.find("$defs");
  if (defs == doc.end() || !defs->is_object() || defs->empty()) {
    issues.push_back(
        {"invalid-shape", "$defs must be a non-empty object keyed by component name."});
    return issues;
  }
  if (root != doc.end() && root->is_string() && !root->get<std::string>().empty() &&
      !defs->contains(root->get<std::string>())) {
    issues.push_back({"root-not-found", "Root component \"" + root->get<std::string>() +
                                            "\" was not found in $defs."});
  }
  for (auto it = defs->begin(); it != defs->end(); ++it) {
    const std::string path = "$defs/" + it.key();
    const Json& def = it.value();
    if (!def.is_object()) {
      issues.push_back({"invalid-shape", path + " must be an object component schema."});
      continue;
    }
    auto props = def.find("properties");
    if (props != def.end() && !props->is_object()) {
      issues.push_back({"invalid-shape", path + "/properties must be an object."});
    }
    auto req = def.find("required");
    if (req != def.end()) {
      bool strings = req->is_array();
      if (strings) {
        for (const auto& r : *req) strings = strings && r.is_string();
      }
      if (!strings) {
        issues.push_back(
            {"invalid-required", path + "/required must be an array of property names."});
      } else {
        for (const auto& r : *req) {
          if (props == def.end() || !props->is_object() || !props->contains(r.get<std::string>())) {
            issues.push_back({"invalid-required", path + " lists required property \"" +
                                                      r.get<std::string>() +
                                                      "\" that is not in properties."});
          }
        }
      }
    }
    if (props != def.end()) CollectRefIssues(*props, path + "/properties", *defs, &issues);
  }
  auto groups = doc.find("componentGroups");
  if (groups != doc.end()) {
    if (!groups->is_array()) {
      issues.push_back({"invalid-shape", "componentGroups must be an array."});
    } else {
      for (const auto& g : *groups) {
        if (!g.is_object() || !g.contains("name") || !g["name"].is_string() ||
            !g.contains("components") || !g["components"].is_array()) {
          issues.push_back({"invalid-shape",
                            "Each componentGroups entry must be {name: string, "
                            "components: string[], notes?: string[]}."});
          continue;
        }
        for (const auto& c : g["components"]) {
          if (!c.is_string() || !defs->contains(c.get<std::string>())) {
            issues.push_back({"unknown-group-component",
                              "Component group \"" + g["name"].get<std::string>() +
                                  "\" references unknown component " + c.dump() + "."});
          }
        }
      }
    }
  }
  return issues;
}

}  // namespace

Result<Library> Library::FromJson(std::string_view text) {
  // A library file comes from outside; its checks recurse over the document.
  if (auto deep = CheckJsonDepth(text, "surface.too_deep", "the library file"); !deep) {
    return deep.error();
  }
  Json doc = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return MakeError(ErrorKind::kInvalid, "surface.library_not_json",
                     "the library file is not valid JSON (lang-core's library JSON Schema "
                     "document {\"$defs\": {...}})",
                     JsonSyntaxError(text));
  }
  std::vector<Issue> issues = CheckDocument(doc);
  if (!issues.empty()) {
    std::string detail;
    for (const auto& i : issues) {
      if (!detail.empty()) detail += "; ";
      detail += i.code + ": " + i.message;
    }
    return MakeError("surface.library_invalid", "invalid component library: " + issues[0].message,
                     detail);
  }
  Library lib;
  for (auto it = doc["$defs"].begin(); it != doc["$defs"].end(); ++it) {
    Component c;
    c.name = it.key();
    const Json& def = it.value();
    if (def.contains("description") && def["description"].is_string()) {
      c.description = def["description"].get<std::string>();
    }
    std::vector<std::string> required;
    if (def.contains("required")) required = def["required"].get<std::vector<std::string>>();
    if (def.contains("properties")) {
      for (auto p = def["properties"].begin(); p != def["properties"].end(); ++p) {
        Param param;
        param.name = p.key();
        param.schema = p.value();
        param.required = std::find(required.begin(), required.end(), p.key()) != required.end();
        if (p.value().is_object() && p.value().contains("default")) {
          param.default_value = p.value()["default"];
        }
        c.params.push_back(std::move(param));
      }
    }
    lib.index_[c.name] = lib.components_.size();
    lib.components_.push_back(std::move(c));
  }
  if (doc.contains("root")) lib.root_ = doc["root"].get<std::string>();
  if (doc.contains("componentGroups")) {
    for (const auto& g : doc["componentGroups"]) {
      ComponentGroup group;
      group.name = g["name"].get<std::string>();
      for (const auto& c : g["components"]) group.components.push_back(c.get<std::string>());
      if (g.contains("notes") && g["notes"].is_array()) {
        for (const auto& n : g["notes"]) {
          if (n.is_string()) group.notes.push_back(n.get<std::string>());
        }
      }
      lib.groups_.push_back(std::move(group));
    }
  }
  lib.document_ = std::move(doc);
  return lib;
}

const Library& Library::Default() {
  static const Library library = [] {
    Result<Library> lib = FromJson(kDefaultLibraryJson);
    if (!lib.ok()) std::abort();  // the embedded file is checked by a unit test
    return std::move(lib).value();
  }();
  return library;
}

const Component* Library::Find(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &components_[it->second];
}

}  // namespace affordance::surface

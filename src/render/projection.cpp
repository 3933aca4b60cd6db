#include "render/projection.h"

#include <fmt/format.h>

#include <cmath>
#include <unordered_map>
#include <unordered_set>

namespace affordance::render {
namespace {

bool IsNameChar(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

// Replaces each maximal run of characters outside [A-Za-z0-9_-] with one "_". Works on bytes:
// every byte of a multi-byte UTF-8 character is outside the set, so a run of non-ASCII characters
// (and any invalid bytes) collapses to one "_" exactly as code points would.
std::string Clean(std::string_view label) {
  std::string out;
  out.reserve(label.size());
  bool in_run = false;
  for (unsigned char c : label) {
    if (IsNameChar(c)) {
      out.push_back(static_cast<char>(c));
      in_run = false;
    } else if (!in_run) {
      out.push_back('_');
      in_run = true;
    }
  }
  return out;
}

// `base` + `suffix`, the base cut so the whole fits kMaxToolNameLength (suffixes are short).
std::string WithSuffix(std::string base, const std::string& suffix) {
  if (base.size() + suffix.size() > kMaxToolNameLength) {
    base.resize(kMaxToolNameLength - suffix.size());
  }
  return base + suffix;
}

// `name` if it is free, else the first free one of WithSuffix(name, "_<position>"), then
// WithSuffix(name, "_<position>-2"), "_<position>-3", ... The candidates are pairwise distinct
// even where cutting makes their bases differ: each ends in a maximal digit run preceded by "_"
// (the first) or "-" (the others), and those runs differ. So at most taken.size() + 1 candidates
// are tried and naming ends for every input (re-cutting a 64-character name once looped forever).
std::string Unique(const std::string& name, size_t position,
                   const std::unordered_set<std::string>& taken) {
  if (taken.count(name) == 0) return name;
  const std::string stem = "_" + std::to_string(position);
  for (size_t k = 1; k <= taken.size() + 1; ++k) {
    std::string candidate = WithSuffix(name, k == 1 ? stem : stem + "-" + std::to_string(k));
    if (taken.count(candidate) == 0) return candidate;
  }
  return name;  // unreachable: taken.size() + 1 distinct candidates cannot all be taken
}

nlohmann::ordered_json EmptyObjectSchema() {
  return {{"type", "object"}, {"properties", nlohmann::ordered_json::object()}};
}

nlohmann::ordered_json BuildSignatureSchema(const view::HandlerSignature& signature) {
  switch (signature.kind) {
    case view::HandlerSignature::Kind::kNoParams:
      return EmptyObjectSchema();
    case view::HandlerSignature::Kind::kDestructured: {
      nlohmann::ordered_json schema = EmptyObjectSchema();
      nlohmann::ordered_json required = nlohmann::ordered_json::array();
      for (const auto& field : signature.fields) {
        schema["properties"][field.name] = nlohmann::ordered_json::object();
        if (!field.optional) required.push_back(field.name);
      }
      if (!required.empty()) schema["required"] = std::move(required);
      return schema;
    }
    case view::HandlerSignature::Kind::kSingle:
    case view::HandlerSignature::Kind::kOther:
      return nlohmann::ordered_json{{"type", "object"}};
  }
  return EmptyObjectSchema();
}

// The schema of a signature, built once per thread: every layout that projects an action asks
// for it again (an act re-projects the app), and building JSON costs more than copying it.
// Bounded: emptied past 4,096 signatures.
const nlohmann::ordered_json& SignatureSchema(const view::HandlerSignature& signature) {
  thread_local std::unordered_map<std::string, nlohmann::ordered_json> schemas;
  std::string key(1, static_cast<char>('0' + static_cast<int>(signature.kind)));
  for (const auto& field : signature.fields) {
    key += std::to_string(field.name.size());
    key += field.optional ? '?' : ':';
    key += field.name;
  }
  if (auto it = schemas.find(key); it != schemas.end()) return it->second;
  if (schemas.size() >= 4096) schemas.clear();
  return schemas.emplace(std::move(key), BuildSignatureSchema(signature)).first->second;
}

}  // namespace

bool IsModelCallable(std::string_view event) {
  return !(event == "onTimeout" || event == "onInterval" || event == "onCallback");
}

std::string EventStem(std::string_view event) {
  std::string_view stem = event;
  if (stem.size() > 2 && stem.substr(0, 2) == "on") stem.remove_prefix(2);
  std::string out = Clean(stem);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string LabelDigest(std::string_view bytes) {
  uint32_t h = 0x811c9dc5u;
  for (unsigned char b : bytes) {
    h ^= b;
    h *= 0x01000193u;
  }
  return fmt::format("{:08x}", h);
}

std::string ToolName(std::string_view event, std::string_view label) {
  const std::string stem = EventStem(event);
  std::string clean = Clean(label);
  std::string tail = clean == label ? "" : "_" + LabelDigest(label);
  const auto room = [&] {
    const size_t fixed = stem.size() + 2 + tail.size();
    return fixed >= kMaxToolNameLength ? size_t{0} : kMaxToolNameLength - fixed;
  };
  if (clean.size() > room() && tail.empty()) tail = "_" + LabelDigest(label);
  if (clean.size() > room()) clean.resize(room());
  std::string name = stem + "__" + clean + tail;
  if (name.size() > kMaxToolNameLength) name.resize(kMaxToolNameLength);  // absurd event names
  return name;
}

std::optional<std::string> LabelOf(const nlohmann::ordered_json& props) {
  auto it = props.find("label");
  if (it == props.end()) return std::nullopt;
  std::string label;
  if (it->is_string()) {
    label = it->get<std::string>();
  } else if (it->is_number_integer()) {
    label = it->dump();
  } else if (it->is_number_float()) {
    const double d = it->get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 1e21) {
      label = fmt::format("{:.0f}", d);
    } else {
      label = it->dump();
    }
  } else {
    return std::nullopt;
  }
  if (label.empty()) return std::nullopt;
  return label;
}

Result<nlohmann::ordered_json> ParametersFor(const view::HandlerSignature& signature,
                                             const nlohmann::ordered_json* args_schema,
                                             const std::string& path) {
  if (args_schema != nullptr) {
    if (!args_schema->is_object()) {
      return MakeError("render.invalid_args_schema", "args_schema must be a JSON Schema object",
                       path);
    }
    return *args_schema;
  }
  return SignatureSchema(signature);
}

Status Project(const std::vector<VisibleAction>& actions, bool callable, Block& block) {
  // Base names first, to find exact duplicates.
  std::vector<std::string> names(actions.size());
  std::vector<bool> labeled(actions.size());
  std::unordered_map<std::string, int> count;
  for (size_t i = 0; i < actions.size(); ++i) {
    const auto label = LabelOf(actions[i].element->props);
    labeled[i] = label.has_value();
    names[i] =
        label ? ToolName(actions[i].handler->event, *label) : EventStem(actions[i].handler->event);
    if (labeled[i]) ++count[names[i]];
  }
  std::unordered_set<std::string> taken;
  for (const auto& tool : block.tools) taken.insert(tool.name);  // from nested asChatTools trees
  for (size_t i = 0; i < actions.size(); ++i) {
    std::string name = names[i];
    if (!labeled[i]) {
      name = WithSuffix(name, "__" + std::to_string(i));
    } else if (count[name] > 1) {
      name = WithSuffix(name, "_" + std::to_string(i));
    }
    name = Unique(name, i, taken);
    taken.insert(name);

    const view::Node& element = *actions[i].element;
    const view::Handler& handler = *actions[i].handler;
    auto schema_it = element.props.find("args_schema");
    auto parameters = ParametersFor(
        handler.signature, schema_it == element.props.end() ? nullptr : &*schema_it, element.path);
    if (!parameters.ok()) return parameters.error();

    Span& span = block.spans[actions[i].span_index];
    span.name = name;
    span.projected = true;
    span.handler = callable ? handler.id : 0;
    block.tools.push_back(Tool{name, std::move(parameters).value(), handler.event, element.path,
                               callable ? handler.id : 0, callable, DescriptionOf(element.props)});
  }
  return {};
}

std::string DescriptionOf(const nlohmann::ordered_json& props) {
  auto it = props.find("description");
  if (it == props.end() || !it->is_string()) return "";
  // One line of prose for a chat template: control characters (a newline too) become spaces,
  // runs of spaces one, the ends trimmed.
  std::string out;
  for (unsigned char c : it->get_ref<const std::string&>()) {
    const bool space = c < 0x20 || c == 0x7f || c == ' ';
    if (space) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += static_cast<char>(c);
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

nlohmann::ordered_json Tool::ToJson() const {
  nlohmann::ordered_json function = {{"name", name}};
  if (!description.empty()) function["description"] = description;
  function["parameters"] = parameters;
  return {{"type", "function"}, {"function", std::move(function)}};
}

}  // namespace affordance::render

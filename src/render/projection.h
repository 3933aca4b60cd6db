// Projection: visible actions -> tool names and JSON Schema parameters (asChatTools).
//
// Rules (docs/RUNTIME.md "Projection" is the user-facing statement of the same):
// - A handler is model-callable unless its event is onTimeout, onInterval or onCallback; those
//   are never projected and keep their harness name "<event>:<path>".
// - Name = event without "on", lower-cased, + "__" + label. Each run of characters outside
//   [A-Za-z0-9_-] in the label becomes one "_". A label that had to be changed, or was truncated
//   so the name fits 64 characters, gets "_" + 8 hex digits of FNV-1a-32 over the full UTF-8 label,
//   so `a b` and `a_b` stay distinct and a name does not depend on where its row is.
// - Exact duplicates (same event and label) and unlabeled targets are named by handler position:
//   "<name>_<position>" and "<event>__<position>", position = index of the action among the visible
//   projected actions in document order (these names change when render order changes). A name
//   that still collides gets "_<position>", then "_<position>-2", "_<position>-3", ... (the
//   name cut to fit 64 characters) until it is unique; naming ends for every input. Every name
//   matches ^[a-zA-Z0-9_-]{1,64}$ and names are unique within the block.
// - Parameters: an explicit args_schema prop (a JSON object) is copied; otherwise destructured
//   fields become {} schemas (fields with defaults are optional), a single event parameter (or any
//   other parameter list) declares an unconstrained object, no parameters declares an empty object.
//   Nothing is inferred from names.
// - Description: a string `description` prop on the element becomes the tool's "description"
//   (DescriptionOf); without one the tool has none (nothing is made up from the label).
#pragma once

#include "base/result.h"
#include "render/block.h"
#include "view/node.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace affordance::render {

inline constexpr size_t kMaxToolNameLength = 64;

// False for onTimeout, onInterval and onCallback (and anything that is not "on" + a name).
bool IsModelCallable(std::string_view event);

// "onChange" -> "change" (lower-cased, illegal characters replaced like a label's).
std::string EventStem(std::string_view event);

// The base name of a labeled action (no position), per the rules above.
std::string ToolName(std::string_view event, std::string_view label);

// FNV-1a 32-bit over `bytes`, as 8 lower-case hex digits (the lossy-name suffix).
std::string LabelDigest(std::string_view bytes);

// The label of an element for naming: its `label` prop as a string (numbers formatted like
// JavaScript's String()), or nullopt when it has none or it is empty.
std::optional<std::string> LabelOf(const nlohmann::ordered_json& props);

// The description of an element's tool: its `description` prop as one line (control characters
// as spaces, runs of spaces as one, trimmed), or "" when it has none or it is not a string.
std::string DescriptionOf(const nlohmann::ordered_json& props);

// The parameters schema of a handler. `args_schema` may be null (no prop). Errors:
// "render.invalid_args_schema" when the prop is not a JSON object.
Result<nlohmann::ordered_json> ParametersFor(const view::HandlerSignature& signature,
                                             const nlohmann::ordered_json* args_schema,
                                             const std::string& path);

// One visible, model-callable action found by layout.
struct VisibleAction {
  const view::Node* element = nullptr;
  const view::Handler* handler = nullptr;
  size_t span_index = 0;  // index of its action span in the block being built
};

// Names and schemas for `actions` (in document order); fills the action spans' names and appends
// the tools to `block`. `callable` = false keeps names and schemas but drops handler references.
Status Project(const std::vector<VisibleAction>& actions, bool callable, Block& block);

}  // namespace affordance::render

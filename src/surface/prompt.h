// System-prompt generation from a component library: lang-core's generatePrompt() /
// library.prompt(), driven by the library JSON Schema document instead of Zod schemas.
//
// Section order: preamble, syntax rules, component signatures (`Name(field: type, opt?: type)`,
// grouped by componentGroups), builtins, Query, Mutation, Action, interactive filters, data
// workflow, available tools, hoisting and streaming rules, examples, edit mode, inline mode,
// important rules, additional rules. The one addition to lang-core's text: a tool's MCP
// annotations are shown after its signature ("[read-only]", "[destructive]").
#pragma once

#include "surface/library.h"

#include <optional>
#include <string>
#include <vector>

namespace affordance::surface {

struct PromptOptions {
  // Tools for Query()/Mutation(): names, or MCP-shaped {name, description, inputSchema,
  // outputSchema, annotations: {readOnlyHint, destructiveHint}}.
  Json tools = Json::array();
  bool edit_mode = false;
  bool inline_mode = false;
  std::optional<bool> tool_calls;  // default: true when tools are given
  std::optional<bool> bindings;    // default: tool_calls
  std::optional<std::string> preamble;
  std::vector<std::string> examples;
  std::vector<std::string> tool_examples;
  std::vector<std::string> additional_rules;
};

// The signature of one component as shown to the model, e.g. `Card(children: any[], title?:
// string)`.
std::string ComponentSignature(const Component& component, const Json& definition);

std::string GeneratePrompt(const Library& library, const PromptOptions& options);

}  // namespace affordance::surface

// Port of lang-core 0.2.18 src/parser/prompt.ts (section assembly) and library.ts (signatures).
#include "surface/prompt.h"

#include "surface/internal/prompt_text.inc"

#include <algorithm>
#include <set>
#include <sstream>

namespace affordance::surface {
namespace {

std::string Join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

bool Contains(const Json& arr, const std::string& s) {
  if (!arr.is_array()) return false;
  return std::any_of(arr.begin(), arr.end(), [&](const Json& v) { return v == s; });
}

// jsonSchemaTypeStr() for tool schemas.
std::string ToolType(const Json& schema) {
  if (!schema.is_object()) return "any";
  const std::string type =
      schema.value("type", Json("")).is_string() ? schema.value("type", "") : "";
  if (type == "string") {
    if (schema.contains("enum") && schema["enum"].is_array()) {
      std::vector<std::string> vals;
      for (const auto& v : schema["enum"])
        vals.push_back("\"" + (v.is_string() ? v.get<std::string>() : v.dump()) + "\"");
      return Join(vals, " | ");
    }
    return "string";
  }
  if (type == "number" || type == "integer") return "number";
  if (type == "boolean") return "boolean";
  if (type == "array") return schema.contains("items") ? ToolType(schema["items"]) + "[]" : "any[]";
  if (type == "object") {
    if (schema.contains("properties") && schema["properties"].is_object() &&
        !schema["properties"].empty()) {
      std::vector<std::string> fields;
      const Json req = schema.value("required", Json::array());
      for (auto it = schema["properties"].begin(); it != schema["properties"].end(); ++it) {
        fields.push_back(it.key() + (Contains(req, it.key()) ? "" : "?") + ": " +
                         ToolType(it.value()));
      }
      return "{" + Join(fields, ", ") + "}";
    }
    return "object";
  }
  return "any";
}

Json DefaultFor(const Json& schema) {  // defaultForSchema()
  const std::string type =
      schema.is_object() && schema.contains("type") && schema["type"].is_string()
          ? schema["type"].get<std::string>()
          : "";
  if (type == "string") return "";
  if (type == "number" || type == "integer") return 0;
  if (type == "boolean") return false;
  if (type == "array") return Json::array();
  if (type == "object") {
    Json out = Json::object();
    if (schema.contains("properties") && schema["properties"].is_object()) {
      for (auto it = schema["properties"].begin(); it != schema["properties"].end(); ++it) {
        out[it.key()] = DefaultFor(it.value());
      }
    }
    return out;
  }
  return nullptr;
}

bool IsUnion(const Json& s) {
  return s.is_object() && ((s.contains("anyOf") && s["anyOf"].is_array()) ||
                           (s.contains("oneOf") && s["oneOf"].is_array()));
}

// resolveBaseType() over JSON Schema: $ref names, unions, arrays, scalars, enums, objects.
std::string PropType(const Json& s) {
  if (!s.is_object()) return "any";
  if (s.contains("$ref") && s["$ref"].is_string()) {
    const std::string r = s["$ref"];
    return r.substr(r.rfind('/') + 1);
  }
  if (IsUnion(s)) {
    const Json& members = s.contains("anyOf") ? s["anyOf"] : s["oneOf"];
    std::vector<std::string> names;
    for (const auto& m : members) {
      if (m.is_object() && m.value("type", Json()) == "null") continue;
      names.push_back(PropType(m));
    }
    if (!names.empty()) return Join(names, " | ");
  }
  if (s.contains("title") && s["title"].is_string() && !s.contains("type")) return s["title"];
  if (s.contains("enum") && s["enum"].is_array()) {
    std::vector<std::string> vals;
    for (const auto& v : s["enum"])
      vals.push_back(v.is_string() ? "\"" + v.get<std::string>() + "\"" : v.dump());
    return Join(vals, " | ");
  }
  if (s.contains("const")) {
    const Json& v = s["const"];
    return v.is_string() ? "\"" + v.get<std::string>() + "\"" : v.dump();
  }
  const Json type = s.value("type", Json());
  if (type == "string") return "string";
  if (type == "number" || type == "integer") return "number";
  if (type == "boolean") return "boolean";
  if (type == "array") {
    if (!s.contains("items")) return "any[]";
    const std::string inner = PropType(s["items"]);
    return IsUnion(s["items"]) && inner.find(" | ") != std::string::npos ? "(" + inner + ")[]"
                                                                         : inner + "[]";
  }
  if (type == "object") {
    if (s.contains("properties") && s["properties"].is_object() && !s["properties"].empty()) {
      std::vector<std::string> fields;
      const Json req = s.value("required", Json::array());
      for (auto it = s["properties"].begin(); it != s["properties"].end(); ++it) {
        fields.push_back(it.key() + (Contains(req, it.key()) ? "" : "?") + ": " +
                         PropType(it.value()));
      }
      return "{" + Join(fields, ", ") + "}";
    }
    if (s.contains("additionalProperties") && s["additionalProperties"].is_object()) {
      return "Record<string, " + PropType(s["additionalProperties"]) + ">";
    }
    return "{}";
  }
  return "any";
}

std::string SyntaxRules(const std::string& root, bool expressions, bool bindings) {
  std::vector<std::string> lines = {
      "## Syntax Rules",
      "",
      "1. Each statement is on its own line: `identifier = Expression`",
      "2. `root` is the entry point — every program must define `root = " + root + "(...)`",
      // NOLINTNEXTLINE(bugprone-suspicious-missing-comma): rules 3, 5, 6 are split long lines
      "3. Expressions are: strings (\"...\"), numbers, booleans (true/false), null, arrays "
      "([...]), objects ({...}), or component calls TypeName(arg1, arg2, ...)",
      "4. Use references for readability: define `name = ...` on one line, then use `name` later",
      "5. EVERY variable (except root) MUST be referenced by at least one other variable. "
      "Unreferenced variables are silently dropped and will NOT render. Always include defined "
      "variables in their parent's children/items array.",
      "6. Arguments are POSITIONAL (order matters, not names). Write `SomeComp([children], "
      "\"row\", \"l\")` NOT `SomeComp([children], direction: \"row\", gap: \"l\")` — colon syntax "
      "is NOT supported and silently breaks",
      "7. Optional arguments can be omitted from the end",
  };
  int n = 8;
  if (bindings) {
    lines.push_back(
        std::to_string(n++) +
        ". Declare mutable state with `$varName = defaultValue`. Components marked with `$binding` "
        "can read/write these. Undeclared $variables are auto-created with null default.");
  }
  if (expressions) {
    for (const char* rule : {"String concatenation: `\"text\" + $var + \"more\"`",
                             "Dot member access: `query.field` reads a field; on arrays it "
                             "extracts that field from every element",
                             "Index access: `arr[0]`, `data[index]`",
                             "Arithmetic operators: +, -, *, /, % (work on numbers; + is string "
                             "concat when either side is a string)",
                             "Comparison: ==, !=, >, <, >=, <=", "Logical: &&, ||, ! (prefix)",
                             "Ternary: `condition ? valueIfTrue : valueIfFalse`",
                             "Parentheses for grouping: `(a + b) * c`"}) {
      lines.push_back(std::to_string(n++) + ". " + rule);
    }
  }
  lines.push_back("- Strings use double quotes with backslash escaping");
  return Join(lines, "\n");
}

std::string BuiltinsSection() {
  static const char* kLines[][2] = {
      {"Count(array) → number", "Returns array length"},
      {"First(array) → element", "Returns first element of array"},
      {"Last(array) → element", "Returns last element of array"},
      {"Sum(numbers[]) → number", "Sum of numeric array"},
      {"Avg(numbers[]) → number", "Average of numeric array"},
      {"Min(numbers[]) → number", "Minimum value in array"},
      {"Max(numbers[]) → number", "Maximum value in array"},
      {"Sort(array, field, direction?) → sorted array",
       "Sort array by field. Direction: \"asc\" (default) or \"desc\""},
      {"Filter(array, field, operator: \"==\" | \"!=\" | \">\" | \"<\" | \">=\" | \"<=\" | "
       "\"contains\", value) → filtered array",
       "Filter array by field value"},
      {"Round(number, decimals?) → number", "Round to N decimal places (default 0)"},
      {"Abs(number) → number", "Absolute value"},
      {"Floor(number) → number", "Round down to nearest integer"},
      {"Ceil(number) → number", "Round up to nearest integer"},
      {"Each(array, varName, template)",
       "Evaluate template for each element. varName is the loop variable — use it ONLY inside the "
       "template expression (inline). Do NOT create a separate statement for the template."},
  };
  std::vector<std::string> lines;
  for (const auto& l : kLines) lines.push_back(std::string("@") + l[0] + " — " + l[1]);
  return std::string(internal::kBuiltinsHead) + Join(lines, "\n") +
         std::string(internal::kBuiltinsTail);
}

std::string ActionSection(bool tool_calls, bool bindings) {
  std::vector<std::string> steps = {
      "- @ToAssistant(\"message\") — Send a message to the assistant (for conversational buttons "
      "like \"Tell me more\", \"Explain this\")",
      "- @OpenUrl(\"https://...\") — Navigate to a URL"};
  if (bindings) {
    steps.push_back("- @Set($variable, value) — Set a $variable to a specific value");
    steps.push_back(
        "- @Reset($var1, $var2, ...) — Reset $variables to their declared defaults (e.g. "
        "@Reset($title, $priority) restores $title=\"\" and $priority=\"medium\")");
  }
  if (tool_calls) {
    steps.insert(steps.begin(),
                 "- @Run(queryOrMutationRef) — Execute a Mutation or re-fetch a Query (ref must be "
                 "a declared Query/Mutation)");
  }
  std::vector<std::string> examples;
  if (tool_calls) {
    examples.push_back(
        "Example — mutation + refresh + reset (PREFERRED pattern):\n```\n$binding = "
        "\"default\"\nresult = Mutation(\"tool_name\", {field: $binding})\ndata = "
        "Query(\"tool_name\", {}, {rows: []})\nonSubmit = Action([@Run(result), @Run(data), "
        "@Reset($binding)])\n```");
  }
  examples.push_back(
      "Example — simple nav:\n```\nviewBtn = Button(\"View\", "
      "Action([@OpenUrl(\"https://example.com\")]))\n```");
  std::vector<std::string> rules = {
      "- Action can be assigned to a variable or inlined: Button(\"Go\", onSubmit) and "
      "Button(\"Go\", Action([...])) both work"};
  if (tool_calls) {
    rules.push_back(
        "- If a @Run(mutation) step fails, remaining steps are skipped (halt on failure)");
    rules.push_back("- @Run(queryRef) re-fetches the query (fire-and-forget, cannot fail)");
  }
  return "## Action — Button Behavior\n\nAction([@steps...]) wires button clicks to operations. "
         "Steps are @-prefixed built-in actions. Steps execute in order.\nButtons without an "
         "explicit Action prop automatically send their label to the assistant (equivalent to "
         "Action([@ToAssistant(label)])).\n\nAvailable steps:\n" +
         Join(steps, "\n") + "\n\n" + Join(examples, "\n\n") + "\n\n" + Join(rules, "\n");
}

std::string StreamingRules(const std::string& root, bool expressions) {
  std::vector<std::string> steps = {"1. `root = " + root + "(...)` — UI shell appears immediately"};
  if (expressions) {
    steps.push_back("2. $variable declarations — state ready for bindings");
    steps.push_back(
        "3. Query statements — defaults resolve immediately so components render with data");
    steps.push_back("4. Component definitions — fill in with data already available");
    steps.push_back("5. Data values — leaf content last");
  } else {
    steps.push_back("2. Component definitions — fill in as they stream");
    steps.push_back("3. Data values — leaf content last");
  }
  return "## Hoisting & Streaming (CRITICAL)\n\nopenui-lang supports hoisting: a reference can be "
         "used BEFORE it is defined. The parser resolves all references after the full input is "
         "parsed.\n\nDuring streaming, the output is re-parsed on every chunk. Undefined "
         "references are temporarily unresolved and appear once their definitions stream in. This "
         "creates a progressive top-down reveal — structure first, then data fills "
         "in.\n\n**Recommended statement order for optimal streaming:**\n" +
         Join(steps, "\n") + "\n\nAlways write the root = " + root +
         "(...) statement first so the UI shell appears immediately, even before child data has "
         "streamed in.";
}

std::string ImportantRules(const std::string& root, bool tool_calls, bool bindings) {
  std::vector<std::string> verify = {
      "1. root = " + root + "(...) is the FIRST line (for optimal streaming).",
      "2. Every referenced name is defined. Every defined name (other than root) is reachable from "
      "root."};
  if (tool_calls)
    verify.push_back("3. Every Query result is referenced by at least one component.");
  if (bindings)
    verify.push_back(std::string(tool_calls ? "4" : "3") +
                     ". Every $binding appears in at least one component or expression.");
  if (tool_calls && bindings)
    verify.push_back("5. Every visible filter $binding appears in at least one Query args object.");
  return "## Important Rules\n- Choose components that best represent the content (tables for "
         "comparisons, charts for trends, forms for input, etc.)\n\n## Final Verification\nBefore "
         "finishing, walk your output and verify:\n" +
         Join(verify, "\n");
}

std::string ToolsSection(const Json& tools) {
  std::vector<std::string> lines = {
      "## Available Tools", "",
      "Use these with Query() for read operations or Mutation() for write operations. The LLM "
      "decides which is appropriate based on the tool's purpose.",
      ""};
  std::vector<const Json*> specs;
  for (const auto& t : tools) {
    if (t.is_string())
      lines.push_back("- " + t.get<std::string>());
    else if (t.is_object())
      specs.push_back(&t);
  }
  for (const Json* t : specs) {
    std::string args;
    if (t->contains("inputSchema") && (*t)["inputSchema"].is_object()) {
      const Json& in = (*t)["inputSchema"];
      if (in.contains("properties") && in["properties"].is_object()) {
        std::vector<std::string> fields;
        const Json req = in.value("required", Json::array());
        for (auto it = in["properties"].begin(); it != in["properties"].end(); ++it) {
          fields.push_back(it.key() + (Contains(req, it.key()) ? "" : "?") + ": " +
                           ToolType(it.value()));
        }
        args = Join(fields, ", ");
      }
    }
    std::string line = "- " + t->value("name", std::string()) + "(" + args + ")";
    if (t->contains("outputSchema") && !(*t)["outputSchema"].is_null())
      line += " → " + ToolType((*t)["outputSchema"]);
    if (t->contains("annotations") && (*t)["annotations"].is_object()) {
      const Json& a = (*t)["annotations"];
      if (a.value("readOnlyHint", false)) line += " [read-only]";
      if (a.value("destructiveHint", false)) line += " [destructive]";
    }
    if (t->contains("description") && (*t)["description"].is_string() &&
        !(*t)["description"].get<std::string>().empty()) {
      line += "\n  " + (*t)["description"].get<std::string>();
    }
    lines.push_back(line);
  }
  bool any_output = false;
  for (const Json* t : specs)
    any_output = any_output || (t->contains("outputSchema") && !(*t)["outputSchema"].is_null());
  if (any_output) {
    lines.insert(lines.end(), {"", "### Default values for Query results", "",
                               "Use these shapes as minimal Query defaults:"});
    for (const Json* t : specs) {
      if (!t->contains("outputSchema") || (*t)["outputSchema"].is_null()) continue;
      lines.push_back("- " + t->value("name", std::string()) + ": `" +
                      DefaultFor((*t)["outputSchema"]).dump() + "`");
    }
  }
  lines.push_back("");
  lines.push_back(
      "CRITICAL: Use ONLY the tools listed above in Query() and Mutation() calls. Do NOT invent or "
      "guess tool names. If the user asks for functionality that doesn't match any available tool, "
      "use realistic mock data instead of fabricating a tool call.");
  return Join(lines, "\n");
}

std::string Signatures(const Library& library, bool tool_calls, bool bindings, bool uses_action) {
  std::vector<std::string> lines = {
      "## Component Signatures", "",
      "Arguments marked with ? are optional. Sub-components can be inline or referenced; prefer "
      "references for better streaming."};
  std::vector<std::pair<std::string, std::string>> sigs;  // name -> formatted
  bool binding_sig = false;
  for (const Component& c : library.components()) {
    std::string sig = ComponentSignature(c, library.document()["$defs"][c.name]);
    binding_sig = binding_sig || sig.find("$binding") != std::string::npos;
    sigs.push_back({c.name, c.description.empty() ? sig : sig + " — " + c.description});
  }
  if (uses_action) {
    std::vector<std::string> steps;
    if (tool_calls) steps.push_back("@Run");
    steps.push_back("@ToAssistant");
    steps.push_back("@OpenUrl");
    if (bindings) {
      steps.push_back("@Set");
      steps.push_back("@Reset");
    }
    lines.push_back(
        "Props typed `ActionExpression` accept an Action([@steps...]) expression. See the Action "
        "section for available steps (" +
        Join(steps, ", ") + ").");
  }
  if (bindings || binding_sig)
    lines.push_back(
        "Props marked `$binding<type>` accept a `$variable` reference for two-way binding.");
  auto find = [&](const std::string& name) -> const std::string* {
    for (const auto& [n, s] : sigs)
      if (n == name) return &s;
    return nullptr;
  };
  if (!library.groups().empty()) {
    std::set<std::string> grouped;
    for (const ComponentGroup& g : library.groups()) {
      lines.push_back("");
      lines.push_back("### " + g.name);
      for (const std::string& name : g.components) {
        if (grouped.count(name)) continue;
        const std::string* s = find(name);
        if (!s) continue;
        grouped.insert(name);
        lines.push_back(*s);
      }
      for (const std::string& note : g.notes) lines.push_back(note);
    }
    std::vector<std::string> other;
    for (const auto& [n, s] : sigs)
      if (!grouped.count(n)) other.push_back(s);
    if (!other.empty()) {
      lines.push_back("");
      lines.push_back("### Other");
      lines.insert(lines.end(), other.begin(), other.end());
    }
  } else {
    lines.push_back("");
    for (const auto& [n, s] : sigs) lines.push_back(s);
  }
  return Join(lines, "\n");
}

}  // namespace

std::string ComponentSignature(const Component& component, const Json& definition) {
  std::vector<std::string> params;
  const Json props =
      definition.is_object() ? definition.value("properties", Json::object()) : Json::object();
  for (const Param& p : component.params) {
    const Json& schema = props.contains(p.name) ? props[p.name] : p.schema;
    params.push_back(p.name + (p.required ? ": " : "?: ") + PropType(schema));
  }
  return component.name + "(" + Join(params, ", ") + ")";
}

std::string GeneratePrompt(const Library& library, const PromptOptions& o) {
  const std::string root = library.root().empty() ? "Root" : library.root();
  const bool has_tools = o.tools.is_array() && !o.tools.empty();
  const bool tool_calls = o.tool_calls.value_or(has_tools);
  const bool bindings = o.bindings.value_or(tool_calls);
  const bool expressions = tool_calls || bindings;
  bool uses_action = false;
  for (const Component& c : library.components()) {
    uses_action =
        uses_action ||
        ComponentSignature(c, library.document()["$defs"][c.name]).find("ActionExpression") !=
            std::string::npos;
  }
  std::vector<std::string> parts;
  parts.push_back(o.preamble ? *o.preamble : std::string(internal::kPreamble));
  parts.push_back("");
  parts.push_back(SyntaxRules(root, expressions, bindings));
  parts.push_back("");
  parts.push_back(Signatures(library, tool_calls, bindings, uses_action));
  if (expressions) {
    parts.push_back("");
    parts.push_back(BuiltinsSection());
  }
  if (tool_calls) {
    parts.push_back("");
    parts.push_back(std::string(internal::kQuerySection));
    parts.push_back("");
    parts.push_back(std::string(internal::kMutationSection));
  }
  if (uses_action) {
    parts.push_back("");
    parts.push_back(ActionSection(tool_calls, bindings));
  }
  if (tool_calls && bindings) {
    parts.push_back("");
    parts.push_back(std::string(internal::kInteractiveFilters));
  }
  if (tool_calls) {
    parts.push_back("");
    parts.push_back(std::string(internal::kToolWorkflow));
  }
  if (has_tools) {
    parts.push_back("");
    parts.push_back(ToolsSection(o.tools));
  }
  parts.push_back("");
  parts.push_back(StreamingRules(root, expressions));
  std::vector<std::string> examples = o.examples;
  examples.insert(examples.end(), o.tool_examples.begin(), o.tool_examples.end());
  if (!examples.empty()) {
    parts.push_back("");
    parts.push_back("## Examples");
    parts.push_back("");
    for (const auto& ex : examples) {
      parts.push_back(ex);
      parts.push_back("");
    }
  }
  if (o.edit_mode) {
    parts.push_back("");
    parts.push_back(std::string(internal::kEditMode));
  }
  if (o.inline_mode) {
    parts.push_back("");
    parts.push_back(std::string(internal::kInlineMode));
  }
  parts.push_back(ImportantRules(root, tool_calls, bindings));
  if (!o.additional_rules.empty()) {
    parts.push_back("");
    for (const auto& r : o.additional_rules) parts.push_back("- " + r);
  }
  return Join(parts, "\n");
}

}  // namespace affordance::surface

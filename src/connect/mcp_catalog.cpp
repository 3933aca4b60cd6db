// An MCP server's tools as operations (risk from annotations, schemas split into the validated
// subset and documentation) and its answers as rows.
#include "connect/internal/mcp_catalog.h"
#include "connect/internal/mcp_rpc.h"

#include "connect/result.h"
#include "connect/schema.h"
#include "connect/sql_guard.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

namespace affordance::connect {

using nlohmann::json;

namespace {

constexpr size_t kMaxTools = 1000;

int Strictness(Risk r) { return r == Risk::kRead ? 0 : r == Risk::kWrite ? 1 : 2; }

std::string Hash8(const std::string& s) {
  uint32_t h = 2166136261u;
  for (unsigned char c : s) h = (h ^ c) * 16777619u;
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", h);
  return buf;
}

// A legal, unique operation name for a tool name: [a-z][a-z0-9_]*, 64 bytes at most; a name that
// had to change keeps a suffix derived from the whole original, so "a-b" and "a_b" stay apart.
std::string OperationName(const std::string& tool, const std::set<std::string>& taken) {
  std::string name;
  for (char c : tool) {
    char l = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    name.push_back((l >= 'a' && l <= 'z') || (l >= '0' && l <= '9') || l == '_' ? l : '_');
  }
  if (name.empty() || !(name[0] >= 'a' && name[0] <= 'z')) name = "t_" + name;
  if (name != tool || name.size() > 64 || taken.count(name)) {
    if (name.size() > 55) name.resize(55);
    name += "_" + Hash8(tool);
  }
  return name;
}

bool IsTrue(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_boolean() && it->get<bool>();
}

Operation ToolOperation(const ConnectorManifest& m, const json& tool, const std::string& name) {
  Operation op;
  op.name = name;
  op.mcp_tool = tool["name"].get<std::string>();
  op.mcp_method = "tools/call";
  std::string title =
      tool.value("title", json()).is_string() ? tool["title"].get<std::string>() : "";
  std::string description =
      tool.value("description", json()).is_string() ? tool["description"].get<std::string>() : "";
  op.description = BoundedText(title.empty() ? description : title + ": " + description, 2000);
  json annotations = tool.value("annotations", json::object());
  if (!annotations.is_object()) annotations = json::object();
  if (IsTrue(annotations, "destructiveHint")) {
    op.risk = Risk::kDestructive;
    op.risk_source = "annotations";
  } else if (IsTrue(annotations, "readOnlyHint")) {
    op.risk = Risk::kRead;
    op.risk_source = "annotations";
  } else {
    op.risk = Risk::kWrite;
    op.risk_source = annotations.contains("readOnlyHint") ? "annotations" : "default";
  }
  op.documented_schema = tool.value("inputSchema", json::object());
  json subset = SchemaSubset(op.documented_schema, "", op.unvalidated);
  if (!subset.is_object() || subset.value("type", json()) != "object") {
    // Arguments of a tool are an object: a schema that says otherwise is not trusted to check.
    if (!op.documented_schema.is_object() ||
        op.documented_schema.value("type", json()) != "object") {
      op.unvalidated.push_back("/type");
    }
    subset = json{{"type", "object"}};
  }
  op.args_schema = std::move(subset);
  if (tool.contains("outputSchema") && tool["outputSchema"].is_object()) {
    op.output_schema = tool["outputSchema"];
  }
  op.handle = m.slug + "_" + op.name;
  return op;
}

Status ApplyOverride(Operation& op, const McpToolOverride& o, std::vector<std::string>& notes) {
  if (o.risk) {
    if (Strictness(*o.risk) > Strictness(op.risk)) {
      op.risk = *o.risk;
      op.risk_source = "manifest";
    } else if (Strictness(*o.risk) < Strictness(op.risk)) {
      notes.push_back("the manifest gives " + op.name + " risk \"" + ToString(*o.risk) +
                      "\", less strict than the server's \"" + ToString(op.risk) +
                      "\"; the stricter one applies");
    }
  }
  if (!o.description.empty()) op.description = o.description;
  if (!o.extras.served_fields.empty()) op.served_fields = o.extras.served_fields;
  if (!o.extras.handle.empty()) op.handle = o.extras.handle;
  op.verify_operation = o.extras.verify_operation;
  op.verify_args = o.extras.verify_args;
  op.verify_expect = o.extras.verify_expect;
  op.verify_absent = o.extras.verify_absent;
  op.summary = o.extras.summary;
  op.before_operation = o.extras.before_operation;
  op.before_args = o.extras.before_args;
  return {};
}

// The row shape of a value: objects as they are, anything else {"value": x}.
json AsRow(const json& v) { return v.is_object() ? v : json{{"value", v}}; }

// Cuts string fields longer than kMcpFieldChars (one level deep: the row's own fields).
bool Clip(json& row) {
  bool clipped = false;
  json cut = json::array();
  for (auto& [k, v] : row.items()) {
    if (!v.is_string()) continue;
    const std::string& s = v.get_ref<const std::string&>();
    if (CodePointCount(s) <= kMcpFieldChars) continue;
    v = BoundedText(s, kMcpFieldChars);
    cut.push_back(k);
    clipped = true;
  }
  if (clipped) row["clipped_fields"] = cut;
  return clipped;
}

int64_t Base64Bytes(const json& data) {
  if (!data.is_string()) return 0;
  size_t n = data.get_ref<const std::string&>().size();
  return static_cast<int64_t>(n / 4 * 3);
}

// One content block as a row. Binary data is never inlined: it is described.
json ContentRow(const json& block) {
  if (!block.is_object()) return json{{"type", "unknown"}, {"description", "not an object"}};
  std::string type =
      block.value("type", json()).is_string() ? block["type"].get<std::string>() : "";
  auto str = [&](const json& obj, const char* key) {
    return obj.value(key, json()).is_string() ? obj[key].get<std::string>() : std::string();
  };
  if (type == "text") return json{{"text", str(block, "text")}};
  if (type == "image" || type == "audio") {
    int64_t bytes = Base64Bytes(block.value("data", json()));
    std::string mime = BoundedText(str(block, "mimeType"), 100);
    return json{{"type", type},
                {"mimeType", mime},
                {"bytes", bytes},
                {"description", type + " (" + (mime.empty() ? "unknown type" : mime) + ", " +
                                    std::to_string(bytes) + " bytes), not inlined"}};
  }
  if (type == "resource_link") {
    return json{{"type", type},
                {"uri", BoundedText(str(block, "uri"), 2000)},
                {"name", BoundedText(str(block, "name"), 200)},
                {"mimeType", BoundedText(str(block, "mimeType"), 100)}};
  }
  if (type == "resource" && block.value("resource", json()).is_object()) {
    const json& r = block["resource"];
    json row = {{"type", type},
                {"uri", BoundedText(str(r, "uri"), 2000)},
                {"mimeType", BoundedText(str(r, "mimeType"), 100)}};
    if (r.contains("text")) {
      row["text"] = str(r, "text");
    } else {
      int64_t bytes = Base64Bytes(r.value("blob", json()));
      row["bytes"] = bytes;
      row["description"] = "binary resource (" + std::to_string(bytes) + " bytes), not inlined";
    }
    return row;
  }
  return json{{"type", BoundedText(type, 50)},
              {"description", "content of type \"" + BoundedText(type, 50) + "\", not shown"}};
}

std::vector<std::string> SchemaFields(const json& schema) {
  std::vector<std::string> out;
  if (!schema.is_object()) return out;
  const json& props = schema.value("properties", json::object());
  if (props.is_object()) {
    for (const auto& [k, v] : props.items()) out.push_back(k);
  }
  return out;
}

}  // namespace

Result<std::vector<Operation>> McpOperations(const ConnectorManifest& m, const json& tools,
                                             bool resources, std::vector<std::string>& notes) {
  std::vector<Operation> ops;
  std::set<std::string> names, seen_tools;
  std::map<std::string, const McpToolOverride*> overrides;
  for (const auto& o : m.mcp_overrides) overrides[o.tool] = &o;
  if (!tools.is_array()) {
    return MakeError("connect.mcp_protocol", "the MCP server's tools/list has no tools array");
  }
  for (const auto& tool : tools) {
    if (!tool.is_object() || !tool.value("name", json()).is_string() ||
        tool["name"].get_ref<const std::string&>().empty()) {
      notes.push_back("a tool without a name was skipped");
      continue;
    }
    const std::string& tool_name = tool["name"].get_ref<const std::string&>();
    if (!seen_tools.insert(tool_name).second) {
      notes.push_back("the server lists tool \"" + BoundedText(tool_name, 100) +
                      "\" twice; only the first is used");
      continue;
    }
    if (ops.size() >= kMaxTools) {
      notes.push_back("the server lists more than " + std::to_string(kMaxTools) +
                      " tools; the rest were skipped");
      break;
    }
    auto o = overrides.find(tool_name);
    std::string name = o != overrides.end() && !o->second->name.empty()
                           ? o->second->name
                           : OperationName(tool_name, names);
    if (names.count(name)) name = OperationName(tool_name + "#", names);
    Operation op = ToolOperation(m, tool, name);
    if (o != overrides.end()) (void)ApplyOverride(op, *o->second, notes);
    op.kind = op.risk == Risk::kRead ? OperationKind::kList : OperationKind::kMutation;
    names.insert(op.name);
    ops.push_back(std::move(op));
  }
  for (const auto& o : m.mcp_overrides) {
    if (!seen_tools.count(o.tool)) {
      notes.push_back("the manifest refines tool \"" + o.tool +
                      "\", which the server does not list");
    }
  }
  if (resources) {
    auto add = [&](const std::string& base, const std::string& method, OperationKind kind,
                   json schema, const std::string& description) {
      Operation op;
      op.name = names.count(base) ? OperationName(base + "#", names) : base;
      op.kind = kind;
      op.mcp_method = method;
      op.description = description;
      op.args_schema = schema;
      op.documented_schema = schema;
      op.risk = Risk::kRead;
      op.risk_source = "protocol";
      op.handle = m.slug + "_" + op.name;
      names.insert(op.name);
      ops.push_back(std::move(op));
    };
    add("list_resources", "resources/list", OperationKind::kList,
        json{{"type", "object"}, {"additionalProperties", false}, {"properties", json::object()}},
        "The MCP server's resources (uri, name, mimeType, description).");
    add("read_resource", "resources/read", OperationKind::kDetail,
        json{{"type", "object"},
             {"additionalProperties", false},
             {"required", {"uri"}},
             {"properties", {{"uri", {{"type", "string"}, {"minLength", 1}}}}}},
        "Read one of the MCP server's resources by its uri.");
  }
  // A verify or before read must be a readable operation of the catalog now read.
  for (const auto& op : ops) {
    for (const std::string* ref : {&op.verify_operation, &op.before_operation}) {
      if (ref->empty()) continue;
      auto it =
          std::find_if(ops.begin(), ops.end(), [&](const Operation& o) { return o.name == *ref; });
      if (it == ops.end() || !it->readable()) {
        return MakeError(ErrorKind::kInvalid, "connect.manifest_invalid",
                         "the manifest's " + op.name + " reads \"" + *ref +
                             "\", which is not a read operation of the server",
                         m.file);
      }
    }
  }
  return ops;
}

Result<McpRows> McpRowsOf(const Operation& op, const json& result) {
  McpRows out;
  if (op.mcp_method == "resources/list") {
    const json& list = result.value("resources", json::array());
    if (!list.is_array()) return MakeError("connect.mcp_protocol", "resources/list has no array");
    for (const auto& r : list) {
      if (!r.is_object()) continue;
      json row = json::object();
      for (const char* k : {"uri", "name", "title", "mimeType", "description"}) {
        if (r.value(k, json()).is_string()) row[k] = BoundedText(r[k].get<std::string>(), 2000);
      }
      if (r.value("size", json()).is_number_integer()) row["size"] = r["size"];
      out.rows.push_back(std::move(row));
    }
    out.served_fields = {"uri", "name", "title", "mimeType", "description", "size"};
    return out;
  }
  if (op.mcp_method == "resources/read") {
    const json& contents = result.value("contents", json::array());
    if (!contents.is_array())
      return MakeError("connect.mcp_protocol", "resources/read has no contents");
    for (const auto& c : contents) {
      json row = ContentRow(json{{"type", "resource"}, {"resource", c}});
      row.erase("type");
      out.clipped = Clip(row) || out.clipped;
      out.rows.push_back(std::move(row));
    }
    out.served_fields = {"uri", "mimeType", "text", "bytes", "description"};
    return out;
  }
  const json& content = result.value("content", json::array());
  if (IsTrue(result, "isError")) {
    std::string text;
    if (content.is_array()) {
      for (const auto& b : content) {
        if (b.is_object() && b.value("type", json()) == "text" &&
            b.value("text", json()).is_string()) {
          text += (text.empty() ? "" : " ") + b["text"].get<std::string>();
        }
      }
    }
    return MakeError(ErrorKind::kInvalid, "connect.mcp_tool_error",
                     "the MCP tool " + BoundedText(op.mcp_tool, 100) + " reported an error" +
                         (text.empty() ? "" : ": " + BoundedText(text, 2000)));
  }
  if (result.contains("structuredContent") && !result["structuredContent"].is_null()) {
    const json& sc = result["structuredContent"];
    const json* schema = &op.output_schema;
    if (op.output_schema.is_object()) {
      std::vector<std::string> unchecked;
      json subset = SchemaSubset(op.output_schema, "", unchecked);
      if (Status s = ValidateArgs(subset, sc); !s) {
        return MakeError(
            ErrorKind::kInvalid, "connect.mcp_bad_output",
            "the MCP tool " + BoundedText(op.mcp_tool, 100) +
                "'s structuredContent does not match its outputSchema: " + s.error().message);
      }
    }
    const json* rows = nullptr;
    json item_schema;
    if (sc.is_array()) {
      rows = &sc;
      if (schema->is_object()) item_schema = schema->value("items", json());
    } else if (sc.is_object() && sc.size() == 1 && sc.begin()->is_array()) {
      rows = &*sc.begin();
      if (schema->is_object()) {
        item_schema = schema->value("properties", json::object())
                          .value(sc.begin().key(), json::object())
                          .value("items", json());
      }
    }
    if (rows != nullptr) {
      for (const auto& v : *rows) out.rows.push_back(AsRow(v));
      out.served_fields = SchemaFields(item_schema);
    } else {
      out.rows.push_back(AsRow(sc));
      out.served_fields = SchemaFields(*schema);
    }
  } else {
    if (!content.is_array())
      return MakeError("connect.mcp_protocol", "the tool result has no content array");
    for (const auto& block : content) out.rows.push_back(ContentRow(block));
  }
  if (out.served_fields.empty()) {
    std::set<std::string> keys;
    for (const auto& row : out.rows) {
      for (const auto& [k, v] : row.items()) keys.insert(k);
    }
    out.served_fields.assign(keys.begin(), keys.end());
  }
  for (auto& row : out.rows) out.clipped = Clip(row) || out.clipped;
  return out;
}

json McpResponseOf(const json& result) {
  if (result.contains("structuredContent") && result["structuredContent"].is_object()) {
    return result["structuredContent"];
  }
  std::string text;
  const json& content = result.value("content", json::array());
  if (content.is_array()) {
    for (const auto& b : content) {
      if (b.is_object() && b.value("type", json()) == "text" &&
          b.value("text", json()).is_string()) {
        text += (text.empty() ? "" : "\n") + b["text"].get<std::string>();
      }
    }
  }
  return json{{"text", BoundedText(text, 4000)}};
}

}  // namespace affordance::connect

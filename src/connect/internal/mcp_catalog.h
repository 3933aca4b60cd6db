// Private to src/connect: an MCP server's catalog as connector operations, and its answers as
// rows (docs/CONNECTORS.md "MCP servers").
#pragma once

#include "base/result.h"
#include "connect/manifest.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace affordance::connect {

// Longest string kept in one row field; a longer one is cut (the row says which fields were).
inline constexpr size_t kMcpFieldChars = 16000;

// The operations of `m` from the server's tools (tools/list `tools`, all pages) and, when it
// serves resources, list_resources / read_resource. Risk: readOnlyHint true (the JSON boolean) is
// a read, destructiveHint true destructive, anything else a write; the manifest's overrides may
// only make an operation stricter. `notes` collects what a person should know (tools skipped,
// overrides naming no tool, a manifest that asked for less than the server's risk).
Result<std::vector<Operation>> McpOperations(const ConnectorManifest& m,
                                             const nlohmann::json& tools, bool resources,
                                             std::vector<std::string>& notes);

struct McpRows {
  std::vector<nlohmann::json> rows;
  std::vector<std::string> served_fields;  // from the output schema, else the rows' own keys
  bool clipped = false;                    // a field longer than kMcpFieldChars was cut
};

// A tools/call result as rows: structuredContent (checked against the tool's outputSchema) is
// rows (an array, or an object whose only field is an array) or one row (an object); otherwise
// each content block is a row: text {text}, images and audio described (type, mimeType, bytes),
// resource links and embedded resources by their uri. isError is connect.mcp_tool_error with the
// server's text (bounded). resources/list and resources/read answers map the same way.
Result<McpRows> McpRowsOf(const Operation& op, const nlohmann::json& result);

// The response a receipt keeps for a write: structuredContent when present, else {"text": ...}.
nlohmann::json McpResponseOf(const nlohmann::json& result);

}  // namespace affordance::connect

// Test support for MCP connectors: manifests for the reference servers from npm
// (@modelcontextprotocol/server-filesystem and server-memory, installed by scripts/setup into
// tools/node_modules) and for the hostile fixture server (tests/fixtures/connect/hostile_mcp.mjs),
// each run by the tests as a real child process over stdio.
#pragma once

#include "connect/manifest.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace affordance::connect::testing {

inline std::string ModulePath(const std::string& rel) {
  return std::string(AFFORDANCE_SOURCE_DIR) + "/" + rel;
}

inline nlohmann::json FilesystemManifest(const std::string& root) {
  return {
      {"slug", "files"},
      {"title", "Project files"},
      {"source",
       {{"kind", "mcp"},
        {"command", AFFORDANCE_NODE},
        {"args",
         {ModulePath("tools/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"),
          root}},
        {"timeout_ms", 15000}}},
      {"modes", {"live"}}};
}

inline nlohmann::json MemoryManifest() {
  return {{"slug", "memory"},
          {"title", "Knowledge graph"},
          {"source",
           {{"kind", "mcp"},
            {"command", AFFORDANCE_NODE},
            {"args",
             {ModulePath("tools/node_modules/@modelcontextprotocol/server-memory/dist/index.js")}},
            {"env", {{"MEMORY_FILE_PATH", "${AFFORDANCE_TEST_MEMORY_FILE}"}}},
            {"timeout_ms", 15000}}},
          {"modes", {"live"}}};
}

inline nlohmann::json HostileManifest(const std::string& mode, const std::string& state,
                                      int64_t timeout_ms = 3000) {
  return {{"slug", "hostile"},
          {"title", "Hostile fixture"},
          {"source",
           {{"kind", "mcp"},
            {"command", AFFORDANCE_NODE},
            {"args", {ModulePath("tests/fixtures/connect/hostile_mcp.mjs"), mode, state}},
            {"timeout_ms", timeout_ms},
            {"max_message_bytes", 4 << 20}}},
          {"modes", {"live"}}};
}

inline ConnectorManifest Parsed(const nlohmann::json& j) {
  auto m = ParseManifest(j.dump(), "");
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().ToString());
  return m.ok() ? m.value() : ConnectorManifest{};
}

}  // namespace affordance::connect::testing

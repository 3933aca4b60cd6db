// What `affordance grants`, `approvals`, `activity` and `reconcile` share: the options that pick
// the data folder (the store) and the connector manifests, and the objects they open: the store,
// the connector road (for staging, execution and the fresh reads of verification) and Authority.
#pragma once

#include "authority/authority.h"
#include "base/result.h"
#include "connect/road.h"
#include "store/store.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <memory>
#include <string>

namespace affordance::cli {

struct GovernOptions {
  std::string data;        // as `affordance chat --data`
  std::string store;       // as `affordance chat --store`
  std::string connectors;  // as `affordance chat --connectors` (default $AFFORDANCE_CONNECTORS)
  bool json = false;
};

// Adds --data, --connectors and --json to a (sub)command.
void AddGovernOptions(CLI::App& app, GovernOptions& o);

// Adds the verb `name` to `parent` with the governance options; choosing it sets *verb to `name`.
CLI::App* AddGovernVerb(CLI::App& parent, const char* name, const char* what, GovernOptions& o,
                        std::shared_ptr<std::string> verb);

struct Governance {
  std::unique_ptr<store::Store> store;
  std::unique_ptr<connect::ConnectorRoad> road;  // null when no manifests are configured
  std::unique_ptr<authority::Authority> authority;
};

Result<std::unique_ptr<Governance>> OpenGovernance(const GovernOptions& o);

// Prints JSON on one line.
void PrintJson(const nlohmann::json& j);
// `j` as one JSON line a terminal can print: invalid UTF-8 replaced, and raw C1 controls and
// bidi / invisible format characters written as \u escapes (text::EscapeHiddenInJson).
std::string JsonText(const nlohmann::json& j);
// JSON text for a human line: hidden and C1 characters shown as a visible "⟨U+202E⟩" mark.
std::string HumanJsonText(const nlohmann::json& j);

// "2026-11-30 12:01:02" (UTC) for a millisecond timestamp; "never" for 0.
std::string FormatMs(int64_t ms);

}  // namespace affordance::cli

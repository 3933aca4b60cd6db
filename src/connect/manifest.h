// Connector manifests: what a connector is, where its data comes from, what it can do.
//
// A manifest is one JSON file (format in docs/CONNECTORS.md). ParseManifest validates it fully on
// load: unknown keys, wrong types, unsupported JSON Schema keywords, operations that reference
// missing operations, and source-specific requirements are all reported as one Error with code
// "connect.manifest_invalid", a message naming the JSON pointer of the problem, and the file as
// detail. A ConnectorManifest that exists is valid; nothing downstream re-checks it.
#pragma once

#include "base/result.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace affordance::connect {

enum class SourceMode { kLive, kLocal, kAuto };
enum class SourceKind { kSqlite, kPrintedCli, kIcs, kMcp };
enum class OperationKind { kList, kDetail, kSearch, kSql, kMutation };
enum class Risk { kRead, kWrite, kDestructive };

std::string ToString(SourceMode mode);
std::string ToString(SourceKind kind);
std::string ToString(OperationKind kind);
std::string ToString(Risk risk);
// Parses "live" | "local" | "auto"; error "connect.bad_mode" otherwise.
Result<SourceMode> ParseSourceMode(const std::string& text);

struct Operation {
  std::string name;  // unique within the connector: [a-z][a-z0-9_]*
  OperationKind kind = OperationKind::kList;
  std::string description;
  nlohmann::json args_schema;              // JSON Schema (object); validated by ValidateArgs
  std::vector<std::string> served_fields;  // empty: whatever the source returns
  Risk risk = Risk::kRead;
  std::string handle;  // query handle name; defaults to "<slug>_<name>"
  // What RunConnectorCommand, the deferred operation tools and the reality block's query handles
  // may run: not a mutation, and no write risk (the manifest keeps the two in step).
  bool readable() const { return kind != OperationKind::kMutation && risk == Risk::kRead; }
  // SQLite / ics sources: a SELECT over the mirror with named parameters (:name) bound from args.
  std::string query;
  // Printed CLIs: the verb words (e.g. {"items","get"}); `positional` args follow in order, the
  // other args become "--<name> <value>" flags.
  std::vector<std::string> argv;
  std::vector<std::string> positional;
  // List operations: the detail operation that ID-only rows fan out to, and the ID field.
  std::string detail_operation;
  std::string id_field = "id";

  // Mutations (run only by authority, after a human approved them; docs/AUTHORITY.md):
  // sqlite: the write statement, named parameters bound from args (+ :idempotency_key).
  std::string statement;
  // ics: "create" | "update" | "delete" of one VEVENT (args uid?, summary, start, end, location,
  // description).
  std::string effect;
  // printed CLI: the flag that carries the idempotency key ("" = the CLI takes none).
  std::string idempotency_flag;
  // The fresh read that proves the effect: a readable operation of this connector, its args
  // ("$name" strings are replaced by the mutation's args, "$idempotency_key" or fields of the
  // source's response), and what its rows must show: `expect` fields on one row, or `absent`
  // (no row). An empty verify_operation: the effect is never more than executed (unverified).
  std::string verify_operation;
  nlohmann::json verify_args = nlohmann::json::object();
  nlohmann::json verify_expect = nlohmann::json::object();
  bool verify_absent = false;
  // What the person reads before deciding (connect/effect.h): `summary` a one-line template with
  // "{arg}" placeholders; `before` the fresh read that shows an update's or delete's current
  // values (a readable operation of this connector and its "$name"-bound args).
  std::string summary;
  std::string before_operation;
  nlohmann::json before_args = nlohmann::json::object();

  // MCP sources (connect/mcp.h): the server's tool name (or the resource method) this operation
  // calls, where its risk came from ("annotations", "manifest" or "default": no annotation says
  // read), the server's whole inputSchema (kept as documentation: `args_schema` is the validated
  // subset of it) and the JSON pointers of keywords in it that are not validated, and the
  // tool's outputSchema (null when it declares none).
  std::string mcp_tool;
  std::string mcp_method;  // "tools/call" | "resources/list" | "resources/read"
  std::string risk_source;
  nlohmann::json documented_schema;
  std::vector<std::string> unvalidated;
  nlohmann::json output_schema;
};

// What an MCP manifest may say about one of the server's tools (its `operations` entries): only
// make it stricter (risk), name what it serves, how a write is verified and described.
struct McpToolOverride {
  std::string tool;  // the server's tool name
  std::string name;  // the operation name ("" = derived from the tool name)
  std::optional<Risk> risk;
  std::string description;
  Operation extras;  // served_fields, handle, verify_*, summary, before_*
};

struct MirrorColumn {
  std::string name;
  std::string type;  // SQLite declared type (TEXT, INTEGER, REAL, BLOB)
};
struct MirrorTable {
  std::string name;
  std::vector<MirrorColumn> columns;
  std::string description;
};

struct SyncPolicy {
  int64_t max_age_s = 3600;   // older than this: stale
  int64_t past_days = 30;     // ics: expansion window before the sync time
  int64_t future_days = 365;  // ics: expansion window after the sync time
};

struct SourceSpec {
  SourceKind kind = SourceKind::kSqlite;
  std::string path;                // sqlite: the database (absolute after load)
  std::vector<std::string> paths;  // ics: .ics files or folders of them (absolute after load)
  std::string command;             // printed CLI: executable (absolute if it contains '/')
  std::string mirror_path;         // printed CLI: its SQLite mirror (default: XDG data dir)
  // printed CLI: optional verbs it has ("which", "sql", "sync", "lookup": `lookup <idempotency
  // key>` answers the effect recorded under that key, exit 3 when there is none).
  std::vector<std::string> verbs;
  int64_t timeout_ms = 30000;  // printed CLI: per invocation
  // printed CLI: it reads `--` as the end of its options (cobra/pflag do, and the Printing Press
  // CLIs are cobra programs). Then every positional value goes after `--`; without it, a
  // positional value that begins with '-' is refused ("connect.bad_args").
  bool end_of_options = true;
  // Fan-out width. Default 8 for printed CLIs (one process per read: 7.3x faster than one at a
  // time) and 1 for mirror sources (an indexed read takes microseconds; threads only add
  // contention: 0.44x). See docs/BENCHMARKS.md `## connect`.
  int max_parallel = 8;

  // MCP (kind "mcp"): stdio (`command` + `args`, `env` whose values may name our environment
  // variables as ${NAME}, `cwd`, default the manifest's folder) or Streamable HTTP (`url`, a
  // bearer token read from the environment variable `bearer_env`). `timeout_ms` bounds every
  // request, `init_timeout_ms` the start and initialize; a message over `max_message_bytes` ends
  // the session; the server's stderr is kept in a log of at most `stderr_log_bytes`.
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string cwd;
  std::string url;
  std::string bearer_env;
  int64_t init_timeout_ms = 10000;
  int64_t max_message_bytes = 16 << 20;
  int64_t stderr_log_bytes = 64 << 10;
};

struct ConnectorManifest {
  std::string slug;
  std::string title;
  std::string description;
  std::string file;  // where it was loaded from
  SourceSpec source;
  std::vector<SourceMode> modes;
  std::vector<std::string> credential_env;  // environment variables that hold credentials
  std::vector<MirrorTable> mirror_tables;
  SyncPolicy sync;
  std::vector<Operation> operations;
  // MCP: the manifest's refinements of the server's tools, applied when the catalog is read.
  std::vector<McpToolOverride> mcp_overrides;

  const Operation* FindOperation(const std::string& name) const;
  bool Supports(SourceMode mode) const;
  bool HasVerb(const std::string& verb) const;
};

// Parses and validates a manifest. `file` names the origin (for errors and for resolving relative
// paths against its folder); pass "" for in-memory text (relative paths then stay relative).
// Errors: "connect.manifest_invalid" naming the problem; "connect.too_deep" for text nested
// deeper than kMaxJsonDepth (base/json_limits.h), refused before it is parsed.
Result<ConnectorManifest> ParseManifest(const std::string& text, const std::string& file);

// Loads every "*.json" in `dir` (sorted by name). A missing folder yields no manifests; an invalid
// manifest or a duplicate slug is an error naming the file.
Result<std::vector<ConnectorManifest>> LoadManifests(const std::string& dir);

// Where manifests and mirrors live when not given explicitly (documented in docs/CONNECTORS.md):
// $AFFORDANCE_CONNECTORS, else $XDG_CONFIG_HOME/affordance/connectors, else
// ~/.config/affordance/connectors; mirrors: $AFFORDANCE_DATA, else
// $XDG_DATA_HOME/affordance/connectors, else ~/.local/share/affordance/connectors.
std::string DefaultManifestDir();
std::string DefaultDataDir();

}  // namespace affordance::connect

// ConnectorRoad: the one road to external data. RunConnectorCommand lives here.
//
// A road holds the loaded manifests, knows where each mirror lives, runs syncs (foreground or in
// the background, one at a time per connector) and answers RunConnectorCommand:
//
//   1. The connector must exist (else "connect.unknown_connector", listing the slugs; another
//      connector is never substituted).
//   2. A request that names an operation ({"operation", "args"}) runs directly once its arguments
//      validate ("connect.unknown_operation" / "connect.bad_args" otherwise; mutations are refused
//      with "connect.mutation_not_readable": writes go through authority, not this road).
//   3. A request in words goes to the connector's own `which` verb when it has one; a complete
//      resolution (one top match naming a declared operation with valid arguments) runs directly.
//   4. Otherwise the Chooser gets a bounded focused step (see chooser.h); without a chooser, or
//      when it gives up, the result is status "unresolved" with candidates. Request text is never
//      pattern-matched by this code.
//   5. A list whose rows carry only IDs fans out to the connector's detail operation, `limit` IDs
//      at most, `max_parallel` at a time.
// Rows are then bounded (limit, 24,000-character cap) and the result carries the ledger, query
// handles and contracts, mutation contracts and the mirror snapshot.
//
// Source modes: `local` serves the mirror (error "connect.mirror_empty" if never synced); `live`
// reads the source now (syncing a calendar first, `--data-source live` for a CLI); `auto` serves
// a fresh mirror, serves a stale or syncing mirror at once while a background sync runs
// ("mirror_first_while_syncing"), and syncs first only when the mirror is empty.
//
// Thread safety: RunConnectorCommand, Sync and StartSync may be called from several threads.
#pragma once

#include "base/result.h"
#include "connect/chooser.h"
#include "connect/manifest.h"
#include "connect/mirror.h"
#include "connect/mutate.h"
#include "connect/result.h"
#include "connect/sql_guard.h"

#include <nlohmann/json.hpp>

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace affordance::connect {

struct RoadOptions {
  std::string data_dir;            // mirrors: <data_dir>/<slug>/mirror.db
  std::function<int64_t()> clock;  // epoch seconds; default: system clock
  GuardLimits guard;               // SQL limits for every mirror read
  int focus_steps = 3;             // chooser steps per command
  int64_t default_limit = 50;
  int64_t max_limit = 500;
  size_t max_chars = kResultCharCap;
  // MCP sources: the first wait before a failed server is started again (doubling per failure in
  // a row, at most 30 s).
  int64_t mcp_backoff_ms = 500;
};

// The resident tool's input: {connector, request, limit?, mode?}. `request` is either the user's
// words (a JSON string) or {"operation": name, "args": {...}}.
struct ConnectorCommand {
  std::string connector;
  nlohmann::json request;
  std::optional<int64_t> limit;
  std::optional<SourceMode> mode;
};

// Parses the tool input JSON; error "connect.bad_request" naming the bad member.
Result<ConnectorCommand> ParseConnectorCommand(const nlohmann::json& input);

struct SyncReport {
  std::string connector;
  int64_t rows = 0;
  int64_t synced_at = 0;
  std::string source;  // "ics" | "printed_cli"
};

class McpHub;

class ConnectorRoad {
 public:
  ConnectorRoad(std::vector<ConnectorManifest> manifests, RoadOptions options);
  ~ConnectorRoad();  // waits for background syncs
  ConnectorRoad(const ConnectorRoad&) = delete;
  ConnectorRoad& operator=(const ConnectorRoad&) = delete;

  // The manifests (copies of what they are now). An MCP connector's operations are its server's
  // catalog: the first call (of either) starts each MCP server named and reads its tools/list; a
  // server that cannot be reached leaves its connector without operations (state
  // `disconnected`) and is tried again, after its backoff, by the next call. After the server
  // said notifications/tools/list_changed, the next call reads tools/list again and the
  // connector's new catalog replaces the old one (a removed tool is then an unknown operation).
  std::vector<ConnectorManifest> manifests() const;
  // The connector as it is now. A catalog is never changed in place: a refresh publishes a new
  // one, and the one returned here stays whole for as long as the caller holds it.
  std::shared_ptr<const ConnectorManifest> Find(const std::string& slug) const;
  const RoadOptions& options() const { return options_; }

  // See the file comment. `chooser` may be null.
  Result<ConnectorResult> RunConnectorCommand(const ConnectorCommand& command,
                                              Chooser* chooser = nullptr);

  // Syncs the connector's mirror now (blocking). A local SQLite connector has nothing to sync
  // ("connect.nothing_to_sync"); a sync already running is waited for, then a new one runs.
  Result<SyncReport> Sync(const std::string& slug, const ProgressFn& progress = {});

  // Starts a sync on a background thread and returns at once; false when one is already running.
  Result<bool> StartSync(const std::string& slug, const ProgressFn& progress = {});
  bool Syncing(const std::string& slug) const;
  void WaitForSyncs();
  // The error of the last background sync of `slug`, if it failed.
  std::optional<Error> LastSyncError(const std::string& slug) const;

  // Freshness and credentials of the connector without running anything.
  Result<MirrorSnapshot> Snapshot(const std::string& slug) const;

  // Read-only SQL against the connector's mirror through the guard (what the `sql` operation runs).
  Result<QueryRows> Sql(const std::string& slug, const std::string& sql,
                        const nlohmann::json& params = nlohmann::json::object(),
                        int64_t max_rows = -1);

  // Where the connector's mirror lives (the database itself for a local SQLite connector).
  std::string MirrorPath(const ConnectorManifest& manifest) const;

  // Runs mutation `op` once (only authority calls this, for an effect a person approved): an MCP
  // tool through the connector's session (a failure after the request was sent is kUnknown,
  // never retried), any other source through connect::RunMutation.
  MutationOutcome Mutate(const ConnectorManifest& m, const Operation& op,
                         const nlohmann::json& args, const std::string& idempotency_key);

  // An MCP connector's session as people see it (McpHub::Status): state, the server's name,
  // version and instructions (untrusted), the last error, the stderr log's tail. null for
  // other sources.
  nlohmann::json McpStatus(const std::string& slug) const;

 private:
  struct Execution;  // one operation run: rows + ledger entry + contract
  Result<Execution> Execute(const ConnectorManifest& m, const Operation& op,
                            const nlohmann::json& args, SourceMode mode, int64_t limit);
  // `guard`, when given, is an open guard on this connector's mirror to reuse (fan-out workers
  // open one each instead of one per read).
  Result<Execution> ExecuteOnce(const ConnectorManifest& m, const Operation& op,
                                const nlohmann::json& args, SourceMode mode, int64_t max_rows,
                                SqlGuard* guard = nullptr);
  Status FanOut(const ConnectorManifest& m, const Operation& list, SourceMode mode, int64_t limit,
                Execution& exec);
  Result<std::string> Serve(const ConnectorManifest& m, SourceMode mode);
  Freshness ReadFreshness(const ConnectorManifest& m) const;
  std::string CredentialState(const ConnectorManifest& m) const;
  Result<SyncReport> SyncNow(const ConnectorManifest& m, const ProgressFn& progress);
  int64_t Now() const;
  // MCP (mcp_source.cpp): a sync re-reads every mirrored read live and returns the rows written.
  Result<int64_t> SyncMcp(const ConnectorManifest& m, const ProgressFn& progress);
  // The current manifest of connector `i`; for an MCP connector its catalog is read first when
  // it was never read, its last read failed, or the server said its tool list changed.
  std::shared_ptr<const ConnectorManifest> Catalog(size_t i) const;
  // The manifest `base` with the server's catalog (nullptr when tools/list failed; the error and
  // notes are recorded in the hub).
  std::shared_ptr<const ConnectorManifest> LoadCatalog(const ConnectorManifest& base) const;
  // Serves an MCP read by `mode` (mirror-first for local/auto, see docs/CONNECTORS.md); a live
  // read is mirrored when the connector has the local or auto mode.
  Result<Execution> McpRead(const ConnectorManifest& m, const Operation& op,
                            const nlohmann::json& args, SourceMode mode);

  std::vector<ConnectorManifest> base_;  // as loaded (an MCP connector without its catalog)
  mutable std::mutex catalogs_mu_;       // guards the pointers in catalogs_, not what they hold
  mutable std::vector<std::shared_ptr<const ConnectorManifest>> catalogs_;  // one per base_
  RoadOptions options_;
  std::unique_ptr<McpHub> mcp_;

  struct SyncSlot {
    bool running = false;
    std::thread thread;
    std::optional<Error> last_error;
    std::string credential_rejected;  // set when a CLI answered exit code 4
  };
  mutable std::mutex mu_;
  std::condition_variable sync_done_;
  std::map<std::string, SyncSlot> syncs_;
};

}  // namespace affordance::connect

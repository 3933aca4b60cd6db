// ConnectorResult: what one RunConnectorCommand returns (rows plus capability), and its bounds.
//
// The serialized result (ToJson(...).dump()) never exceeds the character cap (24,000 code points
// by default): BoundRows drops rows from the end, sets `truncated` with the reason, and keeps the
// counts honest (`returned_rows`, `total_rows`, `total_rows_exact`). Everything else in the result
// (ledger, contracts, snapshot) is kept whole, because it is what makes the rows checkable.
#pragma once

#include "base/result.h"
#include "connect/manifest.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace affordance::connect {

inline constexpr size_t kResultCharCap = 24000;
inline constexpr size_t kMaxFanOutErrors = 20;

// One operation that ran. `source` is "live" (read from the source during this call), "mirror"
// (the connector's SQLite mirror) or "local" (a local database that is its own source).
struct LedgerEntry {
  std::string command;  // the operation name
  nlohmann::json args = nlohmann::json::object();
  std::vector<std::string> served_fields;  // fields the returned rows carry
  std::string source;
  int64_t rows = 0;
  // null, or {of, requested, succeeded, failed, parallel, listed, failed_ids?, errors?}: listed is
  // the list's size (requested is less when a limit cut it); failed_ids names every failed detail
  // read's id; errors holds the first kMaxFanOutErrors as {id, operation, args, code, message}.
  nlohmann::json fan_out;
};

// What a later Query() binding must match to re-execute this read exactly.
struct QueryContract {
  std::string handle;
  std::string connector;
  std::string operation;
  nlohmann::json args = nlohmann::json::object();
  std::string source;
  std::vector<std::string> served_fields;
};

// A mutation this connector declares; never executed by the read road (authority stages it).
struct MutationContract {
  std::string handle;
  std::string connector;
  std::string operation;
  nlohmann::json args_schema;
  std::string risk;
};

// Every freshness state the road reports (Freshness::state), and nothing else: live (read from
// the source during this call), local (a local database that is its own source), mirrored,
// syncing (served from the mirror while a sync runs), stale (the mirror is older than max_age_s),
// empty (nothing synced yet). Each names the harness data state of the same name
// (harness::DataStateOf; a test enumerates this list against it and against the road's code).
inline constexpr std::array<std::string_view, 6> kFreshnessStates = {"live",    "local", "mirrored",
                                                                     "syncing", "stale", "empty"};

struct Freshness {
  std::string state = "empty";  // one of kFreshnessStates
  int64_t synced_at = 0;        // epoch seconds; 0 = never
  int64_t age_s = -1;           // -1 = unknown
  int64_t max_age_s = 0;
  int64_t mirror_rows = 0;
};

struct MirrorSnapshot {
  Freshness freshness;
  std::string credential_state = "not_required";  // not_required | present | missing | rejected
  // mirror | live | mirror_first_while_syncing | local_source | cli_live | cli_local | cli_auto
  std::string serving_decision;
};

struct Candidate {
  std::string operation;
  std::string kind;
  std::string description;
  nlohmann::json args_schema;
  nlohmann::json suggested_args;  // from `which`, null otherwise
  double score = 0;               // from `which`, 0 otherwise
};

struct ConnectorResult {
  std::string connector;
  std::string status = "ok";  // ok | unresolved | partial
  std::vector<nlohmann::json> rows;
  bool truncated = false;
  std::string truncated_reason;  // limit | char_cap | source_row_cap
  int64_t returned_rows = 0;
  // Rows the operation produced before bounding; for a list that fans out, the list's size (a
  // limit that cut the list before its detail reads makes the result truncated, reason "limit").
  int64_t total_rows = 0;
  bool total_rows_exact = true;  // false when the source itself stopped at its row cap
  std::vector<LedgerEntry> operation_ledger;
  std::vector<std::string> registered_query_handles;
  std::vector<QueryContract> query_contracts;
  std::vector<MutationContract> mutation_contracts;
  MirrorSnapshot mirror_snapshot;
  nlohmann::json resolution = nlohmann::json::object();  // {by, steps, ...}
  // unresolved only: what the request could become, and why it did not.
  std::vector<Candidate> candidates;
  std::string unresolved_reason;
};

nlohmann::json ToJson(const ConnectorResult& result);
nlohmann::json ToJson(const Candidate& candidate);

// Applies `limit` and the character cap (see the file comment). Returns an error
// "connect.result_too_large" only when the result without any rows is already over the cap.
Status BoundRows(ConnectorResult& result, int64_t limit, size_t max_chars = kResultCharCap);

// Length in Unicode code points of UTF-8 text.
size_t CodePointCount(const std::string& text);

}  // namespace affordance::connect

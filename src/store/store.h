// Store: the only code that writes SQL. Threads, messages, their parts and the step ledger of
// every assistant turn, persisted as they arrive so that a process killed at any point leaves a
// database that opens and shows what happened up to the kill.
//
//   auto store = store::OpenSqlite(data_dir + "/affordance.db");    // creates + migrates
//   auto thread = (*store)->CreateThread("Calendar questions");
//   auto msg = (*store)->AddMessage(thread->id, "assistant", "running", meta);
//   (*store)->PutPart(msg->id, part);        // upsert by (message, seq), as parts arrive
//   (*store)->PutStep(msg->id, step);        // upsert by (message, index)
//   (*store)->UpdateMessage(msg->id, "complete", meta);
//
// Data model (one writer per fact: the harness writes turns, later parts add their own tables):
//   thread   1..n message (seq 0, 1, 2 ... in the thread; role user | assistant)
//   message  1..n part    (seq within the message; kind text | reasoning | tool | surface | reality
//                           | data-*; `key` is the part's identity: text id, tool call id)
//   message  1..n step    (assistant messages: the step ledger, index 0, 1, 2 ...; usage and the
//                           sampled token IDs of the step, so a resumed thread re-emits them)
// A part's `data` is the kind's JSON payload (documented in docs/HARNESS.md); `state` is the
// truth state it has reached (harness/truth.h names them); `open` is true while the part still
// waits for evidence that closes it (a text that is streaming, a call without a result).
//
// Recovery: RecoverInterrupted() turns every message still "running" (whose writer is gone, see
// the method) into "interrupted", its steps still "running" into "interrupted", and closes each
// open part of those messages with state "interrupted" (data gains "interrupted": true). Nothing
// persisted is deleted.
//
// Backend: SQLite in WAL mode (synchronous=NORMAL: a committed write survives a process kill;
// a power loss may lose the last transactions but never corrupts the file), versioned migrations
// in PRAGMA user_version, foreign keys on. PostgreSQL (OpenPostgres) implements the same interface
// for several nodes on one database: same schema versions, same errors, same recovery.
//
// Errors (codes): "store.open" (cannot open or create the file), "store.migrate" (a migration
// failed, or the file's schema is newer than this binary), "store.not_found" (unknown thread or
// message id), "store.conflict" (a compare-and-set lost, a duplicate key), "store.bad_input" (empty
// role, unknown status, ...), "store.too_deep" (a JSON value nested deeper than
// kMaxStoredJsonDepth is refused when written; a column holding deeper text, which only a damaged
// file can, reads back as this error naming the row), "store.io" (any other SQLite failure; the
// message carries SQLite's text). No method throws.
//
// Thread safety: every method may be called from any thread (one connection behind a mutex).
#pragma once

#include "base/result.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace affordance::store {

// Milliseconds since the epoch (the store's timestamps).
int64_t NowMs();

// A fresh random identifier: `prefix` + 16 lowercase hex digits ("t_3f9a...", "m_...").
std::string NewId(std::string_view prefix);

struct ThreadInfo {
  std::string id;
  std::string title;
  int64_t created_ms = 0;
  int64_t updated_ms = 0;  // the last write to the thread or any of its messages
  int64_t messages = 0;    // how many messages it holds
};

struct PartRecord {
  int64_t seq = 0;    // order within the message, assigned by the writer (0, 1, 2 ...)
  int step = -1;      // the step that produced it; -1 for parts of user messages
  std::string kind;   // "text", "reasoning", "tool", "surface", "reality", "data-..."
  std::string key;    // identity within the message (text part id, tool call id); may be empty
  std::string state;  // truth state name ("emitted", "parsed", "executed", ...)
  bool open = false;  // still waiting for the evidence that closes it
  nlohmann::json data = nlohmann::json::object();
};

struct StepRecord {
  int index = 0;
  std::string status = "running";  // running | finished | error | aborted | interrupted
  std::string finish_reason;       // the provider's finish reason ("stop", "tool-calls", ...)
  int64_t prompt_tokens = 0;
  int64_t cached_prompt_tokens = 0;
  int64_t generated_tokens = 0;
  std::vector<int32_t> tokens;  // the sampled token IDs, exactly as the model produced them
  int64_t started_ms = 0;
  int64_t finished_ms = 0;
  nlohmann::json detail = nlohmann::json::object();  // error, prompt audit, ...
};

struct MessageRecord {
  std::string id;
  std::string thread_id;
  int64_t seq = 0;
  std::string role;                                // "user" | "assistant"
  std::string status;                              // "running" | "complete" | "interrupted"
  nlohmann::json meta = nlohmann::json::object();  // terminal status, truth, provider, ...
  int64_t created_ms = 0;
  int64_t updated_ms = 0;  // the last AddMessage / UpdateMessage / recovery of this message (its
                           // parts and steps move the thread's updated_ms, not this one)
  std::vector<PartRecord> parts;  // by seq
  std::vector<StepRecord> steps;  // by index
};

// ---- authority (grants, approvals, receipts, Activity; docs/AUTHORITY.md) ---------------------
//
// The store keeps these facts; src/authority is their one writer and decides every transition.

struct GrantRecord {
  std::string id;          // "g_..."
  std::string scope;       // "connector:<slug>" or "connector:<slug>:<operation>"
  std::string access;      // "read" | "write"
  std::string granted_by;  // who granted it ("user:<name>")
  int64_t created_ms = 0;
  int64_t expires_ms = 0;  // 0: never
  int64_t revoked_ms = 0;  // 0: not revoked
  std::string revoked_by;
  // {id, scope, access, grantedBy, createdMs, expiresMs, revokedMs, revokedBy}: the one JSON form
  // of a grant, at every door (CLI --json, MCP).
  nlohmann::json ToJson() const;
  // Not revoked, and not expired at `now_ms`.
  bool in_force(int64_t now_ms) const {
    return revoked_ms == 0 && (expires_ms == 0 || expires_ms > now_ms);
  }
};

struct ApprovalRecord {
  std::string id;                                   // "apr_..."
  std::string thread_id, message_id, tool_call_id;  // the staging call ("" when a person staged)
  std::string connector, operation, risk;
  nlohmann::json args = nlohmann::json::object();
  nlohmann::json evidence = nlohmann::json::object();  // what the request rests on
  std::string staged_by;
  // pending | approved | denied | expired | refused | executing | executed | failed |
  // outcome_unknown | not_executed
  std::string status = "pending";
  std::string request;          // canonical text of {connector, operation, args}: the exact effect
  std::string decided_request;  // the request text the person approved (must equal `request`)
  std::string decided_by;
  std::string reason;
  std::string idempotency_key;  // set (UNIQUE) before dispatch
  std::string executor;         // "<pid>@<host>" of the process executing it
  bool reported = false;        // the outcome has been given to the model as the call's result
  int64_t created_ms = 0, updated_ms = 0, decided_ms = 0;
  // What the person reads before deciding (connect/effect.h), computed when it was staged; the
  // SHA-256 of `request` (hex) that the effect describes; when a decision can no longer be made.
  nlohmann::json effect = nlohmann::json::object();
  std::string digest;
  int64_t expires_ms = 0;  // 0: never
};

struct ReceiptRecord {
  std::string id;  // "rc_..."
  std::string approval_id;
  std::string idempotency_key;
  nlohmann::json request = nlohmann::json::object();   // exactly what was dispatched
  nlohmann::json response = nlohmann::json::object();  // what the source answered
  std::string outcome;       // dispatching | executed | failed | outcome_unknown | not_executed
  std::string verification;  // verified | verify_failed | provider_proof | unverified | ""
  nlohmann::json evidence = nlohmann::json::object();  // the fresh read / reconcile evidence
  int64_t started_ms = 0, finished_ms = 0, verified_ms = 0;
};

struct ActivityRecord {
  int64_t seq = 0;  // assigned by the store, increasing
  int64_t at_ms = 0;
  // grant | revoke | read | stage | approve | deny | refuse | recover | execute | reconcile |
  // verify
  std::string kind;
  std::string subject;  // the grant, approval or connector it is about
  std::string actor;    // "user:<name>", "model", "system"
  nlohmann::json data = nlohmann::json::object();
  // {seq, atMs, kind, subject, actor, data}: the one JSON form of an entry, at every door.
  nlohmann::json ToJson() const;
};

struct ActivityFilter {
  std::string kind;     // "" = any
  std::string subject;  // "" = any
  int64_t since_ms = 0;
  int64_t limit = 200;  // newest `limit` entries, returned oldest first
};

// ---- artifacts (accepted ComposeUI programs; docs/SURFACE.md) ----------------------------------
//
// src/surface (artifact.h) is their one writer: it validates a program before it asks the store to
// keep it. The store keeps versions immutable and moves an artifact's head atomically.

struct ArtifactRecord {
  std::string id;        // "a_..."
  std::string kind;      // "inline" | "panel" | "live_app"
  std::string app_slug;  // live apps: unique among artifacts; "" otherwise
  std::string title;
  std::string thread_id;  // the thread it was composed in ("" when not composed in a turn)
  int64_t head = 0;       // its latest version (1, 2, ...)
  int64_t created_ms = 0, updated_ms = 0;
  // {id, kind, appSlug, title, threadId, head, createdMs, updatedMs}: the one JSON form, at every
  // door (CLI --json, GET /api/artifacts, and the artifact part of surface::OpenedArtifact).
  nlohmann::json ToJson() const;
};

struct ArtifactVersionRecord {
  std::string artifact_id;
  int64_t version = 0;  // 1, 2, ... in the artifact
  int64_t parent = 0;   // the version this one replaced (a patch was applied to); 0 for the first
  std::string body;     // the exact OpenUI Lang text of this version (a patch: the merged program)
  std::string patch;    // edit mode: the patch as the model wrote it; "" for a whole program
  // {queries: [...], mutations: [...], sources: [...]} (surface/artifact.h documents the shape)
  nlohmann::json bindings = nlohmann::json::object();
  std::string message_id, tool_call_id;  // the ComposeUI call that wrote it ("" otherwise)
  std::string surface_id;                // the surface part that shows it ("s_..."; "" otherwise)
  int64_t created_ms = 0;
  // {version, parent, body, patch, bindings, messageId, toolCallId, surfaceId, createdMs}
  nlohmann::json ToJson() const;
};

// ---- turns and their stream log (several `serve` nodes on one database; docs/SCALE.md) --------
//
// src/server (turn_log.h) is their one writer. A turn is the assistant message it writes (same
// id). Its row names the node running it and a lease that node renews; a node that dies stops
// renewing, and once the lease has expired another node takes the turn over and ends it
// `interrupted`. Its log holds every UI message stream chunk the turn produced, under (turn, seq),
// appended before any client sees the chunk, so a client can replay it and follow it on any node.

struct TurnRecord {
  std::string id;                  // the assistant message id ("m_...")
  std::string thread_id;           // at most one running turn per thread, across every node
  std::string node;                // the node that runs it (or took it over)
  std::string status = "running";  // running | finished | aborted | failed | interrupted
  int64_t lease_until_ms = 0;      // the node must renew before this
  bool stop_requested = false;     // a stop was posted (on any node)
  int64_t started_ms = 0, updated_ms = 0;
  int64_t chunks = 0;  // how many chunks its log holds (seq 0 .. chunks - 1)
};

struct LoggedChunk {
  std::string turn_id;
  int64_t seq = 0;    // 0, 1, 2 ... within the turn, with no gaps
  std::string chunk;  // the JSON text of one chunk (server/protocol.h UiChunk form)
};

struct TurnLog {
  TurnRecord turn;                  // read in the same snapshot as the chunks
  std::vector<LoggedChunk> chunks;  // seq > after, in order
};

class Store {
 public:
  virtual ~Store() = default;

  // Threads. ListThreads is newest first (updated_ms descending). DeleteThread removes the thread
  // with all its messages, parts and steps.
  // `id` "" = a new random id; otherwise that id (a client-chosen chat id), "store.conflict" if
  // a thread has it.
  virtual Result<ThreadInfo> CreateThread(const std::string& title, const std::string& id = "") = 0;
  virtual Result<std::vector<ThreadInfo>> ListThreads() = 0;
  virtual Result<ThreadInfo> GetThread(const std::string& id) = 0;
  virtual Status RenameThread(const std::string& id, const std::string& title) = 0;
  virtual Status DeleteThread(const std::string& id) = 0;

  // Appends a message at the end of the thread (seq = previous max + 1) with no parts, and with
  // `id` (one NewId("m_") made earlier, so a door can announce the message before it is written)
  // or a fresh id. role: "user" | "assistant"; status: "running" | "complete" | "interrupted".
  // Errors: "store.conflict" when `id` is taken.
  virtual Result<MessageRecord> AddMessage(const std::string& thread_id, const std::string& role,
                                           const std::string& status, const nlohmann::json& meta,
                                           const std::string& id = "") = 0;
  // Replaces the message's status and meta.
  virtual Status UpdateMessage(const std::string& message_id, const std::string& status,
                               const nlohmann::json& meta) = 0;
  // Inserts or replaces the part (message_id, part.seq) / the step (message_id, step.index).
  virtual Status PutPart(const std::string& message_id, const PartRecord& part) = 0;
  virtual Status PutStep(const std::string& message_id, const StepRecord& step) = 0;

  // Every message of the thread in order, with parts and steps.
  virtual Result<std::vector<MessageRecord>> LoadThread(const std::string& thread_id) = 0;
  virtual Result<MessageRecord> LoadMessage(const std::string& message_id) = 0;

  // See the file comment. Returns how many messages it marked interrupted. `abandoned` (given the
  // message's meta) decides which running messages are orphans; without it every running message
  // is. Pass it whenever another live process may be writing a turn to the same file (the harness
  // records its writer in meta.owner and checks that the writer still runs).
  using AbandonedFn = std::function<bool(const nlohmann::json& meta)>;
  virtual Result<int64_t> RecoverInterrupted(const AbandonedFn& abandoned = {}) = 0;

  // Runs `writes` (calls on this store from the same thread) as one transaction: all of them are
  // committed, or none when `writes` returns an error (which Batch returns).
  virtual Status Batch(const std::function<Status()>& writes) = 0;

  // Authority facts. PutGrant inserts or replaces by id. AddApproval inserts (a duplicate id or
  // idempotency key is "store.conflict"). UpdateApproval replaces the row only while its stored
  // status is `expected_status`, else "store.conflict": the compare-and-set that makes a decision
  // or a claim for execution happen once across processes. PutReceipt upserts by id. Activity is
  // append-only (the table refuses UPDATE and DELETE). ListApprovals filters by status / thread
  // ("" = any), newest first.
  virtual Status PutGrant(const GrantRecord& grant) = 0;
  virtual Result<std::vector<GrantRecord>> ListGrants() = 0;
  virtual Status AddApproval(const ApprovalRecord& approval) = 0;
  virtual Result<ApprovalRecord> GetApproval(const std::string& id) = 0;
  virtual Result<std::vector<ApprovalRecord>> ListApprovals(const std::string& status,
                                                            const std::string& thread_id) = 0;
  virtual Status UpdateApproval(const ApprovalRecord& approval,
                                const std::string& expected_status) = 0;
  virtual Status PutReceipt(const ReceiptRecord& receipt) = 0;
  virtual Result<std::vector<ReceiptRecord>> ReceiptsOf(const std::string& approval_id) = 0;
  virtual Result<int64_t> AppendActivity(const ActivityRecord& entry) = 0;
  virtual Result<std::vector<ActivityRecord>> ListActivity(const ActivityFilter& filter) = 0;

  // Artifacts. SaveArtifactVersion writes `version` and moves the artifact's head to it in one
  // transaction: version 1 creates the artifact row from `artifact` (a duplicate id, or an
  // app_slug another artifact holds, is "store.conflict"); version N > 1 needs the stored head to
  // be N - 1 (else "store.conflict": someone saved in between) and replaces kind, app_slug and
  // title. An empty body, a version < 1 or a parent >= version is "store.bad_input". When the
  // write fails for any reason (a disk error included) nothing of it is kept and the previous head
  // and its body stay exactly as they were.
  // GetArtifact takes an id or an app slug; ListArtifacts is newest first (updated_ms).
  // GetArtifactVersion with version 0 returns the head. Unknown ids are "store.not_found".
  virtual Status SaveArtifactVersion(const ArtifactRecord& artifact,
                                     const ArtifactVersionRecord& version) = 0;
  virtual Result<ArtifactRecord> GetArtifact(const std::string& id_or_slug) = 0;
  virtual Result<std::vector<ArtifactRecord>> ListArtifacts() = 0;
  virtual Result<std::vector<ArtifactVersionRecord>> ArtifactVersions(
      const std::string& artifact_id) = 0;
  virtual Result<ArtifactVersionRecord> GetArtifactVersion(const std::string& artifact_id,
                                                           int64_t version) = 0;

  // Turns (see TurnRecord). BeginTurn inserts a running turn; "store.conflict" when its thread
  // already has a running turn (on any node; an expired lease still counts until a node took it
  // over) or the id is taken. GetRunningTurn: the thread's running turn, "store.not_found" when
  // none. RenewLeases moves the lease of every running turn `node` holds to `until_ms` and returns
  // them (a turn of the node that is missing was taken over: the node must stop writing it).
  // TakeExpiredTurns is the compare-and-set of a takeover: every running turn whose lease ended
  // before `now_ms` passes to `node` with a lease until `until_ms`, and its message (same id) is
  // recovered as RecoverInterrupted does (status interrupted, open parts closed); it returns the
  // turns taken. RequestStop marks the thread's running turn stop_requested ("store.not_found"
  // when none) and returns it. EndTurn sets a running turn's final status while `node` holds it
  // ("store.conflict" when it is not running or another node holds it); its message, if still
  // running (its writer stopped after a store failure), is recovered as by RecoverInterrupted.
  virtual Status BeginTurn(const TurnRecord& turn) = 0;
  virtual Result<TurnRecord> GetRunningTurn(const std::string& thread_id) = 0;
  virtual Result<std::vector<TurnRecord>> RenewLeases(const std::string& node,
                                                      int64_t until_ms) = 0;
  virtual Result<std::vector<TurnRecord>> TakeExpiredTurns(const std::string& node, int64_t now_ms,
                                                           int64_t until_ms) = 0;
  virtual Result<TurnRecord> RequestStop(const std::string& thread_id) = 0;
  virtual Status EndTurn(const std::string& turn_id, const std::string& node,
                         const std::string& status) = 0;

  // The stream log. AppendChunks writes chunks of any turns in one transaction (all or none);
  // each chunk's seq must be its turn's next ("store.conflict" otherwise: a chunk is never
  // written twice or out of order) and the turn must exist ("store.not_found"). ReadLog returns
  // the turn and its chunks with seq > `after` (at most `limit`). PruneLogs deletes the logs of
  // turns that ended before `ended_before_ms` and returns how many chunks it deleted.
  virtual Status AppendChunks(const std::vector<LoggedChunk>& chunks) = 0;
  virtual Result<TurnLog> ReadLog(const std::string& turn_id, int64_t after,
                                  int64_t limit = 4096) = 0;
  virtual Result<int64_t> PruneLogs(int64_t ended_before_ms) = 0;

  // Wake-ups for readers that follow a turn. A topic is a turn id (chunks appended, the turn
  // ended, a stop was requested) or "stops" (any stop requested). Changes() is the topic's
  // counter now; WaitChanges() returns it once it differs from `seen`, or after `timeout_ms`.
  // PostgreSQL delivers other nodes' changes by LISTEN/NOTIFY (ids only); SQLite sees only this
  // process's, so a reader must re-read after every return (a timeout is the polling fallback).
  virtual uint64_t Changes(const std::string& topic) = 0;
  virtual uint64_t WaitChanges(const std::string& topic, uint64_t seen, int timeout_ms) = 0;

  // The backend: "sqlite" or "postgresql".
  virtual std::string_view Backend() const = 0;

  // The schema version the file is at (PRAGMA user_version).
  virtual int SchemaVersion() = 0;
};

// Opens (creating the file and its folder when missing) and migrates a SQLite store. The folder is
// made 0700 and the file (so its -wal and -shm too) 0600 before SQLite opens it; a folder or file
// left open to others by an older version is tightened, with one line on stderr
// (base/private_files.h).
Result<std::unique_ptr<Store>> OpenSqlite(const std::string& path);

// Connects to PostgreSQL (a libpq connection URI, "postgresql://..." or "postgres://...") and
// migrates its schema. Errors as above; "store.open" when the server cannot be reached.
Result<std::unique_ptr<Store>> OpenPostgres(const std::string& uri);

// The store `spec` names: a PostgreSQL URI (OpenPostgres), else the path of a SQLite file.
Result<std::unique_ptr<Store>> Open(const std::string& spec);

}  // namespace affordance::store

// PgStore: turns, their leases and their stream log, as turn_store.cpp. Here several nodes share
// the rows, so every transition is one conditional UPDATE (READ COMMITTED re-checks its WHERE
// against what a concurrent node committed): of two nodes taking an expired turn over, ending a
// turn or appending chunk N, exactly one succeeds. Each write that a reader may follow notifies
// its topic on kPgChannel inside the transaction, so other nodes hear of it at the commit.
#include "store/internal/pg_store.h"
#include "store/internal/validate.h"

#include <algorithm>
#include <array>
#include <set>
#include <utility>

namespace affordance::store::internal {

namespace {

constexpr std::string_view kTurnColumns =
    "id, thread_id, node, status, lease_until_ms, stop_requested, started_ms, updated_ms, chunks";

std::string TurnSelect(std::string_view where) {
  return "SELECT " + std::string(kTurnColumns) + " FROM turns " + std::string(where);
}
std::string TurnReturning(std::string_view update) {
  return std::string(update) + " RETURNING " + std::string(kTurnColumns);
}

std::vector<TurnRecord> TurnRows(const PgRows& rows) {
  std::vector<TurnRecord> out;
  for (int r = 0; r < rows.size(); ++r) {
    TurnRecord t;
    t.id = rows.Str(r, 0);
    t.thread_id = rows.Str(r, 1);
    t.node = rows.Str(r, 2);
    t.status = rows.Str(r, 3);
    t.lease_until_ms = rows.Int(r, 4);
    t.stop_requested = rows.Int(r, 5) != 0;
    t.started_ms = rows.Int(r, 6);
    t.updated_ms = rows.Int(r, 7);
    t.chunks = rows.Int(r, 8);
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

Status PgStore::BeginTurn(const TurnRecord& turn) {
  if (turn.id.empty() || turn.thread_id.empty() || turn.node.empty()) {
    return MakeError("store.bad_input", "a turn needs an id, a thread and a node");
  }
  return Transact(true, [&]() -> Status {
    const int64_t started = turn.started_ms ? turn.started_ms : NowMs();
    auto rows = Query(
        "INSERT INTO turns(id, thread_id, node, status, lease_until_ms, stop_requested, "
        "started_ms, updated_ms, chunks) VALUES ($1, $2, $3, 'running', $4, 0, $5, $5, 0)",
        "cannot begin turn " + turn.id, turn.id, turn.thread_id, turn.node, turn.lease_until_ms,
        started);
    if (!rows) {
      if (rows.error().code == "store.conflict") {  // turns_running, or the primary key
        return MakeError(ErrorKind::kConflict, "store.conflict",
                         "the thread already has a running turn (or the turn id is taken)",
                         turn.thread_id);
      }
      return rows.error();
    }
    return {};
  });
}

Result<TurnRecord> PgStore::GetRunningTurn(const std::string& thread_id) {
  return Transact(false, [&]() -> Result<TurnRecord> {
    static const std::string sql = TurnSelect("WHERE thread_id = $1 AND status = 'running'");
    auto rows = Query(sql, "cannot read turns", thread_id);
    if (!rows) return rows.error();
    if (rows->empty()) return NotFound("running turn of thread", thread_id);
    return std::move(TurnRows(*rows).front());
  });
}

Result<std::vector<TurnRecord>> PgStore::RenewLeases(const std::string& node, int64_t until_ms) {
  return Transact(true, [&]() -> Result<std::vector<TurnRecord>> {
    static const std::string sql = TurnReturning(
        "UPDATE turns SET lease_until_ms = $2, updated_ms = $3 "
        "WHERE node = $1 AND status = 'running'");
    auto rows = Query(sql, "cannot read turns", node, until_ms, NowMs());
    if (!rows) return rows.error();
    return TurnRows(*rows);
  });
}

Result<std::vector<TurnRecord>> PgStore::TakeExpiredTurns(const std::string& node, int64_t now_ms,
                                                          int64_t until_ms) {
  return Transact(true, [&]() -> Result<std::vector<TurnRecord>> {
    // A node racing us for the same turn waits on its row, then finds the lease renewed (by us)
    // and skips it.
    static const std::string sql = TurnReturning(
        "UPDATE turns SET node = $1, lease_until_ms = $3, updated_ms = $2 "
        "WHERE status = 'running' AND lease_until_ms < $2");
    auto rows = Query(sql, "cannot read turns", node, now_ms, until_ms);
    if (!rows) return rows.error();
    std::vector<TurnRecord> taken = TurnRows(*rows);
    std::vector<std::string> messages;
    messages.reserve(taken.size());
    for (const auto& t : taken) messages.push_back(t.id);
    std::set<std::string> touched;
    if (auto s = InterruptMessages(messages, now_ms, touched); !s) return s.error();
    for (const std::string& id : touched) {
      // A turn whose message was never written (the node died before it) touches no thread.
      if (auto s = TouchThreadOf(id, now_ms); !s && s.error().code != "store.not_found") {
        return s.error();
      }
    }
    for (const auto& t : taken) {
      if (auto s = Notify(t.id); !s) return s.error();
    }
    return taken;
  });
}

Result<TurnRecord> PgStore::RequestStop(const std::string& thread_id) {
  return Transact(true, [&]() -> Result<TurnRecord> {
    static const std::string sql = TurnReturning(
        "UPDATE turns SET stop_requested = 1, updated_ms = $2 "
        "WHERE thread_id = $1 AND status = 'running'");
    auto rows = Query(sql, "cannot read turns", thread_id, NowMs());
    if (!rows) return rows.error();
    if (rows->empty()) return NotFound("running turn of thread", thread_id);
    TurnRecord turn = std::move(TurnRows(*rows).front());
    if (auto s = Notify(turn.id); !s) return s.error();
    if (auto s = Notify("stops"); !s) return s.error();
    return turn;
  });
}

Status PgStore::EndTurn(const std::string& turn_id, const std::string& node,
                        const std::string& status) {
  if (Status s = CheckTurnEnd(status); !s) return s;
  return Transact(true, [&]() -> Status {
    auto rows = Query(
        "UPDATE turns SET status = $3, updated_ms = $4 "
        "WHERE id = $1 AND node = $2 AND status = 'running'",
        "cannot end turn " + turn_id, turn_id, node, status, NowMs());
    if (!rows) return rows.error();
    if (rows->affected() == 0) {
      return MakeError(ErrorKind::kConflict, "store.conflict",
                       "turn " + turn_id + " is not running on node " + node);
    }
    // Its message still running has lost its writer (the harness stopped writing after a store
    // failure): it is interrupted, as a taken-over turn's is.
    std::set<std::string> touched;
    const int64_t now = NowMs();
    if (auto s = InterruptMessages({turn_id}, now, touched); !s) return s;
    if (!touched.empty()) {
      if (auto s = TouchThreadOf(turn_id, now); !s) return s;
    }
    return Notify(turn_id);
  });
}

Status PgStore::AppendChunks(const std::vector<LoggedChunk>& chunks) {
  if (chunks.empty()) return {};
  return Transact(true, [&]() -> Status {
    // One statement a chunk, all in one flight with the notifications. The turn's counter is the
    // compare-and-set: seq must be exactly the number of chunks so far, and the row goes in only
    // when the counter moved. Each statement also reads the counter as it was (NULL: no such
    // turn), which is what a refusal reports. A refusal is no SQL error, so the chunks after it
    // still run: the scope rolls them back with the rest.
    static constexpr std::string_view kAppend =
        "WITH counted AS (UPDATE turns SET chunks = chunks + 1 WHERE id = $1 AND chunks = $2 "
        "RETURNING id), "
        "inserted AS (INSERT INTO turn_chunks(turn_id, seq, chunk) SELECT id, $2, $3 "
        "FROM counted RETURNING seq) "
        "SELECT (SELECT count(*) FROM inserted), (SELECT chunks FROM turns WHERE id = $1)";
    std::vector<PgStatement> statements;
    std::set<std::string> turns;
    for (const LoggedChunk& c : chunks) {
      statements.push_back({kAppend,
                            {c.turn_id, PgParam(c.seq), c.chunk},
                            "cannot append to the log of turn " + c.turn_id});
      turns.insert(c.turn_id);
    }
    for (const std::string& turn : turns) statements.push_back(NotifyStatement(turn));
    auto results = conn_->RunAll(statements);
    for (size_t i = 0; i < chunks.size(); ++i) {
      const LoggedChunk& c = chunks[i];
      if (!results[i]) return results[i].error();
      const PgRows& rows = *results[i];
      if (rows.Int(0, 0) == 0) {
        if (rows.Null(0, 1)) return NotFound("turn", c.turn_id);
        return MakeError(ErrorKind::kConflict, "store.conflict",
                         "chunk " + std::to_string(c.seq) + " of turn " + c.turn_id +
                             " is not the next one (the log holds " + rows.Str(0, 1) + ")");
      }
    }
    for (size_t i = chunks.size(); i < results.size(); ++i) {
      if (!results[i]) return results[i].error();
    }
    for (const std::string& turn : turns) notified_.push_back(turn);
    return {};
  });
}

Result<TurnLog> PgStore::ReadLog(const std::string& turn_id, int64_t after, int64_t limit) {
  return Transact(false, [&]() -> Result<TurnLog> {
    static const std::string sql = TurnSelect("WHERE id = $1");
    auto rows = Query(sql, "cannot read turns", turn_id);
    if (!rows) return rows.error();
    if (rows->empty()) return NotFound("turn", turn_id);
    TurnLog log{std::move(TurnRows(*rows).front()), {}};
    auto chunks = Query(
        "SELECT seq, chunk FROM turn_chunks WHERE turn_id = $1 AND seq > $2 ORDER BY seq "
        "LIMIT $3",
        "cannot read the log of turn " + turn_id, turn_id, after, limit > 0 ? limit : 4096);
    if (!chunks) return chunks.error();
    for (int r = 0; r < chunks->size(); ++r) {
      log.chunks.push_back({turn_id, chunks->Int(r, 0), chunks->Str(r, 1)});
    }
    return log;
  });
}

Result<int64_t> PgStore::PruneLogs(int64_t ended_before_ms) {
  return Transact(true, [&]() -> Result<int64_t> {
    auto rows = Query(
        "DELETE FROM turn_chunks WHERE turn_id IN (SELECT id FROM turns "
        "WHERE status <> 'running' AND updated_ms < $1)",
        "cannot prune the stream logs", ended_before_ms);
    if (!rows) return rows.error();
    // The turn rows stay (small; the thread's history of who ran what), with an empty log.
    return rows->affected();
  });
}

}  // namespace affordance::store::internal

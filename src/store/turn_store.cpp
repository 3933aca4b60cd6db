// SqliteStore: turns, their leases and their stream log (store.h "turns and their stream log").
// One process owns a SQLite file's turns in practice (several nodes need PostgreSQL), but the
// compare-and-sets are the same, so a `chat` beside a `serve` on one file stays correct.
#include "store/internal/sqlite_store.h"
#include "store/internal/validate.h"

#include <algorithm>
#include <array>
#include <set>
#include <utility>

namespace affordance::store::internal {

namespace {

TurnRecord TurnRow(const Statement& stmt) {
  TurnRecord t;
  t.id = std::string(stmt.Text(0));
  t.thread_id = std::string(stmt.Text(1));
  t.node = std::string(stmt.Text(2));
  t.status = std::string(stmt.Text(3));
  t.lease_until_ms = stmt.Int(4);
  t.stop_requested = stmt.Int(5) != 0;
  t.started_ms = stmt.Int(6);
  t.updated_ms = stmt.Int(7);
  t.chunks = stmt.Int(8);
  return t;
}

}  // namespace

// Statements below are string literals assembled at compile time: the connection's statement
// cache keys on the pointer, so each is one static string.
#define TURN_SELECT                                                      \
  "SELECT id, thread_id, node, status, lease_until_ms, stop_requested, " \
  "started_ms, updated_ms, chunks FROM turns "
#define TURN_RETURNING                                                       \
  " RETURNING id, thread_id, node, status, lease_until_ms, stop_requested, " \
  "started_ms, updated_ms, chunks"

Result<std::vector<TurnRecord>> SqliteStore::ReadTurns(std::string_view sql, const std::string& key,
                                                       int64_t a, int64_t b) {
  auto prepared = conn_->Prepare(sql);
  if (!prepared) return prepared.error();
  Statement stmt(*prepared);
  // Binds as many of key, a, b as the statement has parameters (?1, ?2, ?3).
  const int params = sqlite3_bind_parameter_count(*prepared);
  stmt.Bind(1, key);
  if (params >= 2) stmt.Bind(2, a);
  if (params >= 3) stmt.Bind(3, b);
  std::vector<TurnRecord> out;
  int rc;
  while ((rc = stmt.Step()) == SQLITE_ROW) out.push_back(TurnRow(stmt));
  if (rc != SQLITE_DONE) return IoError(conn_->db(), "cannot read turns");
  return out;
}

Status SqliteStore::BeginTurn(const TurnRecord& turn) {
  if (turn.id.empty() || turn.thread_id.empty() || turn.node.empty()) {
    return MakeError("store.bad_input", "a turn needs an id, a thread and a node");
  }
  return Transact(true, [&]() -> Status {
    auto prepared = conn_->Prepare(
        "INSERT INTO turns(id, thread_id, node, status, lease_until_ms, stop_requested, "
        "started_ms, updated_ms, chunks) VALUES (?1, ?2, ?3, 'running', ?4, 0, ?5, ?5, 0)");
    if (!prepared) return prepared.error();
    Statement stmt(*prepared);
    const int64_t now = NowMs();
    stmt.Bind(1, turn.id).Bind(2, turn.thread_id).Bind(3, turn.node);
    stmt.Bind(4, turn.lease_until_ms).Bind(5, turn.started_ms ? turn.started_ms : now);
    if (const int rc = stmt.Step(); rc != SQLITE_DONE) {
      if ((rc & 0xff) == SQLITE_CONSTRAINT) {
        return MakeError(ErrorKind::kConflict, "store.conflict",
                         "the thread already has a running turn (or the turn id is taken)",
                         turn.thread_id);
      }
      return IoError(conn_->db(), "cannot begin turn " + turn.id);
    }
    return {};
  });
}

Result<TurnRecord> SqliteStore::GetRunningTurn(const std::string& thread_id) {
  return Transact(false, [&]() -> Result<TurnRecord> {
    auto rows = ReadTurns(TURN_SELECT "WHERE thread_id = ?1 AND status = 'running'", thread_id);
    if (!rows) return rows.error();
    if (rows->empty()) return NotFound("running turn of thread", thread_id);
    return std::move(rows->front());
  });
}

Result<std::vector<TurnRecord>> SqliteStore::RenewLeases(const std::string& node,
                                                         int64_t until_ms) {
  return Transact(true, [&]() -> Result<std::vector<TurnRecord>> {
    return ReadTurns(
        "UPDATE turns SET lease_until_ms = ?2, updated_ms = ?3 "
        "WHERE node = ?1 AND status = 'running'" TURN_RETURNING,
        node, until_ms, NowMs());
  });
}

Result<std::vector<TurnRecord>> SqliteStore::TakeExpiredTurns(const std::string& node,
                                                              int64_t now_ms, int64_t until_ms) {
  auto taken = Transact(true, [&]() -> Result<std::vector<TurnRecord>> {
    auto rows = ReadTurns(
        "UPDATE turns SET node = ?1, lease_until_ms = ?3, updated_ms = ?2 "
        "WHERE status = 'running' AND lease_until_ms < ?2" TURN_RETURNING,
        node, now_ms, until_ms);
    if (!rows) return rows.error();
    std::vector<std::string> messages;
    for (const auto& t : *rows) messages.push_back(t.id);
    std::set<std::string> touched;
    if (auto s = InterruptMessages(messages, now_ms, touched); !s) return s.error();
    for (const std::string& id : touched) {
      // A turn whose message was never written (the node died before it) touches no thread.
      if (auto s = TouchThreadOf(id, now_ms); !s && s.error().code != "store.not_found") {
        return s.error();
      }
    }
    return rows;
  });
  if (taken) {
    for (const auto& t : *taken) wakeups_.Bump(t.id);
  }
  return taken;
}

Result<TurnRecord> SqliteStore::RequestStop(const std::string& thread_id) {
  auto stopped = Transact(true, [&]() -> Result<TurnRecord> {
    auto rows = ReadTurns(
        "UPDATE turns SET stop_requested = 1, updated_ms = ?2 "
        "WHERE thread_id = ?1 AND status = 'running'" TURN_RETURNING,
        thread_id, NowMs());
    if (!rows) return rows.error();
    if (rows->empty()) return NotFound("running turn of thread", thread_id);
    return std::move(rows->front());
  });
  if (stopped) {
    wakeups_.Bump(stopped->id);
    wakeups_.Bump("stops");
  }
  return stopped;
}

Status SqliteStore::EndTurn(const std::string& turn_id, const std::string& node,
                            const std::string& status) {
  if (Status s = CheckTurnEnd(status); !s) return s;
  auto ended = Transact(true, [&]() -> Status {
    auto prepared = conn_->Prepare(
        "UPDATE turns SET status = ?3, updated_ms = ?4 "
        "WHERE id = ?1 AND node = ?2 AND status = 'running'");
    if (!prepared) return prepared.error();
    Statement stmt(*prepared);
    stmt.Bind(1, turn_id).Bind(2, node).Bind(3, status).Bind(4, NowMs());
    if (stmt.Step() != SQLITE_DONE) return IoError(conn_->db(), "cannot end turn " + turn_id);
    if (sqlite3_changes(conn_->db()) == 0) {
      return MakeError(ErrorKind::kConflict, "store.conflict",
                       "turn " + turn_id + " is not running on node " + node);
    }
    // Its message still running has lost its writer (the harness stopped writing after a store
    // failure): it is interrupted, as a taken-over turn's is.
    std::set<std::string> touched;
    const int64_t now = NowMs();
    if (auto s = InterruptMessages({turn_id}, now, touched); !s) return s;
    if (touched.empty()) return {};
    return TouchThreadOf(turn_id, now);
  });
  if (ended) {
    wakeups_.Bump(turn_id);
    wakeups_.Forget(turn_id);  // it changes no more
  }
  return ended;
}

Status SqliteStore::AppendChunks(const std::vector<LoggedChunk>& chunks) {
  if (chunks.empty()) return {};
  auto appended = Transact(true, [&]() -> Status {
    auto insert =
        conn_->Prepare("INSERT INTO turn_chunks(turn_id, seq, chunk) VALUES (?1, ?2, ?3)");
    auto count =
        conn_->Prepare("UPDATE turns SET chunks = chunks + 1 WHERE id = ?1 AND chunks = ?2");
    if (!insert) return insert.error();
    if (!count) return count.error();
    for (const LoggedChunk& c : chunks) {
      // The counter is the compare-and-set: seq must be exactly the number of chunks so far.
      {
        Statement stmt(*count);
        stmt.Bind(1, c.turn_id).Bind(2, c.seq);
        if (stmt.Step() != SQLITE_DONE) {
          return IoError(conn_->db(), "cannot append to the log of turn " + c.turn_id);
        }
      }
      if (sqlite3_changes(conn_->db()) == 0) {
        auto rows = ReadTurns(TURN_SELECT "WHERE id = ?1", c.turn_id);
        if (!rows) return rows.error();
        if (rows->empty()) return NotFound("turn", c.turn_id);
        return MakeError(ErrorKind::kConflict, "store.conflict",
                         "chunk " + std::to_string(c.seq) + " of turn " + c.turn_id +
                             " is not the next one (the log holds " +
                             std::to_string(rows->front().chunks) + ")");
      }
      Statement stmt(*insert);
      stmt.Bind(1, c.turn_id).Bind(2, c.seq).Bind(3, c.chunk);
      if (stmt.Step() != SQLITE_DONE) {
        return IoError(conn_->db(), "cannot append to the log of turn " + c.turn_id);
      }
    }
    return {};
  });
  if (appended) {
    std::set<std::string_view> turns;
    for (const auto& c : chunks) {
      if (turns.insert(c.turn_id).second) wakeups_.Bump(c.turn_id);
    }
  }
  return appended;
}

Result<TurnLog> SqliteStore::ReadLog(const std::string& turn_id, int64_t after, int64_t limit) {
  return Transact(false, [&]() -> Result<TurnLog> {
    auto rows = ReadTurns(TURN_SELECT "WHERE id = ?1", turn_id);
    if (!rows) return rows.error();
    if (rows->empty()) return NotFound("turn", turn_id);
    TurnLog log{std::move(rows->front()), {}};
    auto prepared = conn_->Prepare(
        "SELECT seq, chunk FROM turn_chunks WHERE turn_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3");
    if (!prepared) return prepared.error();
    Statement stmt(*prepared);
    stmt.Bind(1, turn_id).Bind(2, after).Bind(3, limit > 0 ? limit : 4096);
    int rc;
    while ((rc = stmt.Step()) == SQLITE_ROW) {
      log.chunks.push_back({turn_id, stmt.Int(0), std::string(stmt.Text(1))});
    }
    if (rc != SQLITE_DONE) return IoError(conn_->db(), "cannot read the log of turn " + turn_id);
    return log;
  });
}

Result<int64_t> SqliteStore::PruneLogs(int64_t ended_before_ms) {
  auto pruned = Transact(true, [&]() -> Result<int64_t> {
    auto prepared = conn_->Prepare(
        "DELETE FROM turn_chunks WHERE turn_id IN (SELECT id FROM turns "
        "WHERE status <> 'running' AND updated_ms < ?1)");
    if (!prepared) return prepared.error();
    Statement stmt(*prepared);
    stmt.Bind(1, ended_before_ms);
    if (stmt.Step() != SQLITE_DONE) return IoError(conn_->db(), "cannot prune the stream logs");
    const int64_t deleted = sqlite3_changes(conn_->db());
    // The turn rows stay (small; the thread's history of who ran what), with an empty log.
    return deleted;
  });
  return pruned;
}

#undef TURN_SELECT
#undef TURN_RETURNING

}  // namespace affordance::store::internal

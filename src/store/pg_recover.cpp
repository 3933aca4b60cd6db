// PgStore::RecoverInterrupted, as recover.cpp: what a node killed mid-turn left "running"
// becomes "interrupted", in one transaction, deleting nothing. InterruptMessages is shared with
// TakeExpiredTurns (pg_turns.cpp).
#include "store/internal/codec.h"
#include "store/internal/pg_store.h"

#include <set>
#include <utility>

namespace affordance::store::internal {

Status PgStore::InterruptMessages(const std::vector<std::string>& candidates, int64_t now,
                                  std::set<std::string>& touched) {
  // Only messages still running: a finished one keeps its open parts (a call waiting for the
  // person's decision is open in a complete message).
  std::vector<std::string> messages;
  for (const std::string& id : candidates) {
    auto marked = Query(
        "UPDATE messages SET status = 'interrupted', updated_ms = $2 "
        "WHERE id = $1 AND status = 'running'",
        "cannot mark message " + id + " interrupted", id, now);
    if (!marked) return marked.error();
    if (marked->affected() > 0) messages.push_back(id);
  }
  for (const std::string& id : messages) {
    touched.insert(id);
    auto open = Query("SELECT seq, data FROM parts WHERE message_id = $1 AND open = 1",
                      "cannot read the open parts of message " + id, id);
    if (!open) return open.error();
    for (int r = 0; r < open->size(); ++r) {
      const int64_t seq = open->Int(r, 0);
      const std::string row = "part " + std::to_string(seq) + " of message " + id;
      auto data = DecodeJson(open->Text(r, 1), "the data of " + row);
      if (!data) return data.error();
      (*data)["interrupted"] = true;
      auto closed = Query(
          "UPDATE parts SET open = 0, state = 'interrupted', data = $3 "
          "WHERE message_id = $1 AND seq = $2",
          "cannot close " + row, id, seq, data->dump());
      if (!closed) return closed.error();
    }
  }
  for (const std::string& id : messages) {
    auto steps = Query(
        "UPDATE steps SET status = 'interrupted' WHERE status = 'running' AND message_id = $1",
        "cannot mark the steps of " + id + " interrupted", id);
    if (!steps) return steps.error();
    touched.insert(id);
  }
  return {};
}

Status PgStore::TouchThreadsOf(const std::set<std::string>& messages, int64_t now) {
  // Sorted thread ids: two nodes recovering at once lock thread rows in the same order.
  std::set<std::string> threads;
  for (const std::string& id : messages) {
    auto rows =
        Query("SELECT thread_id FROM messages WHERE id = $1", "cannot read message " + id, id);
    if (!rows) return rows.error();
    if (rows->empty()) return NotFound("message", id);
    threads.insert(rows->Str(0, 0));
  }
  for (const std::string& thread : threads) {
    if (auto s = Touch(thread, now); !s) return s;
  }
  return {};
}

Result<int64_t> PgStore::RecoverInterrupted(const AbandonedFn& abandoned) {
  return Transact(true, [&]() -> Result<int64_t> {
    const int64_t now = NowMs();
    std::set<std::string> touched;

    // The running messages, and of those the ones whose writer is gone.
    auto running = Query("SELECT id, meta FROM messages WHERE status = 'running' ORDER BY id",
                         "cannot read the running messages");
    if (!running) return running.error();
    std::vector<std::string> messages;
    for (int r = 0; r < running->size(); ++r) {
      std::string id = running->Str(r, 0);
      if (abandoned) {
        auto meta = DecodeJson(running->Text(r, 1), "the meta of message " + id);
        if (!meta) return meta.error();
        if (!abandoned(*meta)) continue;
      }
      messages.push_back(std::move(id));
    }
    if (auto s = InterruptMessages(messages, now, touched); !s) return s.error();
    // A step left running in a message that is no longer running has no writer either.
    auto stray = Query(
        "UPDATE steps SET status = 'interrupted' WHERE status = 'running' AND message_id IN "
        "(SELECT id FROM messages WHERE status != 'running') RETURNING message_id",
        "cannot mark running steps interrupted");
    if (!stray) return stray.error();
    for (int r = 0; r < stray->size(); ++r) touched.insert(stray->Str(r, 0));

    // The thread of every message that changed (its status, a part or a step) counts as written.
    if (auto s = TouchThreadsOf(touched, now); !s) return s.error();
    return static_cast<int64_t>(messages.size());
  });
}

}  // namespace affordance::store::internal

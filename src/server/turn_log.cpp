#include "server/turn_log.h"

#include "base/json_limits.h"
#include "server/protocol.h"
#include "server/turn_hub.h"

#include <chrono>
#include <iostream>
#include <set>
#include <utility>

namespace affordance::server {
namespace {

using Clock = std::chrono::steady_clock;

std::string ChunkText(const harness::Event& event) {
  return UiChunk(event).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// What a turn's row ends as, from its events (an error ends it failed, an abort aborted).
void NoteEnd(std::string& status, const harness::Event& e) {
  if (e.kind == harness::EventKind::kError) status = "failed";
  if (e.kind == harness::EventKind::kAbort) status = "aborted";
}

bool IsConflict(const Error& e) { return e.code == "store.conflict"; }

}  // namespace

Result<std::unique_ptr<TurnLog>> TurnLog::Create(store::Store& store, TurnLogOptions options,
                                                 store::Store* leases) {
  if (options.node.empty()) return MakeError("server.bad_option", "a node needs a name");
  if (options.lease_ms < 300) {
    return MakeError("server.bad_option", "--lease-ms must be at least 300",
                     std::to_string(options.lease_ms));
  }
  std::unique_ptr<TurnLog> log(
      new TurnLog(store, leases != nullptr ? *leases : store, std::move(options)));
  // An earlier process with this node's name is gone (this one has its name now): its running
  // turns end at once instead of when their lease expires.
  if (auto mine = log->leases_.RenewLeases(log->node(), 0); mine && !mine->empty()) log->Sweep();
  log->writer_ = std::thread([l = log.get()] { l->WriterLoop(); });
  log->lease_ = std::thread([l = log.get()] { l->LeaseLoop(); });
  return log;
}

TurnLog::~TurnLog() {
  {
    std::unique_lock lock(mu_);
    stopping_ = true;
    wake_.notify_all();
  }
  if (writer_.joinable()) writer_.join();
  if (lease_.joinable()) lease_.join();
  std::unique_lock lock(mu_);
  followers_done_.wait(lock, [&] { return followers_ == 0; });
}

TurnLogStats TurnLog::stats() const {
  std::lock_guard lock(mu_);
  TurnLogStats s = stats_;
  s.followers = followers_;
  return s;
}

Status TurnLog::Begin(const std::shared_ptr<ActiveTurn>& turn) {
  store::TurnRecord row;
  row.id = turn->id();
  row.thread_id = turn->thread_id();
  row.node = options_.node;
  row.started_ms = store::NowMs();
  row.lease_until_ms = row.started_ms + options_.lease_ms;
  {
    // Registered before the row exists, so the lease thread never sees a row of this node it does
    // not know (it would take it for a turn another node took over).
    std::lock_guard lock(mu_);
    local_[row.id].turn = turn;
  }
  Status begun = store_.BeginTurn(row);
  if (!begun) {
    std::lock_guard lock(mu_);
    local_.erase(row.id);
    if (IsConflict(begun.error())) {
      return MakeError(ErrorKind::kConflict, "server.turn_active",
                       "this thread already has a turn running; cancel it or wait for it to end",
                       turn->thread_id());
    }
  }
  return begun;
}

void TurnLog::Publish(const std::shared_ptr<ActiveTurn>& turn, harness::Event event) {
  std::lock_guard lock(mu_);
  queue_.push_back({turn, std::move(event)});
  wake_.notify_all();
}

void TurnLog::End(const std::shared_ptr<ActiveTurn>& turn) {
  std::lock_guard lock(mu_);
  queue_.push_back({turn, std::nullopt});
  wake_.notify_all();
}

// ---- the writer: group commit, then delivery ----------------------------------------------------

void TurnLog::WriterLoop() {
  for (;;) {
    std::vector<Item> items;
    std::vector<store::LoggedChunk> chunks;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and everything was delivered
      items.assign(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
      queue_.clear();
      for (const Item& item : items) {
        if (!item.event) continue;
        auto it = local_.find(item.turn->id());
        if (it == local_.end()) continue;
        Local& l = it->second;
        NoteEnd(l.status, *item.event);
        if (!l.logged) continue;
        chunks.push_back({item.turn->id(), l.next_seq++, ChunkText(*item.event)});
      }
    }
    Append(chunks);
    for (Item& item : items) {
      if (item.event) {
        item.turn->Deliver(std::move(*item.event));
        continue;
      }
      std::string status = "finished";
      bool known = false;
      {
        std::lock_guard lock(mu_);
        auto it = local_.find(item.turn->id());
        if (it != local_.end()) {
          status = it->second.status;
          known = true;
        }
      }
      // Ended even when its chunks went unlogged (an outage): the row must not stay running. A
      // turn another node took over is that node's to end (conflict).
      if (known) {
        Status s = store_.EndTurn(item.turn->id(), options_.node, status);
        for (int i = 0; !s && !IsConflict(s.error()) && i < 50 && !stopping_; ++i) {
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
          s = store_.EndTurn(item.turn->id(), options_.node, status);
        }
        if (!s && !IsConflict(s.error())) {
          std::cerr << "affordance: could not end turn " << item.turn->id()
                    << " in the store: " << s.error().ToString() << "\n";
        }
      }
      {
        // Only now: until its row has ended, the lease thread must know the turn as ours (a
        // running row of this node that it does not know is one to end as interrupted).
        std::lock_guard lock(mu_);
        local_.erase(item.turn->id());
      }
      item.turn->Finish();
    }
  }
}

void TurnLog::Append(std::vector<store::LoggedChunk>& chunks) {
  if (chunks.empty()) return;
  auto unlog = [&](const std::string& turn_id, const std::string& why) {
    std::lock_guard lock(mu_);
    auto it = local_.find(turn_id);
    if (it != local_.end() && it->second.logged) {
      it->second.logged = false;
      ++stats_.unlogged;
      std::cerr << "affordance: turn " << turn_id << " streams unlogged from now on: " << why
                << "\n";
    }
  };
  const auto deadline = Clock::now() + std::chrono::milliseconds(options_.outage_ms);
  for (int attempt = 0;; ++attempt) {
    Status s = store_.AppendChunks(chunks);
    if (s) {
      std::lock_guard lock(mu_);
      stats_.appended += static_cast<int64_t>(chunks.size());
      ++stats_.batches;
      return;
    }
    if (IsConflict(s.error()) || s.error().code == "store.not_found") {
      // Some turn of the batch is no longer this node's (taken over): append turn by turn, and
      // stop logging the turns that refuse.
      std::map<std::string, std::vector<store::LoggedChunk>> by_turn;
      for (auto& c : chunks) by_turn[c.turn_id].push_back(std::move(c));
      for (auto& [id, mine] : by_turn) {
        Status t = store_.AppendChunks(mine);
        if (!t) unlog(id, t.error().ToString());
      }
      return;
    }
    if (Clock::now() >= deadline || stopping_) {
      std::set<std::string> turns;
      for (const auto& c : chunks) turns.insert(c.turn_id);
      for (const auto& id : turns) unlog(id, s.error().ToString());
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(50 * (attempt + 1), 500)));
  }
}

// ---- leases: renew ours, take over the expired, hear stops --------------------------------------

void TurnLog::LeaseLoop() {
  const int interval = static_cast<int>(options_.lease_ms / 3);
  uint64_t stops = leases_.Changes("stops");
  auto last_prune = Clock::now();
  // Since when renewals succeed again. After a store outage every node's leases may have lapsed:
  // takeovers wait one lease after the store is back, so the nodes still running their turns
  // renew them first. (Started healthy: Create just used the store.)
  std::optional<Clock::time_point> healthy_since =
      Clock::now() - std::chrono::milliseconds(options_.lease_ms);
  for (;;) {
    {
      std::unique_lock lock(mu_);
      if (stopping_) return;
    }
    // Woken early by a stop posted anywhere; at the latest after a third of the lease. Waits in
    // short slices so the destructor is not held up.
    const auto until = Clock::now() + std::chrono::milliseconds(interval);
    const uint64_t seen = stops;
    while (stops == seen && Clock::now() < until) {
      stops = leases_.WaitChanges("stops", seen, 100);
      std::lock_guard lock(mu_);
      if (stopping_) return;
    }
    // Ours: the turns known before the renewal (one registered meanwhile is not "lost").
    std::map<std::string, std::weak_ptr<ActiveTurn>> known;
    {
      std::lock_guard lock(mu_);
      for (const auto& [id, l] : local_) known[id] = l.turn;
    }
    const int64_t now = store::NowMs();
    auto renewed = leases_.RenewLeases(options_.node, now + options_.lease_ms);
    if (!renewed) {
      healthy_since.reset();
    } else if (!healthy_since) {
      healthy_since = Clock::now();
    }
    if (renewed) {
      std::set<std::string> held;
      for (const auto& t : *renewed) {
        held.insert(t.id);
        auto it = known.find(t.id);
        if (it == known.end()) {
          // A running row of this node that no turn here writes: one taken over whose end did
          // not reach the store yet. End it now.
          TakeOver(t);
          continue;
        }
        if (!t.stop_requested) continue;
        if (auto turn = it->second.lock()) turn->Cancel();
      }
      for (const auto& [id, weak] : known) {
        if (held.count(id)) continue;
        auto turn = weak.lock();
        if (!turn || turn->done()) continue;
        // Ended already, or taken over by another node after our lease expired: stop it here.
        auto row = leases_.ReadLog(id, INT64_MAX, 1);
        // Unreadable (an outage, or the row is not written yet): decide on a later pass.
        if (!row || (row->turn.status == "running" && row->turn.node == options_.node)) continue;
        {
          std::lock_guard lock(mu_);
          auto l = local_.find(id);
          if (l != local_.end()) l->second.logged = false;
        }
        std::cerr << "affordance: turn " << id << " was taken over by another node; stopping it\n";
        turn->Cancel();
      }
    }
    if (healthy_since &&
        Clock::now() - *healthy_since >= std::chrono::milliseconds(options_.lease_ms)) {
      Sweep();
    }
    if (Clock::now() - last_prune > std::chrono::seconds(60)) {
      last_prune = Clock::now();
      (void)leases_.PruneLogs(store::NowMs() - options_.retention_ms);
    }
  }
}

void TurnLog::Sweep() {
  const int64_t now = store::NowMs();
  auto taken = leases_.TakeExpiredTurns(options_.node, now, now + options_.lease_ms);
  if (!taken) return;  // the store is down: the next pass tries again
  for (const auto& t : *taken) TakeOver(t);
}

bool TurnLog::LogEnded(const store::TurnRecord& turn) {
  if (turn.chunks == 0) return false;
  auto last = leases_.ReadLog(turn.id, turn.chunks - 2, 1);
  if (!last || last->chunks.empty()) return false;
  auto chunk = ParseJson(last->chunks.back().chunk, "server.bad_chunk", "server.bad_chunk",
                         "a logged chunk", kMaxStoredJsonDepth);
  if (!chunk || !chunk->is_object()) return false;
  const std::string type = chunk->value("type", "");
  return type == "finish" || type == "abort";
}

void TurnLog::TakeOver(const store::TurnRecord& turn) {
  bool logged = false;
  {
    std::lock_guard lock(mu_);
    auto [it, fresh] = taken_.try_emplace(turn.id, false);
    if (fresh) ++stats_.taken_over;
    logged = it->second;
  }
  // What a client following the log sees last: the turn's end, in the order the stream keeps
  // (data-turn, then abort). The message itself was marked interrupted by the takeover.
  harness::Event report = harness::Event::Of(harness::EventKind::kTurn);
  report.id = turn.id;
  report.value = {{"threadId", turn.thread_id},
                  {"messageId", turn.id},
                  {"status", "interrupted"},
                  {"reason", "the node running this turn stopped renewing its lease"}};
  harness::Event abort = harness::Event::Of(harness::EventKind::kAbort);
  abort.text = "interrupted: the node running this turn stopped";
  std::vector<store::LoggedChunk> chunks = {{turn.id, turn.chunks, ChunkText(report)},
                                            {turn.id, turn.chunks + 1, ChunkText(abort)}};
  // Once: a retry (the store failed in between) must not end the log twice, and a log its own
  // node ended (its end did not reach the turn's row) keeps that end.
  if (!logged && LogEnded(turn)) logged = true;
  if (!logged && leases_.AppendChunks(chunks)) {
    std::lock_guard lock(mu_);
    taken_[turn.id] = true;
  }
  Status ended = leases_.EndTurn(turn.id, options_.node, "interrupted");
  if (ended || ended.error().code == "store.conflict") {
    std::lock_guard lock(mu_);
    taken_.erase(turn.id);
    return;
  }
  // Still running on this node: the next pass finds it among the renewed rows and retries.
  std::cerr << "affordance: could not end turn " << turn.id
            << " taken over: " << ended.error().ToString() << "\n";
}

// ---- following a turn of another node -----------------------------------------------------------

Result<store::TurnRecord> TurnLog::Running(const std::string& thread_id) {
  return store_.GetRunningTurn(thread_id);
}

Status TurnLog::RequestStop(const std::string& thread_id) {
  auto stopped = leases_.RequestStop(thread_id);
  if (!stopped) return stopped.error();
  return {};
}

Result<std::shared_ptr<ActiveTurn>> TurnLog::Follow(const store::TurnRecord& turn) {
  auto mirror = std::make_shared<ActiveTurn>(turn.thread_id, "", false, turn.id);
  {
    std::lock_guard lock(mu_);
    if (stopping_) {
      return MakeError(ErrorKind::kUnavailable, "server.stopping", "the server is shutting down");
    }
    if (followers_ >= options_.max_followers) {
      return MakeError(ErrorKind::kUnavailable, "server.busy",
                       "too many streams of other nodes' turns are followed; try again shortly",
                       std::to_string(followers_));
    }
    ++followers_;
  }
  std::thread([this, mirror, turn] { Follower(mirror, turn); }).detach();
  return mirror;
}

void TurnLog::Follower(std::shared_ptr<ActiveTurn> mirror, store::TurnRecord turn) {
  int64_t after = -1;
  int failures = 0;
  bool watched = false;
  for (;;) {
    {
      std::lock_guard lock(mu_);
      if (stopping_) break;
    }
    // The mirror is held by the HTTP stream while a client reads it; alone, nobody does.
    if (mirror.use_count() > 1) watched = true;
    if (watched && mirror.use_count() == 1) break;
    const uint64_t seen = store_.Changes(turn.id);
    auto log = store_.ReadLog(turn.id, after, 1024);
    if (!log) {
      if (log.error().code != "store.not_found" && ++failures * options_.poll_ms < 60000) {
        store_.WaitChanges(turn.id, seen, options_.poll_ms);
        continue;
      }
      harness::Event error = harness::Event::Of(harness::EventKind::kError);
      error.text = "the turn's stream log cannot be read: " + log.error().ToString();
      mirror->Deliver(std::move(error));
      break;
    }
    failures = 0;
    for (const auto& c : log->chunks) {
      after = c.seq;
      // The log is another process's writing: parsed as untrusted text (depth first).
      auto json = ParseJson<nlohmann::ordered_json>(c.chunk, "server.bad_chunk", "server.bad_chunk",
                                                    "a logged chunk", kMaxStoredJsonDepth);
      auto event = json ? ParseUiChunk(*json) : Result<harness::Event>(json.error());
      if (!event) {
        harness::Event error = harness::Event::Of(harness::EventKind::kError);
        error.text = "chunk " + std::to_string(c.seq) +
                     " of the turn's log is damaged: " + event.error().ToString();
        mirror->Deliver(std::move(error));
        continue;
      }
      mirror->Deliver(std::move(*event));
    }
    if (log->turn.status != "running" && log->chunks.size() < 1024) break;
    if (log->chunks.empty()) store_.WaitChanges(turn.id, seen, options_.poll_ms);
  }
  mirror->Finish();
  std::lock_guard lock(mu_);
  --followers_;
  followers_done_.notify_all();
}

}  // namespace affordance::server

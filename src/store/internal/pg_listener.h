// PgListener: other nodes' changes, delivered. A second connection LISTENs on the channel
// kPgChannel; a background thread waits on its socket and bumps the topic each notification
// names (its payload: a turn id, or "stops") in the store's Wakeups, so WaitChanges returns as
// soon as another node has committed a write a reader follows.
//
// If the connection drops (the server restarted), the thread reconnects with backoff (0.1 s
// doubling to 5 s); notifications sent meanwhile are lost, and readers fall back on their
// WaitChanges timeout (they re-read after every return anyway). The destructor stops the thread
// promptly, even while it connects. Private to src/store.
#pragma once

#include "store/internal/pg_conn.h"
#include "store/internal/wakeups.h"

#include <atomic>
#include <list>
#include <string>
#include <thread>
#include <unordered_map>

namespace affordance::store::internal {

// The channel every node notifies and listens on.
inline constexpr const char* kPgChannel = "affordance_turns";

class PgListener {
 public:
  // Connects and LISTENs before returning, so no change committed after Open() returns is
  // missed. Errors: "store.open".
  static Result<std::unique_ptr<PgListener>> Start(const std::string& uri, Wakeups& wakeups);
  ~PgListener();
  PgListener(const PgListener&) = delete;
  // Notifications sent by this backend (the store's own connection, PQbackendPID) are skipped:
  // the store bumps its own topics after each commit, and the echo would wake its readers twice.
  void IgnoreBackend(int pid) { own_backend_ = pid; }
  PgListener& operator=(const PgListener&) = delete;

 private:
  PgListener(std::string uri, Wakeups& wakeups, PgConnPtr conn, int stop_fd);

  void Loop();
  // Reads what arrived; false when the connection is gone.
  bool Drain();
  // Connects and LISTENs without blocking the stop signal; nullptr when stopped or failed.
  PgConnPtr Connect();
  // Waits until `fd` is ready for `events` or `timeout_ms` passed; false when stop was signalled.
  bool WaitFor(int fd, short events, int timeout_ms);
  // Wakeups::Bump, remembering at most kRemembered topics seen from the channel and forgetting
  // the least recently bumped one beyond that: turns of other nodes end there, and only their
  // node forgets them.
  void Bump(const std::string& topic);

  static constexpr size_t kRemembered = 4096;

  std::string uri_;
  Wakeups& wakeups_;
  PgConnPtr conn_;  // owned by the thread once it runs
  int stop_fd_;     // an eventfd: written once by the destructor
  std::atomic<int> own_backend_{0};
  std::list<std::string> recent_;  // most recently bumped first (the thread's own)
  std::unordered_map<std::string, std::list<std::string>::iterator> recent_index_;
  std::thread thread_;
};

}  // namespace affordance::store::internal

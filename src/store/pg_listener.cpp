#include "store/internal/pg_listener.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>

namespace affordance::store::internal {

namespace {

constexpr int kFirstBackoffMs = 100;
constexpr int kMaxBackoffMs = 5000;
constexpr int kConnectTimeoutMs = 10000;

bool Listen(PGconn* conn) {
  PgResultPtr result(PQexec(conn, (std::string("LISTEN ") + kPgChannel).c_str()));
  return result && PQresultStatus(result.get()) == PGRES_COMMAND_OK;
}

}  // namespace

Result<std::unique_ptr<PgListener>> PgListener::Start(const std::string& uri, Wakeups& wakeups) {
  auto conn = PgConn::Connect(uri);
  if (!conn) return conn.error();
  if (!Listen((*conn)->get())) {
    return MakeError("store.open",
                     "cannot LISTEN for other nodes' changes: " + (*conn)->LastError(),
                     RedactUri(uri));
  }
  int stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (stop_fd < 0) {
    return MakeError("store.open", std::string("cannot create an eventfd: ") + strerror(errno));
  }
  return std::unique_ptr<PgListener>(new PgListener(uri, wakeups, (*conn)->Release(), stop_fd));
}

PgListener::PgListener(std::string uri, Wakeups& wakeups, PgConnPtr conn, int stop_fd)
    : uri_(std::move(uri)), wakeups_(wakeups), conn_(std::move(conn)), stop_fd_(stop_fd) {
  thread_ = std::thread([this] { Loop(); });
}

PgListener::~PgListener() {
  uint64_t one = 1;
  (void)!write(stop_fd_, &one, sizeof one);
  if (thread_.joinable()) thread_.join();
  close(stop_fd_);
}

bool PgListener::WaitFor(int fd, short events, int timeout_ms) {
  pollfd fds[2] = {{stop_fd_, POLLIN, 0}, {fd, events, 0}};
  int n = poll(fds, fd >= 0 ? 2 : 1, timeout_ms);
  return !(n > 0 && (fds[0].revents & POLLIN));
}

void PgListener::Loop() {
  int backoff_ms = kFirstBackoffMs;
  for (;;) {
    if (!conn_) {
      conn_ = Connect();
      if (!conn_) {
        if (!WaitFor(-1, 0, backoff_ms)) return;
        backoff_ms = std::min(backoff_ms * 2, kMaxBackoffMs);
        continue;
      }
      backoff_ms = kFirstBackoffMs;
    }
    if (!WaitFor(PQsocket(conn_.get()), POLLIN, -1)) return;
    if (!Drain()) conn_.reset();
  }
}

bool PgListener::Drain() {
  if (!PQconsumeInput(conn_.get())) return false;
  while (PGnotify* n = PQnotifies(conn_.get())) {
    std::string topic = n->extra ? n->extra : "";
    const bool own = n->be_pid == own_backend_;
    PQfreemem(n);
    if (!topic.empty() && !own) Bump(topic);
  }
  return PQstatus(conn_.get()) == CONNECTION_OK;
}

PgConnPtr PgListener::Connect() {
  PgConnPtr conn = PgConn::StartConnect(uri_);
  if (!conn || PQstatus(conn.get()) == CONNECTION_BAD) return nullptr;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kConnectTimeoutMs);
  // PQconnectPoll's protocol: start as if it had asked to write.
  PostgresPollingStatusType state = PGRES_POLLING_WRITING;
  while (state != PGRES_POLLING_OK) {
    if (state == PGRES_POLLING_FAILED) return nullptr;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return nullptr;
    short events = state == PGRES_POLLING_READING ? POLLIN : POLLOUT;
    if (!WaitFor(PQsocket(conn.get()), events, static_cast<int>(left.count()))) return nullptr;
    state = PQconnectPoll(conn.get());
  }
  if (!Listen(conn.get())) return nullptr;
  return conn;
}

void PgListener::Bump(const std::string& topic) {
  wakeups_.Bump(topic);
  if (auto it = recent_index_.find(topic); it != recent_index_.end()) {
    recent_.splice(recent_.begin(), recent_, it->second);
    return;
  }
  recent_.push_front(topic);
  recent_index_.emplace(topic, recent_.begin());
  if (recent_.size() > kRemembered) {
    wakeups_.Forget(recent_.back());
    recent_index_.erase(recent_.back());
    recent_.pop_back();
  }
}

}  // namespace affordance::store::internal

// Slows a source that keeps presenting wrong credentials: an access token (`authorization:
// Bearer`, server/gate.h) or a sign-in code (POST /api/session, server/person_session.h).
// docs/SECURITY.md ("Wrong credentials") states the policy:
//
//   - A source is one remote address, or one OS user on loopback (the kernel names a loopback
//     socket's owner: server/peer_user.h). Another user's failures never slow the person's user.
//   - The first kFreeFailures wrong credentials cost nothing; each further one makes that source
//     wait, doubling from kFirstWaitMs to kMaxWaitMs. While it waits, a credential it presents is
//     not checked at all: the request is refused with 429 "server.slow_down", so guessing runs at
//     most one try per wait. A right credential ends the source's record; so does kForgetMs with
//     no failure.
//   - What the backoff never gates: a valid person session, and the person's own browser on this
//     machine starting one (a loopback connection of the server's OS user needs no code). So no
//     one can use it to lock the person out of their local session; at most they slow themselves
//     (or, in remote mode, others behind the same address).
//
// Memory is bounded: at most kMaxSources records; beyond it the least recently failing one goes.
//
// Thread safety: all methods may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>

namespace affordance::server {

struct HttpRequest;

class CredentialBackoff {
 public:
  static constexpr int kFreeFailures = 64;
  static constexpr int64_t kFirstWaitMs = 1000;
  static constexpr int64_t kMaxWaitMs = 5LL * 60 * 1000;
  static constexpr int64_t kForgetMs = 15LL * 60 * 1000;
  static constexpr size_t kMaxSources = 4096;

  // `now_ms`: the clock (tests); unset = a steady clock.
  explicit CredentialBackoff(std::function<int64_t()> now_ms = nullptr);

  // The source a request's credential is charged to: "uid:<n>" for a loopback peer whose owner the
  // kernel named, else "addr:<peer address>".
  static std::string SourceOf(const HttpRequest& request);

  // 0 when `source` may present a credential now, else how many ms it must still wait.
  int64_t WaitMs(const std::string& source) const;
  // A wrong credential from `source`.
  void Fail(const std::string& source);
  // A right one: `source` starts afresh.
  void Succeed(const std::string& source);
  // The sources that must wait now (for GET /deploy-truth).
  int64_t Waiting() const;

 private:
  struct Record {
    int failures = 0;
    int64_t last_failure_ms = 0;
    int64_t until_ms = 0;
  };
  int64_t Now() const;

  std::function<int64_t()> now_ms_;
  mutable std::mutex mu_;
  std::map<std::string, Record> records_;
};

}  // namespace affordance::server

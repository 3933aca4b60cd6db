#include "server/credential_backoff.h"

#include "server/router.h"

#include <algorithm>
#include <chrono>

namespace affordance::server {

CredentialBackoff::CredentialBackoff(std::function<int64_t()> now_ms)
    : now_ms_(std::move(now_ms)) {}

int64_t CredentialBackoff::Now() const {
  if (now_ms_) return now_ms_();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string CredentialBackoff::SourceOf(const HttpRequest& r) {
  if (r.peer_loopback && r.peer_uid) return "uid:" + std::to_string(*r.peer_uid);
  return "addr:" + r.peer_address;
}

int64_t CredentialBackoff::WaitMs(const std::string& source) const {
  const int64_t now = Now();
  std::lock_guard lock(mu_);
  auto it = records_.find(source);
  if (it == records_.end()) return 0;
  return std::max<int64_t>(0, it->second.until_ms - now);
}

void CredentialBackoff::Fail(const std::string& source) {
  const int64_t now = Now();
  std::lock_guard lock(mu_);
  auto quiet = [&](const Record& r) {
    return r.until_ms <= now && now - r.last_failure_ms >= kForgetMs;
  };
  if (auto it = records_.find(source); it != records_.end() && quiet(it->second)) {
    records_.erase(it);  // forgotten: it starts afresh
  }
  if (records_.size() >= kMaxSources && !records_.count(source)) {
    std::erase_if(records_, [&](const auto& e) { return quiet(e.second); });
  }
  if (records_.size() >= kMaxSources && !records_.count(source)) {
    auto oldest =
        std::min_element(records_.begin(), records_.end(), [](const auto& a, const auto& b) {
          return a.second.last_failure_ms < b.second.last_failure_ms;
        });
    records_.erase(oldest);
  }
  Record& r = records_[source];
  ++r.failures;
  r.last_failure_ms = now;
  if (r.failures > kFreeFailures) {
    const int doublings = std::min(r.failures - kFreeFailures - 1, 20);
    r.until_ms = now + std::min(kMaxWaitMs, kFirstWaitMs << doublings);
  }
}

void CredentialBackoff::Succeed(const std::string& source) {
  std::lock_guard lock(mu_);
  records_.erase(source);
}

int64_t CredentialBackoff::Waiting() const {
  const int64_t now = Now();
  std::lock_guard lock(mu_);
  return std::count_if(records_.begin(), records_.end(),
                       [&](const auto& e) { return e.second.until_ms > now; });
}

}  // namespace affordance::server

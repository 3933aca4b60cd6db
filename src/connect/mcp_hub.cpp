// The road's MCP sessions: start on first use, restart with backoff, stop with the road.
#include "connect/internal/mcp_hub.h"

#include "connect/sql_guard.h"

#include <algorithm>
#include <chrono>

namespace affordance::connect {

using nlohmann::json;

namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string Tail(const std::string& s, size_t n) {
  return ValidUtf8(s.size() <= n ? s : s.substr(s.size() - n));
}

// Errors after which the session cannot be trusted to stay in step with the server.
bool EndsSession(const Error& e) {
  return e.code == "connect.mcp_timeout" || e.code == "connect.mcp_disconnected" ||
         e.code == "connect.mcp_protocol" || e.code == "connect.mcp_message_too_large" ||
         e.code == "connect.too_deep";
}

}  // namespace

Result<std::shared_ptr<McpSession>> McpHub::Session(const ConnectorManifest& m) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    Slot& slot = slots_[m.slug];
    if (slot.session && slot.session->alive()) return slot.session;
  }
  std::lock_guard<std::mutex> starting(start_mu_);
  std::unique_lock<std::mutex> lock(mu_);
  Slot& slot = slots_[m.slug];
  if (slot.session && slot.session->alive()) return slot.session;
  if (slot.session) {  // it ended without a request noticing (it exited between calls)
    std::shared_ptr<McpSession> dead = std::move(slot.session);
    lock.unlock();
    Failed(m.slug, dead, dead->death());
    lock.lock();
  }
  int64_t now = NowMs();
  if (slot.failures > 0 && now < slot.retry_at_ms) {
    Error last = slot.last_error.value_or(Error{});
    return MakeError(ErrorKind::kUnavailable, "connect.mcp_disconnected",
                     "the MCP server of \"" + m.slug + "\" is disconnected (" + last.code + ": " +
                         last.message + "); it is started again in " +
                         std::to_string(slot.retry_at_ms - now) + " ms",
                     last.detail);
  }
  lock.unlock();
  auto opened = McpSession::Open(m.source);
  lock.lock();
  ++slot.starts;
  if (!opened) {
    slot.last_error = opened.error();
    ++slot.failures;
    int64_t wait = backoff_ms_ << std::min(slot.failures - 1, 16);
    slot.retry_at_ms = NowMs() + std::min<int64_t>(wait, 30000);
    slot.stderr_tail = opened.error().detail;
    return opened.error();
  }
  slot.session = std::shared_ptr<McpSession>(std::move(opened.value()));
  slot.info = slot.session->info();
  return slot.session;
}

void McpHub::Failed(const std::string& slug, const std::shared_ptr<McpSession>& session, Error e) {
  std::string tail = session->StderrLog();
  session->Stop();
  std::lock_guard<std::mutex> lock(mu_);
  Slot& slot = slots_[slug];
  if (slot.session == session) slot.session.reset();
  slot.last_error = std::move(e);
  slot.stderr_tail = Tail(tail, 2000);
  ++slot.failures;
  int64_t wait = backoff_ms_ << std::min(slot.failures - 1, 16);
  slot.retry_at_ms = NowMs() + std::min<int64_t>(wait, 30000);
}

McpReply McpHub::Call(const ConnectorManifest& m, const std::string& method, const json& params,
                      int64_t timeout_ms) {
  McpReply reply;
  auto session = Session(m);
  if (!session) {
    reply.result = session.error();
    return reply;
  }
  reply = (*session)->Request(method, params, timeout_ms);
  if (!reply.result && EndsSession(reply.result.error())) {
    Failed(m.slug, *session, reply.result.error());
  } else {
    std::lock_guard<std::mutex> lock(mu_);
    slots_[m.slug].failures = 0;
  }
  return reply;
}

std::optional<McpServerInfo> McpHub::Info(const std::string& slug) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = slots_.find(slug);
  return it == slots_.end() ? std::nullopt : it->second.info;
}

std::string McpHub::State(const std::string& slug) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = slots_.find(slug);
  if (it == slots_.end() || it->second.starts == 0) return "empty";
  if (it->second.session && it->second.session->alive()) return "live";
  return "disconnected";
}

json McpHub::Status(const std::string& slug) const {
  std::string state = State(slug);
  std::lock_guard<std::mutex> lock(mu_);
  json out = {{"state", state == "live" ? "connected" : state == "empty" ? "not_started" : state}};
  auto it = slots_.find(slug);
  if (it == slots_.end()) return out;
  const Slot& s = it->second;
  if (s.info) {
    // The server's own words: shown, never followed.
    out["server"] = {{"name", s.info->name},
                     {"version", s.info->version},
                     {"instructions", {{"trust", "untrusted"}, {"text", s.info->instructions}}}};
    out["protocol_version"] = s.info->protocol_version;
  }
  out["starts"] = s.starts;
  out["failures"] = s.failures;
  if (s.last_error) {
    out["last_error"] = {{"code", s.last_error->code}, {"message", s.last_error->message}};
  }
  std::string tail = s.session ? Tail(s.session->StderrLog(), 2000) : s.stderr_tail;
  if (!tail.empty()) out["stderr_tail"] = tail;
  if (!s.catalog_notes.empty()) out["catalog_notes"] = s.catalog_notes;
  if (s.catalog_error) {
    out["catalog_error"] = {{"code", s.catalog_error->code}, {"message", s.catalog_error->message}};
  }
  return out;
}

bool McpHub::TakeListChanged(const std::string& slug) {
  std::shared_ptr<McpSession> session;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = slots_.find(slug);
    if (it == slots_.end() || !it->second.session) return false;
    session = it->second.session;
  }
  return session->TakeListChanged();
}

std::mutex& McpHub::CatalogLock(const std::string& slug) {
  std::lock_guard<std::mutex> lock(mu_);
  return *slots_[slug].catalog_mu;
}

void McpHub::SetCatalog(const std::string& slug, bool loaded, std::vector<std::string> notes,
                        std::optional<Error> error) {
  std::lock_guard<std::mutex> lock(mu_);
  Slot& s = slots_[slug];
  s.catalog_loaded = loaded;
  s.catalog_notes = std::move(notes);
  s.catalog_error = std::move(error);
}

bool McpHub::CatalogLoaded(const std::string& slug) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = slots_.find(slug);
  return it != slots_.end() && it->second.catalog_loaded;
}

void McpHub::StopAll() {
  std::vector<std::shared_ptr<McpSession>> sessions;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [slug, slot] : slots_) {
      if (slot.session) sessions.push_back(std::move(slot.session));
    }
  }
  for (auto& s : sessions) s->Stop();
}

}  // namespace affordance::connect

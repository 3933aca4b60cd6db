// The road's mirrors: where they live, syncing them (foreground and background), freshness and
// credential state, and direct guarded SQL.
#include "connect/calendar.h"
#include "connect/internal/mcp_hub.h"
#include "connect/printed_cli.h"
#include "connect/road.h"

#include <sys/stat.h>

#include <chrono>
#include <cstdlib>

namespace affordance::connect {

using nlohmann::json;

ConnectorRoad::ConnectorRoad(std::vector<ConnectorManifest> manifests, RoadOptions options)
    : base_(std::move(manifests)),
      options_(std::move(options)),
      mcp_(std::make_unique<McpHub>(options_.mcp_backoff_ms)) {
  if (options_.data_dir.empty()) options_.data_dir = DefaultDataDir();
  for (const auto& m : base_) catalogs_.push_back(std::make_shared<const ConnectorManifest>(m));
}

ConnectorRoad::~ConnectorRoad() {
  WaitForSyncs();
  mcp_->StopAll();
}

std::vector<ConnectorManifest> ConnectorRoad::manifests() const {
  std::vector<ConnectorManifest> out;
  out.reserve(base_.size());
  for (size_t i = 0; i < base_.size(); ++i) out.push_back(*Catalog(i));
  return out;
}

std::shared_ptr<const ConnectorManifest> ConnectorRoad::Find(const std::string& slug) const {
  for (size_t i = 0; i < base_.size(); ++i) {
    if (base_[i].slug == slug) return Catalog(i);
  }
  return nullptr;
}

std::string ConnectorRoad::MirrorPath(const ConnectorManifest& m) const {
  switch (m.source.kind) {
    case SourceKind::kSqlite:
      return m.source.path;
    case SourceKind::kPrintedCli:
      return PrintedCliMirrorPath(m.source);
    case SourceKind::kIcs:
    case SourceKind::kMcp:
      break;
  }
  return options_.data_dir + "/" + m.slug + "/mirror.db";
}

int64_t ConnectorRoad::Now() const {
  if (options_.clock) return options_.clock();
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Result<SyncReport> ConnectorRoad::SyncNow(const ConnectorManifest& m, const ProgressFn& progress) {
  SyncReport report{m.slug, 0, Now(), ToString(m.source.kind)};
  if (m.source.kind == SourceKind::kMcp) {
    auto synced = SyncMcp(m, progress);
    if (!synced) return synced.error();
    report.rows = *synced;
    return report;
  }
  if (m.source.kind == SourceKind::kIcs) {
    auto rows = SyncCalendar(m, MirrorPath(m), report.synced_at, progress);
    if (!rows) return rows.error();
    report.rows = *rows;
    return report;
  }
  // Printed CLI: its own `sync` verb fills its own mirror.
  if (progress) progress({"run", 0, 1});
  auto reply = InvokePrintedCli(m.source, CliCall{{"sync"}, {}}, std::nullopt);
  if (!reply) return reply.error();
  if (progress) progress({"run", 1, 1});
  const json& r = reply->results;
  if (r.is_array())
    report.rows = static_cast<int64_t>(r.size());
  else if (r.is_object() && r.contains("rows") && r["rows"].is_number_integer()) {
    report.rows = r["rows"].get<int64_t>();
  }
  return report;
}

namespace {
Error NothingToSync(const ConnectorManifest& m) {
  return MakeError(
      "connect.nothing_to_sync",
      m.source.kind == SourceKind::kSqlite
          ? "\"" + m.slug + "\" is a local SQLite database; it is its own mirror"
      : m.source.kind == SourceKind::kMcp
          ? "\"" + m.slug + "\" is an MCP server read live only (no local or auto mode)"
          : "the connector CLI of \"" + m.slug + "\" has no sync verb");
}
bool Syncable(const ConnectorManifest& m) {
  if (m.source.kind == SourceKind::kMcp) {
    return m.Supports(SourceMode::kLocal) || m.Supports(SourceMode::kAuto);
  }
  return m.source.kind == SourceKind::kIcs ||
         (m.source.kind == SourceKind::kPrintedCli && m.HasVerb("sync"));
}
}  // namespace

Result<SyncReport> ConnectorRoad::Sync(const std::string& slug, const ProgressFn& progress) {
  auto m = Find(slug);
  if (!m)
    return MakeError(ErrorKind::kNotFound, "connect.unknown_connector",
                     "no connector \"" + slug + "\"");
  if (!Syncable(*m)) return NothingToSync(*m);
  {
    std::unique_lock<std::mutex> lock(mu_);
    sync_done_.wait(lock, [&] { return !syncs_[slug].running; });
    syncs_[slug].running = true;
  }
  auto report = SyncNow(*m, progress);
  {
    std::lock_guard<std::mutex> lock(mu_);
    SyncSlot& slot = syncs_[slug];
    slot.running = false;
    slot.last_error = report ? std::nullopt : std::optional<Error>(report.error());
    if (report || report.error().code != "connect.auth")
      slot.credential_rejected.clear();
    else
      slot.credential_rejected = report.error().message;
  }
  sync_done_.notify_all();
  return report;
}

Result<bool> ConnectorRoad::StartSync(const std::string& slug, const ProgressFn& progress) {
  auto m = Find(slug);
  if (!m)
    return MakeError(ErrorKind::kNotFound, "connect.unknown_connector",
                     "no connector \"" + slug + "\"");
  if (!Syncable(*m)) return NothingToSync(*m);
  std::lock_guard<std::mutex> lock(mu_);
  SyncSlot& slot = syncs_[slug];
  if (slot.running) return false;
  if (slot.thread.joinable()) slot.thread.join();  // finished: it no longer needs the lock
  slot.running = true;
  slot.thread = std::thread([this, m, progress] {
    auto report = SyncNow(*m, progress);
    {
      std::lock_guard<std::mutex> inner(mu_);
      SyncSlot& s = syncs_[m->slug];
      s.running = false;
      s.last_error = report ? std::nullopt : std::optional<Error>(report.error());
    }
    sync_done_.notify_all();
  });
  return true;
}

bool ConnectorRoad::Syncing(const std::string& slug) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = syncs_.find(slug);
  return it != syncs_.end() && it->second.running;
}

void ConnectorRoad::WaitForSyncs() {
  std::vector<std::thread> finished;
  {
    std::unique_lock<std::mutex> lock(mu_);
    sync_done_.wait(lock, [&] {
      for (const auto& [slug, slot] : syncs_) {
        if (slot.running) return false;
      }
      return true;
    });
    for (auto& [slug, slot] : syncs_) {
      if (slot.thread.joinable()) finished.push_back(std::move(slot.thread));
    }
  }
  for (auto& t : finished) t.join();
}

std::optional<Error> ConnectorRoad::LastSyncError(const std::string& slug) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = syncs_.find(slug);
  return it == syncs_.end() ? std::nullopt : it->second.last_error;
}

Freshness ConnectorRoad::ReadFreshness(const ConnectorManifest& m) const {
  Freshness f;
  f.max_age_s = m.sync.max_age_s;
  std::string path = MirrorPath(m);
  if (m.source.kind == SourceKind::kMcp) {
    f.state = mcp_->State(m.slug);  // live | disconnected | empty (never started)
    return f;
  }
  if (m.source.kind == SourceKind::kIcs) {
    SyncRecord record = ReadSyncRecord(path);
    if (record.synced) {
      f.synced_at = record.synced_at;
      f.age_s = Now() - record.synced_at;
      f.mirror_rows = record.rows;
      f.state = f.age_s > m.sync.max_age_s ? "stale" : "mirrored";
    }
  } else {
    struct stat st {};
    if (stat(path.c_str(), &st) == 0) {
      f.synced_at = st.st_mtime;
      f.age_s = Now() - f.synced_at;
      f.state = m.source.kind == SourceKind::kSqlite ? "local"
                : f.age_s > m.sync.max_age_s         ? "stale"
                                                     : "mirrored";
    }
  }
  if (Syncing(m.slug)) f.state = "syncing";
  return f;
}

std::string ConnectorRoad::CredentialState(const ConnectorManifest& m) const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = syncs_.find(m.slug);
    if (it != syncs_.end() && !it->second.credential_rejected.empty()) return "rejected";
  }
  if (m.credential_env.empty()) return "not_required";
  for (const auto& name : m.credential_env) {
    const char* v = std::getenv(name.c_str());
    if (!v || !*v) return "missing";
  }
  return "present";
}

Result<MirrorSnapshot> ConnectorRoad::Snapshot(const std::string& slug) const {
  auto m = Find(slug);
  if (!m)
    return MakeError(ErrorKind::kNotFound, "connect.unknown_connector",
                     "no connector \"" + slug + "\"");
  MirrorSnapshot s;
  s.freshness = ReadFreshness(*m);
  s.credential_state = CredentialState(*m);
  s.serving_decision = "none";
  return s;
}

Result<QueryRows> ConnectorRoad::Sql(const std::string& slug, const std::string& sql,
                                     const json& params, int64_t max_rows) {
  auto m = Find(slug);
  if (!m)
    return MakeError(ErrorKind::kNotFound, "connect.unknown_connector",
                     "no connector \"" + slug + "\"");
  GuardLimits limits = options_.guard;
  if (max_rows > 0) limits.max_rows = max_rows;
  auto guard = SqlGuard::Open(MirrorPath(*m), limits);
  if (!guard) return guard.error();
  return (*guard)->Run(sql, params);
}

}  // namespace affordance::connect

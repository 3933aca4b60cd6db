// Private to src/connect: the road's MCP sessions, one per MCP connector. A session starts on
// first use, is kept while the road lives, and is stopped with it. A session that ended (the
// server exited, hung past a request's deadline, broke the protocol) is stopped and becomes the
// connector state `disconnected`; the next use starts it again once its backoff has passed
// (backoff_ms, doubling per consecutive failure, at most 30 s). A successful answer resets it.
#pragma once

#include "connect/mcp_client.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace affordance::connect {

class McpHub {
 public:
  explicit McpHub(int64_t backoff_ms) : backoff_ms_(backoff_ms) {}
  ~McpHub() { StopAll(); }

  // Sends one request to m's server (starting it if needed). A failure that ends or hangs the
  // session stops it; `sent` on the reply says whether the request reached the server.
  McpReply Call(const ConnectorManifest& m, const std::string& method, const nlohmann::json& params,
                int64_t timeout_ms);

  // The server's info once a session was opened (nullopt before).
  std::optional<McpServerInfo> Info(const std::string& slug) const;
  // {state: not_started|connected|disconnected, server, protocol_version, last_error,
  //  restarts, failures, stderr_tail, catalog_notes}
  nlohmann::json Status(const std::string& slug) const;
  // "live" while connected, "disconnected" after a failure, "empty" before the first start.
  std::string State(const std::string& slug) const;
  // True (once) when the server said its tool or resource list changed.
  bool TakeListChanged(const std::string& slug);

  // The catalog: read under its own lock per connector, again after list_changed or a failed
  // read (see ConnectorRoad::Catalog).
  std::mutex& CatalogLock(const std::string& slug);
  void SetCatalog(const std::string& slug, bool loaded, std::vector<std::string> notes,
                  std::optional<Error> error);
  bool CatalogLoaded(const std::string& slug) const;

  void StopAll();

 private:
  struct Slot {
    std::shared_ptr<McpSession> session;
    std::optional<McpServerInfo> info;
    std::optional<Error> last_error;
    int failures = 0;
    int starts = 0;
    int64_t retry_at_ms = 0;
    std::string stderr_tail;
    bool catalog_loaded = false;
    std::vector<std::string> catalog_notes;
    std::optional<Error> catalog_error;
    std::unique_ptr<std::mutex> catalog_mu = std::make_unique<std::mutex>();
  };
  Result<std::shared_ptr<McpSession>> Session(const ConnectorManifest& m);
  void Failed(const std::string& slug, const std::shared_ptr<McpSession>& session, Error e);

  int64_t backoff_ms_;
  mutable std::mutex mu_;
  std::mutex start_mu_;  // one start at a time (a start may take init_timeout_ms)
  std::map<std::string, Slot> slots_;
};

}  // namespace affordance::connect

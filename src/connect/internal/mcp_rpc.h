// Private to src/connect: the JSON-RPC half of an MCP session that does not depend on the
// transport (pending requests matched by id, the server's messages classified, fatal errors
// failing everything waiting). The stdio and HTTP transports feed it the server's messages.
#pragma once

#include "connect/mcp_client.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace affordance::connect {

// At most `n` code points of untrusted text (a server's name, instructions, stderr, an error),
// valid UTF-8, ending in "…" when it was cut.
std::string BoundedText(const std::string& text, size_t n);

class RpcSession : public McpSession {
 public:
  McpReply Request(const std::string& method, const nlohmann::json& params,
                   int64_t timeout_ms) override;
  bool alive() const override;
  Error death() const override;

  // Runs initialize + notifications/initialized (fills info_).
  Status Initialize(int64_t timeout_ms);

 protected:
  // Writes one message to the server. `request_id` is the id of a request (absent for
  // notifications and our answers). False: it could not be written (the session is ended).
  virtual bool Send(const nlohmann::json& message, std::optional<int64_t> request_id,
                    int64_t deadline_ms) = 0;
  // Called once when the session ends (by Fatal), outside the lock: stop the transport.
  virtual void OnFatal() {}
  // Called by Initialize with the negotiated revision, before notifications/initialized is sent.
  virtual void OnInitialized(const std::string& /*protocol_version*/) {}

  // One message text from the server. Text that is not a JSON-RPC message ends the session.
  void HandleText(const std::string& text);
  void HandleMessage(const nlohmann::json& message);
  // Ends the session with `why`: every waiting request fails with it.
  void Fatal(Error why);
  // Delivers an answer to request `id` (from HandleMessage or an HTTP reply).
  void Deliver(int64_t id, Result<nlohmann::json> answer);
  // True once request `id` has its answer (or is no longer waited for).
  bool Answered(int64_t id) const;
  static int64_t NowMs();

  int64_t max_message_bytes_ = 16 << 20;

 private:
  struct Pending {
    std::optional<Result<nlohmann::json>> answer;
  };
  mutable std::mutex mu_;
  std::condition_variable answered_;
  std::map<int64_t, Pending> pending_;
  int64_t next_id_ = 1;
  std::optional<Error> death_;
};

// The Streamable HTTP transport (mcp_http.cpp): opened, not yet initialized.
Result<std::unique_ptr<RpcSession>> NewHttpSession(const SourceSpec& source);

}  // namespace affordance::connect

// `affordance mcp`: the MCP door over stdio (docs/MCP.md). An MCP host starts it as a child and
// speaks newline-delimited JSON-RPC on its stdin / stdout; nothing but protocol goes to stdout,
// diagnostics go to stderr.
//
//   affordance mcp [--operator] [--max-message BYTES] [--workers N] [session options as in chat]
//
// The tools and resources are the product surface of server/mcp_tools.h over the same store, turn
// hub and connectors `affordance serve` uses. Both protocol eras are spoken on the one stream,
// chosen per message (server/mcp.h): 2026-07-28 requests carrying their `_meta` envelope are
// served statelessly, and `initialize` starts the process's one 2025 session. Without --operator
// every request is on the normal plane (no approve, deny or grant tools). --operator puts the
// process on the operator plane, minted from the local trust root: the process reads (creating if
// absent) `operator.secret` in the data folder, which only the local user can, so a host
// configured with --operator is the person's own tool.
//
// Bad input never stops the loop: a line that is not JSON is a parse error (-32700), a line
// longer than --max-message is dropped with an invalid-request error (-32600), out-of-order
// messages get JSON-RPC errors. End of input: in-flight calls finish, then the process exits 0.
#include "authority/capability.h"
#include "cli/command.h"
#include "cli/output.h"
#include "cli/session.h"
#include "cli/turn_runner.h"
#include "server/mcp.h"
#include "server/mcp_tools.h"
#include "server/operator_root.h"

#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

namespace affordance::cli {
namespace {

using nlohmann::json;

struct McpOptions {
  SessionOptions session;
  bool operator_session = false;
  size_t max_message = 4 << 20;
  int workers = 1;
};

// Writes one message per line; replies may come from worker threads.
class StdoutWriter {
 public:
  void Write(const json& message) {
    std::string line = message.dump(-1, ' ', false, json::error_handler_t::replace);
    line.push_back('\n');
    std::lock_guard lock(mu_);
    size_t off = 0;
    while (off < line.size()) {
      ssize_t n = ::write(STDOUT_FILENO, line.data() + off, line.size() - off);
      if (n < 0) {
        if (errno == EINTR) continue;
        return;  // the host went away; the loop ends at end of input
      }
      off += static_cast<size_t>(n);
    }
  }

 private:
  std::mutex mu_;
};

// Counts requests whose reply is still owed (an `ask` replies when its turn ends).
class InFlight {
 public:
  void Begin() {
    std::lock_guard lock(mu_);
    ++n_;
  }
  void End() {
    std::lock_guard lock(mu_);
    --n_;
    cv_.notify_all();
  }
  void WaitIdle() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return n_ == 0; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int n_ = 0;
};

int Run(const McpOptions& o) {
  std::shared_ptr<server::mcp::Session> session;
  if (o.operator_session) {
    auto secret = server::LoadOperatorSecret(DataDir(o.session));
    if (!secret) return ReportError(secret.error(), false, kExitFailure);
  }
  if (o.max_message < 1024) {
    return ReportError(MakeError(ErrorKind::kInvalid, "cli.bad_option",
                                 "--max-message must be at least 1024 bytes"),
                       false, kExitUsage);
  }
  auto service = OpenServedTurns(o.session, std::max(1, o.workers));
  if (!service) return ReportError(service.error(), false);
  auto road = OpenRoad(o.session);
  if (!road) return ReportError(road.error(), false);
  server::ProductTools tools({&service->store(), service->hub.get(), road->get()});
  auto door = server::ProductProtocol(tools);
  if (!door) return ReportError(door.error(), false);
  const server::mcp::McpProtocol& protocol = **door;
  session = std::make_shared<server::mcp::Session>("stdio", o.operator_session, "stdio");
  std::fprintf(stderr, "affordance mcp: ready on stdio (%s session)\n",
               o.operator_session ? "operator" : "normal");

  StdoutWriter out;
  InFlight inflight;
  auto handle = [&](std::string_view line) {
    auto m = server::mcp::McpProtocol::Parse(line);
    if (m.error) return out.Write(*m.error);
    if (m.kind != server::mcp::McpProtocol::Kind::kRequest) {
      return protocol.Handle(m, session, [](json) {});  // nothing is owed
    }
    inflight.Begin();
    protocol.Handle(m, session, [&out, &inflight](json response) {
      if (!response.is_null()) out.Write(response);  // null: a cancelled call, nothing owed
      inflight.End();
    });
  };

  // Newline-delimited messages, each at most --max-message bytes; an oversized one is dropped up
  // to its newline and answered with an error (its id cannot be known).
  std::string line;
  bool dropping = false;
  char buf[64 * 1024];
  for (;;) {
    ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    for (ssize_t i = 0; i < n; ++i) {
      char c = buf[i];
      if (c == '\n') {
        if (dropping) {
          dropping = false;
        } else {
          if (!line.empty() && line.back() == '\r') line.pop_back();
          if (line.find_first_not_of(" \t") != std::string::npos) handle(line);
        }
        line.clear();
        continue;
      }
      if (dropping) continue;
      line.push_back(c);
      if (line.size() > o.max_message) {
        out.Write(server::mcp::ErrorMessage(nullptr, server::mcp::kInvalidRequest,
                                            "message too large: a message may be at most " +
                                                std::to_string(o.max_message) + " bytes",
                                            {{"code", "mcp.message_too_large"}}));
        line.clear();
        dropping = true;
      }
    }
  }
  if (!dropping && line.find_first_not_of(" \t\r") != std::string::npos) handle(line);
  inflight.WaitIdle();
  service->hub.reset();
  return kExitOk;
}

const bool declared = authority::DeclareCapability(authority::MakeCapability(
    "cli", "mcp", "mcp", "serve", authority::Access::kPerson, authority::Mode::kLocalState,
    "the MCP door over stdio (its tools: door mcp; --operator: the operator session)",
    nlohmann::json::object(), nlohmann::json::object(), "", "",
    "each MCP tool's own proof (door mcp)"));

const bool registered = RegisterCommand(
    {"mcp", "MCP server on stdio: the product's tools for other AIs and tools (docs/MCP.md)",
     [](CLI::App& sub) -> Runner {
       auto o = std::make_shared<McpOptions>();
       AddSessionOptions(sub, o->session);
       sub.add_flag("--operator", o->operator_session,
                    "Mint the operator session from the local trust root (may approve, deny, "
                    "grant)");
       sub.add_option("--max-message", o->max_message, "Largest message in bytes")
           ->capture_default_str();
       sub.add_option("--workers", o->workers, "Runtimes that asks borrow to render and dispatch")
           ->capture_default_str();
       return [o] { return Run(*o); };
     }});

}  // namespace
}  // namespace affordance::cli

// `affordance serve`: the HTTP server (src/server, docs/SERVER.md) over the same sessions as
// `chat` and `run`.
//
//   affordance serve [--host 127.0.0.1] [--port 3147] [--data DIR] [--workers N] [provider flags]
//
// Each worker owns a Frame (a QuickJS runtime), a connector road and a provider; all share one
// store. With --provider replay every turn gets a fresh provider, so each turn plays the script
// from its first step (a deterministic server for tests, demos and load runs).
#include "authority/capability.h"
#include "base/version.h"
#include "cli/command.h"
#include "cli/output.h"
#include "cli/session.h"
#include "cli/turn_runner.h"
#include "server/api.h"
#include "server/mcp.h"
#include "server/mcp_http.h"
#include "server/mcp_tools.h"
#include "server/operator_root.h"
#include "server/server.h"
#include "server/turn_hub.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>

namespace affordance::cli {
namespace {

namespace fs = std::filesystem;

struct ServeOptions {
  SessionOptions session;
  server::ServerOptions server;
  int workers = 2;
  std::string web;
};

std::string IsoTime(std::time_t t) {
  char buf[32];
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The web UI: --web DIR, else $AFFORDANCE_WEB, else web/ beside the binary (a build tree), else
// ../share/affordance/web (an installed binary).
std::string WebRoot(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* w = std::getenv("AFFORDANCE_WEB"); w && *w) return w;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  for (const fs::path& dir :
       {exe.parent_path() / "web", exe.parent_path() / ".." / "share" / "affordance" / "web"}) {
    if (fs::exists(dir / "index.html")) return dir.string();
  }
  return "";
}

nlohmann::ordered_json DeployTruth(const ServeOptions& o) {
  struct stat st {};
  std::string built = "unknown";
  if (stat("/proc/self/exe", &st) == 0) built = IsoTime(st.st_mtime);  // the binary's link time
  nlohmann::ordered_json provider = {{"name", o.session.provider}, {"model", o.session.model}};
  if (!o.session.script.empty()) provider["script"] = fs::absolute(o.session.script).string();
  if (!o.session.base_url.empty()) provider["baseUrl"] = o.session.base_url;
  if (!o.session.gguf.empty()) provider["gguf"] = o.session.gguf;
  return {{"service", "affordance"},
          {"version", Version()},
          {"commit", GitCommit()},
          {"buildTime", built},
          {"startTime", IsoTime(std::time(nullptr))},
          {"pid", static_cast<int64_t>(getpid())},
          {"data", fs::absolute(DataDir(o.session)).string()},
          {"provider", provider}};
}

int Serve(const ServeOptions& o) {
  const bool json = o.session.json;
  if (auto s = server::CheckBind(o.server); !s) return ReportError(s.error(), json, kExitUsage);
  // The shared store, opened (and recovered) once before any worker runs a turn, and the hub.
  auto service = OpenTurnService(o.session, o.workers);
  if (!service) return ReportError(service.error(), json, ExitFor(service.error()));
  std::unique_ptr<store::Store> store = std::move(service->store);
  auto hub = std::move(service->hub);

  // The MCP door on /mcp (docs/MCP.md): the same store and hub, its own connector road.
  auto road = OpenRoad(o.session);
  if (!road) return ReportError(road.error(), json, ExitFor(road.error()));
  auto secret = server::LoadOperatorSecret(DataDir(o.session));
  if (!secret) return ReportError(secret.error(), json);
  server::ProductTools tools({store.get(), hub.get(), road->get()});
  auto table =
      server::mcp::ToolTable::Build(authority::CapabilityRegistry::Global(), tools.Functions());
  if (!table) return ReportError(table.error(), json);
  server::mcp::McpProtocol protocol(std::move(*table), server::ProductInfo());
  server::McpHttp mcp_http(protocol, {.operator_secret = *secret});
  // The API's own road: POST /api/query re-executes surfaces' Query() handles through it. Its
  // mirrors are the same files the workers' roads read and sync.
  auto api_road = OpenRoad(o.session);
  if (!api_road) return ReportError(api_road.error(), json, ExitFor(api_road.error()));

  server::ApiOptions ao;
  ao.web_root = WebRoot(o.web);
  ao.deploy_truth = DeployTruth(o);
  ao.road = api_road->get();
  server::Api api(*store, *hub, ao);
  auto handlers = api.Handlers();
  handlers.merge(mcp_http.Handlers());
  auto router = server::Router::Build(authority::CapabilityRegistry::Global(), std::move(handlers));
  if (!router) return ReportError(router.error(), json);
  auto srv = server::Server::Start(o.server, std::move(*router));
  if (!srv) return ReportError(srv.error(), json, ExitFor(srv.error()));
  const std::string url = "http://" + o.server.host + ":" + std::to_string((*srv)->port());
  if (json) {
    std::cout << nlohmann::ordered_json{{"listening", url},
                                        {"port", (*srv)->port()},
                                        {"web", !ao.web_root.empty()}}
                     .dump()
              << std::endl;
  } else {
    std::cout << "affordance serve: listening on " << url << "/ ("
              << (ao.web_root.empty() ? "API only: the web UI is not built" : "web UI and API")
              << ", " << o.workers << " workers)" << std::endl;
  }
  (*srv)->Wait();
  (*srv)->Stop();
  hub.reset();  // ends running turns (cancelled, persisted) before the connections go
  srv->reset();
  return kExitOk;
}

const bool declared = authority::DeclareCapability(authority::MakeCapability(
    "cli", "serve", "thread", "serve", authority::Access::kUser, authority::Mode::kLocalState,
    "the HTTP server: UI message stream, threads, web UI (its routes: door http)"));

const bool registered = RegisterCommand(
    {"serve", "HTTP server: the AI SDK UI message stream on /api/chat and the web UI",
     [](CLI::App& sub) -> Runner {
       auto o = std::make_shared<ServeOptions>();
       AddSessionOptions(sub, o->session);
       sub.add_option("--host", o->server.host, "Address to bind (loopback unless --allow-remote)")
           ->capture_default_str();
       sub.add_option("--port", o->server.port, "Port (0: any free port)")->capture_default_str();
       sub.add_flag("--allow-remote", o->server.allow_remote,
                    "Allow a non-loopback --host (needs --access-token)");
       sub.add_option("--access-token", o->server.access_token,
                      "Bearer token every API request must carry (required with --allow-remote)");
       sub.add_option("--workers", o->workers, "Harness workers (turns run at once)")
           ->capture_default_str();
       sub.add_option("--io-threads", o->server.io_threads, "HTTP I/O threads")
           ->capture_default_str();
       sub.add_option("--body-limit", o->server.body_limit, "Largest request body in bytes")
           ->capture_default_str();
       sub.add_option("--read-timeout-ms", o->server.read_timeout_ms,
                      "Time a client has to send a whole request")
           ->capture_default_str();
       sub.add_option("--web", o->web, "Folder of the built web UI (default: beside the binary)");
       sub.add_flag("--json", o->session.json, "Print the listening address and errors as JSON");
       return [o] { return Serve(*o); };
     }});

}  // namespace
}  // namespace affordance::cli

// `affordance serve`: the HTTP server (src/server, docs/SERVER.md) over the same sessions as
// `chat` and `run`.
//
//   affordance serve [--host 127.0.0.1] [--port 3147] [--data DIR] [--workers N] [provider flags]
//                    [--store postgresql://...] [--node NAME] [--lease-ms MS]
//                    [--allow-remote --access-token-file FILE] [--public-host NAME[:PORT]]...
//                    [--allow-origin ORIGIN]...
//
// The access token comes from --access-token-file, else $AFFORDANCE_ACCESS_TOKEN, else (with a
// warning) --access-token: a command line is readable by every local user in /proc/PID/cmdline.
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
#include "server/person_session.h"
#include "server/server.h"
#include "server/turn_hub.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace affordance::cli {
namespace {

namespace fs = std::filesystem;

struct ServeOptions {
  SessionOptions session;
  server::ServerOptions server;
  int workers = 2;
  std::string node;  // --node ("" = <hostname>:<data folder>)
  int64_t lease_ms = 10000;
  std::string web;
  std::string access_token_file;
  bool access_token_in_argv = false;
};

// The token from a file that only its owner may read (like the trust root), else the environment.
// Errors: "server.token_file" (unreadable or empty), "server.token_file_unsafe" (group or others
// may read it).
Status ResolveAccessToken(ServeOptions& o) {
  if (!o.access_token_file.empty()) {
    struct stat st {};
    if (::stat(o.access_token_file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
      return MakeError("server.token_file", "cannot read the access token file",
                       o.access_token_file);
    }
    if ((st.st_mode & 077) != 0) {
      return MakeError("server.token_file_unsafe",
                       "the access token file must be readable by its owner only (chmod 600 it)",
                       o.access_token_file);
    }
    std::ifstream in(o.access_token_file);
    std::string token;
    std::getline(in, token);
    while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
    if (token.empty()) {
      return MakeError("server.token_file", "the access token file is empty", o.access_token_file);
    }
    o.server.access_token = token;
    return {};
  }
  if (o.access_token_in_argv) {
    std::cerr << "affordance serve: warning: --access-token on the command line is readable by "
                 "every local user (/proc/PID/cmdline, ps); use --access-token-file or "
                 "$AFFORDANCE_ACCESS_TOKEN\n";
    return {};
  }
  if (const char* env = std::getenv("AFFORDANCE_ACCESS_TOKEN"); env && *env) {
    o.server.access_token = env;
  }
  return {};
}

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
  nlohmann::ordered_json provider = {{"name", ProviderOf(o.session)}, {"model", o.session.model}};
  if (!o.session.script.empty()) provider["script"] = fs::absolute(o.session.script).string();
  if (!o.session.base_urls.empty()) {
    provider["baseUrl"] = o.session.base_urls.front();
    if (o.session.base_urls.size() > 1) provider["replicas"] = o.session.base_urls;
    provider["affinityHeader"] = o.session.affinity_header;
  }
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

// --node, else `<hostname>:<data folder>`: stable across restarts of the same server, so a
// restarted node ends its previous run's turns at once (TurnLog::Create).
std::string NodeName(const ServeOptions& o) {
  if (!o.node.empty()) return o.node;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  std::error_code ec;
  return std::string(host) + ":" + fs::absolute(DataDir(o.session), ec).lexically_normal().string();
}

int Serve(ServeOptions& o) {
  const bool json = o.session.json;
  if (auto s = ResolveAccessToken(o); !s) return ReportError(s.error(), json, kExitUsage);
  if (auto s = server::CheckBind(o.server); !s) return ReportError(s.error(), json, kExitUsage);
  // The shared store, opened (and recovered) once before any worker runs a turn, the node's turn
  // log (durable streams, leases, stops from any node) and the hub.
  server::TurnLogOptions log;
  log.node = NodeName(o);
  log.lease_ms = o.lease_ms;
  o.server.node = log.node;
  auto service = OpenServedTurns(o.session, o.workers, &log);
  if (!service) return ReportError(service.error(), json);
  store::Store* store = &service->store();
  auto hub = std::move(service->hub);  // destroyed first: its turns end on the service

  // The MCP door on /mcp (docs/MCP.md): the same store and hub, its own connector road.
  auto road = OpenRoad(o.session);
  if (!road) return ReportError(road.error(), json);
  auto secret = server::LoadOperatorSecret(DataDir(o.session));
  if (!secret) return ReportError(secret.error(), json);
  server::ProductTools tools({store, hub.get(), road->get()});
  auto door = server::ProductProtocol(tools);
  if (!door) return ReportError(door.error(), json);
  server::McpHttp mcp_http(**door, {.operator_secret = *secret});
  // The API's own road: POST /api/query re-executes surfaces' Query() handles through it. Its
  // mirrors are the same files the workers' roads read and sync.
  auto api_road = OpenRoad(o.session);
  if (!api_road) return ReportError(api_road.error(), json);

  // The person's web sessions are keyed from the same trust root as the operator session.
  server::PersonSessions sessions(*secret);
  server::RefusalCounts refusals;
  server::CredentialBackoff backoff;
  o.server.sessions = &sessions;
  o.server.refusals = &refusals;
  o.server.backoff = &backoff;

  server::ApiOptions ao;
  ao.web_root = WebRoot(o.web);
  ao.deploy_truth = DeployTruth(o);
  ao.deploy_truth["node"] = {
      {"name", log.node}, {"store", std::string(store->Backend())}, {"leaseMs", log.lease_ms}};
  ao.road = api_road->get();
  ao.sessions = &sessions;
  ao.refusals = &refusals;
  ao.backoff = &backoff;
  server::Api api(*store, *hub, ao);
  auto handlers = api.Handlers();
  handlers.merge(mcp_http.Handlers());
  auto router = server::Router::Build(authority::CapabilityRegistry::Global(), std::move(handlers));
  if (!router) return ReportError(router.error(), json);
  auto srv = server::Server::Start(o.server, std::move(*router));
  if (!srv) return ReportError(srv.error(), json);
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
              << ", " << o.workers << " runtimes)" << std::endl;
  }
  (*srv)->Wait();
  (*srv)->Stop();
  hub.reset();  // ends running turns (cancelled, persisted) before the connections go
  srv->reset();
  return kExitOk;
}

const bool declared = authority::DeclareCapability(authority::MakeCapability(
    "cli", "serve", "thread", "serve", authority::Access::kPerson, authority::Mode::kLocalState,
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
       sub.add_option("--access-token-file", o->access_token_file,
                      "File holding the bearer token clients must carry (mode 0600; required with "
                      "--allow-remote unless $AFFORDANCE_ACCESS_TOKEN is set)");
       sub.add_option("--access-token", o->server.access_token,
                      "The bearer token itself (unsafe: visible to every local user; prefer "
                      "--access-token-file or $AFFORDANCE_ACCESS_TOKEN)")
           ->each([o](const std::string&) { o->access_token_in_argv = true; });
       sub.add_option("--public-host", o->server.public_hosts,
                      "A name clients use to reach this server (remote mode, a reverse proxy): "
                      "NAME or NAME:PORT; repeatable. Requests naming any other host are refused");
       sub.add_option("--allow-origin", o->server.allowed_origins,
                      "An origin (https://app.example) whose pages may call this server with "
                      "CORS, as a client (never as the person); repeatable");
       sub.add_option("--node", o->node,
                      "This node's name among nodes sharing a --store (default "
                      "<hostname>:<data folder>)");
       sub.add_option("--lease-ms", o->lease_ms,
                      "A running turn's lease: renewed every third of it; once it has expired "
                      "another node ends the turn interrupted")
           ->check(CLI::Range(int64_t{300}, int64_t{3600000}))
           ->capture_default_str();
       sub.add_option("--workers", o->workers,
                      "Runtimes that turns borrow to render and dispatch (turns in flight are "
                      "bounded by the engine, not by this)")
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

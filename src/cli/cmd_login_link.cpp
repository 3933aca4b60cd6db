// `affordance login-link [--url URL] [--ttl-s 600] [--data DIR] [--json]`: a sign-in link for the
// person's web session (server/person_session.h) in a browser that the server cannot recognise as
// its own user's: another machine (remote mode), another OS account, a browser behind a proxy.
// Only someone who can read the trust root (operator.secret, 0600 in the data folder) can make
// one, so the link is as strong as the operator session; the code in it works once, for a few
// minutes, and never travels to the server in a URL (it is in the fragment, which the page posts
// and then removes from the address bar).
#include "authority/capability.h"
#include "cli/authority_cli.h"
#include "cli/command.h"
#include "cli/output.h"
#include "cli/session.h"
#include "server/operator_root.h"
#include "server/person_session.h"

#include <iostream>
#include <memory>

namespace affordance::cli {
namespace {

struct Options {
  std::string data;
  std::string url = "http://127.0.0.1:3147";
  int ttl_s = static_cast<int>(server::kLoginCodeTtlMs / 1000);
  bool json = false;
};

int Run(const Options& o) {
  if (o.ttl_s < 1 || o.ttl_s > 24 * 3600) {
    return ReportError(MakeError(ErrorKind::kInvalid, "cli.bad_ttl",
                                 "--ttl-s must be 1 to 86400 seconds", std::to_string(o.ttl_s)),
                       o.json, kExitUsage);
  }
  if (o.url.rfind("http://", 0) != 0 && o.url.rfind("https://", 0) != 0) {
    return ReportError(MakeError(ErrorKind::kInvalid, "cli.bad_url",
                                 "--url is the server's address, http(s)://HOST[:PORT]", o.url),
                       o.json, kExitUsage);
  }
  SessionOptions so;
  so.data = o.data;
  auto secret = server::LoadOperatorSecret(DataDir(so));
  if (!secret) return ReportError(secret.error(), o.json);
  server::PersonSessions sessions(*secret);
  const std::string code = sessions.LoginCode(static_cast<int64_t>(o.ttl_s) * 1000);
  std::string base = o.url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  const std::string link = base + "/#login=" + code;
  if (o.json) {
    PrintJson({{"link", link}, {"expiresInS", o.ttl_s}});
  } else {
    std::cout << link << "\n"
              << "(opens the person's web session once, within " << o.ttl_s
              << " s; anyone holding it may approve writes: do not share it)\n";
  }
  return kExitOk;
}

const bool declared = authority::DeclareCapability(authority::MakeCapability(
    "cli", "login-link", "session", "start", authority::Access::kPerson, authority::Mode::kRead,
    "a one-time sign-in link for the person's web session, made from the local trust root"));

const bool registered = RegisterCommand(
    {"login-link", "Print a one-time sign-in link for the web UI (to approve from a browser)",
     [](CLI::App& sub) -> Runner {
       auto o = std::make_shared<Options>();
       sub.add_option("--data", o->data, "Data folder (default $AFFORDANCE_DATA)");
       sub.add_option("--url", o->url, "The server's address as the browser reaches it")
           ->capture_default_str();
       sub.add_option("--ttl-s", o->ttl_s, "Seconds the link works")->capture_default_str();
       sub.add_flag("--json", o->json, "Print {link, expiresInS}");
       return [o] { return Run(*o); };
     }});

}  // namespace
}  // namespace affordance::cli

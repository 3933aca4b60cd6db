// The trust boundary over real loopback HTTP (docs/SECURITY.md), against the real binary:
//   - the door x credential matrix: every door the binary declares (`affordance capabilities`:
//     each HTTP route, each MCP tool, each CLI command) against every credential (none, the access
//     token, a wrong token, the person's web session, a normal and an operator MCP session,
//     another OS user), checked against the plane each door declares;
//   - the gate's rules one request at a time (foreign Host on every route, foreign Origin,
//     cross-site fetches, non-JSON bodies, CORS only for the operator's origins);
//   - input a million levels deep on every door that takes JSON, with the server still up;
//   - files and secrets: the access token from a file or the environment, never echoed; no
//     filesystem path in an error an unauthenticated client sees.
// The browser's side of the same attacks is security.test.mjs. The replay provider stands in for
// the model.
#include "server_process.h"

#include <grp.h>
#include <sys/stat.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <functional>
#include <set>

namespace affordance::server::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kToken = "security-test-token-0123456789abcdef";

std::string Script(const std::string& name) {
  return Source("tests/integration/server/scripts/" + name);
}

std::string Capture(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

// Every declared door, from the binary itself.
std::vector<json> Doors(const std::string& door) {
  auto all = json::parse(Capture(std::string(AFFORDANCE_CLI) + " capabilities --json"));
  std::vector<json> out;
  for (const auto& c : all["capabilities"]) {
    if (c["door"] == door) out.push_back(c);
  }
  return out;
}

int Rank(const std::string& access) { return access == "anyone" ? 0 : access == "client" ? 1 : 2; }

// The code a refusal by the gate carries (server's JSON error, or the JSON-RPC error of /mcp),
// "" for a request the gate let through to its handler.
std::string GateCode(const Response& r) {
  static const std::set<std::string> kGate = {
      "server.unauthorized",     "server.foreign_user",          "server.person_only",
      "server.foreign_host",     "server.foreign_origin",        "server.cross_site",
      "server.bad_content_type", "server.person_session_expired"};
  auto body = json::parse(r.body, nullptr, false);
  if (!body.is_object() || !body.contains("error")) return "";
  const json& e = body["error"];
  std::string code;
  if (e.contains("code") && e["code"].is_string()) code = e["code"];
  if (e.contains("data") && e["data"].is_object()) code = e["data"].value("code", "");
  return kGate.count(code) ? code : "";
}

// "POST /api/threads/{id}/surfaces/{surfaceId}/ack" -> method and a path with ids that do not
// exist (the gate decides before any handler looks): handlers answer 4xx, never touch data.
std::pair<std::string, std::string> Concrete(const std::string& name) {
  std::string method = name.substr(0, name.find(' '));
  std::string path = name.substr(name.find(' ') + 1);
  for (const char* p : {"{id}", "{surfaceId}", "{statement}"}) {
    for (size_t at; (at = path.find(p)) != std::string::npos;) path.replace(at, strlen(p), "nope");
  }
  for (size_t at; (at = path.find("{file}")) != std::string::npos;) path.replace(at, 6, "app.js");
  return {method, path};
}

Response Send(int port, const std::string& method, const std::string& path,
              const std::string& headers, const std::string& body = "") {
  return Http(port, method, path, method == "GET" ? body : (body.empty() ? "{}" : body), headers);
}

// An initialized MCP session over HTTP ("" when initialize was refused); `extra` adds headers.
std::string McpSession(int port, const std::string& extra = "") {
  json init = {{"jsonrpc", "2.0"},
               {"id", 1},
               {"method", "initialize"},
               {"params",
                {{"protocolVersion", "2025-11-25"},
                 {"capabilities", json::object()},
                 {"clientInfo", {{"name", "security-test"}, {"version", "1"}}}}}};
  auto r = Http(port, "POST", "/mcp", init.dump(), "accept: application/json\r\n" + extra);
  EXPECT_EQ(r.status, 200) << r.body;
  const std::string sid = r.Header("mcp-session-id");
  Http(port, "POST", "/mcp", R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
       "accept: application/json\r\nmcp-session-id: " + sid + "\r\n");
  return sid;
}

// A server with the staged write of scripts/write.json pending, on a copied calendar.
struct Rig {
  TempDir dir;
  std::string connectors;
  std::unique_ptr<ServerProcess> server;
  std::string thread = "chat-security";
  std::string approval, call;

  explicit Rig(std::vector<std::string> extra = {}, bool token = false) {
    // Open to every user, like a home folder: what keeps another OS user out must be the data
    // folder's own mode.
    chmod((dir / "").c_str(), 0755);
    connectors = dir / "connectors";
    std::filesystem::create_directories(connectors);
    for (const char* f : {"calendar.json", "calendar.ics"}) {
      std::filesystem::copy_file(Source(std::string("examples/connectors/") + f),
                                 connectors + "/" + f);
    }
    if (token) setenv("AFFORDANCE_ACCESS_TOKEN", kToken.c_str(), 1);
    ServerProcess::Spawn({AFFORDANCE_CLI, "grants", "grant", "calendar", "--write", "--data",
                          dir / "data", "--connectors", connectors});
    server = std::make_unique<ServerProcess>(dir / "data", Script("write.json"), extra, connectors);
    unsetenv("AFFORDANCE_ACCESS_TOKEN");
    const std::string auth = token ? "authorization: Bearer " + kToken + "\r\n" : "";
    auto staged = Http(port(), "POST", "/api/chat", ChatBody(thread, "Put a budget sync on."),
                       auth + "x-ai-sdk-version: 7.0.173\r\n");
    for (const auto& c : Chunks(staged.body)) {
      if (c.value("type", "") == "tool-approval-request") {
        approval = c["approvalId"];
        call = c["toolCallId"];
      }
    }
  }
  int port() const { return server->port(); }
  std::string ics() const {
    std::ifstream in(connectors + "/calendar.ics", std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  std::string Decision(bool approved = true) const {
    json message = {{"id", "m-a"},
                    {"role", "assistant"},
                    {"parts",
                     {{{"type", "tool-invoke_mutation"},
                       {"toolCallId", call},
                       {"state", "approval-responded"},
                       {"input", json::object()},
                       {"approval", {{"id", approval}, {"approved", approved}}}}}}};
    return json{{"id", thread}, {"trigger", "submit-message"}, {"messages", {message}}}.dump();
  }
  std::string ApprovalStatus() const {
    return Capture(std::string(AFFORDANCE_CLI) + " approvals list --json --data " + dir / "data" +
                   " --connectors " + connectors);
  }
};

struct Credential {
  std::string name;
  std::string headers;
  int plane;               // 0 anyone, 1 client, 2 person
  std::string refused_as;  // the gate's code for a door above the plane
};

// ---- the matrix --------------------------------------------------------------------------------

void CheckHttpMatrix(const Rig& rig, const std::vector<Credential>& credentials) {
  const auto routes = Doors("http");
  ASSERT_GT(routes.size(), 15u);
  for (const auto& cred : credentials) {
    for (const auto& route : routes) {
      auto [method, path] = Concrete(route["name"]);
      auto r = Send(rig.port(), method, path, cred.headers);
      const bool admitted = GateCode(r).empty();
      const bool want = cred.plane >= Rank(route["access"]);
      EXPECT_EQ(admitted, want) << cred.name << " x " << route["name"] << ": " << r.status << " "
                                << r.body.substr(0, 300);
      if (!want) {
        EXPECT_EQ(GateCode(r), cred.refused_as) << cred.name << " x " << route["name"];
      }
    }
    // The decision inside POST /api/chat is the person's door (docs/SECURITY.md).
    auto decided = Http(rig.port(), "POST", "/api/chat", rig.Decision(false), cred.headers);
    if (cred.plane >= 2) {
      EXPECT_TRUE(GateCode(decided).empty()) << cred.name << ": " << decided.body;
    } else {
      EXPECT_EQ(GateCode(decided), cred.refused_as) << cred.name << ": " << decided.body;
    }
  }
}

TEST(ServerSecurity, EveryHttpRouteAgainstEveryCredentialOnALoopbackServer) {
  Rig rig;
  ASSERT_GT(rig.port(), 0) << rig.server->first_line();
  ASSERT_FALSE(rig.approval.empty());
  const std::string person = PersonHeader(rig.port());
  ASSERT_FALSE(person.empty());
  // A client (no token configured: this OS user's own process) reads, converses, stages; only
  // the person decides. The decisions below are denials the person makes last.
  std::vector<Credential> creds = {
      {"none (this OS user)", "", 1, "server.person_only"},
      {"a stale person session", "x-affordance-session: ps1.1.00.00\r\n", 1,
       "server.person_session_expired"},
      {"a bearer token nobody configured", "authorization: Bearer " + kToken + "\r\n", 1,
       "server.person_only"},
      // A load balancer on this machine, as this user, forwarding someone else's request: the
      // proxy's socket proves nothing about them (docs/SCALE.md).
      {"a request a proxy forwards (X-Forwarded-For)", "x-forwarded-for: 203.0.113.9\r\n", 0,
       "server.foreign_user"},
      {"a request a proxy forwards (Forwarded)", "forwarded: for=203.0.113.9\r\n", 0,
       "server.foreign_user"},
  };
  CheckHttpMatrix(rig, creds);
  EXPECT_THAT(rig.ApprovalStatus(), HasSubstr("\"pending\"")) << "no client decided";
  CheckHttpMatrix(rig, {{"the person's web session", person, 2, ""}});
  EXPECT_THAT(rig.ApprovalStatus(), HasSubstr("\"denied\"")) << "the person decided";
  EXPECT_THAT(rig.ics(), Not(HasSubstr("Budget sync")));
}

TEST(ServerSecurity, EveryHttpRouteAgainstEveryCredentialWithAnAccessToken) {
  Rig rig({}, /*token=*/true);
  ASSERT_GT(rig.port(), 0) << rig.server->first_line();
  ASSERT_FALSE(rig.approval.empty());
  const std::string token = "authorization: Bearer " + kToken + "\r\n";
  auto minted = Http(rig.port(), "POST", "/api/session", "{}");  // loopback, this OS user
  ASSERT_EQ(minted.status, 201) << minted.body;
  const std::string person =
      "x-affordance-session: " + minted.json()["session"]["token"].get<std::string>() + "\r\n";
  CheckHttpMatrix(rig, {
                           {"none", "", 0, "server.unauthorized"},
                           {"a wrong token", "authorization: Bearer wrong-token-0123456789\r\n", 0,
                            "server.unauthorized"},
                           {"the access token", token, 1, "server.person_only"},
                       });
  EXPECT_THAT(rig.ApprovalStatus(), HasSubstr("\"pending\"")) << "the token never decides";
  CheckHttpMatrix(rig, {{"the person's web session (no token needed)", person, 2, ""}});
  EXPECT_THAT(rig.ApprovalStatus(), HasSubstr("\"denied\""));
}

TEST(ServerSecurity, AnotherOsUserGetsNothingButTheStaticFiles) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  Rig rig;
  ASSERT_GT(rig.port(), 0) << rig.server->first_line();
  const int port = rig.port();
  for (const auto& route : Doors("http")) {
    auto [method, path] = Concrete(route["name"]);
    const std::string got = AsNobody([&, m = method, p = path] {
      auto r = Send(port, m, p, "");
      return std::to_string(r.status) + " " + GateCode(r);
    });
    if (route["access"] == "anyone") {
      EXPECT_THAT(got, Not(HasSubstr("server."))) << route["name"] << ": " << got;
    } else {
      EXPECT_EQ(got, "403 server.foreign_user") << route["name"];
    }
  }
  // Nor can it become the person: no session is minted for it without a sign-in code.
  const std::string minted = AsNobody([&] {
    auto r = Http(port, "POST", "/api/session", "{}");
    return std::to_string(r.status) + " " + r.body;
  });
  EXPECT_THAT(minted, HasSubstr("403"));
  EXPECT_THAT(minted, HasSubstr("server.no_person_proof"));
  // With a code from `affordance login-link` (made by whoever can read the trust root) it can,
  // once.
  auto link = json::parse(
      Capture(std::string(AFFORDANCE_CLI) + " login-link --json --data " + rig.dir / "data"));
  const std::string code =
      link["link"].get<std::string>().substr(link["link"].get<std::string>().find("#login=") + 7);
  // Once however it is spelled (issue 43: one '0' after "pl1." gave a second session): a leading
  // zero or sign on the expiry, upper-case hex in the nonce or MAC, whitespace around a field.
  const size_t dot1 = code.find('.', 4);
  const size_t dot2 = code.find('.', dot1 + 1);
  auto upper = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
  };
  const std::vector<std::string> respelled = {
      "pl1.0" + code.substr(4),
      "pl1.00" + code.substr(4),
      "pl1.+" + code.substr(4),
      "pl1. " + code.substr(4),
      code.substr(0, dot1 + 1) + upper(code.substr(dot1 + 1, dot2 - dot1 - 1)) + code.substr(dot2),
      code.substr(0, dot2 + 1) + upper(code.substr(dot2 + 1)),
      code + " ",
  };
  const std::string signed_in = AsNobody([&] {
    std::string got;
    for (const std::string& c : respelled) {
      got += std::to_string(Http(port, "POST", "/api/session", json{{"login", c}}.dump()).status) +
             " ";
    }
    auto first = Http(port, "POST", "/api/session", json{{"login", code}}.dump());
    auto again = Http(port, "POST", "/api/session", json{{"login", code}}.dump());
    got += std::to_string(first.status) + " " + std::to_string(again.status);
    for (const std::string& c : respelled) {
      auto r = Http(port, "POST", "/api/session", json{{"login", c}}.dump());
      got += " " + std::to_string(r.status) + (r.status == 403 ? "" : " " + r.body);
    }
    return got;
  });
  EXPECT_EQ(signed_in, "403 403 403 403 403 403 403 201 403 403 403 403 403 403 403 403");
  EXPECT_TRUE(rig.server->alive());
}

// Wrong access tokens and sign-in codes (issue 43, item 8): counted in /deploy-truth, and a
// source that keeps failing is slowed (429 server.slow_down, the credential unchecked), while the
// person's OS user and the person's own web session on this machine are never slowed.
TEST(ServerSecurity, WrongTokensAndCodesAreCountedAndSlowedButNeverThePersonsOwnSession) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  Rig rig({}, /*token=*/true);
  ASSERT_GT(rig.port(), 0) << rig.server->first_line();
  const int port = rig.port();
  const std::string token = "authorization: Bearer " + kToken + "\r\n";
  const std::string guessed = AsNobody([&] {
    std::string got;
    int refused = 0;
    for (int i = 0; i < 64; ++i) {
      auto r = Http(port, "GET", "/api/threads", "",
                    "authorization: Bearer guess-" + std::to_string(i) + "-0123456789\r\n");
      refused += r.status == 401 && GateCode(r) == "server.unauthorized" ? 1 : 0;
    }
    got += std::to_string(refused);
    auto last_free =
        Http(port, "GET", "/api/threads", "", "authorization: Bearer nope-0123456789\r\n");
    auto slowed =
        Http(port, "GET", "/api/threads", "", "authorization: Bearer nope-0123456789\r\n");
    auto right = Http(port, "GET", "/api/threads", "", token);
    auto code = Http(port, "POST", "/api/session", json{{"login", "pl1.1.2.3"}}.dump());
    json e = json::parse(slowed.body, nullptr, false);
    got += " " + std::to_string(last_free.status) + " " + std::to_string(slowed.status) + " " +
           (e.is_object() ? e["error"].value("code", "") + " " + e["error"].value("message", "")
                          : slowed.body) +
           " | " + std::to_string(right.status) + " " + std::to_string(code.status);
    return got;
  });
  EXPECT_EQ(guessed,
            "64 401 429 server.slow_down too many wrong access tokens from here: try again in 1 s"
            " | 429 429");
  // The person's user: its token works, and the person's browser here starts a session.
  EXPECT_EQ(Http(port, "GET", "/api/threads", "", token).status, 200);
  auto minted = Http(port, "POST", "/api/session", "{}");
  EXPECT_EQ(minted.status, 201) << minted.body;
  // A wrong sign-in code from the person's user is counted too (403, not slowed at once).
  EXPECT_EQ(Http(port, "POST", "/api/session", json{{"login", "pl1.01.2.3"}}.dump()).status, 403);
  auto truth = Http(port, "GET", "/deploy-truth", "", token).json();
  EXPECT_EQ(truth["refused"]["server.wrong_token"], 65) << truth.dump();
  EXPECT_EQ(truth["refused"]["server.wrong_code"], 1) << truth.dump();
  EXPECT_EQ(truth["refused"]["server.slow_down"], 3) << truth.dump();
  EXPECT_EQ(truth["credentialBackoff"]["waitingSources"], 1) << truth.dump();
  EXPECT_TRUE(rig.server->alive());
}

TEST(ServerSecurity, EveryMcpToolAgainstEveryMcpCredential) {
  Rig rig;
  ASSERT_GT(rig.port(), 0) << rig.server->first_line();
  const std::string secret = [&] {
    std::ifstream in(rig.dir / "data/operator.secret");
    std::string s;
    in >> s;
    return s;
  }();
  auto session = [&](const std::string& extra) { return McpSession(rig.port(), extra); };
  struct McpCred {
    std::string name, sid;
    bool person;
  };
  const std::vector<McpCred> creds = {
      {"a normal session", session(""), false},
      {"a normal session with the person's web session header", session(PersonHeader(rig.port())),
       false},
      {"the operator session", session("affordance-operator-secret: " + secret + "\r\n"), true},
  };
  const auto tools = Doors("mcp");
  ASSERT_GE(tools.size(), 14u);
  int id = 10;
  for (const auto& cred : creds) {
    ASSERT_FALSE(cred.sid.empty()) << cred.name;
    const std::string h = "accept: application/json\r\nmcp-session-id: " + cred.sid + "\r\n";
    auto listed = Http(rig.port(), "POST", "/mcp",
                       json{{"jsonrpc", "2.0"}, {"id", id++}, {"method", "tools/list"}}.dump(), h);
    std::set<std::string> visible;
    const json list = listed.json();
    ASSERT_TRUE(list.contains("result")) << listed.body;
    for (const auto& t : list["result"]["tools"]) {
      visible.insert(t["name"].get<std::string>());
    }
    for (const auto& tool : tools) {
      const bool person_tool = tool["access"] == "person";
      const bool may = !person_tool || cred.person;
      EXPECT_EQ(visible.count(tool["name"].get<std::string>()) == 1, may)
          << cred.name << " lists " << tool["name"];
      // Calls with empty arguments: a tool the session may not use is refused before its schema
      // is even read; any other answer came from the tool's own checks.
      auto r = Http(rig.port(), "POST", "/mcp",
                    json{{"jsonrpc", "2.0"},
                         {"id", id++},
                         {"method", "tools/call"},
                         {"params", {{"name", tool["name"]}, {"arguments", json::object()}}}}
                        .dump(),
                    h);
      const std::string code = r.json().value("/error/data/code"_json_pointer, "");
      EXPECT_EQ(code == "mcp.operator_only", !may)
          << cred.name << " x " << tool["name"] << ": " << r.body.substr(0, 300);
    }
  }
  EXPECT_THAT(rig.ApprovalStatus(), HasSubstr("\"pending\"")) << "no MCP call decided";
}

// ---- who acted ---------------------------------------------------------------------------------

// A composed surface with a Query() and a Mutation(), composed by an MCP client.
const char* kStagingProgram =
    "root = Stack([tbl, btn])\n"
    "events = Query(\"calendar_list_events\", {from: \"2026-11-30T00:00:00Z\", to: "
    "\"2026-12-07T00:00:00Z\"}, {rows: []})\n"
    "tbl = Table([Col(\"Event\", events.rows.summary)])\n"
    "create = Mutation(\"calendar_create_event\", {summary: $t, start: $s, end: $e})\n"
    "btn = Button(\"Stage\", Action([@Run(create)]))\n";

json McpCall(int port, const std::string& headers, const std::string& name, const json& args) {
  auto r = Http(port, "POST", "/mcp",
                json{{"jsonrpc", "2.0"},
                     {"id", 9},
                     {"method", "tools/call"},
                     {"params", {{"name", name}, {"arguments", args}}}}
                    .dump(),
                "accept: application/json\r\n" + headers);
  return json::parse(r.body, nullptr, false);
}

// The actors the Activity log names for entries of `kind` (the CLI's own --json).
std::set<std::string> ActivityActors(const Rig& rig, const std::string& kind) {
  auto all =
      json::parse(Capture(std::string(AFFORDANCE_CLI) + " activity --json --limit 1000 --data " +
                          rig.dir / "data" + " --connectors " + rig.connectors),
                  nullptr, false);
  std::set<std::string> out;
  if (!all.is_object()) return out;
  for (const auto& e : all["activity"]) {
    if (e.value("kind", "") == kind) out.insert(e.value("actor", ""));
  }
  return out;
}

// Issue 43, item 6: the credential matrix, for who acted. Every record a request leaves (staged
// by, the Activity log's stage and read entries) names the credential that acted -- the access
// token ("client:token"), an MCP client ("mcp:<client>"), the person ("user:<login>", a person
// session) -- at every door that stages or reads for a client: the artifact route, POST
// /api/query, a live app's read, MCP.
TEST(ServerSecurity, EveryRecordNamesTheCredentialThatActed) {
  Rig rig({}, /*token=*/true);
  ASSERT_GT(rig.port(), 0) << rig.server->first_line();
  const int port = rig.port();
  const std::string token = "authorization: Bearer " + kToken + "\r\n";
  const std::string sid = McpSession(port, token);
  ASSERT_FALSE(sid.empty());
  const std::string mcp = token + "mcp-session-id: " + sid + "\r\n";
  auto composed =
      McpCall(port, mcp, "compose_ui", {{"program", kStagingProgram}, {"title", "who"}});
  const std::string artifact =
      composed.value("/result/structuredContent/artifact/id"_json_pointer, "");
  ASSERT_FALSE(artifact.empty()) << composed.dump();
  const std::string person = PersonHeader(port);
  ASSERT_FALSE(person.empty());
  const json args = {{"args",
                      {{"summary", "Who staged this"},
                       {"start", "2026-12-03T10:00:00Z"},
                       {"end", "2026-12-03T11:00:00Z"}}}};
  struct Case {
    std::string credential, headers, want;
  };
  for (const Case& c : {Case{"the access token", token, "client:token"},
                        Case{"the person's session", person + token, "user:"}}) {
    auto staged = Http(port, "POST", "/api/artifacts/" + artifact + "/mutations/create",
                       args.dump(), c.headers);
    ASSERT_EQ(staged.status, 200) << c.credential << ": " << staged.body;
    EXPECT_EQ(staged.json()["approval"]["stagedBy"].get<std::string>().rfind(c.want, 0), 0u)
        << c.credential << ": " << staged.body;
    auto read = Http(port, "POST", "/api/query",
                     json{{"artifact", artifact}, {"statement", "events"}}.dump(), c.headers);
    EXPECT_EQ(read.status, 200) << c.credential << ": " << read.body;
  }
  auto by_mcp = McpCall(port, mcp, "stage_action",
                        {{"connector", "calendar"},
                         {"operation", "create_event"},
                         {"args",
                          {{"summary", "Staged by MCP"},
                           {"start", "2026-12-04T10:00:00Z"},
                           {"end", "2026-12-04T11:00:00Z"}}}});
  EXPECT_EQ(by_mcp.value("/result/structuredContent/approval/stagedBy"_json_pointer, ""),
            "mcp:security-test")
      << by_mcp.dump();

  const std::string login = [&] {
    for (const auto& a : ActivityActors(rig, "stage")) {
      if (a.rfind("user:", 0) == 0) return a;
    }
    return std::string("user:?");
  }();
  EXPECT_EQ(ActivityActors(rig, "stage"),
            (std::set<std::string>{"client:token", login, "mcp:security-test", "model"}));
  const auto readers = ActivityActors(rig, "read");
  EXPECT_TRUE(readers.count("client:token")) << "POST /api/query with the token";
  EXPECT_TRUE(readers.count(login)) << "POST /api/query with the person's session";
  EXPECT_THAT(Capture(std::string(AFFORDANCE_CLI) + " approvals list --json --data " +
                      rig.dir / "data" + " --connectors " + rig.connectors),
              HasSubstr("\"stagedBy\":\"client:token\""));
}

// The same without a token: this OS user's own process is "client:local", never the person.
TEST(ServerSecurity, ALocalClientWithoutATokenIsNamedAsAClient) {
  Rig rig;
  ASSERT_GT(rig.port(), 0) << rig.server->first_line();
  const int port = rig.port();
  const std::string sid = McpSession(port);
  auto composed = McpCall(port, "mcp-session-id: " + sid + "\r\n", "compose_ui",
                          {{"program", kStagingProgram}, {"title", "who"}});
  const std::string artifact =
      composed.value("/result/structuredContent/artifact/id"_json_pointer, "");
  ASSERT_FALSE(artifact.empty()) << composed.dump();
  auto staged = Http(port, "POST", "/api/artifacts/" + artifact + "/mutations/create",
                     json{{"args",
                           {{"summary", "Local"},
                            {"start", "2026-12-03T10:00:00Z"},
                            {"end", "2026-12-03T11:00:00Z"}}}}
                         .dump());
  ASSERT_EQ(staged.status, 200) << staged.body;
  EXPECT_EQ(staged.json()["approval"]["stagedBy"], "client:local");
  auto read = Http(port, "POST", "/api/query",
                   json{{"artifact", artifact}, {"statement", "events"}}.dump());
  EXPECT_EQ(read.status, 200) << read.body;
  EXPECT_TRUE(ActivityActors(rig, "read").count("client:local"));
  EXPECT_TRUE(ActivityActors(rig, "stage").count("client:local"));
}

// Every CLI command is declared: those that open the data folder are the person's, and the data
// folder (0700) keeps every other OS user out of them.
TEST(ServerSecurity, EveryCliCommandThatOpensTheDataFolderIsClosedToAnotherOsUser) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to act as another user";
  Rig rig;
  ASSERT_GT(rig.port(), 0) << rig.server->first_line();
  rig.server->Stop();
  const std::string data = rig.dir / "data";
  // What each person's command does when another user runs it against this data folder.
  const std::map<std::string, std::vector<std::string>> invocations = {
      {"activity", {"activity", "--data", data}},
      {"approvals", {"approvals", "approve", rig.approval, "--data", data}},
      {"artifacts", {"artifacts", "list", "--data", data}},
      {"chat", {"chat", "--data", data, "--provider", "replay", "--script", Script("fast.json")}},
      {"connector",
       {"connector", "sync", "calendar", "--data", data, "--connectors", rig.connectors}},
      {"grants",
       {"grants", "grant", "calendar", "--write", "--data", data, "--connectors", rig.connectors}},
      {"login-link", {"login-link", "--data", data}},
      {"mcp", {"mcp", "--data", data, "--operator"}},
      {"prompt", {"prompt", "audit", "--data", data}},
      {"reconcile", {"reconcile", "--data", data}},
      {"run",
       {"run", "--data", data, "--provider", "replay", "--script", Script("fast.json"), "hi"}},
      {"serve",
       {"serve", "--data", data, "--port", "0", "--provider", "replay", "--script",
        Script("fast.json")}},
      {"skills", {"skills", "list", "--data", data}},
  };
  const std::set<std::string> pure = {"tokenize", "detokenize", "render",
                                      "act",      "lang",       "capabilities"};
  for (const auto& command : Doors("cli")) {
    const std::string name = command["name"];
    if (command["access"] == "anyone") {
      EXPECT_TRUE(pure.count(name)) << name << " is declared for anyone but is not a pure command";
      continue;
    }
    ASSERT_EQ(command["access"], "person") << name;
    auto it = invocations.find(name);
    ASSERT_NE(it, invocations.end()) << "a new person's command needs a row here: " << name;
    std::vector<std::string> args = {AFFORDANCE_CLI};
    args.insert(args.end(), it->second.begin(), it->second.end());
    const std::string got = AsNobody([&] {
      int null = open("/dev/null", O_RDONLY);
      dup2(null, 0);
      return std::to_string(ServerProcess::Spawn(args));
    });
    EXPECT_NE(got, "0") << name << " ran for another user";
  }
  EXPECT_THAT(rig.ApprovalStatus(), HasSubstr("\"pending\""));
  struct stat st {};
  ASSERT_EQ(stat(data.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  for (const char* f : {"affordance.db", "operator.secret"}) {
    ASSERT_EQ(stat((data + "/" + f).c_str(), &st), 0) << f;
    EXPECT_EQ(st.st_mode & 0777, 0600u) << f;
  }
}

// ---- the gate's rules, one request at a time ---------------------------------------------------

TEST(ServerSecurity, AForeignHostIsRefusedOnEveryRouteBeforeRouting) {
  Rig rig;
  ASSERT_GT(rig.port(), 0) << rig.server->first_line();
  const std::string port = std::to_string(rig.port());
  std::vector<std::string> paths = {"/no/such/route", "/api/chat/" + rig.thread + "/stream"};
  for (const auto& route : Doors("http")) paths.push_back(Concrete(route["name"]).second);
  for (const std::string& host : std::vector<std::string>{
           "evil.example:" + port, "evil.example", "10.1.2.3:" + port, "", "127.0.0.1",
           "127.0.0.1:" + port + "0", "127.evil.example:" + port}) {
    for (const auto& path : paths) {
      Socket s(rig.port());
      s.Send("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
      auto r = Parse(s.ReadUntil(""));
      EXPECT_EQ(r.status, 421) << host << " " << path;
      EXPECT_EQ(GateCode(r), "server.foreign_host") << host << " " << path << " " << r.body;
      EXPECT_THAT(r.body, Not(HasSubstr(rig.thread)));
    }
  }
  // No Host at all (HTTP/1.0), and two of them.
  Socket none(rig.port());
  none.Send("GET /api/threads HTTP/1.0\r\n\r\n");
  EXPECT_EQ(Parse(none.ReadUntil("")).status, 421);
  Socket two(rig.port());
  two.Send("GET /api/threads HTTP/1.1\r\nHost: 127.0.0.1:" + port +
           "\r\nHost: evil.example\r\n\r\n");
  EXPECT_EQ(Parse(two.ReadUntil("")).status, 421);
  // The MCP endpoint answers as JSON-RPC.
  Socket mcp(rig.port());
  mcp.Send(
      "POST /mcp HTTP/1.1\r\nHost: evil.example:" + port +
      "\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
  auto r = Parse(mcp.ReadUntil(""));
  EXPECT_EQ(r.status, 421);
  EXPECT_EQ(r.json()["jsonrpc"], "2.0");
  EXPECT_EQ(r.json()["error"]["data"]["code"], "server.foreign_host");
  // Our own names are served, localhost and [::1] included.
  for (const std::string& host : std::vector<std::string>{"127.0.0.1:" + port, "localhost:" + port,
                                                          "LocalHost:" + port, "[::1]:" + port}) {
    Socket s(rig.port());
    s.Send("GET /api/threads HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
    EXPECT_EQ(Parse(s.ReadUntil("")).status, 200) << host;
  }
}

TEST(ServerSecurity, CrossSiteRequestsCannotConverseCreateQueryAcknowledgeOrDecide) {
  Rig rig;
  ASSERT_GT(rig.port(), 0) << rig.server->first_line();
  const std::string person = PersonHeader(rig.port());
  const std::string threads_before = Http(rig.port(), "GET", "/api/threads").body;
  struct Attempt {
    std::string path, body;
  };
  const std::vector<Attempt> attempts = {
      {"/api/chat", ChatBody("evil-chat", "Read my calendar and add an event")},
      {"/api/chat", rig.Decision()},
      {"/api/threads", R"({"title":"evil"})"},
      {"/api/query", R"({"artifact":"a","statement":"s"})"},
      {"/api/threads/" + rig.thread + "/surfaces/s1/ack", R"({"state":"hydrated"})"},
      {"/api/session", "{}"},
  };
  auto raw = [&](const Attempt& a, const std::string& headers) {
    Socket s(rig.port());
    s.Send("POST " + a.path + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(rig.port()) +
           "\r\nConnection: close\r\n" + headers +
           "Content-Length: " + std::to_string(a.body.size()) + "\r\n\r\n" + a.body);
    return Parse(s.ReadUntil(""));
  };
  for (const auto& a : attempts) {
    // The three content types a page may send with no preflight, with and without an Origin,
    // even with the person's session (a foreign page cannot have it, but the rules hold anyway).
    for (const char* type :
         {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"}) {
      auto r = raw(a, std::string("Content-Type: ") + type + "\r\n" + person);
      EXPECT_EQ(r.status, 415) << a.path << " " << type;
      EXPECT_EQ(GateCode(r), "server.bad_content_type");
      r = raw(a, std::string("Content-Type: ") + type + "\r\nOrigin: http://evil.example\r\n");
      EXPECT_EQ(GateCode(r), "server.foreign_origin") << a.path;
    }
    // JSON from a foreign origin (after a preflight we do not answer), or marked cross-site.
    for (const char* h :
         {"Origin: http://evil.example\r\n", "Origin: null\r\n", "Origin: http://127.0.0.1:1\r\n",
          "Origin: http://localhost.evil\r\n", "Origin: \r\n"}) {
      auto r = raw(a, std::string("Content-Type: application/json\r\n") + h + person);
      EXPECT_EQ(r.status, 403) << a.path << " " << h;
      EXPECT_EQ(GateCode(r), "server.foreign_origin") << a.path << " " << h;
    }
    for (const char* site : {"cross-site", "same-site"}) {
      auto r = raw(a, std::string("Content-Type: application/json\r\nSec-Fetch-Site: ") + site +
                          "\r\n" + person);
      EXPECT_EQ(GateCode(r), "server.cross_site") << a.path << " " << site;
    }
    // No Content-Type at all: refused too (a fetch with a string body and no type is text/plain).
    auto r = raw(a, person);
    EXPECT_EQ(GateCode(r), "server.bad_content_type") << a.path;
  }
  EXPECT_EQ(Http(rig.port(), "GET", "/api/threads").body, threads_before) << "nothing created";
  EXPECT_THAT(rig.ApprovalStatus(), HasSubstr("\"pending\""));
  EXPECT_THAT(rig.ics(), Not(HasSubstr("Budget sync")));
  // No CORS headers unless the operator names an origin.
  auto plain = Http(rig.port(), "GET", "/api/threads", "",
                    "Origin: http://127.0.0.1:" + std::to_string(rig.port()) + "\r\n");
  EXPECT_EQ(plain.status, 200);
  EXPECT_EQ(plain.Header("access-control-allow-origin"), "");
  EXPECT_EQ(plain.Header("x-frame-options"), "DENY");
  EXPECT_THAT(plain.Header("content-security-policy"), HasSubstr("frame-ancestors 'none'"));
  EXPECT_EQ(plain.Header("cross-origin-resource-policy"), "same-origin");
  // The refusals are counted where an operator sees them.
  auto truth = Http(rig.port(), "GET", "/deploy-truth").json();
  EXPECT_GE(truth["refused"]["server.bad_content_type"].get<int>(), 6 * 4);
  EXPECT_GE(truth["refused"]["server.foreign_origin"].get<int>(), 6 * 8);
  EXPECT_GE(truth["refused"]["server.cross_site"].get<int>(), 6 * 2);
}

TEST(ServerSecurity, AnOriginTheOperatorAllowsGetsCorsAsAClientNeverAsThePerson) {
  Rig rig({"--allow-origin", "https://app.example"});
  ASSERT_GT(rig.port(), 0) << rig.server->first_line();
  const std::string origin = "Origin: https://app.example\r\n";
  auto pre = Http(rig.port(), "OPTIONS", "/api/threads", "",
                  origin + "Access-Control-Request-Method: GET\r\n");
  EXPECT_EQ(pre.status, 204);
  EXPECT_EQ(pre.Header("access-control-allow-origin"), "https://app.example");
  EXPECT_THAT(pre.Header("access-control-allow-headers"), Not(HasSubstr("x-affordance-session")));
  auto read =
      Http(rig.port(), "GET", "/api/threads", "", origin + "Sec-Fetch-Site: cross-site\r\n");
  EXPECT_EQ(read.status, 200) << read.body;
  EXPECT_EQ(read.Header("access-control-allow-origin"), "https://app.example");
  // Its page cannot decide, with or without a person session, nor mint one.
  auto decided =
      Http(rig.port(), "POST", "/api/chat", rig.Decision(), origin + PersonHeader(rig.port()));
  EXPECT_EQ(GateCode(decided), "server.person_only") << decided.body;
  auto minted = Http(rig.port(), "POST", "/api/session", "{}", origin);
  EXPECT_EQ(minted.status, 403) << minted.body;
  // Another origin still gets nothing.
  auto other = Http(rig.port(), "GET", "/api/threads", "", "Origin: https://evil.example\r\n");
  EXPECT_EQ(GateCode(other), "server.foreign_origin");
  EXPECT_EQ(other.Header("access-control-allow-origin"), "");
  // A malformed origin or public host stops the server from starting, with its reason.
  TempDir dir;
  ServerProcess bad(dir / "data", Script("fast.json"), {"--allow-origin", "app.example"});
  EXPECT_EQ(bad.port(), 0);
  EXPECT_THAT(bad.first_line(), HasSubstr("server.bad_origin"));
  ServerProcess bad_host(dir / "data2", Script("fast.json"), {"--public-host", "a/b"});
  EXPECT_THAT(bad_host.first_line(), HasSubstr("server.bad_public_host"));
}

// ---- deep input on every door ------------------------------------------------------------------

std::string Deep(size_t levels) { return std::string(levels, '[') + std::string(levels, ']'); }

TEST(ServerSecurity, InputAMillionLevelsDeepOnEveryJsonDoorIsATypedErrorAndTheServerStaysUp) {
  // A body limit that lets a million levels in, so the depth check (not the size limit) answers.
  Rig rig({"--body-limit", "4194304"});
  ASSERT_GT(rig.port(), 0) << rig.server->first_line();
  const std::string person = PersonHeader(rig.port());
  const std::string bomb = Deep(1000000);
  const std::string open_only(1000000, '[');  // never closed
  struct Door {
    std::string method, path, prefix, suffix;
  };
  const std::vector<Door> doors = {
      {"POST", "/api/chat", R"({"id":"deep","messages":)", "}"},
      {"POST", "/api/chat",
       R"({"id":")" + rig.thread + R"(","messages":[{"role":"assistant","parts":)", "}]}"},
      {"POST", "/api/threads", R"({"title":)", "}"},
      {"PATCH", "/api/threads/" + rig.thread, R"({"title":)", "}"},
      {"POST", "/api/threads/" + rig.thread + "/surfaces/s1/ack", R"({"state":)", "}"},
      {"POST", "/api/query", R"({"artifact":"a","statement":"s","args":)", "}"},
      {"POST", "/api/artifacts/a/mutations/s", R"({"args":)", "}"},
      {"POST", "/api/session", R"({"login":)", "}"},
      {"POST", "/api/chat/" + rig.thread + "/cancel", R"({"x":)", "}"},
  };
  for (const auto& d : doors) {
    for (const std::string* inner : {&bomb, &open_only}) {
      auto r = Http(rig.port(), d.method, d.path, d.prefix + *inner + d.suffix, person);
      ASSERT_TRUE(rig.server->alive()) << d.method << " " << d.path;
      if (d.path.find("/cancel") != std::string::npos) continue;  // takes no body: never parsed
      EXPECT_EQ(r.status, 400) << d.method << " " << d.path << " " << r.body.substr(0, 200);
      EXPECT_EQ(r.json()["error"]["code"], "server.too_deep") << d.path;
    }
  }
  // The MCP door: the message itself, and a tool call's arguments inside a session.
  const std::string sid = McpSession(rig.port());
  ASSERT_FALSE(sid.empty());
  const std::string h = "accept: application/json\r\nmcp-session-id: " + sid + "\r\n";
  for (
      const std::string& body : std::vector<std::string>{
          R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_connector","arguments":{"connector":"calendar","request":)" +
              Deep(150000) + "}}}",
          R"({"jsonrpc":"2.0","id":3,"method":"initialize","params":)" + bomb + "}", bomb}) {
    auto r = Http(rig.port(), "POST", "/mcp", body, h);
    ASSERT_TRUE(rig.server->alive());
    EXPECT_EQ(r.status, 400) << r.body.substr(0, 200);
    EXPECT_EQ(r.json()["error"]["data"]["code"], "mcp.too_deep") << r.body.substr(0, 300);
  }
  // Exactly at the limit is fine.
  auto at = Http(rig.port(), "POST", "/api/threads",
                 R"({"title":"at the limit","x":)" + Deep(127) + "}", "");
  EXPECT_EQ(at.status, 201) << at.body;
  // Still serving, and the pending approval was not touched.
  EXPECT_EQ(Http(rig.port(), "GET", "/deploy-truth").status, 200);
  EXPECT_THAT(rig.ApprovalStatus(), HasSubstr("\"pending\""));
}

TEST(ServerSecurity, TheIssuesCrashBodyAtTheDefaultLimit) {
  TempDir dir;
  ServerProcess server(dir / "data", Script("fast.json"));
  ASSERT_GT(server.port(), 0) << server.first_line();
  const std::string body = R"({"artifact":"a","statement":"s","args":{"x":)" + Deep(150000) + "}}";
  ASSERT_LT(body.size(), 1u << 20);
  auto r = Http(server.port(), "POST", "/api/query", body);
  EXPECT_EQ(r.status, 400) << r.body.substr(0, 200);
  EXPECT_EQ(r.json()["error"]["code"], "server.too_deep");
  EXPECT_TRUE(server.alive());
  EXPECT_EQ(Http(server.port(), "GET", "/api/threads").status, 200);
}

// ---- files and secrets -------------------------------------------------------------------------

TEST(ServerSecurity, TheAccessTokenComesFromAFileOrTheEnvironmentAndIsNeverShown) {
  TempDir dir;
  const std::string file = dir / "token";
  {
    std::ofstream out(file);
    out << kToken << "\n";
  }
  chmod(file.c_str(), 0644);
  ServerProcess open_file(dir / "data", Script("fast.json"), {"--access-token-file", file});
  EXPECT_EQ(open_file.port(), 0);
  EXPECT_THAT(open_file.first_line(), HasSubstr("server.token_file_unsafe"));
  chmod(file.c_str(), 0600);
  ServerProcess from_file(dir / "data", Script("fast.json"), {"--access-token-file", file});
  ASSERT_GT(from_file.port(), 0) << from_file.first_line();
  EXPECT_EQ(Http(from_file.port(), "GET", "/api/threads").status, 401);
  EXPECT_EQ(
      Http(from_file.port(), "GET", "/api/threads", "", "authorization: Bearer " + kToken + "\r\n")
          .status,
      200);
  // Neither in the command line nor in an unauthenticated error.
  std::ifstream cmdline("/proc/" + std::to_string(from_file.pid()) + "/cmdline");
  std::string args((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
  EXPECT_THAT(args, Not(HasSubstr(kToken)));
  from_file.Stop();
  // Given on the command line anyway, it is overwritten there once parsed.
  ServerProcess argv(dir / "data", Script("fast.json"), {"--access-token", kToken});
  ASSERT_GT(argv.port(), 0) << argv.first_line();
  std::ifstream shown("/proc/" + std::to_string(argv.pid()) + "/cmdline");
  std::string visible((std::istreambuf_iterator<char>(shown)), std::istreambuf_iterator<char>());
  EXPECT_THAT(visible, Not(HasSubstr(kToken)));
  EXPECT_THAT(visible, HasSubstr("--access-token"));
  // Unauthenticated errors name no path of the server's (data folder, web folder).
  for (const char* path : {"/assets/nope.js", "/api/threads", "/deploy-truth", "/", "/nothing"}) {
    auto r = Http(argv.port(), "GET", path);
    EXPECT_THAT(r.body, Not(HasSubstr(dir / ""))) << path;
    EXPECT_THAT(r.body, Not(HasSubstr(AFFORDANCE_BINARY_DIR))) << path;
    EXPECT_THAT(r.body, Not(HasSubstr(AFFORDANCE_SOURCE_DIR))) << path;
  }
}

}  // namespace
}  // namespace affordance::server::testing

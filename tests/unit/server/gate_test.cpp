// The gate's rules one by one (server/gate.h); the real server, a real browser and every door
// against every credential are in tests/integration/server/server_security_test.cpp and
// security.test.mjs.
#include "server/gate.h"

#include "server/router.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace affordance::server {
namespace {

using authority::Access;

constexpr uint32_t kUs = 4242;

GateOptions Loopback(uint16_t port = 3147) {
  GateOptions o;
  o.port = port;
  o.bind_host = "127.0.0.1";
  o.server_uid = kUs;
  return o;
}

HttpRequest Get(std::vector<std::pair<std::string, std::string>> headers = {}) {
  HttpRequest r;
  r.method = "GET";
  r.path = "/api/threads";
  r.headers = std::move(headers);
  r.peer_loopback = true;
  r.peer_uid = kUs;
  return r;
}

HttpRequest Post(std::string content_type,
                 std::vector<std::pair<std::string, std::string>> h = {}) {
  HttpRequest r = Get(std::move(h));
  r.method = "POST";
  r.body = "{}";
  if (!content_type.empty()) r.headers.emplace_back("Content-Type", content_type);
  return r;
}

std::string Refusal(const Gate& g, const HttpRequest& r, Access needed = Access::kClient) {
  auto a = g.Admit(r, needed);
  return a ? "" : a.error().code;
}

TEST(Gate, OnlyTheServersOwnNamesAreServed) {
  Gate g(Loopback());
  for (const char* ok : {"127.0.0.1:3147", "localhost:3147", "LOCALHOST:3147", "[::1]:3147"}) {
    EXPECT_TRUE(g.HostAllowed(ok)) << ok;
  }
  for (const char* bad :
       {"evil.example:3147", "evil.example", "10.1.2.3:3147", "", " ", "127.0.0.1", "127.0.0.1:80",
        "localhost:31470", "127.0.0.1:3147.", "localhost.:3147", "127.0.0.1:3147@evil",
        "user@127.0.0.1:3147", "127.evil.example:3147", "[::2]:3147"}) {
    EXPECT_FALSE(g.HostAllowed(bad)) << bad;
  }
  Gate port80(Loopback(80));
  EXPECT_TRUE(port80.HostAllowed("localhost"));  // a browser leaves the default port out
  EXPECT_TRUE(port80.HostAllowed("localhost:80"));
}

TEST(Gate, PublicHostsAndASpecificBoundAddress) {
  GateOptions o = Loopback();
  o.bind_host = "192.168.7.9";
  o.public_hosts = {"affordance.example", "proxy.example:8443"};
  Gate g(o);
  EXPECT_TRUE(g.HostAllowed("192.168.7.9:3147"));
  EXPECT_TRUE(g.HostAllowed("affordance.example"));
  EXPECT_TRUE(g.HostAllowed("affordance.example:3147"));
  EXPECT_TRUE(g.HostAllowed("proxy.example:8443"));
  EXPECT_FALSE(g.HostAllowed("proxy.example"));
  EXPECT_FALSE(g.HostAllowed("affordance.example:9999"));
  o.bind_host = "0.0.0.0";  // a wildcard names nothing
  EXPECT_FALSE(Gate(o).HostAllowed("0.0.0.0:3147"));
  // Origins of public hosts, both schemes (a TLS proxy in front).
  EXPECT_EQ(Refusal(g, Post("application/json", {{"Origin", "https://affordance.example"}})), "");
  EXPECT_EQ(Refusal(g, Post("application/json", {{"Origin", "http://proxy.example:8443"}})), "");
}

TEST(Gate, BadNamesAndOriginsAreRefusedAtStart) {
  GateOptions o = Loopback();
  for (const char* bad : {"", "http://x", "x/y", "a b", "x:", "x:99999", "[nope]:1", ":80"}) {
    o.public_hosts = {bad};
    EXPECT_EQ(CheckGateOptions(o).error().code, "server.bad_public_host") << bad;
  }
  o.public_hosts = {"ok.example", "[::1]:8080", "10.0.0.1"};
  EXPECT_TRUE(CheckGateOptions(o).ok());
  for (const char* bad : {"app.example", "https://app.example/", "ftp://x", "https://", "null"}) {
    o.allowed_origins = {bad};
    EXPECT_EQ(CheckGateOptions(o).error().code, "server.bad_origin") << bad;
  }
}

TEST(Gate, AForeignOriginIsRefusedEvenWhenItNamesTheHost) {
  Gate g(Loopback());
  EXPECT_EQ(Refusal(g, Get({{"Origin", "http://127.0.0.1:3147"}})), "");
  EXPECT_EQ(Refusal(g, Get({{"Origin", "http://localhost:3147"}})), "");
  for (const char* bad :
       {"http://evil.example", "http://evil.example:3147", "null", "", "http://127.0.0.1:8080",
        "http://localhost:3148", "http://127.evil.example", "https://127.0.0.1:3147",
        "http://127.0.0.1:3147/x"}) {
    EXPECT_EQ(Refusal(g, Get({{"Origin", bad}})), "server.foreign_origin") << bad;
    // Static files too: a page elsewhere may link to them, but not fetch them as itself.
    EXPECT_EQ(Refusal(g, Get({{"Origin", bad}}), Access::kAnyone), "server.foreign_origin") << bad;
  }
}

TEST(Gate, CrossSiteFetchesAreRefusedButNavigationsToTheUiAreNot) {
  Gate g(Loopback());
  EXPECT_EQ(Refusal(g, Get({{"Sec-Fetch-Site", "cross-site"}})), "server.cross_site");
  EXPECT_EQ(Refusal(g, Get({{"Sec-Fetch-Site", "same-site"}})), "server.cross_site");
  EXPECT_EQ(Refusal(g, Get({{"Sec-Fetch-Site", "same-origin"}})), "");
  EXPECT_EQ(Refusal(g, Get({{"Sec-Fetch-Site", "none"}})), "");
  EXPECT_EQ(Refusal(g, Get({{"Sec-Fetch-Site", "cross-site"}}), Access::kAnyone), "");
  // A write to a public door (the person's session is started by one) is not a navigation.
  EXPECT_EQ(
      Refusal(g, Post("application/json", {{"Sec-Fetch-Site", "cross-site"}}), Access::kAnyone),
      "server.cross_site");
}

TEST(Gate, BodiesMustBeJsonSoNoSimpleRequestGetsThrough) {
  Gate g(Loopback());
  EXPECT_EQ(Refusal(g, Post("application/json")), "");
  EXPECT_EQ(Refusal(g, Post("Application/JSON; charset=utf-8")), "");
  for (const char* simple :
       {"text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x", "", "application/jsonp", "application/json-seq"}) {
    EXPECT_EQ(Refusal(g, Post(simple)), "server.bad_content_type") << simple;
  }
  HttpRequest empty_post = Post("");
  empty_post.body.clear();  // a POST with no body is a simple request too
  EXPECT_EQ(Refusal(g, empty_post), "server.bad_content_type");
  HttpRequest del = Get();
  del.method = "DELETE";  // not a simple method: a foreign page needs a preflight for it
  EXPECT_EQ(Refusal(g, del), "");
}

TEST(Gate, PlanesFromCredentials) {
  GateOptions o = Loopback();
  PersonSessions sessions(std::string(64, 'k'));
  o.sessions = &sessions;
  Gate g(o);
  // No token configured: our own OS user's loopback process is a client, another user nobody.
  EXPECT_EQ(g.Admit(Get(), Access::kClient)->plane, Access::kClient);
  HttpRequest other = Get();
  other.peer_uid = kUs + 1;
  EXPECT_EQ(Refusal(g, other), "server.foreign_user");
  other.peer_uid.reset();  // cannot tell whose
  EXPECT_EQ(Refusal(g, other), "server.foreign_user");
  EXPECT_EQ(Refusal(g, other, Access::kAnyone), "");
  // Deciding needs the person's session.
  EXPECT_EQ(Refusal(g, Get(), Access::kPerson), "server.person_only");
  const std::string token = sessions.Mint();
  auto person = g.Admit(Get({{"X-Affordance-Session", token}}), Access::kPerson);
  ASSERT_TRUE(person.ok());
  EXPECT_EQ(person->plane, Access::kPerson);
  // ... from a browser of another OS user too (it proved itself with a sign-in code).
  HttpRequest signed_in = Get({{"x-affordance-session", token}});
  signed_in.peer_uid = kUs + 1;
  EXPECT_EQ(g.Admit(signed_in, Access::kPerson)->plane, Access::kPerson);
  auto stale = g.Admit(Get({{"x-affordance-session", "ps1.1.aa.bb"}}), Access::kClient);
  ASSERT_TRUE(stale.ok());
  EXPECT_TRUE(stale->person_session_invalid);
  EXPECT_EQ(Refusal(g, Get({{"x-affordance-session", "ps1.1.aa.bb"}}), Access::kPerson),
            "server.person_session_expired");
  // A session from a page on a CORS origin is not the person's.
  o.allowed_origins = {"https://app.example"};
  Gate cors(o);
  EXPECT_EQ(cors.Admit(Get({{"Origin", "https://app.example"}, {"x-affordance-session", token}}),
                       Access::kClient)
                ->plane,
            Access::kClient);
  EXPECT_EQ(Refusal(cors, Get({{"Origin", "https://app.example"}, {"x-affordance-session", token}}),
                    Access::kPerson),
            "server.person_only");
}

TEST(Gate, AConfiguredTokenIsNeededByEveryoneButThePerson) {
  GateOptions o = Loopback();
  PersonSessions sessions(std::string(64, 'k'));
  o.sessions = &sessions;
  o.access_token = "0123456789abcdef0123";
  RefusalCounts counts;
  o.refusals = &counts;
  Gate g(o);
  EXPECT_EQ(Refusal(g, Get()), "server.unauthorized") << "even our own user's process";
  EXPECT_EQ(
      g.Admit(Get({{"Authorization", "Bearer 0123456789abcdef0123"}}), Access::kClient)->plane,
      Access::kClient);
  EXPECT_EQ(
      g.Admit(Get({{"authorization", "bearer 0123456789abcdef0123"}}), Access::kClient)->plane,
      Access::kClient);
  for (const char* bad : {"Bearer 0123456789abcdef012", "Bearer 0123456789abcdef01234", "Bearer",
                          "0123456789abcdef0123", "Basic 0123456789abcdef0123"}) {
    EXPECT_EQ(Refusal(g, Get({{"Authorization", bad}})), "server.unauthorized") << bad;
  }
  // The token never decides.
  EXPECT_EQ(Refusal(g, Get({{"Authorization", "Bearer 0123456789abcdef0123"}}), Access::kPerson),
            "server.person_only");
  EXPECT_EQ(g.Admit(Get({{"x-affordance-session", sessions.Mint()}}), Access::kClient)->plane,
            Access::kPerson);
  auto seen = counts.Snapshot();
  EXPECT_EQ(seen["server.unauthorized"], 6);
  EXPECT_EQ(seen["server.person_only"], 1);
  EXPECT_EQ(seen["server.wrong_token"], 5) << "each wrong token sent, not the request with none";
}

TEST(Gate, WrongTokensFromOneSourceAreSlowedAndNoOneElse) {
  int64_t now = 0;
  CredentialBackoff backoff([&] { return now; });
  GateOptions o = Loopback();
  PersonSessions sessions(std::string(64, 'k'));
  o.sessions = &sessions;
  o.access_token = "0123456789abcdef0123";
  o.backoff = &backoff;
  RefusalCounts counts;
  o.refusals = &counts;
  Gate g(o);
  HttpRequest guess = Get({{"Authorization", "Bearer guess-guess-guess-guess"}});
  guess.peer_uid = 65534;  // another OS user on this machine
  for (int i = 0; i < CredentialBackoff::kFreeFailures; ++i) {
    ASSERT_EQ(Refusal(g, guess), "server.unauthorized") << i;
  }
  EXPECT_EQ(Refusal(g, guess), "server.unauthorized") << "the one that starts the wait";
  auto slowed = g.Admit(guess, Access::kClient);
  ASSERT_FALSE(slowed.ok());
  EXPECT_EQ(slowed.error().code, "server.slow_down");
  EXPECT_EQ(HttpStatusOf(slowed.error().kind), 429);
  EXPECT_EQ(slowed.error().message, "too many wrong access tokens from here: try again in 1 s");
  // While it waits even the right token is not checked from there.
  HttpRequest right = guess;
  right.headers = {{"Authorization", "Bearer 0123456789abcdef0123"}};
  EXPECT_EQ(Refusal(g, right), "server.slow_down");
  // The person's OS user is another source, and the person's session is never slowed.
  EXPECT_EQ(Refusal(g, Get({{"Authorization", "Bearer 0123456789abcdef0123"}})), "");
  HttpRequest person = guess;
  person.headers = {{"x-affordance-session", sessions.Mint()},
                    {"Authorization", "Bearer guess-guess-guess-guess"}};
  EXPECT_EQ(g.Admit(person, Access::kPerson)->plane, Access::kPerson);
  // Each further wrong one doubles the wait; a right one, once allowed, ends it.
  now += 1000;
  EXPECT_EQ(Refusal(g, guess), "server.unauthorized");
  EXPECT_EQ(backoff.WaitMs("uid:65534"), 2000);
  EXPECT_EQ(backoff.Waiting(), 1);
  now += 2000;
  EXPECT_EQ(Refusal(g, right), "");
  EXPECT_EQ(backoff.WaitMs("uid:65534"), 0);
  EXPECT_EQ(counts.Snapshot()["server.slow_down"], 2);
}

TEST(CredentialBackoff, WaitsDoubleToACapAndAreForgottenAfterAQuietSpell) {
  int64_t now = 0;
  CredentialBackoff b([&] { return now; });
  HttpRequest remote;
  remote.peer_address = "192.0.2.7";
  EXPECT_EQ(CredentialBackoff::SourceOf(remote), "addr:192.0.2.7");
  HttpRequest local;
  local.peer_address = "127.0.0.1";
  local.peer_loopback = true;
  EXPECT_EQ(CredentialBackoff::SourceOf(local), "addr:127.0.0.1")
      << "an owner the kernel did not name";
  local.peer_uid = 1000;
  EXPECT_EQ(CredentialBackoff::SourceOf(local), "uid:1000");
  for (int i = 0; i < CredentialBackoff::kFreeFailures; ++i) b.Fail("a");
  EXPECT_EQ(b.WaitMs("a"), 0);
  int64_t want = CredentialBackoff::kFirstWaitMs;
  for (int i = 0; i < 30; ++i) {
    b.Fail("a");
    EXPECT_EQ(b.WaitMs("a"), want) << i;
    want = std::min(want * 2, CredentialBackoff::kMaxWaitMs);
  }
  EXPECT_EQ(b.WaitMs("b"), 0);
  now += CredentialBackoff::kMaxWaitMs + CredentialBackoff::kForgetMs;
  EXPECT_EQ(b.Waiting(), 0);
  b.Fail("a");
  EXPECT_EQ(b.WaitMs("a"), 0) << "a fresh record: its first failure is free again";
}

TEST(CredentialBackoff, HoldsAtMostItsBoundOfSources) {
  const int64_t now = 0;  // every source waits for the whole test
  CredentialBackoff b([&] { return now; });
  for (size_t i = 0; i < CredentialBackoff::kMaxSources + 50; ++i) {
    for (int k = 0; k <= CredentialBackoff::kFreeFailures; ++k) b.Fail("addr:" + std::to_string(i));
  }
  EXPECT_EQ(b.Waiting(), static_cast<int64_t>(CredentialBackoff::kMaxSources));
  EXPECT_GT(b.WaitMs("addr:" + std::to_string(CredentialBackoff::kMaxSources + 49)), 0)
      << "the newest source is kept";
}

TEST(Gate, CorsOnlyForTheOperatorsOrigins) {
  GateOptions o = Loopback();
  Gate none(o);
  EXPECT_FALSE(none.CorsOrigin("https://app.example"));
  o.allowed_origins = {"https://App.Example"};
  Gate g(o);
  EXPECT_TRUE(g.CorsOrigin("https://app.example"));
  EXPECT_FALSE(g.CorsOrigin("https://app.example.evil"));
  // An allowed origin may call cross-site, as a client.
  EXPECT_EQ(Refusal(g, Post("application/json",
                            {{"Origin", "https://app.example"}, {"Sec-Fetch-Site", "cross-site"}})),
            "");
  auto headers = g.CorsHeaders("https://app.example", true);
  EXPECT_EQ(headers.front().second, "https://app.example");
}

}  // namespace
}  // namespace affordance::server

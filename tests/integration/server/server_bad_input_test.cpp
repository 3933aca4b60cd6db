// Bad input never takes the server down: each case gets a JSON error (or a clean close), and the
// server answers the next request.
#include "server_process.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

namespace affordance::server::testing {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Fast() { return Source("tests/integration/server/scripts/fast.json"); }

void ExpectError(const Response& r, int status, const std::string& code) {
  EXPECT_EQ(r.status, status) << r.head << "\n" << r.body;
  EXPECT_THAT(r.Header("content-type"), HasSubstr("application/json"));
  auto body = json::parse(r.body, nullptr, false);
  ASSERT_TRUE(body.is_object()) << r.body;
  EXPECT_EQ(body["error"]["code"], code) << r.body;
  EXPECT_FALSE(body["error"]["message"].get<std::string>().empty());
  // The status is the category's (base/result.h): one mapping for every door.
  const std::map<int, std::string> category = {
      {400, "invalid"},     {401, "unauthenticated"}, {403, "forbidden"},
      {404, "not_found"},   {405, "not_allowed"},     {408, "timeout"},
      {409, "conflict"},    {413, "too_large"},       {415, "unsupported_media"},
      {421, "misdirected"}, {500, "internal"},        {503, "unavailable"}};
  if (category.count(status)) EXPECT_EQ(body["error"]["category"], category.at(status)) << r.body;
}

void ExpectUp(const ServerProcess& server) {
  ASSERT_TRUE(server.alive());
  EXPECT_EQ(Http(server.port(), "GET", "/deploy-truth").status, 200);
}

TEST(ServerBadInput, MalformedRequestsGetJsonErrors) {
  TempDir dir;
  ServerProcess server(dir / "data", Fast(), {"--body-limit", "4096"});
  ASSERT_GT(server.port(), 0) << server.first_line();
  const int port = server.port();
  ExpectError(Http(port, "POST", "/api/chat", "{not json"), 400, "server.bad_json");
  ExpectError(Http(port, "POST", "/api/chat", "[1,2]"), 400, "server.bad_json");
  ExpectError(Http(port, "POST", "/api/chat", R"({"messages":[]})"), 400, "server.bad_request");
  // An assistant message is only sent back to carry approval decisions.
  ExpectError(
      Http(port, "POST", "/api/chat", R"({"id":"x","messages":[{"role":"assistant","parts":[]}]})"),
      400, "server.no_decision");
  ExpectError(Http(port, "POST", "/api/chat", R"({"id":"x","messages":[{"role":"system"}]})"), 400,
              "server.bad_request");
  ExpectError(Http(port, "POST", "/api/chat", ChatBody("x", "   ")), 400, "harness.empty_message");
  ExpectError(
      Http(
          port, "POST", "/api/chat",
          R"({"id":"x","trigger":"regenerate-message","messages":[{"role":"user","parts":[{"type":"text","text":"hi"}]}]})"),
      400, "server.unsupported_trigger");
  ExpectError(Http(port, "GET", "/api/threads/t_missing"), 404, "server.unknown_thread");
  ExpectError(Http(port, "GET", "/no/such/route"), 404, "server.not_found");
  ExpectError(Http(port, "PUT", "/api/threads"), 405, "server.method_not_allowed");
  ExpectError(Http(port, "GET", "/api/threads", "", "x-ai-sdk-version: banana\r\n"), 400,
              "server.bad_client_version");
  ExpectError(Http(port, "GET", "/assets/..%2Fsecret"), 404, "server.not_found");
  ExpectUp(server);
}

TEST(ServerBadInput, OversizedBodiesAreRefusedWith413) {
  TempDir dir;
  ServerProcess server(dir / "data", Fast(), {"--body-limit", "4096"});
  ASSERT_GT(server.port(), 0);
  std::string big = ChatBody("x", std::string(10000, 'a'));
  ExpectError(Http(server.port(), "POST", "/api/chat", big), 413, "server.body_too_large");
  ExpectUp(server);
}

TEST(ServerBadInput, SlowHalfClosedAndGarbageClientsDoNotHurtTheServer) {
  TempDir dir;
  ServerProcess server(dir / "data", Fast(), {"--read-timeout-ms", "500"});
  ASSERT_GT(server.port(), 0);
  const int port = server.port();
  {
    // A slow client: half a request, then silence past the read timeout.
    Socket slow(port);
    slow.Send("POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"id\":");
    auto r = Parse(slow.ReadUntil("}}", 5000));
    ExpectError(r, 408, "server.timeout");
  }
  {
    // Many idle connections that never send a byte are closed, not answered.
    std::vector<std::unique_ptr<Socket>> idle;
    for (int i = 0; i < 50; ++i) idle.push_back(std::make_unique<Socket>(port));
    ExpectUp(server);
    EXPECT_EQ(idle[0]->ReadUntil("x", 3000), "");
  }
  {
    // A half-closed client (sent its request, then shut its side) still gets the whole answer.
    Socket half(port);
    half.Send(Request(port, "GET", "/api/threads"));
    half.ShutdownWrite();
    auto r = Parse(half.ReadUntil("]}", 5000));
    EXPECT_EQ(r.status, 200);
    EXPECT_THAT(r.body, HasSubstr("\"threads\""));
  }
  {
    // A half-closed client of a stream: the turn still streams to it and is persisted.
    Socket half(port);
    half.Send(Request(port, "POST", "/api/chat", ChatBody("half-closed", "hello")));
    half.ShutdownWrite();
    auto r = Parse(half.ReadUntil("data: [DONE]", 30000));
    EXPECT_EQ(r.status, 200);
    EXPECT_THAT(r.body, HasSubstr("\"type\":\"finish\""));
  }
  {
    Socket garbage(port);
    garbage.Send("\x16\x03\x01 not http at all\r\n\r\n");
    auto r = Parse(garbage.ReadUntil("}}", 5000));
    ExpectError(r, 400, "server.bad_request");
  }
  {
    Socket reset(port);
    reset.Send("POST /api/chat HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{");
  }  // closed mid-body
  ExpectUp(server);
  auto threads = Http(port, "GET", "/api/threads").json()["threads"];
  ASSERT_EQ(threads.size(), 1u);
  EXPECT_EQ(threads[0]["messages"], 2);  // the half-closed client's turn was persisted
}

TEST(ServerBadInput, RemoteBindsNeedAFlagAndATokenAndTokensAreChecked) {
  TempDir dir;
  ServerProcess no_flag(dir / "a", Fast(), {"--host", "0.0.0.0"});
  EXPECT_EQ(no_flag.port(), 0);
  EXPECT_THAT(no_flag.first_line(), HasSubstr("server.remote_needs_flag"));
  EXPECT_EQ(no_flag.Wait(), 2);
  ServerProcess no_token(dir / "b", Fast(), {"--host", "0.0.0.0", "--allow-remote"});
  EXPECT_THAT(no_token.first_line(), HasSubstr("server.remote_needs_token"));
  EXPECT_EQ(no_token.Wait(), 2);

  // A short token is refused on loopback too (issue 43), from the command line or the
  // environment, with its length and never its text.
  ServerProcess short_flag(dir / "d", Fast(), {"--access-token", "0123456789abcde"});
  EXPECT_EQ(short_flag.port(), 0);
  EXPECT_THAT(short_flag.first_line(), HasSubstr("server.short_token"));
  EXPECT_THAT(short_flag.first_line(), HasSubstr("at least 16 characters"));
  EXPECT_THAT(short_flag.first_line(), HasSubstr("15 characters"));
  EXPECT_THAT(short_flag.first_line(), Not(HasSubstr("0123456789abcde")));
  EXPECT_EQ(short_flag.Wait(), 2);
  setenv("AFFORDANCE_ACCESS_TOKEN", "x", 1);
  ServerProcess short_env(dir / "e", Fast());
  unsetenv("AFFORDANCE_ACCESS_TOKEN");
  EXPECT_THAT(short_env.first_line(), HasSubstr("server.short_token"));
  EXPECT_EQ(short_env.Wait(), 2);

  // On loopback with a token: the API needs it; the web UI's static files do not.
  ServerProcess server(dir / "c", Fast(), {"--access-token", "0123456789abcdef0123"});
  ASSERT_GT(server.port(), 0);
  ExpectError(Http(server.port(), "GET", "/api/threads"), 401, "server.unauthorized");
  ExpectError(Http(server.port(), "GET", "/api/threads", "", "Authorization: Bearer wrong\r\n"),
              401, "server.unauthorized");
  EXPECT_EQ(Http(server.port(), "GET", "/api/threads", "",
                 "Authorization: Bearer 0123456789abcdef0123\r\n")
                .status,
            200);
  EXPECT_NE(Http(server.port(), "GET", "/").status, 401);
}

}  // namespace
}  // namespace affordance::server::testing

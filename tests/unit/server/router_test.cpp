#include "server/router.h"
#include "server/api.h"
#include "server/mcp_http.h"
#include "server/mcp_tools.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

namespace affordance::server {
namespace {

using authority::Capability;
using authority::CapabilityRegistry;

Capability HttpCap(const std::string& name) {
  Capability c;
  c.door = "http";
  c.name = name;
  c.object = "thing";
  c.action = "read";
  return c;
}

HttpResponse Ok(const HttpRequest&) { return {}; }

TEST(ServerRouter, AHandlerWithoutDeclarationCannotBeRouted) {
  CapabilityRegistry registry;
  ASSERT_TRUE(registry.Declare(HttpCap("GET /a")).ok());
  auto router = Router::Build(registry, {{"GET /a", Ok}, {"GET /secret", Ok}});
  ASSERT_FALSE(router.ok());
  EXPECT_EQ(router.error().code, "server.undeclared_route");
  EXPECT_EQ(router.error().detail, "GET /secret");
}

TEST(ServerRouter, DeclaredButUnservedRoutesAreReported) {
  CapabilityRegistry registry;
  ASSERT_TRUE(registry.Declare(HttpCap("GET /a")).ok());
  ASSERT_TRUE(registry.Declare(HttpCap("GET /b")).ok());
  auto router = Router::Build(registry, {{"GET /a", Ok}});
  ASSERT_TRUE(router.ok());
  EXPECT_THAT(router->unserved(), ::testing::ElementsAre("GET /b"));
}

TEST(ServerRouter, MatchesExactlyWithParameters) {
  CapabilityRegistry registry;
  for (const char* n : {"GET /", "GET /api/threads/{id}", "DELETE /api/threads/{id}",
                        "POST /api/threads/{id}/surfaces/{surfaceId}/ack"}) {
    ASSERT_TRUE(registry.Declare(HttpCap(n)).ok());
  }
  std::map<std::string, Handler> handlers;
  for (const auto& c : registry.All()) handlers[c.name] = Ok;
  auto router = Router::Build(registry, handlers);
  ASSERT_TRUE(router.ok()) << router.error().ToString();

  auto m = router->Find("GET", "/api/threads/t_1%20x");
  ASSERT_NE(m.route, nullptr);
  EXPECT_EQ(m.params.at("id"), "t_1 x");
  auto ack = router->Find("POST", "/api/threads/t/surfaces/s_9/ack");
  ASSERT_NE(ack.route, nullptr);
  EXPECT_EQ(ack.params.at("surfaceId"), "s_9");
  EXPECT_NE(router->Find("GET", "/").route, nullptr);

  auto wrong_method = router->Find("PUT", "/api/threads/t");
  EXPECT_EQ(wrong_method.route, nullptr);
  EXPECT_TRUE(wrong_method.path_exists);
  // Exact: no case folding, no prefix matching, no stray segments, no malformed escapes.
  EXPECT_EQ(router->Find("get", "/").route, nullptr);
  EXPECT_EQ(router->Find("GET", "/API/threads/t").route, nullptr);
  EXPECT_EQ(router->Find("GET", "/api/threads/t/extra").route, nullptr);
  EXPECT_EQ(router->Find("GET", "/api/threads/%zz").route, nullptr);
  EXPECT_EQ(router->Find("GET", "/api/threads/%4").route, nullptr);
  EXPECT_EQ(router->Find("GET", "api/threads/t").route, nullptr);
}

class NoTurns : public TurnRunner {
 public:
  void Start(const ActiveTurn&, harness::EventSink, Done done) override {
    done(MakeError("test.none", "no turns here"));
  }
  int runtimes() const override { return 1; }
};

// The real server: every handler the Api has is declared in the global registry (door "http"),
// every declared route has a handler, and each declaration says what it governs.
TEST(ServerRouter, EveryRealRouteIsDeclaredAndEveryDeclarationIsServed) {
  std::string dir =
      std::filesystem::temp_directory_path() / ("affordance-router-" + std::to_string(getpid()));
  auto store = store::OpenSqlite(dir + "/a.db");
  ASSERT_TRUE(store.ok());
  auto hub = TurnHub::Create(std::make_unique<NoTurns>());
  ASSERT_TRUE(hub.ok());
  Api api(**store, **hub, {});
  auto handlers = api.Handlers();
  // The MCP door's routes (POST / DELETE /mcp) are served beside the API (cmd_serve does the same).
  ProductTools tools({store->get(), hub->get(), nullptr});
  auto table = mcp::ToolTable::Build(CapabilityRegistry::Global(), tools.Functions());
  ASSERT_TRUE(table.ok()) << table.error().ToString();
  mcp::McpProtocol protocol(std::move(*table), ProductInfo());
  McpHttp mcp_http(protocol, {});
  handlers.merge(mcp_http.Handlers());
  auto router = Router::Build(CapabilityRegistry::Global(), handlers);
  ASSERT_TRUE(router.ok()) << router.error().ToString();
  EXPECT_TRUE(router->unserved().empty()) << ::testing::PrintToString(router->unserved());
  ASSERT_EQ(router->routes().size(), handlers.size());
  ASSERT_EQ(router->routes().size(), CapabilityRegistry::Global().OfDoor("http").size());
  for (const auto& route : router->routes()) {
    const Capability* declared = CapabilityRegistry::Global().Find("http", route.capability.name);
    ASSERT_NE(declared, nullptr) << route.capability.name;
    EXPECT_FALSE(declared->object.empty());
    EXPECT_FALSE(declared->action.empty());
    EXPECT_FALSE(declared->description.empty()) << route.capability.name;
    if (declared->mode != authority::Mode::kRead) {
      EXPECT_FALSE(declared->proof.empty())
          << route.capability.name << " changes state: what proves it?";
    }
  }
  // The routes the issue requires exist.
  for (const char* required :
       {"POST /api/chat", "GET /api/chat/{id}/stream", "GET /api/threads", "GET /api/threads/{id}",
        "PATCH /api/threads/{id}", "DELETE /api/threads/{id}", "GET /deploy-truth", "POST /mcp"}) {
    EXPECT_NE(handlers.count(required), 0u) << required;
  }
  hub->reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace affordance::server

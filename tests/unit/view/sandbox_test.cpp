// The sandbox: time budget, memory limit, stack limit, no host capabilities, isolation between
// views, and unmounting that frees handlers. Every failure leaves the View usable.
#include "view_test_util.h"

#include "text/tokenizer.h"

#include <gtest/gtest.h>

namespace affordance::view {
namespace {

using testing::HandlerOf;
using testing::MustLoad;
using testing::Text;
using json = nlohmann::json;

// Renders, then acts: the counter goes up by one from whatever it was.
void ExpectStillUsable(View& view) {
  auto tree = view.Render({{"mode", "ok"}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  int before = std::stoi(Text(*tree).substr(2));
  auto inc = view.Act(HandlerOf(*tree, "inc"), json::object());
  ASSERT_TRUE(inc.ok()) << inc.error().ToString();
  EXPECT_EQ(std::stoi(Text(*inc).substr(2)), before + 1) << Text(*inc);
}

TEST(ViewSandbox, InfiniteLoopInRenderIsATimeout) {
  auto view = MustLoad("sandbox.tsx", "Sandbox", {}, testing::ShortBudget());
  ASSERT_TRUE(view);
  auto tree = view->Render({{"mode", "loop"}});
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.error().code, "view.timeout");
  EXPECT_NE(tree.error().message.find("300 ms"), std::string::npos) << tree.error().message;
  ExpectStillUsable(*view);
}

TEST(ViewSandbox, InfiniteLoopInHandlerIsATimeout) {
  auto view = MustLoad("sandbox.tsx", "Sandbox", {}, testing::ShortBudget());
  ASSERT_TRUE(view);
  auto tree = view->Render({{"mode", "ok"}});
  ASSERT_TRUE(tree.ok());
  auto spun = view->Act(HandlerOf(*tree, "spin"), json::object());
  ASSERT_FALSE(spun.ok());
  EXPECT_EQ(spun.error().code, "view.timeout");
  ExpectStillUsable(*view);
}

TEST(ViewSandbox, MemoryBombIsAMemoryError) {
  auto view = MustLoad("sandbox.tsx", "Sandbox");
  ASSERT_TRUE(view);
  auto tree = view->Render({{"mode", "memory"}});
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.error().code, "view.memory") << tree.error().ToString();
  ExpectStillUsable(*view);
  tree = view->Render({{"mode", "ok"}});
  ASSERT_TRUE(tree.ok());
  auto bomb = view->Act(HandlerOf(*tree, "bomb"), json::object());
  ASSERT_FALSE(bomb.ok());
  EXPECT_EQ(bomb.error().code, "view.memory") << bomb.error().ToString();
  ExpectStillUsable(*view);
}

TEST(ViewSandbox, RunawayRecursionIsAStackError) {
  auto view = MustLoad("sandbox.tsx", "Sandbox");
  ASSERT_TRUE(view);
  auto tree = view->Render({{"mode", "recursion"}});
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.error().code, "view.stack_overflow") << tree.error().ToString();
  EXPECT_NE(tree.error().detail.find("sandbox.tsx:17:39"), std::string::npos)
      << tree.error().detail;
  ExpectStillUsable(*view);
}

TEST(ViewSandbox, NoFileSystemNetworkProcessOrTimers) {
  auto view = MustLoad("sandbox.tsx", "Sandbox");
  ASSERT_TRUE(view);
  auto tree = view->Render({{"mode", "globals"}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(Text(*tree),
            "require:undefined,process:undefined,setTimeout:undefined,setInterval:undefined,"
            "fetch:undefined,std:undefined,os:undefined,XMLHttpRequest:undefined,"
            "scriptArgs:undefined,print:undefined");
  // Importing the QuickJS os module dynamically fails inside the handler.
  tree = view->Render({{"mode", "ok"}});
  ASSERT_TRUE(tree.ok());
  auto imported = view->Act(HandlerOf(*tree, "import"), json::object());
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.error().code, "view.missing_import") << imported.error().ToString();
  ExpectStillUsable(*view);
}

TEST(ViewSandbox, ViewsAreIsolatedFromEachOther) {
  auto a = MustLoad("sandbox.tsx", "Sandbox");
  auto b = MustLoad("sandbox.tsx", "Sandbox");
  ASSERT_TRUE(a && b);
  auto ta = a->Render({{"mode", "leak"}});
  ASSERT_TRUE(ta.ok());
  EXPECT_NE(Text(*ta).find("shared=from one view"), std::string::npos) << Text(*ta);
  ta = a->Render({{"mode", "ok"}});
  ASSERT_TRUE(ta.ok());
  EXPECT_NE(Text(*ta).find("renders=2"), std::string::npos) << Text(*ta);
  // Module state and globals of `a` are invisible to `b`, and so is its hook state.
  ASSERT_TRUE(a->Act(HandlerOf(*ta, "inc"), json::object()).ok());
  auto tb = b->Render({{"mode", "ok"}});
  ASSERT_TRUE(tb.ok());
  EXPECT_EQ(Text(*tb), "n=0 renders=1 shared=undefined");
  // Handler ids of one view mean nothing to the other.
  EXPECT_EQ(b->Act(HandlerOf(*ta, "inc") + 1000, json::object()).error().code,
            "view.unknown_handler");
}

TEST(ViewSandbox, ConfigurableLimits) {
  ViewOptions options = testing::TestOptions();
  options.time_budget = std::chrono::milliseconds(20);
  auto view = MustLoad("sandbox.tsx", "Sandbox", {}, options);
  ASSERT_TRUE(view);
  auto tree = view->Render({{"mode", "loop"}});
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.error().code, "view.timeout");
  EXPECT_NE(tree.error().message.find("20 ms"), std::string::npos) << tree.error().message;
  // A tighter memory limit turns a smaller hoard into the same error.
  options.memory_limit = 4u << 20;
  options.time_budget = std::chrono::milliseconds(2000);
  auto small = MustLoad("sandbox.tsx", "Sandbox", {}, options);
  ASSERT_TRUE(small);
  auto bomb = small->Render({{"mode", "memory"}});
  ASSERT_FALSE(bomb.ok());
  EXPECT_EQ(bomb.error().code, "view.memory");
  EXPECT_NE(bomb.error().message.find("4194304 bytes"), std::string::npos) << bomb.error().message;
}

TEST(ViewSandbox, UnmountFreesHandlers) {
  auto view = MustLoad("list.tsx", "Rows");
  ASSERT_TRUE(view);
  auto tree = view->Render({{"n", 50}});
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(view->Stats().mounted_handlers, 50u);
  HandlerId row10 = HandlerOf(*tree, "row 10");
  HandlerId row1 = HandlerOf(*tree, "row 1");
  auto picked = view->Act(row10, json::object());
  ASSERT_TRUE(picked.ok());
  EXPECT_EQ(Text(*picked), "picked=10");
  tree = view->Render({{"n", 2}});
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(view->Stats().mounted_handlers, 2u);
  EXPECT_EQ(HandlerOf(*tree, "row 1"), row1);
  auto gone = view->Act(row10, json::object());
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().code, "view.unknown_handler");
  // Mounting and unmounting many times does not grow the runtime's memory.
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(view->Render({{"n", i % 2 ? 200 : 0}}).ok());
  size_t baseline = view->Stats().js_memory_bytes;
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(view->Render({{"n", i % 2 ? 0 : 200}}).ok());
  size_t after = view->Stats().js_memory_bytes;
  EXPECT_LT(after, baseline + 16 * 1024) << baseline << " -> " << after;
  EXPECT_EQ(view->Stats().mounted_handlers, 0u);
}

// The encoder binding. The tokenizer implementation lives in src/text (built in parallel); this
// minimal Tokenizer double answers only TokenIdOf, which is all the binding uses.
class SpellingTable : public text::Tokenizer {
 public:
  Result<std::vector<text::TokenId>> Encode(std::string_view,
                                            const text::EncodeOptions&) const override {
    return MakeError("test.unused", "unused");
  }
  Status EncodeInto(std::string_view, std::vector<text::TokenId>&,
                    const text::EncodeOptions&) const override {
    return MakeError("test.unused", "unused");
  }
  Result<std::string> Decode(std::span<const text::TokenId>) const override {
    return MakeError("test.unused", "unused");
  }
  Result<std::string> TokenBytes(text::TokenId) const override {
    return MakeError("test.unused", "unused");
  }
  std::optional<std::string_view> TokenString(text::TokenId) const override { return std::nullopt; }
  std::optional<text::TokenId> TokenIdOf(std::string_view token) const override {
    if (token == "<|im_start|>") return 151644;
    return std::nullopt;
  }
  bool IsSpecial(text::TokenId) const override { return true; }
  size_t VocabSize() const override { return 151669; }
};

TEST(ViewEncoder, ModelNameAndTokensResolveAgainstTheBoundEncoder) {
  Encoder qwen{"Qwen__Qwen3-4B-Instruct-2507", std::make_shared<SpellingTable>()};
  auto view = MustLoad("lib_user.tsx", "LibUser", qwen);
  ASSERT_TRUE(view);
  auto tree = view->Render(json::object());
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(Text(*tree), "[hi]model=Qwen__Qwen3-4B-Instruct-2507 im_start=true");
  EXPECT_EQ(view->encoder().model, "Qwen__Qwen3-4B-Instruct-2507");

  auto bare = MustLoad("lib_user.tsx", "LibUser");
  ASSERT_TRUE(bare);
  tree = bare->Render(json::object());
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(Text(*tree), "[hi]model= im_start=false");
}

}  // namespace
}  // namespace affordance::view

// Re-rendering from caches (docs/RUNTIME.md): components whose props, state and contexts did not
// change are not called again, and what is replayed behaves exactly as a fresh render would.
#include "view_test_util.h"

#include <gtest/gtest.h>

namespace affordance::view {
namespace {

using testing::BlockNodes;
using testing::HandlerOf;
using testing::MustLoad;
using testing::Text;
using json = nlohmann::ordered_json;

const json kItems = json::array({"a", "b"});

TEST(ViewReuse, UnchangedPropsReplayTheTreeAndChangesCallOnlyWhatChanged) {
  auto view = MustLoad("reuse.tsx", "App");
  ASSERT_TRUE(view);
  auto tree = view->Render({{"title", "t"}, {"items", kItems}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(Text(*tree), "tabcount=0");
  EXPECT_EQ(view->Stats().components_called, 3u);  // App, List, Counter

  tree = view->Render({{"title", "t"}, {"items", kItems}});
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(Text(*tree), "tabcount=0");
  EXPECT_EQ(view->Stats().components_called, 0u);
  EXPECT_EQ(view->Stats().components_replayed, 3u);  // the root and everything under it

  // A new title: App runs; List (same items: props share unchanged parts) and Counter replay.
  tree = view->Render({{"title", "u"}, {"items", kItems}});
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(Text(*tree), "uabcount=0");
  EXPECT_EQ(view->Stats().components_called, 1u);
  EXPECT_EQ(view->Stats().components_replayed, 2u);

  // State: only Counter runs; App's last result is reconciled again without calling it.
  tree = view->Act(HandlerOf(*tree, "inc"), json::object());
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(Text(*tree), "uabcount=1");
  EXPECT_EQ(view->Stats().components_called, 1u);
  EXPECT_EQ(view->Stats().components_replayed, 1u);  // List

  // New items: App and List run, Counter keeps its state.
  tree = view->Render({{"title", "u"}, {"items", {"a", "b", "c"}}});
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(Text(*tree), "uabccount=1");
  EXPECT_EQ(view->Stats().components_called, 2u);
}

TEST(ViewReuse, HandlersInReplayedSubtreesStayMountedAndWork) {
  auto view = MustLoad("reuse.tsx", "App");
  ASSERT_TRUE(view);
  auto tree = view->Render({{"title", "t"}, {"items", kItems}});
  ASSERT_TRUE(tree.ok());
  const HandlerId inc = HandlerOf(*tree, "inc");
  ASSERT_NE(inc, 0u);
  for (int i = 0; i < 5; ++i) {
    tree = view->Render({{"title", "t" + std::to_string(i % 2)}, {"items", kItems}});
    ASSERT_TRUE(tree.ok());
    EXPECT_EQ(HandlerOf(*tree, "inc"), inc);
  }
  EXPECT_EQ(view->Stats().mounted_handlers, 1u);
  tree = view->Act(inc, json::object());
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(Text(*tree), "t0abcount=1");
}

TEST(ViewReuse, AContextChangeReachesAConsumerWhoseParentsAreUnchanged) {
  auto view = MustLoad("reuse.tsx", "Themed");
  ASSERT_TRUE(view);
  auto tree = view->Render({{"theme", "dark"}, {"title", "x"}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(Text(*tree), "xtheme=dark");
  tree = view->Render({{"theme", "light"}, {"title", "x"}});
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(Text(*tree), "xtheme=light");
  tree = view->Render({{"theme", "light"}, {"title", "y"}});
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(Text(*tree), "ytheme=light");
}

TEST(ViewReuse, PropsAreFrozenSoAComponentCannotChangeWhatLaterRendersShare) {
  auto view = MustLoad("reuse.tsx", "Mutates");
  ASSERT_TRUE(view);
  auto tree = view->Render({{"items", {3, 1, 2}}});
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.error().code, "view.render");
  EXPECT_NE(tree.error().message.find("TypeError"), std::string::npos) << tree.error().message;
}

TEST(ViewReuse, NothingFromBeforeAFailedOrInterruptedRenderIsReplayed) {
  auto view = MustLoad("reuse.tsx", "Failing", {}, testing::ShortBudget());
  ASSERT_TRUE(view);
  const json ok = {{"fail", false}, {"spin", false}, {"title", "a"}};
  auto tree = view->Render(ok);
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  tree = view->Act(HandlerOf(*tree, "inc"), json::object());
  ASSERT_TRUE(tree.ok());
  const std::string before = Text(*tree);
  EXPECT_EQ(before, "acount=1finestill");

  auto failed = view->Render({{"fail", true}, {"spin", false}, {"title", "b"}});
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().message, "fragile failed");
  tree = view->Render(ok);
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(Text(*tree), before);
  EXPECT_EQ(view->Stats().components_replayed, 0u);  // every memo was dropped

  auto spun = view->Render({{"fail", false}, {"spin", true}, {"title", "c"}});
  ASSERT_FALSE(spun.ok());
  EXPECT_EQ(spun.error().code, "view.timeout");
  tree = view->Render(ok);
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(Text(*tree), before);
  tree = view->Act(HandlerOf(*tree, "inc"), json::object());
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(Text(*tree), "acount=2finestill");
}

TEST(ViewReuse, OffCallsEveryComponentEveryRender) {
  ViewOptions o = testing::TestOptions();
  o.reuse_components = false;
  auto view = MustLoad("reuse.tsx", "App", {}, o);
  ASSERT_TRUE(view);
  for (int i = 0; i < 2; ++i) {
    auto tree = view->Render({{"title", "t"}, {"items", kItems}});
    ASSERT_TRUE(tree.ok());
    EXPECT_EQ(Text(*tree), "tabcount=0");
    EXPECT_EQ(view->Stats().components_called, 3u);
    EXPECT_EQ(view->Stats().components_replayed, 0u);
  }
}

TEST(ViewReuse, KeyedDuplicatesFollowRenderOrderAsAFreshRenderWould) {
  auto view = MustLoad("reuse.tsx", "Duplicates");
  ASSERT_TRUE(view);
  auto tree = view->Render({{"names", {"x", "y"}}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  tree = view->Act(HandlerOf(*tree, "y"), json::object());
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(Text(*tree), "x:0y:1");
  // The state lives at the second path ("~1"), whoever renders second.
  tree = view->Render({{"names", {"y", "x"}}});
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(Text(*tree), "y:0x:1");
  tree = view->Render({{"names", {"y", "x"}}});
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(Text(*tree), "y:0x:1");
}

TEST(ViewReuse, AnUnchangedAppIsLaidOutOnceAndCachesDoNotGrow) {
  auto view = MustLoad("reuse.tsx", "Wrapped");
  ASSERT_TRUE(view);
  int layouts = 0;
  view->SetChatToolsHook([&](const std::vector<Node>& children, const json&) -> Result<ChatTools> {
    ++layouts;
    ChatTools out;
    out.block = std::make_shared<const std::vector<Node>>(children);
    out.tools = json::array({{{"type", "function"}, {"function", {{"name", "click__inc"}}}}});
    return out;
  });
  auto tree = view->Render({{"question", "q0"}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(layouts, 1);
  for (int i = 1; i <= 20; ++i) {
    tree = view->Render({{"question", "q" + std::to_string(i)}});
    ASSERT_TRUE(tree.ok()) << tree.error().ToString();
    EXPECT_EQ(Text(*tree), "q" + std::to_string(i) + " tools=1");
  }
  EXPECT_EQ(layouts, 1);  // the wrapper ran 20 more times; its app never changed
  const ViewStats s = view->Stats();
  EXPECT_LE(s.live_blocks, 1u);
  EXPECT_LE(s.converted_nodes_kept, 8u);
  // The app changes: laid out again, and the block in the tree is the new one.
  const Node* block = nullptr;
  for (const Node& n : *tree)
    for (const Node& c : n.children)
      if (c.kind == Node::Kind::kBlock) block = &c;
  ASSERT_NE(block, nullptr);
  const auto* children = static_cast<const std::vector<Node>*>(block->block.get());
  tree = view->Act(HandlerOf(*children, "inc"), json::object());
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(layouts, 2);
}

// A ChatToolsHook for tests: the block holds the laid-out children as they are, and there is one
// tool per button (named after its label). Counts its layouts.
struct EchoLayout {
  int layouts = 0;
  static void Buttons(const std::vector<Node>& nodes, json* tools) {
    for (const Node& n : nodes) {
      if (n.kind == Node::Kind::kElement && n.type == "button") {
        tools->push_back({{"type", "function"},
                          {"function", {{"name", "click__" + n.props.value("label", "")}}}});
      }
      Buttons(n.children.vec(), tools);
    }
  }
  ChatToolsHook Hook() {
    return [this](const std::vector<Node>& children, const json&) -> Result<ChatTools> {
      ++layouts;
      ChatTools out;
      out.block = std::make_shared<const std::vector<Node>>(children);
      out.tools = json::array();
      Buttons(children, &out.tools);
      return out;
    };
  }
};

// The text of the (single) block in `tree`.
std::string BlockText(const std::vector<Node>& tree) { return Text(BlockNodes(tree)); }

// `entry` of reuse.tsx with `echo` as its hook, rendered once with question "q".
std::unique_ptr<View> LoadEchoing(const char* entry, EchoLayout& echo,
                                  Result<std::vector<Node>>* tree) {
  auto view = MustLoad("reuse.tsx", entry);
  if (!view) return nullptr;
  view->SetChatToolsHook(echo.Hook());
  *tree = view->Render({{"question", "q"}});
  return view;
}

TEST(ViewReuse, AnActionInsideAWrapperReRunsTheAppAloneAndTheBlockShowsTheNewState) {
  // Wrapper (props unchanged) placed its block inside a <box>: the app changes, its tools do not,
  // so the wrapper is not called again, and its kept <box> takes the new block.
  EchoLayout echo;
  Result<std::vector<Node>> tree = std::vector<Node>{};
  auto view = LoadEchoing("Wrapped", echo, &tree);
  ASSERT_TRUE(view);
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(Text(*tree), "q tools=1");
  EXPECT_EQ(BlockText(*tree), "count=0");
  for (int i = 1; i <= 3; ++i) {
    tree = view->Act(HandlerOf(BlockNodes(*tree), "inc"), json::object());
    ASSERT_TRUE(tree.ok()) << tree.error().ToString();
    EXPECT_EQ(BlockText(*tree), "count=" + std::to_string(i));
    EXPECT_EQ(Text(*tree), "q tools=1");
    EXPECT_EQ(view->Stats().components_called, 1u);  // Counter; not Wrapper, not Wrapped
  }
  EXPECT_EQ(echo.layouts, 4);
  // A tree returned before stays what it was.
  auto before = *tree;
  tree = view->Act(HandlerOf(BlockNodes(*tree), "inc"), json::object());
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(BlockText(before), "count=3");
  EXPECT_EQ(BlockText(*tree), "count=4");
  // A new question runs the wrapper again, with the same block.
  tree = view->Render({{"question", "r"}});
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(Text(*tree), "r tools=1");
  EXPECT_EQ(BlockText(*tree), "count=4");
  EXPECT_EQ(echo.layouts, 5);  // laid out for the last act; the new question reused it
}

TEST(ViewReuse, WhenAnActionChangesTheAppsToolsTheWrapperRunsAgainWithThem) {
  EchoLayout echo;
  Result<std::vector<Node>> tree = std::vector<Node>{};
  auto view = LoadEchoing("WrappedGrowing", echo, &tree);
  ASSERT_TRUE(view);
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(Text(*tree), "q tools=1");
  tree = view->Act(HandlerOf(BlockNodes(*tree), "inc"), json::object());
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(Text(*tree), "q tools=2");  // a reset button now
  EXPECT_EQ(BlockText(*tree), "n=1reset");
  EXPECT_EQ(view->Stats().components_called, 2u);  // Growing and Wrapper
  // The same tools again: the wrapper is not called.
  tree = view->Act(HandlerOf(BlockNodes(*tree), "inc"), json::object());
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(Text(*tree), "q tools=2");
  EXPECT_EQ(BlockText(*tree), "n=2reset");
  EXPECT_EQ(view->Stats().components_called, 1u);
  // Back to one tool: the wrapper runs; the handlers of the new tree work.
  tree = view->Act(HandlerOf(BlockNodes(*tree), "reset"), json::object());
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(Text(*tree), "q tools=1");
  EXPECT_EQ(BlockText(*tree), "n=0");
  EXPECT_EQ(view->Stats().components_called, 2u);
  tree = view->Act(HandlerOf(BlockNodes(*tree), "inc"), json::object());
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(BlockText(*tree), "n=1reset");
}

TEST(ViewReuse, AHookGivenItsPreviousResultCanKeepTheToolsAndMustHaveOneToDoSo) {
  auto view = MustLoad("reuse.tsx", "WrappedGrowing");
  ASSERT_TRUE(view);
  int calls = 0;
  view->SetChatToolsHook([&](const std::vector<Node>& children, const json&,
                             const ChatTools* previous) -> Result<ChatTools> {
    ++calls;
    ChatTools out;
    out.block = std::make_shared<const std::vector<Node>>(children);
    if (previous != nullptr) {
      out.same_tools = true;  // keep whatever the view has
      out.tools = nullptr;
      return out;
    }
    EchoLayout::Buttons(children, &out.tools);
    return out;
  });
  auto tree = view->Render({{"question", "q"}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(Text(*tree), "q tools=1");
  // The app grows a second button, but this hook says the tools are the same: the view keeps
  // the previous tool objects and the wrapper is not called.
  tree = view->Act(HandlerOf(BlockNodes(*tree), "inc"), json::object());
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(Text(*tree), "q tools=1");
  EXPECT_EQ(BlockText(*tree), "n=1reset");
  EXPECT_EQ(calls, 2);

  auto fresh = MustLoad("reuse.tsx", "WrappedGrowing");
  ASSERT_TRUE(fresh);
  fresh->SetChatToolsHook(
      [&](const std::vector<Node>& children, const json&, const ChatTools*) -> Result<ChatTools> {
        ChatTools out;  // same_tools on the first layout: nothing to keep
        out.block = std::make_shared<const std::vector<Node>>(children);
        out.same_tools = true;
        return out;
      });
  auto bad = fresh->Render({{"question", "q"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "view.chat_tools_hook") << bad.error().ToString();
}

TEST(ViewReuse, AReplayedOutputOfSeventyThousandRunsIsWhole) {
  auto view = MustLoad("reuse.tsx", "ManyRuns");
  ASSERT_TRUE(view);
  for (const char* title : {"a", "a", "b"}) {  // render, full replay, Runs replayed alone
    auto tree = view->Render({{"n", 70000}, {"title", title}});
    ASSERT_TRUE(tree.ok()) << tree.error().ToString();
    ASSERT_EQ(tree->size(), 70001u);
    EXPECT_EQ(tree->front().text, title);
    EXPECT_EQ((*tree)[70000].text, "9\n");
  }
  EXPECT_EQ(view->Stats().components_called, 1u);  // ManyRuns; Runs replayed
}

TEST(ViewReuse, ANewChatToolsHookDropsEveryKeptLayout) {
  auto view = MustLoad("reuse.tsx", "Wrapped");
  ASSERT_TRUE(view);
  EchoLayout first, second;
  view->SetChatToolsHook(first.Hook());
  auto tree = view->Render({{"question", "q"}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  view->SetChatToolsHook(second.Hook());
  tree = view->Render({{"question", "q"}});  // the same props: would replay everything
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(second.layouts, 1);
  EXPECT_EQ(BlockText(*tree), "count=0");
}

}  // namespace
}  // namespace affordance::view

namespace affordance::view {
namespace {

using testing::FindLabel;
using testing::HandlerOf;
using testing::MustLoad;
using testing::Text;
using json = nlohmann::ordered_json;

// The rows of the scroll in `tree` (the element labelled "rows").
const NodeList& RowsOf(const std::vector<Node>& tree) {
  const Node* scroll = FindLabel(tree, "rows");
  EXPECT_NE(scroll, nullptr);
  static const NodeList kNone;
  return scroll ? scroll->children : kNone;
}

TEST(ViewReuse, AReRenderedElementWithTheSameRowsKeepsTheirConversionAndChangedRowsAreNew) {
  auto view = MustLoad("rows.tsx", "Rows");
  ASSERT_TRUE(view);
  json rows = json::array();
  for (int i = 0; i < 50; ++i) rows.push_back("r" + std::to_string(i));
  auto tree = view->Render({{"rows", rows}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  const std::vector<Node>* first_rows = &RowsOf(*tree).vec();
  ASSERT_EQ(RowsOf(*tree).size(), 51u);  // 50 rows and the empty extra text
  EXPECT_EQ(RowsOf(*tree).back().text, "");

  // Scrolling re-runs Rows (new JS strings, a new scroll element with another offset); the rows
  // are the same items, so their conversion is the one from before (shared, not rebuilt).
  tree = view->Act(HandlerOf(*tree, "rows", "onScroll"), {{"offset", 3}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(view->Stats().components_called, 1u);
  EXPECT_GE(view->Stats().children_reused, 1u);
  EXPECT_EQ(FindLabel(*tree, "rows")->props["offset"], 3);
  EXPECT_EQ(&RowsOf(*tree).vec(), first_rows);

  // As many rows, one with other text: converted again, with the new text.
  tree = view->Act(HandlerOf(*tree, "extra", "onChange"), {{"value", "z"}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  ASSERT_EQ(RowsOf(*tree).size(), 51u);
  EXPECT_EQ(RowsOf(*tree).back().text, "z");
  EXPECT_EQ(FindLabel(*tree, "extra")->props["value"], "z");

  // Again: the old rows are never taken for rows with other text.
  tree = view->Act(HandlerOf(*tree, "extra", "onChange"), {{"value", "y"}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  ASSERT_EQ(RowsOf(*tree).size(), 51u);
  EXPECT_EQ(RowsOf(*tree).back().text, "y");

  // New rows from props: the changed row shows.
  rows[7] = "seven";
  tree = view->Render({{"rows", rows}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(RowsOf(*tree)[7].text, "seven\n");
  EXPECT_EQ(RowsOf(*tree)[8].text, "r8\n");
  EXPECT_EQ(Text(RowsOf(*tree)).substr(0, 9), "r0\nr1\nr2\n");
}

TEST(ViewReuse, RowsThatAreOneArrayOfStringsAreKeptByContentNotCopied) {
  auto view = MustLoad("rows.tsx", "TextRows");
  ASSERT_TRUE(view);
  json rows = json::array();
  for (int i = 0; i < 40; ++i) rows.push_back("r" + std::to_string(i));
  auto tree = view->Render({{"rows", rows}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  ASSERT_EQ(RowsOf(*tree).size(), 40u);
  EXPECT_EQ(RowsOf(*tree)[39].text, "r39\n");
  const std::vector<Node>* first = &RowsOf(*tree).vec();
  // Scrolling rebuilds every row string: equal text, so the same conversion.
  tree = view->Act(HandlerOf(*tree, "rows", "onScroll"), {{"offset", 5}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(&RowsOf(*tree).vec(), first);
  EXPECT_EQ(FindLabel(*tree, "rows")->props["offset"], 5);
  // One row changes: converted again, and the earlier tree keeps what it had.
  auto before = *tree;
  rows[3] = "three";
  tree = view->Render({{"rows", rows}});
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(RowsOf(*tree)[3].text, "three\n");
  EXPECT_EQ(RowsOf(before)[3].text, "r3\n");
  // Fewer rows, then rows that are not all strings (numbers and null, rendered as children are).
  rows.erase(rows.size() - 1);
  tree = view->Render({{"rows", rows}});
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(RowsOf(*tree).size(), 39u);
  rows[0] = 7;
  rows[1] = nullptr;
  tree = view->Render({{"rows", rows}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(RowsOf(*tree).size(), 38u);
  EXPECT_EQ(RowsOf(*tree)[0].text, "7");
  EXPECT_EQ(RowsOf(*tree)[1].text, "r2\n");
  // Strings again, equal to the rows two renders ago.
  rows[0] = "r0";
  rows[1] = "r1";
  tree = view->Render({{"rows", rows}});
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(Text(RowsOf(*tree)).substr(0, 12), "r0\nr1\nr2\nthr");
}

TEST(ViewReuse, RowsOfAFrozenPropArrayAreKeptAndAProxysRowsAreReadOnce) {
  auto view = MustLoad("rows.tsx", "PropRows");
  ASSERT_TRUE(view);
  json rows = json::array();
  for (int i = 0; i < 12; ++i) rows.push_back("p" + std::to_string(i));
  // Props are frozen arrays (not plain ones): kept by content all the same.
  auto tree = view->Render({{"rows", rows}, {"proxy", false}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  ASSERT_EQ(RowsOf(*tree).size(), 12u);
  const std::vector<Node>* first = &RowsOf(*tree).vec();
  tree = view->Act(HandlerOf(*tree, "rows", "onScroll"), {{"offset", 2}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(&RowsOf(*tree).vec(), first);
  // Through a proxy every element is read once, in order, and what was read is what shows.
  tree = view->Render({{"rows", rows}, {"proxy", true}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  ASSERT_EQ(RowsOf(*tree).size(), 12u);
  EXPECT_EQ(RowsOf(*tree)[0].text, "p0:1");
  EXPECT_EQ(RowsOf(*tree)[11].text, "p11:12");
}

TEST(ViewReuse, RowsChangedInPlaceAfterTheRenderShowAsTheyWereWhenRendered) {
  auto view = MustLoad("rows.tsx", "MutatedRows");
  ASSERT_TRUE(view);
  auto tree = view->Render({{"n", 10}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  ASSERT_EQ(RowsOf(*tree).size(), 10u);  // the effect ran after the rows were taken
  EXPECT_EQ(RowsOf(*tree)[0].text, "r0\n");
  tree = view->Act(HandlerOf(*tree, "rows", "onScroll"), json::object());
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  ASSERT_EQ(RowsOf(*tree).size(), 11u);
  EXPECT_EQ(RowsOf(*tree)[0].text, "changed\n");
  EXPECT_EQ(RowsOf(*tree)[10].text, "added\n");
}

TEST(ViewReuse, ARenderKeepsWorkingAfterThousandsOfActionsAndItsMemoryStaysFlat) {
  // The JS heap reuses freed blocks: many re-renders neither grow memory nor break state.
  auto view = MustLoad("rows.tsx", "Rows");
  ASSERT_TRUE(view);
  json rows = json::array();
  for (int i = 0; i < 200; ++i) rows.push_back(std::to_string(i));
  auto tree = view->Render({{"rows", rows}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  size_t after_warmup = 0;
  for (int i = 0; i < 2000; ++i) {
    tree = i % 2 ? view->Act(HandlerOf(*tree, "extra", "onChange"),
                             {{"value", std::string(i % 37, 'x')}})
                 : view->Act(HandlerOf(*tree, "rows", "onScroll"), {{"offset", i % 190}});
    ASSERT_TRUE(tree.ok()) << tree.error().ToString();
    if (i == 200) after_warmup = view->Stats().js_memory_bytes;
  }
  EXPECT_EQ(FindLabel(*tree, "rows")->props["offset"], 1998 % 190);
  EXPECT_EQ(FindLabel(*tree, "extra")->props["value"], std::string(1999 % 37, 'x'));
  EXPECT_LE(view->Stats().js_memory_bytes, after_warmup + (64u << 10));
}

}  // namespace
}  // namespace affordance::view

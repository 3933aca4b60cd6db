// Loader errors and positions in the TSX source, import cycles, module roots, the transform
// cache, and throws during render.
#include "view_test_util.h"

#include "view/transform.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace affordance::view {
namespace {

using testing::DataPath;
using testing::HandlerOf;
using testing::MustLoad;
using testing::TestOptions;
using testing::Text;
using json = nlohmann::json;

Error LoadError(const std::string& file, const std::string& entry) {
  auto view = View::Load(DataPath(file), entry, {}, TestOptions());
  EXPECT_FALSE(view.ok());
  return view.ok() ? Error{} : view.error();
}

TEST(ViewErrors, SyntaxErrorNamesTheTsxPosition) {
  Error e = LoadError("syntax_error.tsx", "Broken");
  EXPECT_EQ(e.code, "view.syntax");
  EXPECT_EQ(e.detail, DataPath("syntax_error.tsx") + ":3:20");
  EXPECT_NE(e.message.find("syntax error"), std::string::npos) << e.message;
}

TEST(ViewErrors, EngineSyntaxErrorIsMappedBackThroughTheTransform) {
  // QuickJS points at the second declaration's `=`: TSX column 48, column 34 in the JS
  // (the type annotations before it are stripped).
  Error e = LoadError("redeclare.tsx", "Redeclare");
  EXPECT_EQ(e.code, "view.syntax");
  EXPECT_EQ(e.detail, DataPath("redeclare.tsx") + ":3:48") << e.message;
}

TEST(ViewErrors, MissingImportNamesTheImportSite) {
  Error e = LoadError("missing_import.tsx", "Missing");
  EXPECT_EQ(e.code, "view.missing_import");
  EXPECT_EQ(e.detail, DataPath("missing_import.tsx") + ":2:22");
  EXPECT_NE(e.message.find("./does_not_exist"), std::string::npos) << e.message;
}

TEST(ViewErrors, BareImportsAreRefused) {
  Error e = LoadError("bare_import.tsx", "Bare");
  EXPECT_EQ(e.code, "view.missing_import");
  EXPECT_EQ(e.detail, DataPath("bare_import.tsx") + ":1:26");
  EXPECT_NE(e.message.find("\"@lib/...\""), std::string::npos) << e.message;
}

TEST(ViewErrors, MissingEntryExportListsWhatExists) {
  Error e = LoadError("counter.tsx", "Nope");
  EXPECT_EQ(e.code, "view.missing_export");
  EXPECT_NE(e.message.find("Counter"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("default"), std::string::npos) << e.message;
  // A default export is found by its function name too.
  EXPECT_TRUE(View::Load(DataPath("counter.tsx"), "Conditional", {}, TestOptions()).ok());
}

TEST(ViewErrors, ImportedNameThatIsNotExportedIsAMissingExport) {
  Error e = LoadError("missing_name.tsx", "MissingName");
  EXPECT_EQ(e.code, "view.missing_export") << e.ToString();
  EXPECT_NE(e.message.find("NotThere"), std::string::npos) << e.message;
  EXPECT_EQ(e.detail, DataPath("missing_name.tsx") + ":2:10");
}

TEST(ViewErrors, ThrowWhileEvaluatingNamesTheThrowSite) {
  Error e = LoadError("evaluate_throw.tsx", "Never");
  EXPECT_EQ(e.code, "view.evaluate");
  EXPECT_EQ(e.message, "no entry b");
  EXPECT_EQ(e.detail, DataPath("evaluate_throw.tsx") + ":5:40");
}

TEST(ViewErrors, MissingFileIsAnIoError) {
  Error e = LoadError("no_such_view.tsx", "X");
  EXPECT_EQ(e.code, "view.io");
}

TEST(ViewErrors, ThrowDuringRenderKeepsThePreviousState) {
  auto view = MustLoad("render_throw.tsx", "Items");
  ASSERT_TRUE(view);
  auto tree = view->Render({{"items", {"a", "b"}}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  tree = view->Act(HandlerOf(*tree, "click"), json::object());
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(Text(*tree), "clicks=1ab");
  HandlerId click = HandlerOf(*tree, "click");

  auto bad = view->Render({{"items", {"a", "bad"}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "view.render");
  EXPECT_EQ(bad.error().message, "cannot render bad");
  EXPECT_EQ(bad.error().detail, DataPath("render_throw.tsx") + ":4:38");
  // The failed render committed nothing: the handler from before still works, state kept.
  tree = view->Act(click, json::object());
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(Text(*tree), "clicks=2ab");

  auto threw = view->Act(HandlerOf(*tree, "throw"), json::object());
  ASSERT_FALSE(threw.ok());
  EXPECT_EQ(threw.error().code, "view.handler");
  EXPECT_EQ(threw.error().message, "TypeError: handler failed");
  EXPECT_EQ(threw.error().detail, DataPath("render_throw.tsx") + ":15:65");
  EXPECT_FALSE(view->Render(json::array()).ok());
  EXPECT_EQ(view->Render(json::array()).error().code, "view.invalid_props");
}

TEST(ViewModules, ImportCyclesResolve) {
  auto view = MustLoad("cycle_a.tsx", "CycleA");
  ASSERT_TRUE(view);
  auto tree = view->Render(json::object());
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(Text(*tree), "b sees from a and function");
  EXPECT_EQ(view->Stats().modules, 2u);
}

TEST(ViewModules, CycleThatReadsAnUninitialisedBindingIsAnEvaluateError) {
  Error e = LoadError("tdz_a.tsx", "Tdz");
  EXPECT_EQ(e.code, "view.evaluate");
  EXPECT_EQ(e.detail, DataPath("tdz_b.tsx") + ":4:30") << e.message;
}

TEST(ViewModules, TransformsAreCachedOnDiskAndDamagedEntriesAreMisses) {
  std::string dir = std::string(AFFORDANCE_BINARY_DIR) + "/view-test-cache-private";
  std::filesystem::remove_all(dir);
  ViewOptions options = TestOptions();
  options.cache_dir = dir;
  auto cold = View::Load(DataPath("cycle_a.tsx"), "CycleA", {}, options);
  ASSERT_TRUE(cold.ok());
  EXPECT_EQ((*cold)->Stats().transforms_run, 2u);
  auto warm = View::Load(DataPath("cycle_a.tsx"), "CycleA", {}, options);
  ASSERT_TRUE(warm.ok());
  EXPECT_EQ((*warm)->Stats().transforms_from_cache, 2u);
  EXPECT_EQ((*warm)->Stats().transforms_run, 0u);
  for (auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) std::ofstream(entry.path(), std::ios::trunc) << "garbage";
  }
  auto damaged = View::Load(DataPath("cycle_a.tsx"), "CycleA", {}, options);
  ASSERT_TRUE(damaged.ok()) << damaged.error().ToString();
  EXPECT_EQ((*damaged)->Stats().transforms_run, 2u);
  auto tree = (*damaged)->Render(json::object());
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(Text(*tree), "b sees from a and function");
  std::filesystem::remove_all(dir);
}

TEST(ViewModules, SourceMapDecodesSucraseMappings) {
  // "AAAA;AACA,MAAM" : line 1 col 0 -> 1:0; line 2 col 0 -> 2:0, col 6 -> 2:6.
  SourceMap map = SourceMap::Decode("AAAA;AACA,MAAM,EAAU");
  SourcePosition p = map.Original({2, 9});
  EXPECT_EQ(p.line, 2);
  EXPECT_EQ(p.column, 17);  // generated col 8 maps to source col 16 (1-based 17), +0
}

}  // namespace
}  // namespace affordance::view

namespace affordance::view {
namespace {

TEST(ViewProps, PlainPropsBecomeJsonAndFunctionsDoNot) {
  auto view = testing::MustLoad("props.tsx", "Props");
  ASSERT_TRUE(view);
  auto tree = view->Render({{"mode", "ok"}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  const Node& box = (*tree)[0];
  EXPECT_EQ(box.props, nlohmann::ordered_json::parse(R"({
    "data": {"list": [1, 2.5, true, null, null, "s"], "nested": {"deep": [{"x": 1}]}},
    "big": 1152921504606846976, "neg": -3, "flag": false})"));
  EXPECT_TRUE(box.handlers.empty());  // onRender is undefined; helper is not an on* prop
  const Node& ids = box.children.back();
  EXPECT_EQ(ids.type, "ids");
  EXPECT_EQ(ids.props["value"], nlohmann::json({151644, 872}));
}

TEST(ViewProps, PropsAndArgumentsNestedTooDeepAreAnErrorAndTheViewStaysUsable) {
  auto view = testing::MustLoad("props.tsx", "Props");
  ASSERT_TRUE(view);
  // 200,000 levels: built recursively this would overflow the C++ stack.
  std::string text =
      "{\"mode\": \"ok\", \"extra\": " + std::string(200000, '[') + std::string(200000, ']') + "}";
  auto deep = view->Render(nlohmann::ordered_json::parse(text));
  ASSERT_FALSE(deep.ok());
  EXPECT_EQ(deep.error().code, "view.too_deep");
  auto tree = view->Render({{"mode", "ok"}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  const Node* clock = testing::FindLabel(*tree, "clock");
  ASSERT_NE(clock, nullptr);
  auto act =
      view->Act(clock->handlers[0].id,
                nlohmann::ordered_json::parse(std::string(1000, '[') + std::string(1000, ']')));
  ASSERT_FALSE(act.ok());
  EXPECT_EQ(act.error().code, "view.too_deep");
  EXPECT_TRUE(view->Render({{"mode", "ok"}}).ok());
}

TEST(ViewProps, HostRunHandlersGoThroughAct) {
  auto view = testing::MustLoad("props.tsx", "Props");
  ASSERT_TRUE(view);
  auto tree = view->Render({{"mode", "ok"}});
  ASSERT_TRUE(tree.ok());
  const Node* clock = testing::FindLabel(*tree, "clock");
  ASSERT_NE(clock, nullptr);
  ASSERT_EQ(clock->handlers.size(), 1u);
  EXPECT_EQ(clock->handlers[0].event, "onTimeout");
  EXPECT_EQ(clock->props["timeout"], 1000);
  tree = view->Act(clock->handlers[0].id, nlohmann::json::object());
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(testing::Text(*tree), "ticks=1");
}

TEST(ViewProps, ValuesThatAreNotNodesAndOtherMisuseAreClearErrors) {
  auto view = testing::MustLoad("props.tsx", "Props");
  ASSERT_TRUE(view);
  EXPECT_EQ(view->Act(1, {}).error().code, "view.not_rendered");
  auto bad = view->Render({{"mode", "object"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "view.render");
  EXPECT_NE(bad.error().message.find("cannot render a plain object"), std::string::npos)
      << bad.error().message;
  auto token = view->Render({{"mode", "token"}});
  ASSERT_FALSE(token.ok());
  EXPECT_EQ(token.error().code, "view.unknown_token");
  EXPECT_EQ(token.error().detail, testing::DataPath("props.tsx") + ":7:45");
  auto tree = view->Render({{"mode", "ok"}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(view->Act(999999, {}).error().code, "view.unknown_handler");
}

}  // namespace
}  // namespace affordance::view

// Hooks and the reconciler: state across renders, updates inside handlers, functional updates,
// closures, effects and cleanups, hook order, wrapper switches with asChatTools, contexts.
#include "view_test_util.h"

#include <gtest/gtest.h>

namespace affordance::view {
namespace {

using testing::FindBlock;
using testing::FindLabel;
using testing::HandlerOf;
using testing::MustLoad;
using testing::Text;
using json = nlohmann::json;

TEST(ViewHooks, StateSurvivesRendersAndHandlersUpdateIt) {
  auto view = MustLoad("counter.tsx", "Counter");
  ASSERT_TRUE(view);
  auto tree = view->Render({{"start", 5}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(Text(*tree), "count=5 doubled=10 renders=1 log=");
  // Two functional updates in one handler compose; the destructured default applies.
  HandlerId add = HandlerOf(*tree, "add");
  ASSERT_NE(add, 0u);
  tree = view->Act(add, json::object());
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(Text(*tree), "count=7 doubled=14 renders=2 log=");
  tree = view->Act(add, {{"by", 10}});
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(Text(*tree), "count=27 doubled=54 renders=3 log=");
  // Props changes do not reset state (useState's initial value is only read once).
  tree = view->Render({{"start", 100}});
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(Text(*tree), "count=27 doubled=54 renders=4 log=");
  // Handler ids are stable across renders while mounted.
  EXPECT_EQ(HandlerOf(*tree, "add"), add);
}

TEST(ViewHooks, HandlersSeeTheLatestClosure) {
  auto view = MustLoad("counter.tsx", "Counter");
  ASSERT_TRUE(view);
  auto tree = view->Render(json::object());
  ASSERT_TRUE(tree.ok());
  HandlerId note = HandlerOf(*tree, "note", "onChange");
  HandlerId set = HandlerOf(*tree, "set");
  ASSERT_NE(note, 0u);
  tree = view->Act(note, {{"value", "a"}});
  ASSERT_TRUE(tree.ok());
  // `log` captured by the second call is the one from the re-render, so both entries stay.
  tree = view->Act(note, {{"value", "b"}, {"mode", "replace"}});
  ASSERT_TRUE(tree.ok());
  tree = view->Act(set, {{"value", 3}});
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(Text(*tree), "count=3 doubled=6 renders=4 log=append:a,replace:b,set3");
  EXPECT_EQ(FindLabel(*tree, "note")->props["value"], "append:a,replace:b,set3");
}

TEST(ViewHooks, HandlerSignaturesComeFromTheSource) {
  auto view = MustLoad("counter.tsx", "Counter");
  ASSERT_TRUE(view);
  auto tree = view->Render(json::object());
  ASSERT_TRUE(tree.ok());
  auto sig = [&](const std::string& label, const std::string& event) {
    for (const Handler& h : FindLabel(*tree, label)->handlers) {
      if (h.event == event) return h.signature;
    }
    ADD_FAILURE() << "no handler " << label;
    return HandlerSignature{};
  };
  HandlerSignature add = sig("add", "onClick");
  EXPECT_EQ(add.kind, HandlerSignature::Kind::kDestructured);
  ASSERT_EQ(add.fields.size(), 1u);
  EXPECT_EQ(add.fields[0].name, "by");
  EXPECT_TRUE(add.fields[0].optional);
  HandlerSignature note = sig("note", "onChange");
  ASSERT_EQ(note.fields.size(), 2u);
  EXPECT_EQ(note.fields[0].name, "value");
  EXPECT_FALSE(note.fields[0].optional);
  EXPECT_EQ(note.fields[1].name, "mode");
  EXPECT_TRUE(note.fields[1].optional);
  EXPECT_EQ(sig("set", "onClick").kind, HandlerSignature::Kind::kSingle);
  EXPECT_EQ(sig("noop", "onClick").kind, HandlerSignature::Kind::kNoParams);
  EXPECT_EQ(sig("many", "onClick").kind, HandlerSignature::Kind::kOther);
  // Plain props are JSON; function props are handlers, not props.
  const Node* note_node = FindLabel(*tree, "note");
  EXPECT_EQ(note_node->type, "input");
  EXPECT_FALSE(note_node->props.contains("onChange"));
  EXPECT_EQ(note_node->path, "Counter/box/input[10]");
}

TEST(ViewHooks, ChangingHookOrderIsAClearError) {
  auto view = MustLoad("counter.tsx", "Conditional");
  ASSERT_TRUE(view);
  auto tree = view->Render({{"extra", false}});
  ASSERT_TRUE(tree.ok());
  tree = view->Render({{"extra", true}});
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.error().code, "view.hook_order");
  EXPECT_NE(tree.error().message.find("<Conditional>"), std::string::npos) << tree.error().message;
  EXPECT_NE(tree.error().detail.find("counter.tsx:"), std::string::npos) << tree.error().detail;
  // Nothing was committed: the old shape still renders.
  tree = view->Render({{"extra", false}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(Text(*tree), "1");
}

TEST(ViewHooks, EffectsRunAfterCommitWithCleanups) {
  auto view = MustLoad("effects.tsx", "Effects");
  ASSERT_TRUE(view);
  // The mount effect sets state, so one Render runs a second pass that already shows it.
  auto tree = view->Render({{"show", true}, {"id", 1}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(Text(*tree), "child 1loaded=true events=mount 1|effect n=0");
  // A dependency change runs the old cleanup before the new effect. Effects prints a module-level
  // log, which the runtime cannot see change (components are called again only when their props,
  // state or context change), so each render that should print it passes a new `tick`.
  tree = view->Render({{"show", true}, {"id", 2}});
  ASSERT_TRUE(tree.ok());
  tree = view->Render({{"show", true}, {"id", 2}, {"tick", 1}});
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(Text(*tree), "child 2loaded=true events=mount 1|effect n=0|cleanup 1|mount 2");
  // Unmounting runs the cleanup; an effect with changed deps runs again after act.
  tree = view->Render({{"show", false}, {"id", 2}});
  ASSERT_TRUE(tree.ok());
  tree = view->Act(testing::HandlerOf(*tree, "inc"), json::object());
  ASSERT_TRUE(tree.ok());
  tree = view->Render({{"show", false}, {"id", 2}, {"tick", 2}});
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(Text(*tree),
            "loaded=true events=mount 1|effect n=0|cleanup 1|mount 2|cleanup 2|effect n=1");
}

TEST(ViewHooks, EffectThatAlwaysSetsStateIsARenderLoopError) {
  auto view = MustLoad("effects.tsx", "Forever");
  ASSERT_TRUE(view);
  auto tree = view->Render(json::object());
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.error().code, "view.render_loop");
}

TEST(ViewHooks, ThrowingEffectIsAnEffectErrorWithPosition) {
  auto view = MustLoad("effects.tsx", "BadEffect");
  ASSERT_TRUE(view);
  auto tree = view->Render(json::object());
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.error().code, "view.effect");
  EXPECT_EQ(tree.error().message, "effect failed");
  EXPECT_NE(tree.error().detail.find("effects.tsx:40:20"), std::string::npos)
      << tree.error().detail;
}

// A ChatToolsHook standing in for layout: it records the reconciled children and declares one
// tool per handler, with the children as the opaque block.
struct RecordingLayout {
  std::vector<std::vector<Node>> calls;
  std::vector<json> options;
  ChatToolsHook Hook() {
    return [this](const std::vector<Node>& children, const json& opts) -> Result<ChatTools> {
      calls.push_back(children);
      options.push_back(opts);
      ChatTools out;
      out.block = std::make_shared<const std::vector<Node>>(children);
      std::function<void(const std::vector<Node>&)> walk = [&](const std::vector<Node>& ns) {
        for (const Node& n : ns) {
          for (const Handler& h : n.handlers)
            out.tools.push_back({{"name", h.event}, {"id", h.id}});
          walk(n.children);
        }
      };
      walk(children);
      return out;
    };
  }
};

TEST(ViewChatTools, AppBuiltBeforeTheWrapperKeepsStateAcrossWrappers) {
  auto view = MustLoad("wrappers.tsx", "Chat");
  ASSERT_TRUE(view);
  RecordingLayout layout;
  view->SetChatToolsHook(layout.Hook());

  auto tree = view->Render({{"format", "qwen"}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  ASSERT_EQ(layout.calls.size(), 1u);
  EXPECT_EQ(Text(*tree), "qwen tools=1");
  EXPECT_EQ(layout.options.back(), json::object());
  const Node* block = FindBlock(*tree);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(Text(*static_cast<const std::vector<Node>*>(block->block.get())), "nb[dark]: ");
  HandlerId notes = HandlerOf(layout.calls.back(), "notes", "onChange");
  ASSERT_NE(notes, 0u);
  std::string qwen_path = FindLabel(layout.calls.back(), "notes")->path;
  EXPECT_EQ(qwen_path, "Chat/Notebook#notebook/box/input[5]");

  tree = view->Act(notes, {{"value", "first"}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(Text(layout.calls.back()), "nb[dark]: first");

  // Switch wrappers: same hook path, same state, same handler id.
  tree = view->Render({{"format", "llama"}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  EXPECT_EQ(Text(*tree), "llama tools=1");
  EXPECT_EQ(layout.options.back(), json({{"callable", false}}));
  EXPECT_EQ(Text(layout.calls.back()), "nb[dark]: first");
  EXPECT_EQ(FindLabel(layout.calls.back(), "notes")->path, qwen_path);
  EXPECT_EQ(HandlerOf(layout.calls.back(), "notes", "onChange"), notes);
  tree = view->Act(notes, {{"value", "second"}});
  ASSERT_TRUE(tree.ok());
  tree = view->Render({{"format", "qwen"}});
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(Text(layout.calls.back()), "nb[dark]: first;second");
}

TEST(ViewChatTools, AppBuiltInsideEachWrapperDoesNotShareState) {
  auto view = MustLoad("wrappers.tsx", "Inside");
  ASSERT_TRUE(view);
  RecordingLayout layout;
  view->SetChatToolsHook(layout.Hook());
  auto tree = view->Render({{"format", "qwen"}});
  ASSERT_TRUE(tree.ok()) << tree.error().ToString();
  tree = view->Act(HandlerOf(layout.calls.back(), "notes", "onChange"), {{"value", "x"}});
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(Text(layout.calls.back()), "in[plain]: x");
  tree = view->Render({{"format", "llama"}});
  ASSERT_TRUE(tree.ok());
  EXPECT_EQ(Text(layout.calls.back()), "in[plain]: ");
}

TEST(ViewChatTools, WithoutAHookAsChatToolsThrowsAClearError) {
  auto view = MustLoad("wrappers.tsx", "Chat");
  ASSERT_TRUE(view);
  auto tree = view->Render({{"format", "qwen"}});
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.error().code, "view.no_chat_tools_hook");
  EXPECT_NE(tree.error().detail.find("wrappers.tsx:18:38"), std::string::npos)
      << tree.error().detail;
}

TEST(ViewChatTools, HookErrorsBecomeRenderErrorsWithTheirCode) {
  auto view = MustLoad("wrappers.tsx", "Chat");
  ASSERT_TRUE(view);
  view->SetChatToolsHook([](const std::vector<Node>&, const json&) -> Result<ChatTools> {
    return MakeError("render.outer_crop", "move the budget inward");
  });
  auto tree = view->Render({{"format", "qwen"}});
  ASSERT_FALSE(tree.ok());
  EXPECT_EQ(tree.error().code, "render.outer_crop");
  EXPECT_NE(tree.error().message.find("move the budget inward"), std::string::npos);
}

}  // namespace
}  // namespace affordance::view

// An app's hook state moving from Qwen3App to Llama31App (issue #17): the notebook is used under
// the Qwen3 wrapper with the real Qwen3 tokenizer, its state is snapshotted (view::View::
// SnapshotState), written out as JSON text, and restored into a fresh view of the Llama 3.1 entry
// with the real Llama tokenizer. The restored prompt equals the one a Llama view reaches by making
// the same calls itself.
#include "render/renderer.h"

#include <gtest/gtest.h>

namespace affordance::render {
namespace {

const std::string kRoot = AFFORDANCE_SOURCE_DIR;

std::unique_ptr<Renderer> Load(const std::string& file, const std::string& entry,
                               const std::string& model) {
  view::ViewOptions o;
  o.lib_root = kRoot + "/views/lib";
  o.cache_dir = "-";
  auto r = Renderer::Load(kRoot + "/" + file, entry, model, o);
  EXPECT_TRUE(r.ok()) << r.error().code << ": " << r.error().ToString();
  return r.ok() ? std::move(r).value() : nullptr;
}

nlohmann::ordered_json State() {
  nlohmann::ordered_json numbers = nlohmann::ordered_json::array();
  for (int i = 0; i < 60; ++i) numbers.push_back(i * 37 % 1000);
  return {{"numbers", numbers},
          {"question", "Sum the numbers from the tenth on."},
          {"date", "29 Nov 2026"}};
}

const std::vector<nlohmann::ordered_json> kCalls = {
    {{"name", "scroll__numbers"}, {"arguments", {{"offset", 9}}}},
    {{"name", "change__notes"}, {"arguments", {{"value", "partial sum: 1234"}}}},
};

void Use(Renderer& r) {
  ASSERT_TRUE(r.Render(State()).ok());
  for (const auto& call : kCalls) {
    auto b = r.Act(call);
    ASSERT_TRUE(b.ok()) << b.error().ToString();
  }
}

TEST(StateTransfer, NotebookStateMovesFromQwen3AppToLlama31App) {
  auto qwen = Load("views/demo/notebook_chat.tsx", "NotebookChat", "Qwen__Qwen3-4B-Instruct-2507");
  ASSERT_NE(qwen, nullptr);
  Use(*qwen);
  auto snap = qwen->view().SnapshotState("NotebookChat/Notebook#notebook");
  ASSERT_TRUE(snap.ok()) << snap.error().ToString();
  const std::string saved = snap->dump();  // what a store would keep

  auto llama = Load("views/demo/notebook_llama31.tsx", "NotebookLlama31",
                    "meta-llama__Llama-3.1-8B-Instruct");
  ASSERT_NE(llama, nullptr);
  Status restored = llama->view().RestoreState(nlohmann::ordered_json::parse(saved),
                                               "NotebookLlama31/Notebook#notebook");
  ASSERT_TRUE(restored.ok()) << restored.error().ToString();
  auto moved = llama->Render(State());
  ASSERT_TRUE(moved.ok()) << moved.error().ToString();

  auto reference = Load("views/demo/notebook_llama31.tsx", "NotebookLlama31",
                        "meta-llama__Llama-3.1-8B-Instruct");
  ASSERT_NE(reference, nullptr);
  Use(*reference);
  EXPECT_EQ(moved->tokens, reference->last().tokens);
  EXPECT_EQ(moved->ToolsJson(), reference->last().ToolsJson());
  auto text = llama->tokenizer().Decode(moved->tokens);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("Numbers (10-60 of 60):"), std::string::npos) << *text;
  EXPECT_NE(text->find("notes: partial sum: 1234<|eot_id|>"), std::string::npos) << *text;
  EXPECT_EQ(text->rfind("<|begin_of_text|>", 0), 0u);

  // The moved state is live under the new format: the model's next call acts on it.
  auto next = llama->Act({{"name", "change__notes"}, {"arguments", {{"value", "done"}}}});
  ASSERT_TRUE(next.ok()) << next.error().ToString();
  auto after = llama->tokenizer().Decode(next->tokens);
  ASSERT_TRUE(after.ok());
  EXPECT_NE(after->find("Numbers (10-60 of 60):"), std::string::npos);
  EXPECT_NE(after->find("notes: done<|eot_id|>"), std::string::npos);
}

TEST(StateTransfer, AStateThatDoesNotFitTheLlamaTreeIsRefused) {
  auto qwen = Load("views/demo/notebook_chat.tsx", "NotebookChat", "Qwen__Qwen3-4B-Instruct-2507");
  ASSERT_NE(qwen, nullptr);
  Use(*qwen);
  // The whole Qwen view: its paths start at NotebookChat, which the Llama entry does not mount.
  auto snap = qwen->view().SnapshotState();
  ASSERT_TRUE(snap.ok());
  auto llama = Load("views/demo/notebook_llama31.tsx", "NotebookLlama31",
                    "meta-llama__Llama-3.1-8B-Instruct");
  ASSERT_NE(llama, nullptr);
  ASSERT_TRUE(llama->view().RestoreState(*snap).ok());
  auto b = llama->Render(State());
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.error().code, "view.snapshot_mismatch");
  EXPECT_NE(b.error().message.find("which this render did not mount"), std::string::npos)
      << b.error().message;
}

}  // namespace
}  // namespace affordance::render

// Projection contract (asChatTools): visible actions under budgets and scrolling, every naming
// rule, every schema rule, timers, callable: false, rebased spans and the outer-crop error.
#include "render/layout.h"
#include "render/projection.h"
#include "tree.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <regex>
#include <set>

namespace affordance::render {
namespace {

using namespace testing;  // NOLINT
using Kind = view::HandlerSignature::Kind;

class ProjectionContract : public ::testing::Test {
 protected:
  void SetUp() override {
    auto q = text::LoadModel("Qwen__Qwen3-4B-Instruct-2507");
    ASSERT_TRUE(q.ok()) << q.error().ToString();
    qwen = *q;
  }
  Block Project(const std::vector<view::Node>& nodes, bool callable = true) {
    LayoutOptions options;
    options.callable = callable;
    auto b = Layout(nodes, *qwen, options);
    EXPECT_TRUE(b.ok()) << b.error().code << ": " << b.error().ToString();
    return b.ok() ? *b : Block{};
  }
  Result<Block> Document(const std::vector<view::Node>& nodes) {
    LayoutOptions options;
    options.mode = LayoutOptions::Mode::kDocument;
    return Layout(nodes, *qwen, options);
  }
  const Span* ActionSpan(const Block& b, const std::string& name) {
    for (const auto& s : b.spans) {
      if (s.kind == Span::Kind::kAction && s.name == name) return &s;
    }
    return nullptr;
  }
  std::shared_ptr<const text::Tokenizer> qwen;

 public:
  const std::shared_ptr<const text::Tokenizer>& Qwen() const { return qwen; }
};

view::Node Button(const std::string& label, view::HandlerId id) {
  return El("button", {{"label", label}}, {}, {On("onClick", id)});
}

TEST_F(ProjectionContract, OnChangeOnNotesBecomesChangeNotes) {
  const Block b = Project({El("input", {{"label", "notes"}, {"value", ""}}, {}, {OnChange(7)})});
  ASSERT_EQ(b.tools.size(), 1u);
  EXPECT_EQ(b.tools[0].name, "change__notes");
  EXPECT_EQ(b.tools[0].handler, 7u);
  EXPECT_EQ(b.tools[0].ToJson(),
            nlohmann::ordered_json::parse(R"({"type":"function","function":{"name":"change__notes",
              "parameters":{"type":"object","properties":{"value":{}},"required":["value"]}}})"));
  const Span* span = ActionSpan(b, "change__notes");
  ASSERT_NE(span, nullptr);
  EXPECT_EQ(span->begin, 0u);
  EXPECT_EQ(span->end, b.tokens.size());
  EXPECT_EQ(span->handler, 7u);
  EXPECT_TRUE(span->projected);
}

TEST_F(ProjectionContract, EventStemsAreLowerCased) {
  const Block b = Project({El("box", {{"label", "row"}}, {Text("x")},
                              {On("onClick", 1), On("onSubmit", 2), On("onDoubleClick", 3)})});
  EXPECT_EQ(ToolNames(b),
            (std::vector<std::string>{"click__row", "submit__row", "doubleclick__row"}));
}

TEST_F(ProjectionContract, LossyLabelsGetADigestOfTheFullLabelAndStayDistinct) {
  const Block b = Project({Button("a b", 1), Button("a_b", 2), Button("a-b", 3)});
  ASSERT_EQ(b.tools.size(), 3u);
  EXPECT_EQ(b.tools[0].name, "click__a_b_" + LabelDigest("a b"));
  EXPECT_EQ(b.tools[1].name, "click__a_b");
  EXPECT_EQ(b.tools[2].name, "click__a-b");
  EXPECT_EQ(LabelDigest(""), "811c9dc5");  // FNV-1a 32 offset basis: the documented function
}

TEST_F(ProjectionContract, NonAsciiLabelsAreLossyWithStableSuffixes) {
  const Block b =
      Project({Button("Grüße senden", 1), Button("数字", 2), Button("Grüsse senden", 3)});
  EXPECT_EQ(b.tools[0].name, "click__Gr_e_senden_" + LabelDigest("Grüße senden"));
  EXPECT_EQ(b.tools[1].name, "click____" + LabelDigest("数字"));
  EXPECT_EQ(b.tools[2].name, "click__Gr_sse_senden_" + LabelDigest("Grüsse senden"));
  const auto names = ToolNames(b);
  std::set<std::string> unique(names.begin(), names.end());
  EXPECT_EQ(unique.size(), 3u);
}

TEST_F(ProjectionContract, TruncatedLabelsFitSixtyFourWithADigest) {
  const std::string long_label(100, 'x');
  const Block b = Project({Button(long_label, 1), Button(long_label + "y", 2)});
  ASSERT_EQ(b.tools.size(), 2u);
  for (const auto& t : b.tools) EXPECT_EQ(t.name.size(), 64u) << t.name;
  EXPECT_NE(b.tools[0].name, b.tools[1].name);
  EXPECT_EQ(b.tools[0].name.substr(55), "_" + LabelDigest(long_label));
}

TEST_F(ProjectionContract, DuplicatesAndUnlabeledTargetsAreNamedByPosition) {
  const Block b = Project({Button("save", 1), El("box", {}, {Text("x")}, {On("onClick", 2)}),
                           Button("save", 3), Button("open", 4)});
  EXPECT_EQ(ToolNames(b), (std::vector<std::string>{"click__save_0", "click__1", "click__save_2",
                                                    "click__open"}));
  // A label that spells a positional name still gets a unique name.
  const Block clash = Project({El("box", {}, {Text("x")}, {On("onClick", 1)}), Button("0", 2)});
  EXPECT_EQ(ToolNames(clash), (std::vector<std::string>{"click__0", "click__0_1"}));
}

TEST_F(ProjectionContract, LabeledNamesAreStableWhenRowsReorder) {
  const Block before = Project({Button("milk", 1), Button("eggs", 2), Button("a b", 3)});
  const Block after = Project({Button("a b", 3), Button("eggs", 2), Button("milk", 1)});
  std::map<view::HandlerId, std::string> x, y;
  for (const auto& t : before.tools) x[t.handler] = t.name;
  for (const auto& t : after.tools) y[t.handler] = t.name;
  EXPECT_EQ(x, y);
}

TEST_F(ProjectionContract, EveryNameIsAValidFunctionName) {
  const std::regex valid("^[a-zA-Z0-9_-]{1,64}$");
  std::vector<view::Node> nodes;
  const std::vector<std::string> labels = {
      "", " ", "a b", "é", "🙂🙂", std::string(200, 'z'), "\n", "x.y/z", "-", "__", "0"};
  view::HandlerId id = 1;
  for (const auto& l : labels) nodes.push_back(Button(l, id++));
  nodes.push_back(El("box", {{"label", 42}}, {Text("n")},
                     {On("onVeryLongEventNameThatGoesOnAndOnAndOnForeverAndEverAndEver", id++)}));
  const Block b = Project(nodes);
  ASSERT_EQ(b.tools.size(), labels.size() + 1);
  std::set<std::string> names;
  for (const auto& t : b.tools) {
    EXPECT_TRUE(std::regex_match(t.name, valid)) << t.name;
    names.insert(t.name);
  }
  EXPECT_EQ(names.size(), b.tools.size());
}

// Projects on another thread so a naming loop fails this test instead of hanging the suite.
Block ProjectWithin(ProjectionContract* self, const std::vector<view::Node>& nodes) {
  auto done = std::async(std::launch::async, [&] {
    LayoutOptions options;
    return Layout(nodes, *self->Qwen(), options);
  });
  if (done.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
    ADD_FAILURE() << "tool naming did not end within 20 s";
    std::_Exit(1);  // the naming thread cannot be stopped
  }
  auto b = done.get();
  EXPECT_TRUE(b.ok()) << b.error().ToString();
  return b.ok() ? *b : Block{};
}

TEST_F(ProjectionContract, NamingEndsForLabelsThatCollideWithGeneratedSuffixes) {
  // Issue #17: the first label spells what the cut duplicate name of "z" x 200 becomes; the old
  // collision loop re-cut a 64-character name to itself forever.
  const std::string z200(200, 'z');
  const std::string digest = LabelDigest(z200);
  const std::string spelled = std::string(48, 'z') + "_" + digest.substr(0, 6) + "_1";
  const Block b = ProjectWithin(this, {Button(spelled, 1), Button(z200, 2), Button(z200, 3)});
  const std::string cut = "click__" + std::string(48, 'z') + "_" + digest;  // 64 characters
  ASSERT_EQ(cut.size(), 64u);
  EXPECT_EQ(ToolNames(b), (std::vector<std::string>{"click__" + spelled, cut.substr(0, 60) + "_1-2",
                                                    cut.substr(0, 62) + "_2"}));
  // The label from the issue report, verbatim.
  const Block issue = ProjectWithin(
      this, {Button(std::string(48, 'z') + "_be2944_1", 1), Button(z200, 2), Button(z200, 3)});
  const std::vector<std::string> listed = ToolNames(issue);
  EXPECT_EQ(std::set<std::string>(listed.begin(), listed.end()).size(), 3u);
}

TEST_F(ProjectionContract, NamingEndsAndStaysUniqueForManyCollidingLongLabels) {
  // Every label spells a candidate another action would get: positions, "-k" tails, cut names.
  std::vector<view::Node> nodes;
  view::HandlerId id = 1;
  const std::string z200(200, 'z');
  const std::string cut = ToolName("onClick", z200);
  for (int i = 0; i < 12; ++i) nodes.push_back(Button(z200, id++));
  for (int i = 0; i < 12; ++i) {
    nodes.push_back(Button(cut.substr(7, 53) + "_" + std::to_string(i), id++));
    nodes.push_back(Button(cut.substr(7, 51) + "_" + std::to_string(i) + "-2", id++));
    nodes.push_back(El("box", {}, {Text("x")}, {On("onClick", id++)}));
    nodes.push_back(Button(std::to_string(i), id++));
  }
  const Block b = ProjectWithin(this, nodes);
  ASSERT_EQ(b.tools.size(), nodes.size());
  const std::regex valid("^[a-zA-Z0-9_-]{1,64}$");
  std::set<std::string> names;
  for (const auto& t : b.tools) {
    EXPECT_TRUE(std::regex_match(t.name, valid)) << t.name;
    names.insert(t.name);
  }
  EXPECT_EQ(names.size(), b.tools.size());
}

TEST_F(ProjectionContract, ArgsSchemaIsCopied) {
  const nlohmann::json schema = {{"type", "object"},
                                 {"properties", {{"n", {{"type", "integer"}, {"minimum", 0}}}}},
                                 {"required", {"n"}}};
  const Block b = Project({El(
      "input", {{"label", "count"}, {"value", "1"}, {"args_schema", schema}}, {}, {OnChange(1)})});
  EXPECT_EQ(b.tools[0].parameters, schema);
  auto bad = Layout(
      {El("button", {{"label", "x"}, {"args_schema", "int"}}, {}, {On("onClick", 1)})}, *qwen, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, "render.invalid_args_schema");
}

// A `description` prop is the tool's description, as one line; without one the tool has none
// (the JSON the chat template gets is unchanged).
TEST_F(ProjectionContract, ADescriptionPropBecomesTheToolsDescription) {
  const Block b = Project(
      {El("button", {{"label", "Done: buy milk"}, {"description", "Mark \"buy milk\"\n  as done"}},
          {}, {On("onClick", 1)}),
       Button("plain", 2)});
  ASSERT_EQ(b.tools.size(), 2u);
  EXPECT_EQ(b.tools[0].description, "Mark \"buy milk\" as done");
  const nlohmann::ordered_json described = b.tools[0].ToJson();
  EXPECT_EQ(described["function"]["description"], "Mark \"buy milk\" as done");
  // OpenAI's key order: name, description, parameters.
  std::vector<std::string> keys;
  for (const auto& [k, v] : described["function"].items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"name", "description", "parameters"}));
  EXPECT_EQ(b.tools[1].description, "");
  EXPECT_FALSE(b.tools[1].ToJson()["function"].contains("description"));
  // Not a string: no description.
  const Block n =
      Project({El("button", {{"label", "x"}, {"description", 5}}, {}, {On("onClick", 1)})});
  EXPECT_FALSE(n.tools[0].ToJson()["function"].contains("description"));
}

TEST_F(ProjectionContract, DestructuredFieldsAreUnconstrainedAndDefaultsOptional) {
  const Block b = Project({El("box", {{"label", "form"}}, {Text("f")},
                              {On("onSubmit", 1, Kind::kDestructured,
                                  {{"text", false}, {"mode", true}, {"count", false}})})});
  EXPECT_EQ(b.tools[0].parameters, nlohmann::ordered_json::parse(R"({"type":"object",
      "properties":{"text":{},"mode":{},"count":{}},"required":["text","count"]})"));
  // Names never imply types: a field called "count" is still {}.
  EXPECT_EQ(b.tools[0].parameters["properties"]["count"], nlohmann::json::object());
  const Block all_optional = Project({Button("x", 1)});
  EXPECT_EQ(all_optional.tools[0].parameters,
            nlohmann::ordered_json::parse(R"({"type":"object","properties":{}})"));
}

TEST_F(ProjectionContract, SingleEventParameterIsAnUnconstrainedObject) {
  const Block b = Project({El("box", {{"label", "pad"}}, {Text("p")},
                              {On("onKey", 1, Kind::kSingle), On("onDrag", 2, Kind::kOther)})});
  EXPECT_EQ(b.tools[0].parameters, nlohmann::json({{"type", "object"}}));
  EXPECT_EQ(b.tools[1].parameters, nlohmann::json({{"type", "object"}}));
}

TEST_F(ProjectionContract, TimersAndCallbacksAreNeverProjectedAndKeepHarnessNames) {
  const Block b =
      Project({El("box", {{"label", "clock"}}, {Text("12:00")},
                  {On("onTimeout", 1), On("onInterval", 2), On("onCallback", 3), On("onClick", 4)},
                  "App/box#clock")});
  EXPECT_EQ(ToolNames(b), std::vector<std::string>{"click__clock"});
  EXPECT_NE(ActionSpan(b, "onTimeout:App/box#clock"), nullptr);
  EXPECT_NE(ActionSpan(b, "onInterval:App/box#clock"), nullptr);
  const Span* cb = ActionSpan(b, "onCallback:App/box#clock");
  ASSERT_NE(cb, nullptr);
  EXPECT_FALSE(cb->projected);
  EXPECT_EQ(cb->handler, 3u);  // the harness fires it through View::Act
}

TEST_F(ProjectionContract, CallableFalseKeepsSchemasAndTokensButDropsHandlers) {
  const std::vector<view::Node> nodes = {
      El("input", {{"label", "notes"}, {"value", "x"}}, {}, {OnChange(5)})};
  const Block live = Project(nodes);
  const Block preview = Project(nodes, /*callable=*/false);
  EXPECT_EQ(preview.tokens, live.tokens);
  EXPECT_EQ(preview.ToolsJson(), live.ToolsJson());
  ASSERT_EQ(preview.tools.size(), 1u);
  EXPECT_EQ(preview.tools[0].handler, 0u);
  EXPECT_FALSE(preview.tools[0].callable);
  EXPECT_EQ(ActionSpan(preview, "change__notes")->handler, 0u);
  auto options = ProjectionOptions({{"callable", false}});
  ASSERT_TRUE(options.ok());
  EXPECT_FALSE(options->callable);
  EXPECT_EQ(ProjectionOptions({{"callable", "no"}}).error().code, "render.invalid_options");
  EXPECT_EQ(ProjectionOptions({{"budget", 3}}).error().code, "render.invalid_options");
}

TEST_F(ProjectionContract, OnlyFullyVisibleActionsUnderABudgetAreProjected) {
  // 1,000 rows, each a button; a 48-token scroll window.
  std::vector<view::Node> rows;
  for (int i = 0; i < 1000; ++i) rows.push_back(Button("row " + std::to_string(i), 100 + i));
  const Block b = Project({El("scroll", {{"budget", 48}, {"offset", 0}}, rows)});
  ASSERT_EQ(b.tokens.size(), 48u);
  // Every projected row is whole; the first row that did not fit is cut and not declared.
  size_t visible_tokens = 0;
  for (const auto& t : b.tools) {
    const Span* s = ActionSpan(b, t.name);
    ASSERT_NE(s, nullptr);
    visible_tokens = s->end;
  }
  EXPECT_FALSE(b.tools.empty());
  EXPECT_LT(b.tools.size(), 48u);
  EXPECT_LT(visible_tokens, 48u);  // the cut row's tokens follow the last declared one
  EXPECT_EQ(b.tools.front().name, "click__row_0_" + LabelDigest("row 0"));
  // Scrolling moves the window: the first declared row is the offset row.
  const Block scrolled = Project({El("scroll", {{"budget", 48}, {"offset", 500}}, rows)});
  EXPECT_EQ(scrolled.tools.front().name, "click__row_500_" + LabelDigest("row 500"));
}

TEST_F(ProjectionContract, PartlyClippedActionsAreRemovedButOwnWindowActionsStay) {
  const Block b = Project(
      {El("box", {{"budget", 3}},
          {El("button", {{"label", "a very long label indeed"}}, {}, {On("onClick", 1)})})});
  EXPECT_TRUE(b.tools.empty());
  EXPECT_EQ(b.tokens.size(), 3u);
  // A scroll clipping its own rows is still wholly shown as designed: its action is declared.
  std::vector<view::Node> rows;
  for (int i = 0; i < 20; ++i) rows.push_back(Text(std::to_string(i) + "\n"));
  const Block own = Project({El("scroll", {{"budget", 5}, {"label", "numbers"}}, rows,
                                {On("onScroll", 2, Kind::kDestructured, {{"offset", false}})})});
  EXPECT_EQ(ToolNames(own), std::vector<std::string>{"scroll__numbers"});
}

TEST_F(ProjectionContract, SpansAreRebasedWhenAnOuterTreePlacesTheBlock) {
  const Block inner = Project(
      {Text("Notebook\n"), El("input", {{"label", "notes"}, {"value", "x"}}, {}, {OnChange(9)})});
  const auto header = Enc(*qwen, "system header\n");
  auto outer =
      Document({El("box", {}, {Text("system header\n"), BlockNode(inner), Text("\nend")})});
  ASSERT_TRUE(outer.ok()) << outer.error().ToString();
  const Span* in = ActionSpan(inner, "change__notes");
  const Span* out = ActionSpan(*outer, "change__notes");
  ASSERT_NE(in, nullptr);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->begin, in->begin + header.size());
  EXPECT_EQ(out->end, in->end + header.size());
  EXPECT_EQ(
      std::vector<text::TokenId>(outer->tokens.begin() + out->begin,
                                 outer->tokens.begin() + out->end),
      std::vector<text::TokenId>(inner.tokens.begin() + in->begin, inner.tokens.begin() + in->end));
  EXPECT_EQ(ToolNames(*outer), std::vector<std::string>{"change__notes"});
  EXPECT_EQ(outer->tools[0].handler, 9u);
}

TEST_F(ProjectionContract, AnOuterCropOfAProjectedActionIsAnError) {
  const Block inner = Project(
      {Text("Notebook\n"), El("input", {{"label", "notes"}, {"value", "x"}}, {}, {OnChange(9)})});
  auto cropped = Document({El("box", {{"budget", 4}}, {BlockNode(inner)}, {}, "Chat/box")});
  ASSERT_FALSE(cropped.ok());
  EXPECT_EQ(cropped.error().code, "render.outer_crop");
  EXPECT_NE(cropped.error().message.find("move that budget inside asChatTools"), std::string::npos);
  EXPECT_NE(cropped.error().message.find("Chat/box"), std::string::npos);
  EXPECT_NE(cropped.error().message.find("change__notes"), std::string::npos);
  // Hidden entirely after an earlier cut: still an error.
  auto hidden = Document({El("box", {{"budget", 1}}, {Text("a b c"), BlockNode(inner)})});
  ASSERT_FALSE(hidden.ok());
  EXPECT_EQ(hidden.error().code, "render.outer_crop");
  // Scrolled out of an outer window: an error too.
  auto scrolled =
      Document({El("scroll", {{"offset", 1}}, {BlockNode(inner), Text("x")}, {}, "Chat/scroll")});
  ASSERT_FALSE(scrolled.ok());
  EXPECT_EQ(scrolled.error().code, "render.outer_crop");
  EXPECT_NE(scrolled.error().message.find("Chat/scroll"), std::string::npos);
  // Cropping only text after the actions is fine.
  const Block tail = Project({El("input", {{"label", "notes"}, {"value", "x"}}, {}, {OnChange(9)}),
                              Text(" and a long tail of text")});
  const size_t action_end = ActionSpan(tail, "change__notes")->end;
  auto ok =
      Document({El("box", {{"budget", static_cast<int>(action_end) + 1}}, {BlockNode(tail)})});
  ASSERT_TRUE(ok.ok()) << ok.error().ToString();
  EXPECT_EQ(ok->tokens.size(), action_end + 1);
}

TEST_F(ProjectionContract, DocumentModeDoesNotProjectLooseActionsAndRejectsDuplicateTools) {
  auto loose = Document({Button("save", 1)});
  ASSERT_TRUE(loose.ok());
  EXPECT_TRUE(loose->tools.empty());
  const Block a = Project({Button("save", 1)});
  auto twice = Document({BlockNode(a), BlockNode(a)});
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().code, "render.duplicate_tool");
}

}  // namespace
}  // namespace affordance::render

namespace affordance::render {
namespace {

// Regression (found by render_layout_fuzzer): many handlers on one element pushed action spans
// while a reference to the element's span was held.
TEST(ProjectionRegression, ActionSpansOfManyHandlersCoverTheirElement) {
  auto qwen = text::LoadModel("Qwen__Qwen3-4B-Instruct-2507");
  ASSERT_TRUE(qwen.ok());
  std::vector<view::Node> nodes;
  for (int i = 0; i < 40; ++i) {
    nodes.push_back(
        testing::El("box", {{"label", "b" + std::to_string(i)}}, {testing::Text("x y z")},
                    {testing::On("onA", 1), testing::On("onB", 2), testing::On("onC", 3),
                     testing::On("onTimeout", 4), testing::On("onD", 5)}));
  }
  auto b = Layout(nodes, **qwen, {});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->tools.size(), 160u);
  uint32_t begin = 0, end = 0;
  for (const auto& s : b->spans) {
    if (s.kind == Span::Kind::kNode) {
      begin = s.begin;
      end = s.end;
    } else {
      EXPECT_EQ(s.begin, begin);
      EXPECT_EQ(s.end, end);
    }
  }
}

}  // namespace
}  // namespace affordance::render

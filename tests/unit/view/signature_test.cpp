// HandlerSignature from function source text.
#include "view/signature.h"

#include <gtest/gtest.h>

namespace affordance::view {
namespace {

using Kind = HandlerSignature::Kind;

TEST(HandlerSignature, Kinds) {
  EXPECT_EQ(ParseHandlerSignature("() => 1").kind, Kind::kNoParams);
  EXPECT_EQ(ParseHandlerSignature("function () { }").kind, Kind::kNoParams);
  EXPECT_EQ(ParseHandlerSignature("async () => { await x; }").kind, Kind::kNoParams);
  EXPECT_EQ(ParseHandlerSignature("e => e.value").kind, Kind::kSingle);
  EXPECT_EQ(ParseHandlerSignature("async e => e").kind, Kind::kSingle);
  EXPECT_EQ(ParseHandlerSignature("(event) => event").kind, Kind::kSingle);
  EXPECT_EQ(ParseHandlerSignature("(event = {}) => event").kind, Kind::kSingle);
  EXPECT_EQ(ParseHandlerSignature("function named(arg,) { }").kind, Kind::kSingle);
  EXPECT_EQ(ParseHandlerSignature("onClick(arg) { }").kind, Kind::kSingle);
  EXPECT_EQ(ParseHandlerSignature("(a, b) => a").kind, Kind::kOther);
  EXPECT_EQ(ParseHandlerSignature("(...args) => args").kind, Kind::kOther);
  EXPECT_EQ(ParseHandlerSignature("([a, b]) => a").kind, Kind::kOther);
  EXPECT_EQ(ParseHandlerSignature("({ a, ...rest }) => a").kind, Kind::kOther);
  EXPECT_EQ(ParseHandlerSignature("({ [k]: v }) => v").kind, Kind::kOther);
  EXPECT_EQ(ParseHandlerSignature("function () { [native code] }").kind, Kind::kOther);
  EXPECT_EQ(ParseHandlerSignature("((( => ").kind, Kind::kOther);
}

TEST(HandlerSignature, DestructuredFieldsInSourceOrderWithDefaultsOptional) {
  HandlerSignature s = ParseHandlerSignature(
      "({ value, mode = \"a,}\", cb = (x) => x == 1, 'quoted key': q, nested: { deep = 1 },"
      " /* c, */ last = `t${1 + f(2, 3)}` } = {}) => {}");
  ASSERT_EQ(s.kind, Kind::kDestructured);
  ASSERT_EQ(s.fields.size(), 6u);
  const char* names[] = {"value", "mode", "cb", "quoted key", "nested", "last"};
  bool optional[] = {false, true, true, false, false, true};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(s.fields[i].name, names[i]);
    EXPECT_EQ(s.fields[i].optional, optional[i]) << names[i];
  }
  EXPECT_EQ(ParseHandlerSignature("({}) => 1").kind, Kind::kDestructured);
  EXPECT_TRUE(ParseHandlerSignature("({}) => 1").fields.empty());
  // Names carry no meaning: a field called "event" is still a field.
  EXPECT_EQ(ParseHandlerSignature("async function ({ event }) {}").fields[0].name, "event");
}

}  // namespace
}  // namespace affordance::view

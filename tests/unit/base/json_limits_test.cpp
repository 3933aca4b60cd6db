#include "base/json_limits.h"

#include <gtest/gtest.h>

#include <string>

namespace affordance {
namespace {

std::string Nested(size_t levels, char open = '[', char close = ']') {
  return std::string(levels, open) + std::string(levels, close);
}

TEST(JsonLimits, DepthCountsArraysAndObjectsOutsideStrings) {
  EXPECT_EQ(JsonTextDepth("1"), 0);
  EXPECT_EQ(JsonTextDepth("[]"), 1);
  EXPECT_EQ(JsonTextDepth(R"({"a": [1, {"b": []}], "c": {}})"), 4);
  EXPECT_EQ(JsonTextDepth(R"(["[[[[", "\"[[[", "\\"])"), 1);  // brackets and escapes inside strings
  EXPECT_EQ(JsonTextDepth(R"(["\\\"[[["])"), 1);
}

TEST(JsonLimits, AMillionLevelsAreRefusedWithATypedErrorBeforeAnyValueIsBuilt) {
  const std::string bomb = R"({"args": )" + Nested(1000000) + "}";
  EXPECT_EQ(JsonTextDepth(bomb), kMaxJsonDepth + 1);  // stops as soon as the limit is passed
  auto parsed = ParseJson(bomb, "test.too_deep", "test.bad_json", "the body");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().code, "test.too_deep");
  EXPECT_EQ(parsed.error().message, "the body nests deeper than 128 levels of arrays and objects");
  // Unclosed (a truncated bomb) is refused the same way.
  EXPECT_EQ(ParseJson(std::string(1000000, '{'), "t.too_deep", "t.bad_json", "x").error().code,
            "t.too_deep");
}

TEST(JsonLimits, TheLimitItselfIsAccepted) {
  auto at = ParseJson(Nested(kMaxJsonDepth), "t.too_deep", "t.bad_json", "x");
  ASSERT_TRUE(at.ok()) << at.error().ToString();
  EXPECT_EQ(JsonValueDepth(*at), kMaxJsonDepth);
  auto over = ParseJson(Nested(kMaxJsonDepth + 1, '[', ']'), "t.too_deep", "t.bad_json", "x");
  EXPECT_EQ(over.error().code, "t.too_deep");
}

TEST(JsonLimits, MalformedTextAndHugeNumbersAreBadJsonNotExceptions) {
  EXPECT_EQ(ParseJson("{\"a\":", "t.too_deep", "t.bad_json", "x").error().code, "t.bad_json");
  EXPECT_EQ(ParseJson("1e400", "t.too_deep", "t.bad_json", "x").error().code, "t.bad_json");
  EXPECT_EQ(ParseJson("", "t.too_deep", "t.bad_json", "the body").error().message,
            "the body is not valid JSON");
  auto ordered = ParseJson<nlohmann::ordered_json>(R"({"b":1,"a":2})", "t", "t", "x");
  ASSERT_TRUE(ordered.ok());
  EXPECT_EQ(ordered->begin().key(), "b");
}

TEST(JsonLimits, ValueDepthIsMeasuredWithoutRecursion) {
  nlohmann::json deep = nlohmann::json::array();
  nlohmann::json* cursor = &deep;
  for (int i = 0; i < 200; ++i) {
    cursor->push_back(nlohmann::json::array());
    cursor = &cursor->back();
  }
  EXPECT_EQ(JsonValueDepth(deep), kMaxJsonDepth + 1);
  EXPECT_EQ(JsonValueDepth(deep, 1000), 201);
  EXPECT_EQ(JsonValueDepth(nlohmann::json{{"a", {1, 2}}, {"b", 3}}), 2);
  EXPECT_EQ(JsonValueDepth(nlohmann::json(5)), 0);
}

}  // namespace
}  // namespace affordance

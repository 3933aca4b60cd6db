// view::Props: an element's props read as JSON, shared by copies of a node, copied on change.
#include "view/node.h"

#include <gtest/gtest.h>

#include <sstream>

namespace affordance::view {
namespace {

TEST(NodeProps, AnUnsetPropsReadsAsAnEmptyObject) {
  Node text;
  EXPECT_TRUE(text.props.json().is_object());
  EXPECT_TRUE(text.props.empty());
  EXPECT_EQ(text.props.find("label"), text.props.end());
  EXPECT_FALSE(text.props.contains("label"));
  EXPECT_EQ(text.props.value("label", "none"), "none");
  EXPECT_EQ(text.props.dump(), "{}");
}

TEST(NodeProps, CopiesShareUntilOneIsChanged) {
  Node a;
  a.props = nlohmann::ordered_json{{"label", "rows"}, {"offset", 3}};
  Node b = a;
  EXPECT_EQ(&a.props.json(), &b.props.json());  // shared, not copied
  b.props["offset"] = 4;                        // b takes its own copy
  EXPECT_EQ(a.props["offset"], 3);
  EXPECT_EQ(b.props["offset"], 4);
  EXPECT_NE(&a.props.json(), &b.props.json());
  EXPECT_EQ(b.props.value("label", ""), "rows");
  // Keys keep their order; equality and printing are the JSON's.
  EXPECT_EQ(a.props, nlohmann::ordered_json({{"label", "rows"}, {"offset", 3}}));
  std::ostringstream os;
  os << b.props;
  EXPECT_EQ(os.str(), R"({"label":"rows","offset":4})");
}

TEST(NodeProps, AnUnsetPropsGetsItsOwnObjectWhenChanged) {
  Node a;
  Node b = a;
  a.props["budget"] = 48;
  EXPECT_EQ(a.props.size(), 1u);
  EXPECT_TRUE(b.props.empty());
  Node c;
  c.props = nlohmann::json{{"value", "from nlohmann::json"}};
  EXPECT_EQ(c.props["value"], "from nlohmann::json");
}

}  // namespace
}  // namespace affordance::view

// The front matter of a SKILL.md (src/skills/front_matter.cpp): the documented YAML subset is
// read exactly, and everything outside it is refused with a message that names the line.
#include "skills/front_matter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace affordance::skills {
namespace {

using Kind = FrontMatterValue::Kind;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

TEST(SkillFrontMatter, ReadsEveryFormOfTheSubset) {
  const std::string text =
      "---\n"
      "# a comment line\n"
      "name: pdf-forms\n"
      "description: Fills PDF forms, one field at a time  # and a comment\n"
      "\n"
      "single: 'it''s: quoted'\n"
      "double: \"tab\\there \\\"q\\\" \\u00e9 \\\\ \\/\"\n"
      "flow: [calendar__list_events, 'b c', \"d\"]\n"
      "empty_flow: []\n"
      "block:\n"
      "  - one\n"
      "  # a comment inside the block\n"
      "  - 'two: 2'\n"
      "metadata:\n"
      "    author: ops\n"
      "    version: \"1.0\"\n"
      "nothing:\n"
      "--- \n"
      "# Body\n";
  auto fm = ParseFrontMatter(text);
  ASSERT_TRUE(fm.ok()) << fm.error().ToString();
  EXPECT_EQ(text.substr(fm->body_offset), "# Body\n");
  ASSERT_EQ(fm->fields.size(), 9u);
  EXPECT_EQ(fm->Find("name")->scalar, "pdf-forms");
  EXPECT_EQ(fm->Find("description")->scalar, "Fills PDF forms, one field at a time");
  EXPECT_EQ(fm->Find("single")->scalar, "it's: quoted");
  EXPECT_EQ(fm->Find("double")->scalar, "tab\there \"q\" \xc3\xa9 \\ /");
  EXPECT_EQ(fm->Find("flow")->kind, Kind::kSequence);
  EXPECT_THAT(fm->Find("flow")->items, ElementsAre("calendar__list_events", "b c", "d"));
  EXPECT_EQ(fm->Find("empty_flow")->kind, Kind::kSequence);
  EXPECT_TRUE(fm->Find("empty_flow")->items.empty());
  EXPECT_THAT(fm->Find("block")->items, ElementsAre("one", "two: 2"));
  EXPECT_EQ(fm->Find("metadata")->kind, Kind::kMapping);
  EXPECT_THAT(fm->Find("metadata")->entries,
              ElementsAre(Pair("author", "ops"), Pair("version", "1.0")));
  EXPECT_EQ(fm->Find("nothing")->kind, Kind::kNull);
  EXPECT_EQ(fm->Find("absent"), nullptr);
}

TEST(SkillFrontMatter, CrlfLinesAndAnEmptyBodyAreFine) {
  const std::string text = "---\r\nname: a\r\ndescription: b\r\n---\r\n";
  auto fm = ParseFrontMatter(text);
  ASSERT_TRUE(fm.ok()) << fm.error().ToString();
  EXPECT_EQ(fm->Find("description")->scalar, "b");
  EXPECT_EQ(fm->body_offset, text.size());
}

// Each construct outside the subset: refused with the code, and the message names its line.
TEST(SkillFrontMatter, RefusesWhatIsOutsideTheSubsetNamingTheLine) {
  const struct {
    std::string text;
    std::string message;
  } cases[] = {
      {"", "line 1: a SKILL.md begins with a line \"---\""},
      {"\xef\xbb\xbf---\nname: a\n---\n", "line 1: a SKILL.md begins"},
      {"name: a\n", "line 1: a SKILL.md begins"},
      {"---\nname: a\n", "line 2: the front matter has no closing line"},
      {"---\nname: a\nname: b\n---\n", "line 3: the field \"name\" appears twice"},
      {"---\ndescription: Use when: asked\n---\n", "line 2: \": \" inside a value"},
      {"---\ndescription: |\n  text\n---\n", "line 2: a value may not begin with '|'"},
      {"---\ndescription: >\n  text\n---\n", "line 2: a value may not begin with '>'"},
      {"---\nname: &anchor a\n---\n", "line 2: a value may not begin with '&'"},
      {"---\nname: *alias\n---\n", "line 2: a value may not begin with '*'"},
      {"---\nname: !!str a\n---\n", "line 2: a value may not begin with '!'"},
      {"---\nmeta: {a: b}\n---\n", "line 2: a value may not begin with '{'"},
      {"---\nname: 'open\n---\n", "line 2: a quoted value must end on its line"},
      {"---\nname: \"bad \\x escape\"\n---\n", "line 2: the escape \\x is not in the subset"},
      {"---\nname: \"\\ud800\"\n---\n", "line 2: \\u escapes a NUL or a surrogate"},
      {"---\nname: 'a' b\n---\n", "line 2: unexpected text after the value"},
      {"---\ntools: [a, [b]]\n---\n", "line 2: nesting deeper than one level"},
      {"---\ntools: [a, b{c]\n---\n", "line 2: a sequence item may not contain"},
      {"---\ntools: [a, b\n---\n", "line 2: a flow sequence must end with ']'"},
      {"---\ntools: [a, , b]\n---\n", "line 2: an empty sequence item"},
      {"---\ntools:\n  - a\n    - b\n---\n", "line 4: nesting deeper than one level"},
      {"---\ntools:\n    - a\n  - b\n---\n", "line 4: the lines of a block must have the same"},
      {"---\ntools:\n\t- a\n---\n", "line 3: tabs may not indent"},
      {"---\ntools:\n  - a\n  b: c\n---\n", "line 4: expected \"- item\""},
      {"---\nmeta:\n  a:\n---\n", "line 3: nesting deeper than one level"},
      {"---\n  name: a\n---\n", "line 2: an indented line that belongs to no field"},
      {"---\nname a\n---\n", "line 2: expected \"key: value\""},
      {"---\nna.me: a\n---\n", "line 2: expected \"key: value\""},
      {"---\nname: a\rb\n---\n", "line 2: a carriage return inside a line"},
      {"---\nname: a\x01\n---\n", "line 2: a control character"},
      {"---\nname: - a\n---\n", "line 2: a value may not begin with \"- \""},
      {"---\nname: a\n...\n", "line 3: expected \"key: value\""},
  };
  for (const auto& c : cases) {
    auto fm = ParseFrontMatter(c.text);
    ASSERT_FALSE(fm.ok()) << c.text;
    EXPECT_EQ(fm.error().code, "skills.bad_front_matter") << c.text;
    EXPECT_EQ(fm.error().kind, ErrorKind::kInvalid);
    EXPECT_THAT(fm.error().message, HasSubstr(c.message)) << c.text;
  }
}

TEST(SkillFrontMatter, KeysAreShortAndPlainValuesKeepInnerHashesAndColons) {
  auto fm = ParseFrontMatter("---\nurl: http://x/a#b\nc: C#\n---\n");
  ASSERT_TRUE(fm.ok()) << fm.error().ToString();
  EXPECT_EQ(fm->Find("url")->scalar, "http://x/a#b");
  EXPECT_EQ(fm->Find("c")->scalar, "C#");
  auto long_key = ParseFrontMatter("---\n" + std::string(65, 'k') + ": v\n---\n");
  ASSERT_FALSE(long_key.ok());
  EXPECT_THAT(long_key.error().message, HasSubstr("at most 64 characters"));
}

}  // namespace
}  // namespace affordance::skills

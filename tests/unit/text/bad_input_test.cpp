// Bad input gets a clear error (code + message naming the problem) and never crashes: invalid
// UTF-8, IDs out of range, malformed, truncated or empty tokenizer.json, merges naming unknown
// tokens, components we do not support.
#include "test_models.h"

#include <gmock/gmock.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace affordance::text {
namespace {

using ::testing::HasSubstr;
using testing::kQwen;
using testing::Model;

// A minimal byte-level BPE tokenizer.json; tests break one part of it at a time.
nlohmann::json TinyTokenizer() {
  nlohmann::json vocab = nlohmann::json::object();
  vocab["a"] = 0;
  vocab["b"] = 1;
  vocab["ab"] = 2;
  vocab["Ġ"] = 3;
  return {
      {"version", "1.0"},
      {"added_tokens", nlohmann::json::array()},
      {"normalizer", nullptr},
      {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
      {"post_processor", nullptr},
      {"decoder", {{"type", "ByteLevel"}}},
      {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", {"a b"}}}}};
}

Error LoadError(const nlohmann::json& j) {
  auto t = Tokenizer::FromJson(j.dump());
  EXPECT_FALSE(t.ok());
  return t.ok() ? Error{} : t.error();
}

TEST(TokenizerBadInput, InvalidUtf8NamesTheByteOffset) {
  auto t = Model(kQwen);
  ASSERT_TRUE(t);
  struct Case {
    std::string text;
    size_t offset;
  } cases[] = {{"ab\xFF"
                "cd",
                2},
               {"\xC0\x80", 0},
               {"ok \xED\xA0\x80", 3},
               {"trunc \xE2\x82", 6},
               {"\xF4\x90\x80\x80", 0},
               {"\x80", 0},
               {"fine é then \xC3", 13}};
  for (const Case& c : cases) {
    auto ids = t->Encode(c.text);
    ASSERT_FALSE(ids.ok());
    EXPECT_EQ(ids.error().code, "tokenizer.invalid_utf8");
    EXPECT_EQ(ids.error().detail, "byte offset " + std::to_string(c.offset));
    std::vector<TokenId> out{7};
    EXPECT_FALSE(t->EncodeInto(c.text, out, {}).ok());
  }
}

TEST(TokenizerBadInput, DecodeRejectsIdsOutOfRange) {
  auto t = Model(kQwen);
  ASSERT_TRUE(t);
  for (TokenId id : {-1, static_cast<TokenId>(t->VocabSize()), 1 << 30}) {
    std::vector<TokenId> ids{9707, id};
    auto text = t->Decode(ids);
    ASSERT_FALSE(text.ok());
    EXPECT_EQ(text.error().code, "tokenizer.unknown_id");
    EXPECT_THAT(text.error().detail, HasSubstr("position 1"));
    EXPECT_FALSE(t->TokenBytes(id).ok());
    EXPECT_EQ(t->TokenString(id), std::nullopt);
  }
}

TEST(TokenizerBadInput, DecodeReplacesInvalidBytesLikeTheReference) {
  auto t = Model(kQwen);
  ASSERT_TRUE(t);
  // Byte tokens for 0xE6 0x97 (a truncated character) then 'A'.
  std::vector<TokenId> ids;
  for (unsigned char b : {0xE6, 0x97}) {
    for (TokenId id = 0; id < 512; ++id)
      if (*t->TokenBytes(id) == std::string(1, static_cast<char>(b))) {
        ids.push_back(id);
        break;
      }
  }
  ids.push_back(*t->TokenIdOf("A"));
  EXPECT_EQ(*t->Decode(ids),
            "\xEF\xBF\xBD"
            "A");
}

TEST(TokenizerBadInput, EmptyMalformedAndTruncatedJson) {
  for (const char* text : {"", "   \n"}) {
    auto t = Tokenizer::FromJson(text);
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.error().code, "tokenizer.empty");
  }
  auto broken = Tokenizer::FromJson("{\"model\": ");
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.error().code, "tokenizer.malformed_json");
  EXPECT_THAT(broken.error().detail, HasSubstr("byte"));

  std::ifstream in(std::string(AFFORDANCE_MODELS_DIR) + "/" + kQwen + "/tokenizer.json");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string full = ss.str();
  for (size_t cut : {size_t{1}, size_t{100}, full.size() / 2, full.size() - 2}) {
    auto t = Tokenizer::FromJson(std::string_view(full).substr(0, cut));
    ASSERT_FALSE(t.ok()) << cut;
    EXPECT_EQ(t.error().code, "tokenizer.malformed_json") << cut;
  }
  for (const char* shape : {"[]", "42", "null", "{}", "{\"model\": []}"}) {
    auto t = Tokenizer::FromJson(shape);
    ASSERT_FALSE(t.ok()) << shape;
    EXPECT_EQ(t.error().code, "tokenizer.invalid") << shape;
  }
  auto config = Tokenizer::FromJson(TinyTokenizer().dump(), "{not json");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.error().code, "tokenizer.malformed_json");
  EXPECT_THAT(config.error().message, HasSubstr("tokenizer_config.json"));
}

// Issue 24: both files come from outside. A million levels are refused before any value is built:
// tokenizer.json by its own reader (256 levels), tokenizer_config.json by the JSON door.
TEST(TokenizerBadInput, FilesNestedAMillionLevelsDeepAreRefused) {
  const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  auto doc = Tokenizer::FromJson("{\"model\": " + deep + "}");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.error().code, "tokenizer.malformed_json");
  EXPECT_THAT(doc.error().detail, HasSubstr("nesting too deep"));
  auto config = Tokenizer::FromJson(TinyTokenizer().dump(), "{\"x\": " + deep + "}");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.error().code, "tokenizer.too_deep");
  EXPECT_EQ(config.error().message,
            "tokenizer_config.json nests deeper than 128 levels of arrays and objects");
  const std::string at = std::string(127, '[') + std::string(127, ']');
  auto fine = Tokenizer::FromJson(TinyTokenizer().dump(), "{\"x\": " + at + "}");
  EXPECT_TRUE(fine.ok()) << fine.error().ToString();
}

TEST(TokenizerBadInput, TinyTokenizerLoadsAndWorks) {
  auto t = Tokenizer::FromJson(TinyTokenizer().dump());
  ASSERT_TRUE(t.ok()) << t.error().ToString();
  EXPECT_THAT(*(*t)->Encode("ab b"), ::testing::ElementsAre(2, 3, 1));
}

TEST(TokenizerBadInput, MergeNamingAnUnknownTokenIsRefused) {
  auto j = TinyTokenizer();
  j["model"]["merges"] = {"a b", "a zz"};
  Error e = LoadError(j);
  EXPECT_EQ(e.code, "tokenizer.unknown_merge_token");
  EXPECT_THAT(e.detail, HasSubstr("zz"));
  EXPECT_THAT(e.detail, HasSubstr("merge 1"));

  j["model"]["merges"] =
      nlohmann::json::array({nlohmann::json::array({"b", "a"})});  // "ba" missing
  e = LoadError(j);
  EXPECT_EQ(e.code, "tokenizer.unknown_merge_token");
  EXPECT_THAT(e.detail, HasSubstr("\"ba\""));

  j["model"]["merges"] = {"a b c"};
  EXPECT_EQ(LoadError(j).code, "tokenizer.invalid");
  j["model"]["merges"] = {42};
  EXPECT_EQ(LoadError(j).code, "tokenizer.invalid");
}

TEST(TokenizerBadInput, UnsupportedComponentsAreRefusedByName) {
  struct Case {
    const char* key;
    nlohmann::json value;
    const char* name;
  } cases[] = {
      {"normalizer", {{"type", "NFKC"}}, "normalizer NFKC"},
      {"normalizer",
       {{"type", "Sequence"}, {"normalizers", {{{"type", "Lowercase"}}}}},
       "normalizer Lowercase"},
      {"pre_tokenizer", {{"type", "Whitespace"}}, "pre_tokenizer Whitespace"},
      {"pre_tokenizer", nullptr, "without a ByteLevel pre-tokenizer"},
      {"post_processor", {{"type", "RobertaProcessing"}}, "post_processor RobertaProcessing"},
      {"decoder", {{"type", "WordPiece"}}, "decoder WordPiece"},
      {"decoder", nullptr, "decoder null"},
      {"truncation", {{"max_length", 8}}, "truncation"},
      {"padding", {{"strategy", "BatchLongest"}}, "padding"},
  };
  for (const Case& c : cases) {
    auto j = TinyTokenizer();
    j[c.key] = c.value;
    Error e = LoadError(j);
    EXPECT_EQ(e.code, "tokenizer.unsupported") << c.name;
    EXPECT_THAT(e.detail, HasSubstr(c.name));
  }
  auto j = TinyTokenizer();
  j["model"]["type"] = "WordPiece";
  EXPECT_THAT(LoadError(j).detail, HasSubstr("model WordPiece"));
  j = TinyTokenizer();
  j["model"]["dropout"] = 0.1;
  EXPECT_THAT(LoadError(j).detail, HasSubstr("dropout"));
  j = TinyTokenizer();
  j["model"]["continuing_subword_prefix"] = "##";
  EXPECT_THAT(LoadError(j).detail, HasSubstr("continuing_subword_prefix"));
  j = TinyTokenizer();
  j["pre_tokenizer"] = {{"type", "Sequence"},
                        {"pretokenizers", {{{"type", "ByteLevel"}}, {{"type", "Split"}}}}};
  EXPECT_THAT(LoadError(j).detail, HasSubstr("Split after ByteLevel"));
}

TEST(TokenizerBadInput, BadShapesInsideComponents) {
  auto j = TinyTokenizer();
  j["pre_tokenizer"] = {
      {"type", "Split"}, {"pattern", {{"Regex", "(unclosed"}}}, {"behavior", "Isolated"}};
  Error e = LoadError(j);
  EXPECT_EQ(e.code, "tokenizer.bad_regex");
  EXPECT_THAT(e.detail, HasSubstr("(unclosed"));
  j = TinyTokenizer();
  j["model"]["vocab"]["huge"] = 2000000000;  // must not allocate a table that large
  EXPECT_EQ(LoadError(j).code, "tokenizer.invalid");
  j = TinyTokenizer();
  j["added_tokens"] = {{{"id", "x"}, {"content", "<x>"}}};
  EXPECT_EQ(LoadError(j).code, "tokenizer.invalid");
  j = TinyTokenizer();
  j["model"]["unk_token"] = "<unk>";
  EXPECT_EQ(LoadError(j).code, "tokenizer.invalid");
  j = TinyTokenizer();
  j["model"]["ignore_merges"] = "yes";
  EXPECT_EQ(LoadError(j).code, "tokenizer.invalid");
}

}  // namespace
}  // namespace affordance::text

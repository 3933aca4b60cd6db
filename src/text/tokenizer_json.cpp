// Tokenizer::FromJson: reads a Hugging Face tokenizer.json into the pipeline stages. Every
// component is checked against what we implement; anything else is refused by name.
#include "base/json_limits.h"
#include "text/bpe_tokenizer.h"
#include "text/json_reader.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <unordered_map>

namespace affordance::text {
namespace {

using nlohmann::json;

// IDs index dense tables, so an absurd ID in a hostile file must not allocate gigabytes.
constexpr int64_t kMaxId = int64_t{1} << 24;

Error Invalid(std::string message, std::string detail = {}) {
  return MakeError("tokenizer.invalid", std::move(message), std::move(detail));
}
Error Unsupported(std::string what) {
  return MakeError("tokenizer.unsupported", "tokenizer.json uses a component we do not support",
                   std::move(what));
}

// Reads an optional boolean member (absent or null -> `fallback`).
Result<bool> Flag(const json& obj, const char* key, bool fallback, const char* where) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) return Invalid(fmt::format("{}.{} must be a boolean", where, key));
  return it->get<bool>();
}

std::string TypeOf(const json& obj) {
  auto it = obj.find("type");
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string("(no type)");
}

Status ReadNormalizer(const json& j, Normalizer& out) {
  if (j.is_null()) return {};
  if (!j.is_object()) return Invalid("normalizer must be an object or null");
  std::string type = TypeOf(j);
  if (type == "NFC") {
    out.Then(Normalizer::Nfc());
    return {};
  }
  if (type == "Sequence") {
    auto it = j.find("normalizers");
    if (it == j.end() || !it->is_array()) return Invalid("normalizer Sequence needs normalizers");
    for (const json& n : *it)
      if (Status s = ReadNormalizer(n, out); !s.ok()) return s;
    return {};
  }
  return Unsupported(fmt::format("normalizer {}", type));
}

Result<SplitBehavior> ReadBehavior(const json& j) {
  static const std::pair<const char*, SplitBehavior> kNames[] = {
      {"Removed", SplitBehavior::kRemoved},
      {"Isolated", SplitBehavior::kIsolated},
      {"MergedWithPrevious", SplitBehavior::kMergedWithPrevious},
      {"MergedWithNext", SplitBehavior::kMergedWithNext},
      {"Contiguous", SplitBehavior::kContiguous}};
  if (!j.is_string()) return Invalid("Split.behavior must be a string");
  for (auto& [name, b] : kNames)
    if (j.get<std::string>() == name) return b;
  return Unsupported(fmt::format("Split behavior {}", j.get<std::string>()));
}

Status ReadPreTokenizer(const json& j, PreTokenizer& out, bool& saw_byte_level) {
  if (j.is_null()) return {};
  if (!j.is_object()) return Invalid("pre_tokenizer must be an object or null");
  std::string type = TypeOf(j);
  if (saw_byte_level)
    return Unsupported(
        fmt::format("pre_tokenizer {} after ByteLevel (ByteLevel must be last)", type));
  if (type == "Sequence") {
    auto it = j.find("pretokenizers");
    if (it == j.end() || !it->is_array())
      return Invalid("pre_tokenizer Sequence needs pretokenizers");
    for (const json& p : *it)
      if (Status s = ReadPreTokenizer(p, out, saw_byte_level); !s.ok()) return s;
    return {};
  }
  if (type == "Split") {
    auto pattern = j.find("pattern");
    if (pattern == j.end() || !pattern->is_object())
      return Invalid("Split.pattern must be {\"Regex\": ...} or {\"String\": ...}");
    SplitStep step;
    if (auto r = pattern->find("Regex"); r != pattern->end() && r->is_string()) {
      auto compiled = SplitPattern::Regex(r->get<std::string>());
      if (!compiled.ok()) return compiled.error();
      step.pattern = std::move(compiled.value());
    } else if (auto s = pattern->find("String"); s != pattern->end() && s->is_string()) {
      step.pattern = SplitPattern::Literal(s->get<std::string>());
    } else {
      return Invalid("Split.pattern must be {\"Regex\": ...} or {\"String\": ...}");
    }
    auto behavior = ReadBehavior(j.value("behavior", json("Isolated")));
    if (!behavior.ok()) return behavior.error();
    step.behavior = *behavior;
    auto invert = Flag(j, "invert", false, "Split");
    if (!invert.ok()) return invert.error();
    step.invert = *invert;
    out.AddSplit(std::move(step));
    return {};
  }
  if (type == "ByteLevel") {
    auto prefix = Flag(j, "add_prefix_space", true, "ByteLevel");
    auto regex = Flag(j, "use_regex", true, "ByteLevel");
    if (!prefix.ok()) return prefix.error();
    if (!regex.ok()) return regex.error();
    saw_byte_level = true;
    return out.SetByteLevel(*prefix, *regex);
  }
  return Unsupported(fmt::format("pre_tokenizer {}", type));
}

// The IDs a TemplateProcessing special token stands for.
Result<std::vector<TokenId>> SpecialIds(const json& tp, const std::string& name) {
  auto specials = tp.find("special_tokens");
  if (specials == tp.end() || !specials->is_object() || !specials->contains(name))
    return Invalid("TemplateProcessing names an undeclared special token", name);
  const json& ids = (*specials)[name].value("ids", json());
  if (!ids.is_array()) return Invalid("TemplateProcessing special token needs ids", name);
  std::vector<TokenId> out;
  for (const json& id : ids) {
    if (!id.is_number_integer()) return Invalid("TemplateProcessing ids must be integers", name);
    out.push_back(id.get<TokenId>());
  }
  return out;
}

Status ReadPostProcessor(const json& j, TokenizerParts& parts) {
  if (j.is_null()) return {};
  if (!j.is_object()) return Invalid("post_processor must be an object or null");
  std::string type = TypeOf(j);
  if (type == "ByteLevel") return {};  // only adjusts offsets
  if (type == "Sequence") {
    auto it = j.find("processors");
    if (it == j.end() || !it->is_array())
      return Invalid("post_processor Sequence needs processors");
    for (const json& p : *it)
      if (Status s = ReadPostProcessor(p, parts); !s.ok()) return s;
    return {};
  }
  if (type == "TemplateProcessing") {
    auto single = j.find("single");
    if (single == j.end() || !single->is_array())
      return Invalid("TemplateProcessing.single must be an array");
    std::vector<TemplatePiece> tmpl;
    for (const json& item : *single) {
      if (item.contains("Sequence")) {
        tmpl.push_back({true, {}});
      } else if (item.contains("SpecialToken") && item["SpecialToken"].is_object() &&
                 item["SpecialToken"].value("id", json()).is_string()) {
        auto ids = SpecialIds(j, item["SpecialToken"]["id"].get<std::string>());
        if (!ids.ok()) return ids.error();
        tmpl.push_back({false, std::move(ids.value())});
      } else {
        return Invalid(
            "TemplateProcessing.single has an item that is neither Sequence nor "
            "SpecialToken");
      }
    }
    parts.templates.push_back(std::move(tmpl));
    return {};
  }
  return Unsupported(fmt::format("post_processor {}", type));
}

Status ReadDecoder(const json& j) {
  if (j.is_null()) return Unsupported("decoder null (byte-level BPE needs the ByteLevel decoder)");
  if (!j.is_object()) return Invalid("decoder must be an object");
  std::string type = TypeOf(j);
  if (type == "ByteLevel") return {};
  return Unsupported(fmt::format("decoder {}", type));
}

Status ReadAddedTokens(const json& root, std::vector<AddedToken>& out) {
  auto it = root.find("added_tokens");
  if (it == root.end() || it->is_null()) return {};
  if (!it->is_array()) return Invalid("added_tokens must be an array");
  for (const json& t : *it) {
    if (!t.is_object() || !t.value("id", json()).is_number_integer() ||
        !t.value("content", json()).is_string())
      return Invalid("every added token needs an integer id and a string content");
    AddedToken token;
    token.id = t["id"].get<TokenId>();
    token.content = t["content"].get<std::string>();
    if (t["id"].get<int64_t>() < 0 || t["id"].get<int64_t>() >= kMaxId)
      return Invalid(fmt::format("added token ids must be in 0..{}", kMaxId - 1), token.content);
    auto single = Flag(t, "single_word", false, "added_tokens");
    auto lstrip = Flag(t, "lstrip", false, "added_tokens");
    auto rstrip = Flag(t, "rstrip", false, "added_tokens");
    auto normalized = Flag(t, "normalized", true, "added_tokens");
    auto special = Flag(t, "special", false, "added_tokens");
    for (auto* f : {&single, &lstrip, &rstrip, &normalized, &special})
      if (!f->ok()) return f->error();
    token.single_word = *single;
    token.lstrip = *lstrip;
    token.rstrip = *rstrip;
    token.normalized = *normalized;
    token.special = *special;
    out.push_back(std::move(token));
  }
  return {};
}

Result<std::unique_ptr<Bpe>> ReadModel(const TokenizerDocument& doc) {
  const json& root = doc.root;
  auto it = root.find("model");
  if (it == root.end() || !it->is_object()) return Invalid("tokenizer.json has no model object");
  const json& m = *it;
  std::string type = TypeOf(m);
  if (type != "BPE") return Unsupported(fmt::format("model {}", type));
  if (auto d = m.find("dropout");
      d != m.end() && !d->is_null() && !(d->is_number() && d->get<double>() == 0.0))
    return Unsupported("model.dropout (BPE dropout is random)");
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    auto k = m.find(key);
    if (k != m.end() && !k->is_null() && !(k->is_string() && k->get<std::string>().empty()))
      return Unsupported(fmt::format("model.{}", key));
  }
  BpeSettings settings;
  auto ignore = Flag(m, "ignore_merges", false, "model");
  auto fallback = Flag(m, "byte_fallback", false, "model");
  auto fuse = Flag(m, "fuse_unk", false, "model");
  for (auto* f : {&ignore, &fallback, &fuse})
    if (!f->ok()) return f->error();
  settings.ignore_merges = *ignore;
  settings.byte_fallback = *fallback;
  settings.fuse_unk = *fuse;

  if (!doc.has_vocab) return Invalid("model.vocab must be an object of token -> id");
  if (!doc.vocab_ids_are_integers)
    return Invalid(fmt::format("model.vocab ids must be integers in 0..{}", kMaxId - 1),
                   doc.first_bad_vocab_key);
  Vocabulary vocab;
  size_t id_limit = 0, bytes = 0;
  for (const auto& [token, id] : doc.vocab) {
    id_limit = std::max<size_t>(id_limit, id >= 0 && id < kMaxId ? static_cast<size_t>(id) + 1 : 0);
    bytes += token.size();
  }
  vocab.Reserve(id_limit, bytes);
  for (const auto& [token, id] : doc.vocab) {
    if (id < 0 || id >= kMaxId)
      return Invalid(fmt::format("model.vocab ids must be integers in 0..{}", kMaxId - 1),
                     std::string(token));
    vocab.Add(token, static_cast<TokenId>(id));
  }
  vocab.Seal();
  if (auto unk = m.find("unk_token"); unk != m.end() && !unk->is_null()) {
    if (!unk->is_string()) return Invalid("model.unk_token must be a string or null");
    settings.unk = vocab.Find(unk->get<std::string>());
    if (!settings.unk)
      return Invalid("model.unk_token is not in the vocabulary", unk->get<std::string>());
  }
  auto bpe = std::make_unique<Bpe>(std::move(vocab), settings);

  if (!doc.has_merges) return Invalid("model.merges must be an array");
  if (doc.merge_error >= 0) {
    return Invalid("a merge must be \"a b\" (one space) or [\"a\", \"b\"]",
                   fmt::format("merge {}", doc.merge_error));
  }
  if (Status s = bpe->SetMerges(doc.merges); !s.ok()) return s.error();
  return bpe;
}

// The reference ignores the ids written in added_tokens and assigns them as
// AddedVocabulary::add_tokens does: a spelling already in the model vocabulary keeps that id, a
// repeated spelling keeps its first id, any other gets the next id after the vocabulary. For real
// tokenizer.json files this reproduces the written ids.
std::vector<AddedToken> AssignAddedIds(std::vector<AddedToken> tokens, const Vocabulary& vocab) {
  std::vector<AddedToken> out;
  std::unordered_map<std::string, size_t> index;  // content -> position in `out`
  const int64_t model_size = static_cast<int64_t>(vocab.size());
  int64_t max_added = -1;
  for (AddedToken& t : tokens) {
    if (t.content.empty()) continue;
    TokenId id;
    if (auto it = index.find(t.content); it != index.end()) {
      id = out[it->second].id;
    } else if (auto v = vocab.Find(t.content)) {
      id = *v;
    } else if (max_added < 0) {
      id = static_cast<TokenId>(model_size);
    } else {
      id = static_cast<TokenId>(max_added >= model_size || model_size == 0 ? max_added + 1
                                                                           : model_size);
    }
    max_added = std::max<int64_t>(max_added, id);
    t.id = id;
    if (auto it = index.find(t.content); it != index.end()) {
      bool special = out[it->second].special || t.special;
      out[it->second] = std::move(t);  // the later entry's flags win, as in the reference
      out[it->second].special = special;
    } else {
      index.emplace(t.content, out.size());
      out.push_back(std::move(t));
    }
  }
  return out;
}

Result<std::unique_ptr<Tokenizer>> Build(const TokenizerDocument& doc) {
  const json& root = doc.root;
  if (!root.is_object()) return Invalid("tokenizer.json must be a JSON object");
  for (const char* key : {"truncation", "padding"}) {
    auto it = root.find(key);
    if (it != root.end() && !it->is_null()) return Unsupported(key);
  }
  TokenizerParts parts;
  auto bpe = ReadModel(doc);
  if (!bpe.ok()) return bpe.error();
  parts.bpe = std::move(bpe.value());
  if (Status s = ReadAddedTokens(root, parts.added); !s.ok()) return s.error();
  parts.added = AssignAddedIds(std::move(parts.added), parts.bpe->vocab());
  if (Status s = ReadNormalizer(root.value("normalizer", json()), parts.normalizer); !s.ok())
    return s.error();
  bool saw_byte_level = false;
  if (Status s = ReadPreTokenizer(root.value("pre_tokenizer", json()), parts.pre_tokenizer,
                                  saw_byte_level);
      !s.ok())
    return s.error();
  if (!saw_byte_level)
    return Unsupported("a BPE model without a ByteLevel pre-tokenizer (not byte-level BPE)");
  if (Status s = ReadPostProcessor(root.value("post_processor", json()), parts); !s.ok())
    return s.error();
  if (Status s = ReadDecoder(root.value("decoder", json())); !s.ok()) return s.error();
  return std::unique_ptr<Tokenizer>(std::make_unique<BpeTokenizer>(std::move(parts)));
}

}  // namespace

Result<std::unique_ptr<Tokenizer>> Tokenizer::FromJson(std::string_view tokenizer_json,
                                                       std::string_view tokenizer_config_json) {
  if (tokenizer_json.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return MakeError("tokenizer.empty", "tokenizer.json is empty");
  auto doc = ReadTokenizerDocument(tokenizer_json);
  if (!doc.ok()) return doc.error();
  if (!tokenizer_config_json.empty()) {
    // A file from outside: bounded before a value is built (tokenizer.json's reader bounds itself).
    if (auto deep =
            CheckJsonDepth(tokenizer_config_json, "tokenizer.too_deep", "tokenizer_config.json");
        !deep) {
      return deep.error();
    }
    json config = json::parse(tokenizer_config_json, nullptr, false);
    if (config.is_discarded() || !config.is_object())
      return MakeError("tokenizer.malformed_json", "tokenizer_config.json is not a JSON object");
  }
  try {
    return Build(*doc);
  } catch (const json::exception& e) {
    return Invalid("tokenizer.json has an unexpected shape", e.what());
  }
}

}  // namespace affordance::text

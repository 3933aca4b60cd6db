#include "text/json_reader.h"

#include "text/utf8.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace affordance::text {
namespace {

using nlohmann::json;

class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}

  Error Fail(std::string_view what) const {
    return MakeError("tokenizer.malformed_json", "tokenizer.json is not valid JSON",
                     fmt::format("byte {}: {}", pos_, what));
  }
  void Ws() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t'))
      ++pos_;
  }
  bool Peek(char c) {
    Ws();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  bool Eat(char c) {
    if (!Peek(c)) return false;
    ++pos_;
    return true;
  }
  bool AtEnd() {
    Ws();
    return pos_ >= s_.size();
  }

  // Reads a string as a view: into the text when it has no escapes, else into `doc.decoded`.
  Status View(TokenizerDocument& doc, std::string_view& out) {
    if (!Peek('"')) return Fail("expected a string");
    size_t start = pos_ + 1, stop = start;
    while (stop < s_.size() && s_[stop] != '"' && s_[stop] != '\\' &&
           static_cast<unsigned char>(s_[stop]) >= 0x20)
      ++stop;
    if (stop < s_.size() && s_[stop] == '"') {
      out = s_.substr(start, stop - start);
      if (utf8::FirstInvalid(out) != utf8::kValid) {
        pos_ = start;
        return Fail("string is not valid UTF-8");
      }
      pos_ = stop + 1;
      return {};
    }
    std::string decoded;
    if (Status st = String(decoded); !st.ok()) return st;
    doc.decoded.push_back(std::move(decoded));
    out = doc.decoded.back();
    return {};
  }

  // Reads a string into `out`. Fast path: no escapes.
  Status String(std::string& out) {
    if (!Eat('"')) return Fail("expected a string");
    size_t start = pos_;
    out.clear();
    for (;;) {
      size_t stop = start;
      while (stop < s_.size() && s_[stop] != '"' && s_[stop] != '\\' &&
             static_cast<unsigned char>(s_[stop]) >= 0x20)
        ++stop;
      out.append(s_.substr(start, stop - start));
      if (stop >= s_.size()) {
        pos_ = stop;
        return Fail("unterminated string");
      }
      char c = s_[stop];
      if (c == '"') {
        pos_ = stop + 1;
        break;
      }
      if (c != '\\') {
        pos_ = stop;
        return Fail("control character in a string");
      }
      pos_ = stop + 1;
      if (pos_ >= s_.size()) return Fail("unterminated escape");
      char e = s_[pos_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          uint32_t cp = 0;
          if (Status st = Hex4(cp); !st.ok()) return st;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t lo = 0;
            if (pos_ + 2 > s_.size() || s_[pos_] != '\\' || s_[pos_ + 1] != 'u')
              return Fail("unpaired surrogate escape");
            pos_ += 2;
            if (Status st = Hex4(lo); !st.ok()) return st;
            if (lo < 0xDC00 || lo > 0xDFFF) return Fail("unpaired surrogate escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return Fail("unpaired surrogate escape");
          }
          utf8::Append(out, cp);
          break;
        }
        default:
          return Fail("invalid escape");
      }
      start = pos_;
    }
    if (utf8::FirstInvalid(out) != utf8::kValid) return Fail("string is not valid UTF-8");
    return {};
  }

  Status Hex4(uint32_t& cp) {
    if (pos_ + 4 > s_.size()) return Fail("truncated \\u escape");
    cp = 0;
    for (int k = 0; k < 4; ++k) {
      char h = s_[pos_++];
      cp <<= 4;
      if (h >= '0' && h <= '9')
        cp |= static_cast<uint32_t>(h - '0');
      else if (h >= 'a' && h <= 'f')
        cp |= static_cast<uint32_t>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F')
        cp |= static_cast<uint32_t>(h - 'A' + 10);
      else
        return Fail("invalid \\u escape");
    }
    return {};
  }

  // Any JSON value, into `out` (nlohmann handles number syntax and literals).
  Status Value(json& out, int depth = 0) {
    if (depth > 256) return Fail("nesting too deep");
    Ws();
    if (pos_ >= s_.size()) return Fail("unexpected end of input");
    char c = s_[pos_];
    if (c == '{') {
      ++pos_;
      out = json::object();
      if (Eat('}')) return {};
      std::string key;
      do {
        if (Status st = String(key); !st.ok()) return st;
        if (!Eat(':')) return Fail("expected ':'");
        if (Status st = Value(out[key], depth + 1); !st.ok()) return st;
      } while (Eat(','));
      if (!Eat('}')) return Fail("expected ',' or '}'");
      return {};
    }
    if (c == '[') {
      ++pos_;
      out = json::array();
      if (Eat(']')) return {};
      do {
        out.push_back(json());
        if (Status st = Value(out.back(), depth + 1); !st.ok()) return st;
      } while (Eat(','));
      if (!Eat(']')) return Fail("expected ',' or ']'");
      return {};
    }
    if (c == '"') {
      std::string s;
      if (Status st = String(s); !st.ok()) return st;
      out = std::move(s);
      return {};
    }
    size_t start = pos_;
    while (pos_ < s_.size() && std::strchr("+-.0123456789eEtruefalsn", s_[pos_]) != nullptr &&
           s_[pos_] != '\0')
      ++pos_;
    if (start == pos_) return Fail("unexpected character");
    out = json::parse(s_.substr(start, pos_ - start), nullptr, false);
    if (out.is_discarded()) {
      pos_ = start;
      return Fail("invalid literal");
    }
    return {};
  }

  // An integer (vocabulary ids); false when the value is something else (then read generically).
  bool Integer(int64_t& v) {
    Ws();
    size_t p = pos_;
    bool neg = p < s_.size() && s_[p] == '-';
    if (neg) ++p;
    size_t digits = p;
    v = 0;
    while (p < s_.size() && s_[p] >= '0' && s_[p] <= '9' && p - digits < 18)
      v = v * 10 + (s_[p++] - '0');
    if (p == digits || (p < s_.size() && std::strchr(".eE0123456789", s_[p]) && s_[p] != '\0'))
      return false;
    if (s_[digits] == '0' && p - digits > 1) return false;
    if (neg) v = -v;
    pos_ = p;
    return true;
  }

  Status Vocab(TokenizerDocument& doc) {
    ++pos_;  // '{'
    doc.has_vocab = true;
    if (Eat('}')) return {};
    std::string_view key;
    do {
      if (Status st = View(doc, key); !st.ok()) return st;
      if (!Eat(':')) return Fail("expected ':'");
      int64_t id;
      if (!Integer(id)) {
        json ignored;
        if (Status st = Value(ignored); !st.ok()) return st;
        if (doc.vocab_ids_are_integers) doc.first_bad_vocab_key = std::string(key);
        doc.vocab_ids_are_integers = false;
        continue;
      }
      doc.vocab.emplace_back(key, id);
    } while (Eat(','));
    if (!Eat('}')) return Fail("expected ',' or '}'");
    return {};
  }

  Status Merges(TokenizerDocument& doc) {
    ++pos_;  // '['
    doc.has_merges = true;
    if (Eat(']')) return {};
    std::string_view a, b;
    do {
      bool ok = false;
      if (Peek('"')) {
        if (Status st = View(doc, a); !st.ok()) return st;
        size_t space = a.find(' ');
        if (space != std::string::npos && a.find(' ', space + 1) == std::string::npos) {
          doc.merges.emplace_back(a.substr(0, space), a.substr(space + 1));
          ok = true;
        }
      } else if (Peek('[')) {
        size_t save = pos_;
        ++pos_;
        if (Peek('"')) {
          if (Status st = View(doc, a); !st.ok()) return st;
          if (Eat(',') && Peek('"')) {
            if (Status st = View(doc, b); !st.ok()) return st;
            if (Eat(']')) {
              doc.merges.emplace_back(a, b);
              ok = true;
            }
          }
        }
        if (!ok) {
          pos_ = save;
          json ignored;
          if (Status st = Value(ignored); !st.ok()) return st;
        }
      } else {
        json ignored;
        if (Status st = Value(ignored); !st.ok()) return st;
      }
      if (!ok && doc.merge_error < 0) doc.merge_error = static_cast<int64_t>(doc.merges.size());
      if (!ok) doc.merges.emplace_back();  // keeps ranks aligned; reported by the loader
    } while (Eat(','));
    if (!Eat(']')) return Fail("expected ',' or ']'");
    return {};
  }

  Status Model(TokenizerDocument& doc, json& model) {
    if (!Peek('{')) return Value(model);
    ++pos_;
    model = json::object();
    if (Eat('}')) return {};
    std::string key;
    do {
      if (Status st = String(key); !st.ok()) return st;
      if (!Eat(':')) return Fail("expected ':'");
      if (key == "vocab" && Peek('{')) {
        if (Status st = Vocab(doc); !st.ok()) return st;
      } else if (key == "merges" && Peek('[')) {
        if (Status st = Merges(doc); !st.ok()) return st;
      } else if (Status st = Value(model[key]); !st.ok()) {
        return st;
      }
    } while (Eat(','));
    if (!Eat('}')) return Fail("expected ',' or '}'");
    return {};
  }

  Status Document(TokenizerDocument& doc) {
    if (!Peek('{')) {
      if (Status st = Value(doc.root); !st.ok()) return st;
    } else {
      ++pos_;
      doc.root = json::object();
      if (!Eat('}')) {
        std::string key;
        do {
          if (Status st = String(key); !st.ok()) return st;
          if (!Eat(':')) return Fail("expected ':'");
          Status st = key == "model" ? Model(doc, doc.root["model"]) : Value(doc.root[key]);
          if (!st.ok()) return st;
        } while (Eat(','));
        if (!Eat('}')) return Fail("expected ',' or '}'");
      }
    }
    if (!AtEnd()) return Fail("unexpected data after the document");
    return {};
  }

 private:
  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

Result<TokenizerDocument> ReadTokenizerDocument(std::string_view text) {
  TokenizerDocument doc;
  // The lists are reserved for as many entries as the text could hold (an entry takes at least
  // 6 bytes), so they are never copied while growing. Untouched reserved pages cost no memory.
  const size_t most = std::min<size_t>(text.size() / 6 + 1, size_t{1} << 22);
  doc.vocab.reserve(most);
  doc.merges.reserve(most);
  Reader reader(text);
  if (Status st = reader.Document(doc); !st.ok()) return st.error();
  return doc;
}

}  // namespace affordance::text

// Fuzzes encode/decode on both registered models with arbitrary bytes:
//  - invalid UTF-8 is an error naming the first bad byte, never a crash;
//  - valid UTF-8 round-trips: Decode(Encode(x)) == NFC(x) for Qwen and == x for Llama, with and
//    without special-token matching;
//  - the hand-written pre-tokenizer scanner matches PCRE2 running the same regex wherever PCRE2's
//    Unicode tables (14.0) agree with ours (15.0) on the characters of x;
//  - streaming through IncrementalDecoder gives the same text as Decode;
//  - NFC by segments (AppendNfc) equals utf8proc normalizing the whole input at once.
#include "text/char_class.h"
#include "text/normalizer.h"
#include "text/split_pattern.h"
#include "text/tokenizer.h"
#include "text/utf8.h"

#include <utf8proc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

using namespace affordance::text;

namespace {

[[noreturn]] void Fail(const char* what) {
  std::fprintf(stderr, "text fuzzer: %s\n", what);
  std::abort();
}

struct State {
  std::shared_ptr<const Tokenizer> qwen, llama;
  std::unique_ptr<SplitPattern> fast[2], pcre[2], letter, number;
  State() {
    auto q = LoadModel("Qwen__Qwen3-4B-Instruct-2507");
    auto l = LoadModel("meta-llama__Llama-3.1-8B-Instruct");
    if (!q.ok() || !l.ok()) Fail("cannot load the registered models");
    qwen = *q;
    llama = *l;
    const char* patterns[2] = {
        R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
        R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)"};
    for (int i = 0; i < 2; ++i) {
      fast[i] = std::move(SplitPattern::Regex(patterns[i]).value());
      pcre[i] = std::move(SplitPattern::Regex(patterns[i], false).value());
    }
    letter = std::move(SplitPattern::Regex(R"(^\p{L}$)", false).value());
    number = std::move(SplitPattern::Regex(R"(^\p{N}$)", false).value());
  }
};

// True when PCRE2 classifies every character of `s` as we do (they differ on Unicode 15 additions).
bool TablesAgree(const State& st, std::string_view s) {
  std::vector<Span> m;
  for (size_t i = 0; i < s.size();) {
    size_t start = i;
    char32_t c = utf8::Next(s, i);
    std::string one(s.substr(start, i - start));
    m.clear();
    st.letter->FindMatches(one, m);
    bool l = !m.empty();
    m.clear();
    st.number->FindMatches(one, m);
    bool n = !m.empty();
    CharClass ours = ClassOf(c);
    if (l != (ours == CharClass::kLetter) || n != (ours == CharClass::kNumber)) return false;
  }
  return true;
}

std::unique_ptr<State> state;

}  // namespace

// Loading both models under the sanitizers takes seconds: do it before the per-input timeout.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  state = std::make_unique<State>();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const State& st = *state;
  std::string_view x(reinterpret_cast<const char*>(data), size);
  size_t bad = utf8::FirstInvalid(x);
  if (bad != utf8::kValid) {
    auto r = st.qwen->Encode(x);
    if (r.ok() || r.error().code != "tokenizer.invalid_utf8" ||
        r.error().detail != "byte offset " + std::to_string(bad))
      Fail("invalid UTF-8 not reported with its offset");
    return 0;
  }
  std::string nfc;
  AppendNfc(x, nfc);
  {
    utf8proc_uint8_t* whole = nullptr;
    utf8proc_ssize_t n =
        utf8proc_map(data, static_cast<utf8proc_ssize_t>(size), &whole,
                     static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
    bool same = n >= 0 && static_cast<size_t>(n) == nfc.size() &&
                std::memcmp(whole, nfc.data(), nfc.size()) == 0;
    std::free(whole);
    if (!same) Fail("segmented NFC differs from utf8proc on the whole input");
  }
  for (bool special : {false, true}) {
    EncodeOptions options;
    options.match_special = special;
    auto q = st.qwen->Encode(x, options);
    auto l = st.llama->Encode(x, options);
    if (!q.ok() || !l.ok()) Fail("valid UTF-8 failed to encode");
    if (*st.qwen->Decode(*q) != nfc) Fail("Qwen: decode(encode(x)) != NFC(x)");
    if (*st.llama->Decode(*l) != x) Fail("Llama: decode(encode(x)) != x");
    IncrementalDecoder stream(*st.llama);
    std::string streamed;
    for (TokenId id : *l) streamed += *stream.Push(id);
    streamed += stream.Flush();
    if (streamed != x) Fail("IncrementalDecoder differs from Decode");
  }
  if (TablesAgree(st, x)) {
    for (int i = 0; i < 2; ++i) {
      std::vector<Span> a, b;
      st.fast[i]->FindMatches(x, a);
      st.pcre[i]->FindMatches(x, b);
      if (a != b) Fail("pre-tokenizer scanner differs from PCRE2");
    }
  }
  return 0;
}

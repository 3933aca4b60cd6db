// Fuzzes Tokenizer::FromJson: any bytes give a tokenizer or an error with a "tokenizer." code,
// never a crash, a hang or an unbounded allocation; a tokenizer that loads can encode and decode.
#include "text/tokenizer.h"

#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace affordance::text;
  std::string_view json(reinterpret_cast<const char*>(data), size);
  auto t = Tokenizer::FromJson(json);
  if (!t.ok()) {
    if (t.error().code.rfind("tokenizer.", 0) != 0) {
      std::fprintf(stderr, "unexpected error code %s\n", t.error().code.c_str());
      std::abort();
    }
    return 0;
  }
  for (bool special : {false, true}) {
    EncodeOptions options;
    options.match_special = special;
    options.add_special_tokens = special;
    auto ids =
        (*t)->Encode("Hello world, it's 2024! <|im_end|> \xC3\xA9 \xF0\x9F\x98\x80", options);
    if (!ids.ok()) std::abort();
    (void)(*t)->Decode(*ids);
  }
  return 0;
}

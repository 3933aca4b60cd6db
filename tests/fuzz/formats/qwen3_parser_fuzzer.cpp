// libFuzzer: the Qwen3 parser on arbitrary token streams (tags as tokens and as text pieces).
#include "token_stream.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace affordance::formats;
  fuzz::RunParser(ChatFormat::kQwen3, fuzz::Decode(data, size));
  return 0;
}

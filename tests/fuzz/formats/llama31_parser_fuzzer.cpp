// libFuzzer: the Llama 3.1 parser on arbitrary token streams.
#include "token_stream.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace affordance::formats;
  fuzz::RunParser(ChatFormat::kLlama31, fuzz::Decode(data, size));
  return 0;
}

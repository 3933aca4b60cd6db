// Fuzzes the two parsers of src/view that read text the host does not control: handler
// parameter lists (function source) and source map "mappings" (from the on-disk cache).
#include "view/signature.h"
#include "view/source_map.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  affordance::view::HandlerSignature sig = affordance::view::ParseHandlerSignature(text);
  if (sig.kind != affordance::view::HandlerSignature::Kind::kDestructured && !sig.fields.empty()) {
    __builtin_trap();  // fields only come with a destructured parameter
  }
  affordance::view::SourceMap map = affordance::view::SourceMap::Decode(text);
  for (int line = 0; line < 4; ++line) {
    for (int column = 0; column < 64; column += 7) (void)map.Original({line, column});
  }
  return 0;
}

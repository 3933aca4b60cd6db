// libFuzzer: the chat-API delta mapper on arbitrary SSE payloads (one chunk per line).
// Each line passes the depth check the HTTP provider applies to every SSE payload before it
// builds a value (base/json_limits.h), so the mapper sees what it sees in production.
#include "base/json_limits.h"
#include "formats/chat_deltas.h"
#include "token_stream.h"

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace affordance::formats;
  ChatDeltaMapper mapper({"f-", size % 2 ? ChatFormat::kQwen3 : ChatFormat::kPlain});
  std::vector<StreamPart> parts;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  while (!input.empty()) {
    size_t nl = input.find('\n');
    std::string_view line = input.substr(0, nl);
    auto chunk = affordance::ParseJson(line, "model.too_deep", "model.stream_malformed", "a chunk");
    if (chunk.ok()) (void)mapper.Push(*chunk, parts);
    if (nl == std::string_view::npos) break;
    input.remove_prefix(nl + 1);
  }
  mapper.Finish(parts);
  fuzz::CheckParts(parts);
  return 0;
}

// Writes the server's serialization of harness events (one JSON chunk per stdin line) for a client
// version (argv[1]) exactly as a stream response body carries them: ParseUiChunk, ChunkFor +
// SseEvent per chunk, then [DONE]. The stream-reader test feeds it to the real `ai` client for
// chunks that no replay turn produces yet (approvals: the authority issue emits them).
#include "server/protocol.h"

#include <iostream>
#include <string>

int main(int argc, char** argv) {
  using namespace affordance::server;
  auto client = ParseClientVersion(argc > 1 ? argv[1] : "");
  if (!client) {
    std::cerr << client.error().ToString() << "\n";
    return 2;
  }
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    auto event = ParseUiChunk(nlohmann::ordered_json::parse(line));
    if (!event) {
      std::cerr << event.error().ToString() << "\n";
      return 2;
    }
    auto shown = ChunkFor(*event, *client);
    if (shown) std::cout << SseEvent(*shown);
  }
  std::cout << SseDone();
  return 0;
}

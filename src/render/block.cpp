#include "render/block.h"

#include <atomic>

namespace affordance::render {

extern std::atomic<int64_t> g_live_blocks_with_actions;

namespace {

// The opaque form of a Block inside view::Node::block. The tag tells BlockOf that the pointer was
// made here; only src/render creates kBlock nodes.
struct Envelope {
  static constexpr uint64_t kTag = 0x61666672656e6462ull;  // "affrendb"
  explicit Envelope(std::shared_ptr<const Block> b) : block(std::move(b)) {
    for (const auto& s : block->spans) {
      if (s.kind == Span::Kind::kAction && s.projected) {
        counted = true;
        g_live_blocks_with_actions.fetch_add(1, std::memory_order_relaxed);
        break;
      }
    }
  }
  ~Envelope() {
    if (counted) g_live_blocks_with_actions.fetch_sub(1, std::memory_order_relaxed);
  }
  uint64_t tag = kTag;
  std::shared_ptr<const Block> block;
  bool counted = false;
};

}  // namespace

std::atomic<int64_t> g_live_blocks_with_actions{0};

bool AnyLiveBlockHasActions() {
  return g_live_blocks_with_actions.load(std::memory_order_relaxed) > 0;
}

std::shared_ptr<const void> WrapBlock(std::shared_ptr<const Block> block) {
  if (!block) return nullptr;
  return std::make_shared<Envelope>(std::move(block));
}

const Block* BlockOf(const std::shared_ptr<const void>& opaque) {
  if (!opaque) return nullptr;
  const auto* envelope = static_cast<const Envelope*>(opaque.get());
  if (envelope->tag != Envelope::kTag) return nullptr;
  return envelope->block.get();
}

nlohmann::ordered_json Block::ToolsJson() const {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& tool : tools) out.push_back(tool.ToJson());
  return out;
}

nlohmann::ordered_json Block::SpansJson() const {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& s : spans) {
    nlohmann::ordered_json j = {{"kind", s.kind == Span::Kind::kNode ? "node" : "action"},
                                {"begin", s.begin},
                                {"end", s.end},
                                {"path", s.path},
                                {"type", s.type}};
    if (s.kind == Span::Kind::kNode) {
      j["clipped"] = s.clipped;
    } else {
      j["name"] = s.name;
      j["event"] = s.event;
      j["projected"] = s.projected;
      j["callable"] = s.handler != 0;
    }
    out.push_back(std::move(j));
  }
  return out;
}

nlohmann::ordered_json Block::ToJson() const {
  return {{"tokens", tokens}, {"spans", SpansJson()}, {"tools", ToolsJson()}};
}

}  // namespace affordance::render

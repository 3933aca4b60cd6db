#include "render/block.h"

namespace affordance::render {
namespace {

// The opaque form of a Block inside view::Node::block. The tag tells BlockOf that the pointer was
// made here; only src/render creates kBlock nodes.
struct Envelope {
  static constexpr uint64_t kTag = 0x61666672656e6462ull;  // "affrendb"
  uint64_t tag = kTag;
  std::shared_ptr<const Block> block;
};

}  // namespace

std::shared_ptr<const void> WrapBlock(std::shared_ptr<const Block> block) {
  auto envelope = std::make_shared<Envelope>();
  envelope->block = std::move(block);
  return envelope;
}

const Block* BlockOf(const std::shared_ptr<const void>& opaque) {
  if (!opaque) return nullptr;
  const auto* envelope = static_cast<const Envelope*>(opaque.get());
  if (envelope->tag != Envelope::kTag) return nullptr;
  return envelope->block.get();
}

nlohmann::json Block::ToolsJson() const {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& tool : tools) out.push_back(tool.ToJson());
  return out;
}

nlohmann::json Block::SpansJson() const {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : spans) {
    nlohmann::json j = {{"kind", s.kind == Span::Kind::kNode ? "node" : "action"},
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

nlohmann::json Block::ToJson() const {
  return {{"tokens", tokens}, {"spans", SpansJson()}, {"tools", ToolsJson()}};
}

}  // namespace affordance::render

// Builders for hand-made view::Node trees (what the view runtime would hand layout).
#pragma once

#include "render/block.h"
#include "text/tokenizer.h"
#include "view/node.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

namespace affordance::render::testing {

inline view::Node Text(std::string s) {
  view::Node n;
  n.kind = view::Node::Kind::kText;
  n.text = std::move(s);
  return n;
}

inline view::Node El(std::string type, nlohmann::json props = nlohmann::json::object(),
                     std::vector<view::Node> children = {},
                     std::vector<view::Handler> handlers = {}, std::string path = "") {
  static std::atomic<int> serial{0};
  view::Node n;
  n.kind = view::Node::Kind::kElement;
  n.type = std::move(type);
  n.props = std::move(props);
  n.children = std::move(children);
  n.handlers = std::move(handlers);
  n.path = path.empty() ? "App/" + n.type + "[" + std::to_string(serial++) + "]" : std::move(path);
  return n;
}

inline view::Handler On(std::string event, view::HandlerId id,
                        view::HandlerSignature::Kind kind = view::HandlerSignature::Kind::kNoParams,
                        std::vector<view::HandlerSignature::Field> fields = {}) {
  view::Handler h;
  h.event = std::move(event);
  h.id = id;
  h.signature.kind = kind;
  h.signature.fields = std::move(fields);
  return h;
}

inline view::Handler OnChange(view::HandlerId id) {
  return On("onChange", id, view::HandlerSignature::Kind::kDestructured, {{"value", false}});
}

inline view::Node BlockNode(const Block& block) {
  view::Node n;
  n.kind = view::Node::Kind::kBlock;
  n.block = WrapBlock(std::make_shared<Block>(block));
  return n;
}

inline std::vector<text::TokenId> Enc(const text::Tokenizer& tok, const std::string& s) {
  auto ids = tok.Encode(s);
  EXPECT_TRUE(ids.ok()) << s;
  return ids.ok() ? *ids : std::vector<text::TokenId>{};
}

inline std::vector<std::string> ToolNames(const Block& b) {
  std::vector<std::string> out;
  for (const auto& t : b.tools) out.push_back(t.name);
  return out;
}

}  // namespace affordance::render::testing

// Fuzzes layout + projection with trees built from the input bytes (real Qwen3 tokenizer):
// arbitrary element types, budgets, offsets, markers, labels (any bytes), handler kinds, nested
// blocks placed under outer budgets. Every outcome must be a value (a Block or an Error); a Block
// must satisfy the contract: spans inside the tokens, tool names unique and valid.
#include "render/layout.h"
#include "render/projection.h"
#include "text/tokenizer.h"

#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>

namespace {

using affordance::render::Block;
using affordance::view::Node;

struct Bytes {
  const uint8_t* p;
  size_t n;
  uint8_t Next() {
    if (n == 0) return 0;
    --n;
    return *p++;
  }
  std::string Str() {
    size_t len = Next() % 12;
    std::string s;
    while (len-- > 0 && n > 0) s.push_back(static_cast<char>(Next()));
    return s;
  }
};

const char* kTypes[] = {"box", "list", "scroll", "input", "button", "token", "ids", "marquee"};
const char* kEvents[] = {"onClick",    "onChange",   "onSubmit", "onTimeout",
                         "onInterval", "onCallback", "onX y",    "on"};

Node Build(Bytes& in, int depth, const Block* nested) {
  Node n;
  const uint8_t op = in.Next();
  if (depth > 5 || op % 4 == 0) {
    n.text = in.Str();
    return n;
  }
  if (op % 4 == 1 && nested != nullptr) {
    n.kind = Node::Kind::kBlock;
    n.block = affordance::render::WrapBlock(std::make_shared<Block>(*nested));
    return n;
  }
  n.kind = Node::Kind::kElement;
  n.type = kTypes[in.Next() % 8];
  n.path = "F/" + n.type + std::to_string(in.n);
  const uint8_t flags = in.Next();
  if (flags & 1) n.props["budget"] = static_cast<int>(in.Next() % 40) - (flags & 64 ? 1 : 0);
  if (flags & 2) n.props["offset"] = in.Next() % 6;
  if (flags & 4) n.props["marker"] = in.Str();
  if (flags & 8) n.props["label"] = in.Str();
  if (flags & 16) n.props["value"] = in.Str();
  if (n.type == "token") n.props["name"] = (flags & 32) ? "<|im_start|>" : in.Str();
  if (n.type == "ids") n.props["value"] = {in.Next(), in.Next() * 1000};
  if (flags & 128)
    n.props["args_schema"] =
        (in.Next() & 1) ? nlohmann::json{{"type", "object"}} : nlohmann::json(3);
  const int handlers = in.Next() % 3;
  for (int i = 0; i < handlers; ++i) {
    affordance::view::Handler h;
    h.event = kEvents[in.Next() % 8];
    h.id = in.Next();
    h.signature.kind = static_cast<affordance::view::HandlerSignature::Kind>(in.Next() % 4);
    if (h.signature.kind == affordance::view::HandlerSignature::Kind::kDestructured) {
      h.signature.fields.push_back({in.Str(), (in.Next() & 1) != 0});
    }
    n.handlers.push_back(std::move(h));
  }
  const int children = in.Next() % 5;
  std::vector<affordance::view::Node> kids;
  for (int i = 0; i < children; ++i) kids.push_back(Build(in, depth + 1, nested));
  n.children = std::move(kids);
  return n;
}

bool ValidName(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (unsigned char c : s) {
    if (!(std::isalnum(c) || c == '_' || c == '-')) return false;
  }
  return true;
}

void CheckBlock(const Block& b) {
  std::set<std::string> names;
  for (const auto& t : b.tools) {
    if (!ValidName(t.name) || !names.insert(t.name).second) std::abort();
  }
  for (const auto& s : b.spans) {
    if (s.begin > s.end || s.end > b.tokens.size()) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static auto tokenizer = *affordance::text::LoadModel("Qwen__Qwen3-4B-Instruct-2507");
  Bytes in{data, size};
  std::vector<Node> nodes;
  while (in.n > 0 && nodes.size() < 8) nodes.push_back(Build(in, 0, nullptr));
  affordance::render::LayoutOptions projection;
  projection.callable = (size & 1) != 0;
  auto inner = affordance::render::Layout(nodes, *tokenizer, projection);
  if (!inner.ok()) return 0;
  CheckBlock(*inner);
  // Place it in an outer document, possibly under a budget.
  Bytes again{data, size};
  std::vector<Node> outer;
  while (again.n > 0 && outer.size() < 4) outer.push_back(Build(again, 0, &*inner));
  affordance::render::LayoutOptions document;
  document.mode = affordance::render::LayoutOptions::Mode::kDocument;
  auto doc = affordance::render::Layout(outer, *tokenizer, document);
  if (doc.ok()) CheckBlock(*doc);
  return 0;
}

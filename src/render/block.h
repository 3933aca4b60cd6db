// What layout produces: token IDs with spans, and the tools projected from visible actions.
//
// A Block is immutable once built. asChatTools(children) returns one (as the opaque
// view::Node::block of its `tree`); the top-level render of a view returns one for the whole
// prompt. Offsets are token indices into `tokens`, half-open [begin, end). When an outer layout
// places a block after its own tokens it copies the block's spans shifted by that offset (rebased),
// so spans always index the tokens of the Block that holds them.
#pragma once

#include "text/tokenizer.h"
#include "view/node.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace affordance::render {

struct Span {
  enum class Kind { kNode, kAction };
  Kind kind = Kind::kNode;
  uint32_t begin = 0;
  uint32_t end = 0;
  std::string path;  // the element's component path (view::Node::path)
  std::string type;  // intrinsic type ("box", "input", ...)
  // kNode: some of the element's content was cut or hidden by a budget.
  bool clipped = false;

  // kAction only. `name` is the tool name for projected actions; timeout, interval and callback
  // handlers are never projected and keep their harness name "<event>:<path>".
  std::string name;
  std::string event;            // "onChange", "onTimeout", ...
  view::HandlerId handler = 0;  // 0 when the projection was made with callable: false
  bool projected = false;       // declared as a tool
  // onTimeout / onInterval only: the element's `timeout` / `interval` prop in milliseconds (a
  // non-negative number, fractions dropped); -1 when it is missing or not such a number, or for
  // any other event. Read by the host's timer scheduler (render/timers.h).
  int64_t timer_ms = -1;
};

// One projected tool. `parameters` is a JSON Schema object; `handler` refers to the original
// handler (0 with callable: false, in which case acting on it is an error).
struct Tool {
  std::string name;
  nlohmann::ordered_json parameters;
  std::string event;
  std::string path;
  view::HandlerId handler = 0;
  bool callable = true;
  // What the action does, for the model: the element's `description` prop ("" when it has none).
  std::string description;

  // The OpenAI-style tool object, keys in the order chat APIs and templates are given them:
  // {"type": "function", "function": {"name"[, "description"], "parameters"}} (a description
  // only when the element gave one).
  nlohmann::ordered_json ToJson() const;

  bool operator==(const Tool&) const = default;
};

struct Block {
  std::vector<text::TokenId> tokens;
  std::vector<Span> spans;  // node and action spans, in document order of their start
  std::vector<Tool> tools;  // in document order
  bool clipped = false;     // a budget cut or hid something

  // {"tokens": [...], "spans": [...], "tools": [...]} (tools as OpenAI-style objects).
  nlohmann::ordered_json ToJson() const;
  nlohmann::ordered_json ToolsJson() const;
  nlohmann::ordered_json SpansJson() const;
};

// Wraps a block for a view::Node of kind kBlock / view::ChatTools::block, and reads it back.
// BlockOf returns nullptr for a pointer that was not made by WrapBlock.
std::shared_ptr<const void> WrapBlock(std::shared_ptr<const Block> block);
const Block* BlockOf(const std::shared_ptr<const void>& opaque);

// True while any wrapped block with a projected action is alive (in any thread). When false no
// tree can hold such a block, so layout skips walking hidden nodes for the outer-crop check.
bool AnyLiveBlockHasActions();

}  // namespace affordance::render

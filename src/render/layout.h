// Layout: an intrinsic node tree -> token IDs, spans and (for asChatTools) projected tools.
//
// The element vocabulary (docs/RUNTIME.md "Render" states it for authors):
//   text runs      encoded on their own; IDs concatenated (native trees are hard tokenization
//                  boundaries, so "a" + "b" may differ from encoding "ab")
//   box, list      children in order; optional `budget` (tokens) and `marker` (text shown, inside
//                  the budget, when something was cut)
//   scroll         like list, showing children from index `offset` (default 0)
//   input          one run "<label>: <value>"
//   button         one run "[<label>]"
//   token          one control token by `name`, resolved against the encoder only when emitted
//   ids            the token IDs in `value` verbatim (e.g. model-sampled history)
//   (block)        a tree returned by asChatTools, placed with its spans rebased
// Budgets clip in document order: the first content that does not fit is cut at a token boundary
// and everything after it inside the clipping container is hidden. An action (an element's
// model-callable handler) is projected only when its element is entirely visible; a cut caused by
// the element's own budget (a scroll window) does not count against it.
//
// Thread-safety: a Layout call uses only its arguments; the cache must not be shared across
// threads.
#pragma once

#include "base/result.h"
#include "render/block.h"
#include "render/run_cache.h"
#include "text/tokenizer.h"
#include "view/node.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace affordance::render {

struct LayoutOptions {
  enum class Mode {
    // asChatTools(children, options): visible actions become tools.
    kProjection,
    // A view's whole output (e.g. a chat-format wrapper): blocks are placed and their spans
    // rebased; actions outside any block are not tools; a budget here that would cut a block's
    // projected action is the error "render.outer_crop".
    kDocument,
  };
  Mode mode = Mode::kProjection;
  bool callable = true;       // kProjection: false keeps tools but drops handler references
  RunCache* cache = nullptr;  // null: encode every run (cold)
};

// Lays out `nodes` as siblings. Errors (code, message naming the element path):
//   render.unknown_element, render.invalid_prop, render.invalid_children, render.unknown_token,
//   render.invalid_token_id, render.invalid_block, render.outer_crop, render.duplicate_tool,
//   render.invalid_args_schema, tokenizer errors of a run.
Result<Block> Layout(const std::vector<view::Node>& nodes, const text::Tokenizer& tokenizer,
                     const LayoutOptions& options);

// Parses asChatTools's options object ({"callable": bool}); unknown keys are an error.
Result<LayoutOptions> ProjectionOptions(const nlohmann::ordered_json& options);

}  // namespace affordance::render

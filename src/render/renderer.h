// A Renderer is one loaded view bound to one model's encoder, rendered to token IDs: it installs
// the asChatTools hook (layout + projection) on its view::View, lays out what the entry returns,
// and dispatches model tool calls back through the projected handler references.
//
//   auto r = Renderer::Load("views/demo/notebook_chat.tsx", "NotebookChat",
//                           "Qwen__Qwen3-4B-Instruct-2507");
//   Result<Block> prompt = r->Render(state, &outer_cache);     // tokens, rebased spans, tools
//   Result<Block> next = r->Act({{"name", "change__notes"}, {"arguments", {{"value", "x"}}}});
//
// Caches: the Renderer owns the view's projection cache (encoded text runs inside asChatTools,
// bound to this encoder; never schemas, spans, closures or hook state). Render uses it only when
// the caller passes an outer RunCache (caching enabled); Act always reuses it. Its counters
// (projection_cache_stats) are separate from the outer cache's.
//
// Not thread-safe (like view::View).
#pragma once

#include "base/result.h"
#include "render/block.h"
#include "render/run_cache.h"
#include "text/tokenizer.h"
#include "view/view.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>

namespace affordance::render {

// Where the last Render/Act spent its time (wall clock, nanoseconds): the view runtime (JS
// components, hooks, tree conversion), layout + projection inside asChatTools, and the document
// layout of the entry's output.
struct RenderProfile {
  uint64_t view_ns = 0;        // View::Render/Act minus the asChatTools layouts inside it
  uint64_t projection_ns = 0;  // asChatTools layouts (the hook)
  uint64_t layout_ns = 0;      // document layout
};

class Renderer {
 public:
  // Loads the tokenizer `model` (a registered name or a folder, see text::LoadModel) and the view.
  // Errors: "tokenizer.*" / "model.*" of the encoder, "view.*" of the view.
  static Result<std::unique_ptr<Renderer>> Load(const std::string& view_path,
                                                const std::string& entry, const std::string& model,
                                                view::ViewOptions options = {});
  // Binds an already loaded encoder (shared by many views, e.g. a batch or a benchmark).
  static Result<std::unique_ptr<Renderer>> Load(const std::string& view_path,
                                                const std::string& entry,
                                                std::shared_ptr<const text::Tokenizer> tokenizer,
                                                const std::string& model_name,
                                                view::ViewOptions options = {});

  // Renders the entry with `props` and lays out the result in document mode (blocks placed, spans
  // rebased, outer crops refused). `outer` null: no caching at all (cold). Errors: the view's
  // render errors (including layout errors raised inside asChatTools) and layout errors.
  Result<Block> Render(const nlohmann::ordered_json& props, RunCache* outer = nullptr);

  // Dispatches one model call {"name": ..., "arguments": {...}} through the projected handler of
  // the last successful Render/Act and returns the re-render. Errors: "render.invalid_call"
  // (malformed call), "render.too_deep" (arguments, as a value or a string, nested deeper than
  // kMaxJsonDepth), "render.not_rendered", "render.unknown_tool" (the message lists the tools),
  // "render.not_callable" (projected with callable: false), and the view's errors ("view.handler"
  // when the handler throws). On error the last tree and state stay as they were.
  Result<Block> Act(const nlohmann::ordered_json& call, RunCache* outer = nullptr);

  // Runs a handler the host runs itself, never the model: the timer or callback action span
  // (onTimeout, onInterval, onCallback) with handler `id` in the last successful render, called
  // through View::Act with `args`, then re-rendered and laid out like Act. Errors:
  // "render.not_rendered", "render.unknown_handler" (no such host-run span: projected tools go
  // through Act), and the view's errors.
  Result<Block> RunHostHandler(view::HandlerId id, const nlohmann::ordered_json& args,
                               RunCache* outer = nullptr);

  const RunCacheStats& projection_cache_stats() const { return projection_cache_.stats(); }
  const text::Tokenizer& tokenizer() const { return *tokenizer_; }
  view::View& view() { return *view_; }
  // The last successful render's result (empty before the first).
  const Block& last() const { return last_; }
  const RenderProfile& profile() const { return profile_; }

 private:
  Renderer(std::shared_ptr<const text::Tokenizer> tokenizer, std::unique_ptr<view::View> view);
  Result<Block> LayOut(Result<std::vector<view::Node>> nodes, RunCache* outer);

  std::shared_ptr<const text::Tokenizer> tokenizer_;
  std::unique_ptr<view::View> view_;
  RunCache projection_cache_;
  bool use_projection_cache_ = false;  // for the render in progress
  Block last_;
  bool rendered_ = false;
  RenderProfile profile_;
};

}  // namespace affordance::render

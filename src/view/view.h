// A View is one loaded TSX app: its modules evaluated in a private QuickJS runtime, its hook
// state, and its mounted handlers. Render() calls the entry component with props and returns the
// tree of intrinsic nodes (view/node.h) that layout consumes; Act() runs a mounted handler (the
// function from the latest render, so captured variables and useState setters work) and
// re-renders.
//
// Sandbox: every View owns its own JSRuntime and JSContext, so one view cannot reach another's
// state. Views get the ECMAScript built-ins and the "affordance" runtime module only: no std/os
// modules, no file system, network, process or timers. Each call into JavaScript (load, render,
// act) runs under a time budget (an interrupt handler) and the runtime under a memory limit; an
// infinite loop, a memory bomb or runaway recursion becomes an Error value ("view.timeout",
// "view.memory", "view.stack_overflow") and the View stays usable: the last committed state and
// handlers are kept.
//
// Errors carry a code ("view.*") and, where the failure has a place in a view's source, a detail
// "path/to/file.tsx:line:column" in the TSX source as written. See docs/RUNTIME.md, "## view".
//
// Thread safety: a View is not thread-safe; use it from one thread at a time (any thread).
#pragma once

#include "base/result.h"
#include "view/node.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace affordance::text {
class Tokenizer;
}

namespace affordance::view {

// The encoder a view is bound to. `model` is what JS sees as modelName(); `tokenizer` answers
// hasToken()/tokenId(). Either may be empty (tests, previews): hasToken() is then false and
// tokenId() throws "view.unknown_token".
struct Encoder {
  std::string model;
  std::shared_ptr<const text::Tokenizer> tokenizer;
};

struct ViewOptions {
  // Memory limit of the view's JS runtime (bytes), including the loaded modules.
  size_t memory_limit = 64u << 20;
  // Wall-clock budget for one call into JavaScript (module evaluation, one Render, one Act with
  // its re-render). Exceeding it interrupts the script: "view.timeout".
  std::chrono::milliseconds time_budget{1000};
  // Maximum JS stack (bytes); deeper recursion is "view.stack_overflow".
  size_t stack_size = 512u << 10;
  // Folder that "@lib/..." imports resolve under ("@adapters/..." resolve under its sibling
  // "adapters"). Empty: $AFFORDANCE_VIEWS_LIB when set (an override), else the nearest ancestor
  // folder of the entry file named "views", plus "/lib", else the views/lib shipped with the
  // running program (<bin>/../share/affordance/views/lib installed, <build>/share/... built).
  std::string lib_root;
  // Folder of the on-disk transform cache. Empty: $XDG_CACHE_HOME/affordance/tsx, else
  // $HOME/.cache/affordance/tsx. "-" disables the disk cache.
  std::string cache_dir;
  // Reuse the output of components whose props (shallow), state and contexts did not change, as
  // React.memo would for every component. false calls every component on every render (for
  // components that read data the runtime cannot see change, and for measuring cold renders).
  bool reuse_components = true;
};

// Counters for tests and benchmarks.
struct ViewStats {
  size_t mounted_handlers = 0;    // handler ids currently valid for Act()
  size_t mounted_components = 0;  // component instances holding hook state
  size_t js_memory_bytes = 0;     // QuickJS runtime memory in use (after the last call)
  size_t modules = 0;             // modules loaded (the runtime module not counted)
  size_t transforms_from_cache = 0;
  size_t transforms_run = 0;
  // The last Render/Act (all its passes): components whose function ran, and components whose
  // last output was replayed as it was, each one inside a replayed subtree counted
  // (docs/RUNTIME.md, "Re-rendering from caches").
  size_t components_called = 0;
  size_t components_replayed = 0;
  size_t converted_nodes_kept = 0;  // host nodes whose C++ conversion is kept for replays
  // The last Render/Act: re-rendered elements whose children (the same items as at that path
  // before) took their kept conversion instead of being converted again.
  size_t children_reused = 0;
  size_t live_blocks = 0;  // asChatTools trees still referenced
};

class View {
 public:
  ~View();
  View(const View&) = delete;
  View& operator=(const View&) = delete;

  // Loads `path` (a .tsx/.ts/.js view module) and its imports, evaluates them, and selects the
  // entry component: the named export `entry`, else a default export whose function name is
  // `entry`; an empty `entry` selects the default export. Errors: "view.io", "view.syntax",
  // "view.missing_import", "view.missing_export", "view.evaluate", "view.timeout",
  // "view.memory".
  static Result<std::unique_ptr<View>> Load(const std::string& path, const std::string& entry,
                                            Encoder encoder, ViewOptions options = {});

  // Renders the entry component with `props` (a JSON object), runs effects after commit (and
  // re-renders while effects set state, at most 25 passes), unmounts what was not rendered, and
  // returns the top-level nodes. On error nothing is committed: state and handlers stay as after
  // the last successful render. Errors: "view.invalid_props", "view.render", "view.hook_order",
  // "view.effect", "view.render_loop", "view.timeout", "view.memory", "view.stack_overflow", and
  // errors of the ChatToolsHook.
  Result<std::vector<Node>> Render(const nlohmann::ordered_json& props);

  // Calls the latest function of the mounted handler `id` with `args` (a JSON value; handlers
  // with a destructured or single parameter receive it as their argument), drains promise jobs,
  // then re-renders with the props of the last Render and returns the new tree. Every handler
  // kind goes through Act, including host-run onTimeout / onInterval / onCallback handlers (the
  // host finds them in the tree; layout never projects them). Errors: "view.unknown_handler"
  // (never mounted, or unmounted), "view.not_rendered", "view.handler" (the handler threw), and
  // Render's errors.
  Result<std::vector<Node>> Act(HandlerId id, const nlohmann::ordered_json& args);

  // The hook state of the mounted components at or under the component path `root` ("" = the
  // whole view), after the last successful render, as a versioned JSON document that
  // RestoreState accepts in this or another View, process or encoder (docs/RUNTIME.md,
  // "Snapshots"):
  //   {"version": 1, "root": root, "components": {<path relative to root>: {"component": name,
  //    "hooks": [hook kinds in call order], "state": [{"value": v} per useState, {} = undefined]}}}
  // Only useState values are state (useReducer keeps its state in one); refs, memos and effects
  // are rebuilt by rendering. Errors: "view.not_rendered", "view.snapshot_empty" (nothing mounted
  // at or under `root`), "view.snapshot_unserializable" (a value JSON cannot hold unchanged:
  // functions, class instances, undefined inside a value, non-finite numbers; the message names
  // the component path and hook).
  Result<nlohmann::ordered_json> SnapshotState(const std::string& root = "") const;

  // Seeds the next Render from `snapshot`, placing its components under `root` (which may differ
  // from the root it was taken at: the same app under another entry or wrapper). Only before the
  // first render. A component mounted at a saved path starts from the saved useState values
  // instead of its initial ones; components the snapshot does not name start fresh. That render
  // fails with "view.snapshot_mismatch" (and the View is as freshly loaded) when a saved path is
  // not mounted, holds another component, or calls other hooks. Errors now:
  // "view.invalid_snapshot" (not a snapshot document), "view.snapshot_version" (another
  // version), "view.snapshot_after_render" (the View has rendered already), "view.too_deep"
  // (nested deeper than kMaxJsonDepth; saved values nest at most 64 levels).
  Status RestoreState(const nlohmann::ordered_json& snapshot, const std::string& root = "");

  // Installs the hook that asChatTools() calls during render (layout + projection). Without a
  // hook, asChatTools throws "view.no_chat_tools_hook". A hook given the call site's previous
  // result may answer ChatTools::same_tools; one that answers it without a previous result makes
  // asChatTools throw "view.chat_tools_hook". Installing a hook drops every kept layout.
  void SetChatToolsHook(ChatToolsHook hook);
  void SetChatToolsHook(ChatToolsHookWithPrevious hook);

  const Encoder& encoder() const;
  ViewStats Stats() const;

  class Impl;

 private:
  explicit View(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace affordance::view

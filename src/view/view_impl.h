// View::Impl: one QuickJS runtime + context per View, the module graph, the runtime API object
// and the C++ side tables (handler signatures, asChatTools blocks). Internal to src/view.
#pragma once

#include "view/js_value.h"
#include "view/transform.h"
#include "view/view.h"

#include <quickjs.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace affordance::view {

// JsHeap: the allocator behind one View's QuickJS runtime (internal to src/view).
//
// A render allocates and frees thousands of small JS values (strings, arrays, element objects,
// shapes); with the C library's malloc that bookkeeping was a fifth of an act + re-render. JsHeap
// keeps small blocks (up to kMaxPooled bytes) on free lists per 16-byte size class, carved from
// 64 KiB slabs that live as long as the heap; larger blocks go to malloc. Every block has a
// 16-byte header (its class, or 0 for a malloc'd block), so alignment stays 16.
//
// The runtime's memory limit is enforced here exactly as QuickJS's default allocator does: the
// bytes handed out (usable size + 8 per block) are counted in JSMallocState and an allocation that
// would pass malloc_limit fails. Freed pooled blocks are reused, not returned to the system, until
// the heap is destroyed (after its runtime).
//
// Built without pooling under AddressSanitizer, so the sanitizers see every JS allocation.
// Not thread-safe (one runtime, one thread at a time, like the View).
class JsHeap {
 public:
  JsHeap() = default;
  ~JsHeap();
  JsHeap(const JsHeap&) = delete;
  JsHeap& operator=(const JsHeap&) = delete;

  // The functions for JS_NewRuntime2(&JsHeap::kFunctions, heap).
  static const JSMallocFunctions kFunctions;

  static constexpr size_t kGrain = 16;
  static constexpr size_t kClasses = 32;
  static constexpr size_t kMaxPooled = kGrain * kClasses;  // 512 bytes
  static constexpr size_t kSlabBytes = 64u << 10;

  size_t slabs() const { return slabs_.size(); }

 private:
  static void* Malloc(JSMallocState* s, size_t size);
  static void Free(JSMallocState* s, void* ptr);
  static void* Realloc(JSMallocState* s, void* ptr, size_t size);
  static size_t UsableSize(const void* ptr);

  void* Take(size_t size);  // a block with at least `size` usable bytes; nullptr when out
  void Give(void* ptr);     // returns a block from Take
  void* Carve(size_t cls);  // a fresh block of class `cls` from the current slab

  struct FreeBlock {
    FreeBlock* next;
  };
  FreeBlock* free_[kClasses + 1] = {};
  std::vector<void*> slabs_;
  char* bump_ = nullptr;
  char* bump_end_ = nullptr;
};

// One loaded module (its name is the absolute, lexically normal path).
struct ModuleRecord {
  std::string source;  // as written (TSX), for positions of import specifiers
  SourceMap map;       // generated -> source positions (empty for .js)
  bool mapped = false;
};

class View::Impl {
 public:
  Impl(Encoder encoder, ViewOptions options);
  ~Impl();

  Status Start();  // runtime, context, runtime library, module loader
  Status LoadEntry(const std::string& path, const std::string& entry);
  Result<std::vector<Node>> Render(const nlohmann::ordered_json& props);
  Result<std::vector<Node>> Act(HandlerId id, const nlohmann::ordered_json& args);
  ViewStats Stats() const;
  Result<nlohmann::ordered_json> SnapshotState(const std::string& root);
  Status RestoreState(const nlohmann::ordered_json& snapshot, const std::string& root);

  // ---- used by the module loader and host functions (module_loader.cpp, host.cpp)
  JSContext* ctx() const { return ctx_; }
  char* Normalize(const char* base, const char* name);
  JSModuleDef* LoadModule(const char* name);
  // Compiles a module from a file (transforming TSX) and records it. Sets pending_error_.
  JSModuleDef* CompileFile(const std::string& path);
  // Converts the pending JS exception into an Error: a recorded loader error wins, else the
  // exception's code/message/position. `fallback` is the code for plain script errors.
  Error TakeError(const char* fallback);
  Error ErrorFromValue(JSValueConst exc, const char* fallback);
  // "file:line:column" in the TSX source of the first frame of `stack` inside a loaded module.
  std::string PositionFromStack(const std::string& stack) const;
  // The link error for an imported name a module does not export, placed at the import.
  std::optional<Error> MissingExportError(const std::string& message) const;
  std::string MapPosition(const std::string& file, SourcePosition generated) const;

  Result<Node> ToNode(JSValueConst host_node);
  Result<Node> ConvertElement(JSValueConst host_array);
  Result<std::vector<Node>> ToNodes(JSValueConst array);
  JSValue ToJs(const nlohmann::ordered_json& value);
  // Props for a render: frozen JS values, sharing every part that equals `prev` (whose JS value is
  // `prev_js`) so unchanged props are the same objects as last time and components that receive
  // them are reused (runtime.js). JS_EXCEPTION when out of memory.
  JSValue PropsToJs(const nlohmann::ordered_json& next, const nlohmann::ordered_json* prev,
                    JSValueConst prev_js);
  // Both: builds the JS value from JSON directly (no text round trip), sharing parts equal to
  // `prev`, frozen on request. Deeper than 512 levels: throws "view.too_deep".
  JSValue BuildJs(const nlohmann::ordered_json& next, const nlohmann::ordered_json* prev,
                  JSValueConst prev_js, bool freeze, int depth);
  // Runs the runtime's render with `props`; after success, drops converted nodes and blocks this
  // render did not use; after failure, tells the runtime to reuse nothing from before.
  Result<std::vector<Node>> RenderWith(JSValueConst props);

  void Enter() const;  // starts the time budget of one call
  bool Interrupted() const;

  Encoder encoder_;
  ViewOptions options_;
  ChatToolsHookWithPrevious chat_tools_hook_;
  JsHeap heap_;  // outlives rt_ (freed in ~Impl's body)
  JSRuntime* rt_ = nullptr;
  JSContext* ctx_ = nullptr;
  JsValue api_;      // the runtime library's internal API object
  JsValue exports_;  // its public exports ("affordance" module)
  JsValue render_fn_, act_fn_, take_async_error_fn_, stats_fn_, invalidate_fn_;
  JsValue snapshot_fn_, restore_fn_;
  JsValue freeze_fn_;  // Object.freeze
  JsValue entry_fn_;
  JsValue last_props_;
  nlohmann::ordered_json last_props_json_;
  bool rendered_ = false;

  std::string cache_dir_;
  std::string lib_root_;
  std::map<std::string, ModuleRecord> modules_;
  mutable std::optional<Error> pending_error_;  // first loader error of the current load
  size_t transforms_from_cache_ = 0;
  size_t transforms_run_ = 0;

  std::vector<HandlerSignature> signatures_;

  // Everything below lives across renders and is swept after each successful one: what that
  // render did not use is dropped. `generation_` counts renders.
  uint64_t generation_ = 0;
  // Counts layout changes of asChatTools call sites: a kept conversion made before the block it
  // holds changed (ChatToolsSite::changed > made) is stale and converted again.
  uint64_t layout_clock_ = 0;
  // Host node arrays the runtime replayed from an earlier render are the same JS objects, so
  // their conversion is kept, keyed by the object (a reference is held so the key stays unique).
  struct ConvertedNode {
    JSValue array;
    Node node;
    std::vector<int64_t> deps;  // asChatTools trees and text rows inside it (dep_log_)
    uint64_t made = 0;          // layout_clock_ when converted
    uint64_t used = 0;
  };
  std::unordered_map<void*, ConvertedNode> converted_;
  // The children of the element converted last at each component path: the JS children array
  // (a reference held) and its conversion. A re-rendered element whose new children array holds
  // the same items (strictly equal: text by value, block ids by value, host nodes by identity)
  // takes the kept NodeList instead of converting every child again (a component that re-runs
  // and rebuilds a long list of unchanged rows).
  struct ConvertedChildren {
    JSValue array = JS_UNDEFINED;
    NodeList children;
    std::vector<int64_t> deps;  // asChatTools trees and text rows among them
    uint64_t made = 0;          // layout_clock_ when converted
    uint64_t used = 0;
  };
  std::unordered_map<std::string, ConvertedChildren> children_by_path_;
  size_t children_reused_ = 0;  // in the last render (stats)
  // True when arrays `a` and `b` have the same length and strictly equal items.
  bool SameItems(JSValueConst a, JSValueConst b);
  Result<NodeList> ChildrenAt(const std::string& path, JSValueConst array);
  // The last result of each asChatTools call site (component path + call number). When a call
  // gets the same host nodes (the same JS values: a replayed app) and options, layout is skipped
  // and the same block and the same frozen tools objects are returned. A site's block id stays
  // the same while the site lives: the id stands for the site's current layout, so a wrapper's
  // output holding it is still right after its app alone changed (runtime.js, reproject).
  struct ChatToolsSite {
    std::vector<JSValue> items;  // the host nodes it was called with (references held)
    nlohmann::ordered_json options;
    ChatTools last;  // the block and tools of its last layout
    JsValue tools_js;
    int64_t id = 0;             // its block id in host nodes
    uint64_t changed = 0;       // layout_clock_ when its block last changed
    std::vector<int64_t> deps;  // inner asChatTools trees (and text rows) among its items
    uint64_t made = 0;          // layout_clock_ when its items were converted
    uint64_t used = 0;          // called, or its block rendered, in this generation
  };
  std::unordered_map<std::string, ChatToolsSite> chat_tools_sites_;
  std::unordered_map<int64_t, ChatToolsSite*> blocks_;  // sites by block id
  int64_t next_block_ = 1;
  void FreeSite(ChatToolsSite& site);
  // Text rows: an element whose children are one array of strings (a list of rows a component
  // rebuilt) is not copied into a host children array; the runtime hands the array to
  // host.textRows, which compares its strings with the ones kept for that element path and
  // converts them only when they changed. The host node holds the id of the kept rows; an id is
  // never reused for other rows, so a kept conversion that holds it stays right.
  struct TextRows {
    std::vector<JSValue> items;  // the strings (references held)
    NodeList nodes;
    int64_t id = 0;
    uint64_t used = 0;
  };
  std::unordered_map<std::string, TextRows> text_rows_;  // by element path
  std::unordered_map<int64_t, TextRows*> text_rows_by_id_;
  int64_t next_rows_id_ = 1;
  // The id of the rows kept for `path` after comparing them with `array`, or 0 when an item is
  // not a string (the runtime then reconciles the array as usual). Sets a JS exception and
  // returns -1 when out of memory.
  int64_t TextRowsOf(const std::string& path, JSValueConst array);
  void FreeTextRows(TextRows& rows);

  // What a conversion depended on, logged while converting (ConvertedNode::deps and friends):
  // asChatTools block ids (positive) and text rows ids (negated).
  std::vector<int64_t> dep_log_;
  // Logs `id` and keeps it (and, for a block, what its layout holds) through this render's Sweep.
  void UseDep(int64_t id);
  void KeepDep(int64_t id);
  // False when a block among `ids` is gone or changed after a conversion made at `made`.
  bool DepsCurrent(const std::vector<int64_t>& ids, uint64_t made) const;
  void Sweep();

  mutable std::chrono::steady_clock::time_point deadline_;
  mutable bool timed_out_ = false;

  JSAtom atom_length_ = JS_ATOM_NULL;
};

// Installs the native bindings the runtime library reads (globalThis.__affordance_host).
void InstallHostBindings(View::Impl* impl);

}  // namespace affordance::view

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
  Result<std::vector<Node>> ToNodes(JSValueConst array);
  JSValue ToJs(const nlohmann::ordered_json& value);

  void Enter() const;  // starts the time budget of one call
  bool Interrupted() const;

  Encoder encoder_;
  ViewOptions options_;
  ChatToolsHook chat_tools_hook_;
  JSRuntime* rt_ = nullptr;
  JSContext* ctx_ = nullptr;
  JsValue api_;        // the runtime library's internal API object
  JsValue exports_;    // its public exports ("affordance" module)
  JsValue render_fn_, act_fn_, take_async_error_fn_, stats_fn_;
  JsValue entry_fn_;
  JsValue last_props_;
  bool rendered_ = false;

  std::string cache_dir_;
  std::string lib_root_;
  std::map<std::string, ModuleRecord> modules_;
  mutable std::optional<Error> pending_error_;  // first loader error of the current load
  size_t transforms_from_cache_ = 0;
  size_t transforms_run_ = 0;

  std::vector<HandlerSignature> signatures_;
  std::unordered_map<int64_t, std::shared_ptr<const void>> blocks_;
  int64_t next_block_ = 1;

  mutable std::chrono::steady_clock::time_point deadline_;
  mutable bool timed_out_ = false;

  JSAtom atom_length_ = JS_ATOM_NULL;
};

// Installs the native bindings the runtime library reads (globalThis.__affordance_host).
void InstallHostBindings(View::Impl* impl);

}  // namespace affordance::view

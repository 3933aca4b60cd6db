#include "view/view.h"

#include "view/view_impl.h"

#include "base/data_dir.h"
#include "base/json_limits.h"

#include <cstdlib>
#include <filesystem>

extern "C" {
extern const unsigned long affordance_view_runtime_bytecode_size;
extern const unsigned char affordance_view_runtime_bytecode[];
}

namespace affordance::view {
namespace {

namespace fs = std::filesystem;

char* NormalizeThunk(JSContext* ctx, const char* base, const char* name, void*) {
  return static_cast<View::Impl*>(JS_GetContextOpaque(ctx))->Normalize(base, name);
}

JSModuleDef* LoaderThunk(JSContext* ctx, const char* name, void*) {
  return static_cast<View::Impl*>(JS_GetContextOpaque(ctx))->LoadModule(name);
}

int InterruptThunk(JSRuntime*, void* opaque) {
  return static_cast<const View::Impl*>(opaque)->Interrupted() ? 1 : 0;
}

// The lib root when ViewOptions::lib_root is empty: $AFFORDANCE_VIEWS_LIB (an override), else the
// nearest ancestor folder of the entry named "views" that has a lib/ folder, else the views/lib
// shipped with the running program (installed or build tree, base/data_dir.h).
std::string DefaultLibRoot(const std::string& entry_path) {
  if (const char* env = std::getenv("AFFORDANCE_VIEWS_LIB"); env && *env) return env;
  for (fs::path p = fs::path(entry_path).parent_path(); !p.empty(); p = p.parent_path()) {
    std::error_code ec;
    if (p.filename() == "views" && fs::is_directory(p / "lib", ec)) return (p / "lib").string();
    if (p == p.parent_path()) break;
  }
  if (auto shipped = ShippedDataDir("views/lib")) return shipped->string();
  return {};
}

bool IsCode(const std::string& s) {
  if (s.empty() || s.find('.') == std::string::npos) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_')) return false;
  }
  return true;
}

}  // namespace

View::Impl::Impl(Encoder encoder, ViewOptions options)
    : encoder_(std::move(encoder)), options_(std::move(options)) {}

View::Impl::~Impl() {
  // Values first, then the context and runtime that own them.
  api_.Reset();
  exports_.Reset();
  render_fn_.Reset();
  act_fn_.Reset();
  take_async_error_fn_.Reset();
  stats_fn_.Reset();
  invalidate_fn_.Reset();
  snapshot_fn_.Reset();
  restore_fn_.Reset();
  freeze_fn_.Reset();
  entry_fn_.Reset();
  last_props_.Reset();
  if (ctx_) {
    for (auto& [ptr, entry] : converted_) JS_FreeValue(ctx_, entry.array);
    converted_.clear();
    for (auto& [path, entry] : children_by_path_) JS_FreeValue(ctx_, entry.array);
    children_by_path_.clear();
    for (auto& [key, site] : chat_tools_sites_) FreeSite(site);
    chat_tools_sites_.clear();
    for (auto& [path, rows] : text_rows_) FreeTextRows(rows);
    text_rows_.clear();
    JS_FreeAtom(ctx_, atom_length_);
    JS_FreeContext(ctx_);
  }
  if (rt_) JS_FreeRuntime(rt_);
}

void View::Impl::Enter() const {
  timed_out_ = false;
  pending_error_.reset();
  deadline_ = std::chrono::steady_clock::now() + options_.time_budget;
  JS_UpdateStackTop(rt_);
}

bool View::Impl::Interrupted() const {
  if (std::chrono::steady_clock::now() > deadline_) {
    timed_out_ = true;
    return true;
  }
  return false;
}

Status View::Impl::Start() {
  cache_dir_ = ResolveCacheDir(options_.cache_dir);
  rt_ = JS_NewRuntime2(&JsHeap::kFunctions, &heap_);
  if (!rt_) return MakeError("view.memory", "cannot create a JavaScript runtime");
  JS_SetMemoryLimit(rt_, options_.memory_limit);
  JS_SetMaxStackSize(rt_, options_.stack_size);
  JS_SetInterruptHandler(rt_, InterruptThunk, this);
  JS_SetModuleLoaderFunc(rt_, NormalizeThunk, LoaderThunk, nullptr);
  ctx_ = JS_NewContext(rt_);
  if (!ctx_) return MakeError("view.memory", "cannot create a JavaScript context");
  JS_SetContextOpaque(ctx_, this);
  atom_length_ = JS_NewAtom(ctx_, "length");

  Enter();
  InstallHostBindings(this);
  JsValue fn(ctx_, JS_ReadObject(ctx_, affordance_view_runtime_bytecode,
                                 affordance_view_runtime_bytecode_size, JS_READ_OBJ_BYTECODE));
  if (fn.IsException()) return TakeError("view.runtime");
  api_ = JsValue(ctx_, JS_EvalFunction(ctx_, fn.Release()));
  if (api_.IsException()) return TakeError("view.runtime");
  exports_ = api_.Get("exports");
  render_fn_ = api_.Get("render");
  act_fn_ = api_.Get("act");
  take_async_error_fn_ = api_.Get("takeAsyncError");
  stats_fn_ = api_.Get("stats");
  invalidate_fn_ = api_.Get("invalidate");
  snapshot_fn_ = api_.Get("snapshot");
  restore_fn_ = api_.Get("restore");
  JsValue global(ctx_, JS_GetGlobalObject(ctx_));
  freeze_fn_ = global.Get("Object").Get("freeze");
  if (!options_.reuse_components) {
    JsValue off(ctx_, JS_Call(ctx_, api_.Get("disableReuse").get(), JS_UNDEFINED, 0, nullptr));
    if (off.IsException()) return TakeError("view.runtime");
  }
  return {};
}

Status View::Impl::LoadEntry(const std::string& path, const std::string& entry) {
  std::error_code ec;
  fs::path abs = fs::absolute(path, ec).lexically_normal();
  if (ec || !fs::is_regular_file(abs, ec)) {
    return MakeError("view.io", "view file not found", path);
  }
  std::string file = abs.string();
  lib_root_ = options_.lib_root.empty() ? DefaultLibRoot(file) : options_.lib_root;

  Enter();
  pending_error_.reset();
  JSModuleDef* m = CompileFile(file);
  if (!m) return TakeError("view.syntax");
  JsValue module_fn(ctx_, JS_MKPTR(JS_TAG_MODULE, m));
  JS_DupValue(ctx_, module_fn.get());
  JsValue promise(ctx_, JS_EvalFunction(ctx_, module_fn.Release()));
  if (promise.IsException()) return TakeError("view.evaluate");
  for (;;) {
    JSContext* job_ctx = nullptr;
    int r = JS_ExecutePendingJob(rt_, &job_ctx);
    if (r < 0) return TakeError("view.evaluate");
    if (r == 0) break;
  }
  if (JS_PromiseState(ctx_, promise.get()) == JS_PROMISE_REJECTED) {
    JsValue reason(ctx_, JS_PromiseResult(ctx_, promise.get()));
    if (pending_error_) return *pending_error_;
    return ErrorFromValue(reason.get(), "view.evaluate");
  }
  if (JS_PromiseState(ctx_, promise.get()) == JS_PROMISE_PENDING) {
    return MakeError("view.evaluate", "module evaluation did not finish (top-level await?)", file);
  }

  JsValue ns(ctx_, JS_GetModuleNamespace(ctx_, m));
  if (ns.IsException()) return TakeError("view.evaluate");
  JsValue candidate = entry.empty() ? ns.Get("default") : ns.Get(entry.c_str());
  if (!JS_IsFunction(ctx_, candidate.get()) && !entry.empty()) {
    JsValue def = ns.Get("default");
    if (JS_IsFunction(ctx_, def.get()) && def.Get("name").ToString() == entry) {
      candidate = std::move(def);
    }
  }
  if (!JS_IsFunction(ctx_, candidate.get())) {
    std::string names;
    JSPropertyEnum* tab = nullptr;
    uint32_t len = 0;
    if (JS_GetOwnPropertyNames(ctx_, &tab, &len, ns.get(), JS_GPN_STRING_MASK) == 0) {
      for (uint32_t i = 0; i < len; ++i) {
        const char* s = JS_AtomToCString(ctx_, tab[i].atom);
        names += (names.empty() ? "" : ", ") + std::string(s ? s : "?");
        JS_FreeCString(ctx_, s);
        JS_FreeAtom(ctx_, tab[i].atom);
      }
      js_free(ctx_, tab);
    }
    return MakeError("view.missing_export",
                     "the view exports no component " +
                         (entry.empty() ? std::string("as default") : "named \"" + entry + "\"") +
                         " (exports: " + (names.empty() ? "none" : names) + ")",
                     file + ":1:1");
  }
  entry_fn_ = std::move(candidate);
  JS_RunGC(rt_);
  return {};
}

Error View::Impl::TakeError(const char* fallback) {
  JsValue exc(ctx_, JS_GetException(ctx_));
  if (pending_error_) {
    Error e = *pending_error_;
    pending_error_.reset();
    return e;
  }
  return ErrorFromValue(exc.get(), fallback);
}

Error View::Impl::ErrorFromValue(JSValueConst exc, const char* fallback) {
  if (timed_out_) {
    return MakeError("view.timeout", "the view ran past its time budget of " +
                                         std::to_string(options_.time_budget.count()) +
                                         " ms and was stopped");
  }
  JsValue value(ctx_, JS_DupValue(ctx_, exc));
  if (!JS_IsObject(exc)) {
    if (JS_IsNull(exc) || JS_IsUndefined(exc)) {
      // QuickJS throws no object when it cannot even allocate the error.
      JS_RunGC(rt_);
      return MakeError("view.memory", "the view ran out of memory (limit " +
                                          std::to_string(options_.memory_limit) + " bytes)");
    }
    return MakeError(fallback, "uncaught value thrown: " + value.ToString());
  }
  std::string name = value.Get("name").ToString();
  std::string message = value.Get("message").ToString();
  std::string stack = value.Get("stack").ToString();
  std::string code = value.Get("code").ToString();
  if (name == "InternalError" && message == "out of memory") {
    JS_RunGC(rt_);
    return MakeError(
        "view.memory",
        "the view ran out of memory (limit " + std::to_string(options_.memory_limit) + " bytes)",
        PositionFromStack(stack));
  }
  if (name == "InternalError" && message == "stack overflow") {
    return MakeError("view.stack_overflow",
                     "the view recursed too deeply (stack limit " +
                         std::to_string(options_.stack_size) + " bytes)",
                     PositionFromStack(stack));
  }
  if (name == "SyntaxError") {
    if (std::optional<Error> missing = MissingExportError(message)) return *missing;
  }
  if (!IsCode(code)) code = fallback;
  std::string text = name.empty() || name == "Error" ? message : name + ": " + message;
  return MakeError(code, text, PositionFromStack(stack));
}

Result<std::vector<Node>> View::Impl::Render(const nlohmann::ordered_json& props) {
  if (!props.is_object()) {
    return MakeError("view.invalid_props", "render props must be a JSON object");
  }
  Enter();
  JsValue js_props(ctx_,
                   PropsToJs(props, rendered_ ? &last_props_json_ : nullptr, last_props_.get()));
  if (js_props.IsException()) return TakeError("view.memory");
  Result<std::vector<Node>> nodes = RenderWith(js_props.get());
  if (!nodes.ok()) return nodes;
  last_props_ = std::move(js_props);
  last_props_json_ = props;
  rendered_ = true;
  return nodes;
}

Result<std::vector<Node>> View::Impl::RenderWith(JSValueConst props) {
  ++generation_;
  dep_log_.clear();
  children_reused_ = 0;
  JSValue args[2] = {entry_fn_.get(), props};
  JsValue tree(ctx_, JS_Call(ctx_, render_fn_.get(), JS_UNDEFINED, 2, args));
  Result<std::vector<Node>> nodes = tree.IsException()
                                        ? Result<std::vector<Node>>(TakeError("view.render"))
                                        : ToNodes(tree.get());
  if (!nodes.ok()) {
    Enter();  // a fresh budget: the render may have ended by running out of it
    JsValue done(ctx_, JS_Call(ctx_, invalidate_fn_.get(), JS_UNDEFINED, 0, nullptr));
    if (done.IsException()) JS_FreeValue(ctx_, JS_GetException(ctx_));
    return nodes;
  }
  Sweep();
  return nodes;
}

namespace {
// Drops the entries of `map` that the render of `generation` did not use, after `drop(entry)`.
template <typename Map, typename Drop>
void DropUnused(Map& map, uint64_t generation, Drop drop) {
  for (auto it = map.begin(); it != map.end();) {
    if (it->second.used == generation) {
      ++it;
    } else {
      drop(it->second);
      it = map.erase(it);
    }
  }
}
}  // namespace

void View::Impl::Sweep() {
  DropUnused(converted_, generation_, [&](ConvertedNode& e) { JS_FreeValue(ctx_, e.array); });
  DropUnused(children_by_path_, generation_,
             [&](ConvertedChildren& e) { JS_FreeValue(ctx_, e.array); });
  DropUnused(text_rows_, generation_, [&](TextRows& rows) {
    text_rows_by_id_.erase(rows.id);
    FreeTextRows(rows);
  });
  DropUnused(chat_tools_sites_, generation_, [&](ChatToolsSite& site) {
    blocks_.erase(site.id);
    FreeSite(site);
  });
}

void View::Impl::FreeSite(ChatToolsSite& site) {
  for (JSValue v : site.items) JS_FreeValue(ctx_, v);
  site.items.clear();
  site.tools_js.Reset();
}

Result<std::vector<Node>> View::Impl::Act(HandlerId id, const nlohmann::ordered_json& args) {
  if (!rendered_) return MakeError("view.not_rendered", "act() before the first render");
  Enter();
  JsValue js_args(ctx_, ToJs(args));
  if (js_args.IsException()) return TakeError("view.memory");
  JSValue call_args[2] = {JS_NewInt64(ctx_, static_cast<int64_t>(id)), js_args.get()};
  JsValue ran(ctx_, JS_Call(ctx_, act_fn_.get(), JS_UNDEFINED, 2, call_args));
  if (ran.IsException()) return TakeError("view.handler");
  if (!JS_ToBool(ctx_, ran.get())) {
    return MakeError("view.unknown_handler", "handler " + std::to_string(id) +
                                                 " is not mounted (never rendered, or "
                                                 "its element was unmounted)");
  }
  for (;;) {
    JSContext* job_ctx = nullptr;
    int r = JS_ExecutePendingJob(rt_, &job_ctx);
    if (r < 0) return TakeError("view.handler");
    if (r == 0) break;
  }
  JsValue async(ctx_, JS_Call(ctx_, take_async_error_fn_.get(), JS_UNDEFINED, 0, nullptr));
  if (async.IsException()) return TakeError("view.handler");

  return RenderWith(last_props_.get());
}

// ---- snapshots (docs/RUNTIME.md, "Snapshots")

constexpr int kSnapshotVersion = 1;

Result<nlohmann::ordered_json> View::Impl::SnapshotState(const std::string& root) {
  if (!rendered_) return MakeError("view.not_rendered", "a snapshot needs a render first");
  Enter();
  JsValue arg(ctx_, JS_NewStringLen(ctx_, root.data(), root.size()));
  JSValue args[1] = {arg.get()};
  JsValue text(ctx_, JS_Call(ctx_, snapshot_fn_.get(), JS_UNDEFINED, 1, args));
  if (text.IsException()) return TakeError("view.snapshot_unserializable");
  size_t len = 0;
  const char* chars = JS_ToCStringLen(ctx_, &len, text.get());
  if (!chars) return TakeError("view.memory");
  auto components = nlohmann::ordered_json::parse(std::string_view(chars, len), nullptr, false);
  JS_FreeCString(ctx_, chars);
  if (components.is_discarded()) {
    return MakeError("view.snapshot_unserializable", "the hook state did not serialize as JSON");
  }
  return nlohmann::ordered_json{
      {"version", kSnapshotVersion}, {"root", root}, {"components", std::move(components)}};
}

namespace {

// Checks the shape of a snapshot document; returns its components object.
Result<const nlohmann::ordered_json*> SnapshotComponents(const nlohmann::ordered_json& doc) {
  const auto invalid = [](const std::string& what) {
    return MakeError("view.invalid_snapshot", "not a view state snapshot: " + what);
  };
  if (!doc.is_object()) return invalid("expected a JSON object");
  auto version = doc.find("version");
  if (version == doc.end() || !version->is_number_integer())
    return invalid("no \"version\" number");
  if (*version != kSnapshotVersion) {
    return MakeError("view.snapshot_version", "the snapshot has version " + version->dump() +
                                                  "; this runtime reads version " +
                                                  std::to_string(kSnapshotVersion));
  }
  auto components = doc.find("components");
  if (components == doc.end() || !components->is_object()) {
    return invalid("no \"components\" object");
  }
  for (const auto& [path, entry] : components->items()) {
    const std::string where = "components[\"" + path + "\"]";
    if (!entry.is_object() || !entry.contains("component") || !entry["component"].is_string()) {
      return invalid(where + " needs a \"component\" name");
    }
    const auto& hooks = entry.contains("hooks") ? entry["hooks"] : nlohmann::ordered_json();
    const auto& state = entry.contains("state") ? entry["state"] : nlohmann::ordered_json();
    if (!hooks.is_array() || !state.is_array()) {
      return invalid(where + " needs \"hooks\" and \"state\" arrays");
    }
    for (const auto& h : hooks) {
      if (!h.is_string()) return invalid(where + ".hooks must hold hook names");
    }
    for (const auto& v : state) {
      if (!v.is_object() || v.size() > 1 || (v.size() == 1 && !v.contains("value"))) {
        return invalid(where + ".state must hold {\"value\": ...} or {} entries");
      }
    }
  }
  return &*components;
}

}  // namespace

Status View::Impl::RestoreState(const nlohmann::ordered_json& snapshot, const std::string& root) {
  // A snapshot is read from a file or a store; saved values nest at most 64 levels (runtime.js),
  // so anything deeper is not one, and is refused before the recursive checks and dump below.
  if (JsonValueDepth(snapshot) > kMaxJsonDepth) {
    return MakeError("view.too_deep", "the snapshot nests deeper than " +
                                          std::to_string(kMaxJsonDepth) +
                                          " levels of arrays and objects");
  }
  auto components = SnapshotComponents(snapshot);
  if (!components.ok()) return components.error();
  if (rendered_) {
    return MakeError("view.snapshot_after_render",
                     "restore a snapshot before the view's first render (load a fresh view)");
  }
  Enter();
  const std::string text = (*components)->dump();
  JsValue root_js(ctx_, JS_NewStringLen(ctx_, root.data(), root.size()));
  JsValue text_js(ctx_, JS_NewStringLen(ctx_, text.data(), text.size()));
  JSValue args[2] = {root_js.get(), text_js.get()};
  JsValue done(ctx_, JS_Call(ctx_, restore_fn_.get(), JS_UNDEFINED, 2, args));
  if (done.IsException()) return TakeError("view.invalid_snapshot");
  return {};
}

ViewStats View::Impl::Stats() const {
  ViewStats s;
  Enter();
  JsValue counts(ctx_, JS_Call(ctx_, stats_fn_.get(), JS_UNDEFINED, 0, nullptr));
  if (!counts.IsException()) {
    int64_t v[4] = {0, 0, 0, 0};
    for (uint32_t i = 0; i < 4; ++i) JS_ToInt64(ctx_, &v[i], counts.At(i).get());
    s.mounted_handlers = static_cast<size_t>(v[0]);
    s.mounted_components = static_cast<size_t>(v[1]);
    s.components_called = static_cast<size_t>(v[2]);
    s.components_replayed = static_cast<size_t>(v[3]);
  } else {
    JS_FreeValue(ctx_, JS_GetException(ctx_));
  }
  JSMemoryUsage usage;
  JS_RunGC(rt_);
  JS_ComputeMemoryUsage(rt_, &usage);
  s.js_memory_bytes = static_cast<size_t>(usage.memory_used_size);
  s.modules = modules_.size();
  s.transforms_from_cache = transforms_from_cache_;
  s.transforms_run = transforms_run_;
  s.converted_nodes_kept = converted_.size();
  s.children_reused = children_reused_;
  s.live_blocks = blocks_.size();
  return s;
}

// ---- View

View::View(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
View::~View() = default;

Result<std::unique_ptr<View>> View::Load(const std::string& path, const std::string& entry,
                                         Encoder encoder, ViewOptions options) {
  auto impl = std::make_unique<Impl>(std::move(encoder), std::move(options));
  if (Status s = impl->Start(); !s.ok()) return s.error();
  if (Status s = impl->LoadEntry(path, entry); !s.ok()) return s.error();
  return std::unique_ptr<View>(new View(std::move(impl)));
}

Result<std::vector<Node>> View::Render(const nlohmann::ordered_json& props) {
  return impl_->Render(props);
}

Result<std::vector<Node>> View::Act(HandlerId id, const nlohmann::ordered_json& args) {
  return impl_->Act(id, args);
}

Result<nlohmann::ordered_json> View::SnapshotState(const std::string& root) const {
  return impl_->SnapshotState(root);
}

Status View::RestoreState(const nlohmann::ordered_json& snapshot, const std::string& root) {
  return impl_->RestoreState(snapshot, root);
}

void View::SetChatToolsHook(ChatToolsHook hook) {
  if (!hook) {
    SetChatToolsHook(ChatToolsHookWithPrevious());
    return;
  }
  SetChatToolsHook(ChatToolsHookWithPrevious(
      [hook = std::move(hook)](const std::vector<Node>& children,
                               const nlohmann::ordered_json& options,
                               const ChatTools*) { return hook(children, options); }));
}

void View::SetChatToolsHook(ChatToolsHookWithPrevious hook) {
  impl_->chat_tools_hook_ = std::move(hook);
  // Results of the previous hook: dropped, with every memo that holds their block ids.
  for (auto& [key, site] : impl_->chat_tools_sites_) impl_->FreeSite(site);
  impl_->chat_tools_sites_.clear();
  impl_->blocks_.clear();
  if (impl_->ctx_ && impl_->rendered_) {
    impl_->Enter();
    JsValue done(impl_->ctx_,
                 JS_Call(impl_->ctx_, impl_->invalidate_fn_.get(), JS_UNDEFINED, 0, nullptr));
    if (done.IsException()) JS_FreeValue(impl_->ctx_, JS_GetException(impl_->ctx_));
  }
}

const Encoder& View::encoder() const { return impl_->encoder_; }

ViewStats View::Stats() const { return impl_->Stats(); }

}  // namespace affordance::view

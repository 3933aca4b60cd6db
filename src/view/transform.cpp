#include "view/transform.h"

#include "view/js_value.h"

#include <quickjs.h>
#include <xxhash.h>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>

extern "C" {
extern const unsigned long affordance_sucrase_bytecode_size;
extern const unsigned char affordance_sucrase_bytecode[];
}

namespace affordance::view {
namespace {

constexpr std::string_view kIdentity =
    "sucrase " AFFORDANCE_SUCRASE_VERSION
    " transforms=typescript,jsx jsxRuntime=classic jsxPragma=h jsxFragmentPragma=Fragment "
    "disableESTransforms production sourcemap cache-format=1";

constexpr char kTransformFunction[] = R"((function (source, path) {
  const r = Sucrase.transform(source, {
    transforms: ["typescript", "jsx"], jsxRuntime: "classic", jsxPragma: "h",
    jsxFragmentPragma: "Fragment", disableESTransforms: true, production: true,
    filePath: path, sourceMapOptions: { compiledFilename: path },
  });
  return [r.code, r.sourceMap.mappings];
}))";

// One sucrase instance per process, created on the first cache miss (evaluating the bytecode
// costs milliseconds, so Views never carry it). Calls are serialized.
class Transformer {
 public:
  static Transformer& Instance() {
    static Transformer instance;  // lives until exit
    return instance;
  }

  ~Transformer() { Release(); }

  Result<TransformedModule> Run(std::string_view source, const std::string& path) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!ready_) {
      Status s = Init();
      if (!s.ok()) return s.error();
    }
    JS_UpdateStackTop(rt_);
    JSValue args[2] = {JS_NewStringLen(ctx_, source.data(), source.size()),
                       JS_NewString(ctx_, path.c_str())};
    JsValue result(ctx_, JS_Call(ctx_, fn_, JS_UNDEFINED, 2, args));
    JS_FreeValue(ctx_, args[0]);
    JS_FreeValue(ctx_, args[1]);
    if (result.IsException()) {
      JsValue exc(ctx_, JS_GetException(ctx_));
      std::string message = exc.Get("message").ToString();
      JsValue loc = exc.Get("loc");
      std::string detail = path;
      if (loc.IsObject()) {
        detail += ":" + loc.Get("line").ToString() + ":" + loc.Get("column").ToString();
        // sucrase appends " (line:column)" to the message; the detail carries it instead.
        size_t paren = message.rfind(" (");
        if (paren != std::string::npos) message.erase(paren);
      }
      if (message.empty()) message = exc.ToString();
      return MakeError("view.syntax", "syntax error: " + message, detail);
    }
    TransformedModule out;
    out.code = result.At(0).ToString();
    out.mappings = result.At(1).ToString();
    return out;
  }

 private:
  void Release() {
    if (ctx_) {
      JS_FreeValue(ctx_, fn_);
      JS_FreeContext(ctx_);
    }
    if (rt_) JS_FreeRuntime(rt_);
    ctx_ = nullptr;
    rt_ = nullptr;
    fn_ = JS_UNDEFINED;
  }

  Status Init() {
    Release();  // a previous failed start
    rt_ = JS_NewRuntime();
    ctx_ = JS_NewContext(rt_);
    JS_SetMaxStackSize(rt_, 4u << 20);
    JsValue fn(ctx_, JS_ReadObject(ctx_, affordance_sucrase_bytecode,
                                   affordance_sucrase_bytecode_size, JS_READ_OBJ_BYTECODE));
    if (fn.IsException()) return MakeError("view.transformer", "cannot load the TSX transformer");
    JsValue r(ctx_, JS_EvalFunction(ctx_, fn.Release()));
    if (r.IsException()) return MakeError("view.transformer", "cannot start the TSX transformer");
    fn_ = JS_Eval(ctx_, kTransformFunction, sizeof(kTransformFunction) - 1, "<transform>",
                  JS_EVAL_TYPE_GLOBAL);
    if (JS_IsException(fn_))
      return MakeError("view.transformer", "cannot start the TSX transformer");
    ready_ = true;
    return {};
  }

  std::mutex mu_;
  bool ready_ = false;
  JSRuntime* rt_ = nullptr;
  JSContext* ctx_ = nullptr;
  JSValue fn_ = JS_UNDEFINED;
};

std::string CacheKey(std::string_view source) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_128bits_reset(state);
  XXH3_128bits_update(state, kIdentity.data(), kIdentity.size());
  XXH3_128bits_update(state, "\0", 1);
  XXH3_128bits_update(state, source.data(), source.size());
  XXH128_hash_t h = XXH3_128bits_digest(state);
  XXH3_freeState(state);
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return buf;
}

// Entry format: "affordance-tsx 1\n<code size>\n<code><mappings>".
bool ReadEntry(const std::string& file, TransformedModule* out) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  constexpr std::string_view kMagic = "affordance-tsx 1\n";
  if (data.compare(0, kMagic.size(), kMagic) != 0) return false;
  size_t nl = data.find('\n', kMagic.size());
  if (nl == std::string::npos) return false;
  char* end = nullptr;
  unsigned long long size = std::strtoull(data.c_str() + kMagic.size(), &end, 10);
  if (end != data.c_str() + nl || size > data.size() - nl - 1) return false;
  out->code = data.substr(nl + 1, size);
  out->mappings = data.substr(nl + 1 + size);
  return true;
}

void WriteEntry(const std::string& dir, const std::string& file, const TransformedModule& m) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return;  // the cache is an optimisation: an unwritable folder only costs time
  std::string tmp = file + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << "affordance-tsx 1\n" << m.code.size() << "\n" << m.code << m.mappings;
    if (!out) {
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  std::filesystem::rename(tmp, file, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

}  // namespace

std::string_view TransformerIdentity() { return kIdentity; }

std::string ResolveCacheDir(const std::string& configured) {
  if (configured == "-") return {};
  if (!configured.empty()) return configured;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    return std::string(xdg) + "/affordance/tsx";
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return std::string(home) + "/.cache/affordance/tsx";
  }
  return {};
}

Result<TransformedModule> TransformTsx(std::string_view source, const std::string& file_path,
                                       const std::string& cache_dir) {
  std::string entry_file;
  if (!cache_dir.empty()) {
    std::string key = CacheKey(source);
    entry_file = cache_dir + "/" + key.substr(0, 2) + "/" + key;
    TransformedModule cached;
    if (ReadEntry(entry_file, &cached)) {
      cached.from_cache = true;
      return cached;
    }
  }
  Result<TransformedModule> result = Transformer::Instance().Run(source, file_path);
  if (result.ok() && !entry_file.empty()) {
    WriteEntry(entry_file.substr(0, entry_file.rfind('/')), entry_file, *result);
  }
  return result;
}

}  // namespace affordance::view

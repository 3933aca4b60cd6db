// Module resolution and loading for a View, and the mapping of JavaScript error positions back
// to TSX source positions.
//
// Specifiers: "./x" and "../x" resolve against the importing file's folder; "@lib/x" resolves
// under the lib root (views/lib); "affordance" is the built-in runtime module. A specifier
// without an extension tries .tsx, .ts, .js, then /index.tsx, /index.ts, /index.js.
#include "view/view_impl.h"

#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace affordance::view {
namespace {

namespace fs = std::filesystem;

constexpr const char* kRuntimeModule = "affordance";
constexpr const char* kRuntimeExports[] = {
    "h",           "Fragment",    "useState",  "useReducer",    "useRef",
    "useMemo",     "useCallback", "useEffect", "createContext", "useContext",
    "asChatTools", "modelName",   "hasToken",  "tokenId"};

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

bool IsFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

std::optional<std::string> ResolveFile(const fs::path& base) {
  if (IsFile(base)) return base.lexically_normal().string();
  for (const char* ext : {".tsx", ".ts", ".js"}) {
    fs::path p = base;
    p += ext;
    if (IsFile(p)) return p.lexically_normal().string();
  }
  for (const char* index : {"index.tsx", "index.ts", "index.js"}) {
    fs::path p = base / index;
    if (IsFile(p)) return p.lexically_normal().string();
  }
  return std::nullopt;
}

bool NeedsTransform(const std::string& path) {
  auto ends = [&](const char* ext) {
    size_t n = std::strlen(ext);
    return path.size() >= n && path.compare(path.size() - n, n, ext) == 0;
  };
  return ends(".tsx") || ends(".ts") || ends(".jsx");
}

// 1-based line:column of byte `offset` in `text`.
SourcePosition PositionOf(const std::string& text, size_t offset) {
  SourcePosition pos{1, 1};
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++pos.line;
      pos.column = 1;
    } else {
      ++pos.column;
    }
  }
  return pos;
}

int ModuleInit(JSContext* ctx, JSModuleDef* m) {
  auto* impl = static_cast<View::Impl*>(JS_GetContextOpaque(ctx));
  for (const char* name : kRuntimeExports) {
    JsValue v = impl->exports_.Get(name);
    if (JS_SetModuleExport(ctx, m, name, v.Release()) < 0) return -1;
  }
  return 0;
}

}  // namespace

char* View::Impl::Normalize(const char* base, const char* name) {
  std::string spec = name;
  if (spec == kRuntimeModule) return js_strdup(ctx_, kRuntimeModule);
  std::optional<std::string> resolved;
  std::string why;
  if (spec.rfind("./", 0) == 0 || spec.rfind("../", 0) == 0) {
    resolved = ResolveFile(fs::path(base).parent_path() / spec);
    why = "no file matches it (tried .tsx, .ts, .js and index files)";
  } else if (spec.rfind("@lib/", 0) == 0 || spec.rfind("@adapters/", 0) == 0) {
    // @adapters/ is the chat-format wrappers folder beside the lib root (views/adapters).
    const bool lib = spec[1] == 'l';
    if (lib_root_.empty()) {
      why = "no views/lib folder is known (set ViewOptions::lib_root or $AFFORDANCE_VIEWS_LIB)";
    } else {
      const fs::path root =
          lib ? fs::path(lib_root_) : (fs::path(lib_root_) / ".." / "adapters").lexically_normal();
      resolved = ResolveFile(root / spec.substr(lib ? 5 : 10));
      why = "no file under " + root.string() + " matches it";
    }
  } else {
    why =
        "views may import \"./relative\" files, \"@lib/...\", \"@adapters/...\" and "
        "\"affordance\" only";
  }
  if (resolved) return js_strdup(ctx_, resolved->c_str());

  std::string detail = base;
  auto it = modules_.find(base);
  if (it != modules_.end()) {
    const std::string& src = it->second.source;
    for (char quote : {'"', '\''}) {
      size_t at = src.find(std::string(1, quote) + spec + quote);
      if (at != std::string::npos) {
        SourcePosition p = PositionOf(src, at);
        detail += ":" + std::to_string(p.line) + ":" + std::to_string(p.column);
        break;
      }
    }
  }
  if (!pending_error_) {
    pending_error_ =
        MakeError("view.missing_import", "cannot import \"" + spec + "\": " + why, detail);
  }
  JS_ThrowReferenceError(ctx_, "cannot import \"%s\"", name);
  return nullptr;
}

JSModuleDef* View::Impl::LoadModule(const char* name) {
  if (std::strcmp(name, kRuntimeModule) == 0) {
    JSModuleDef* m = JS_NewCModule(ctx_, kRuntimeModule, ModuleInit);
    if (!m) return nullptr;
    for (const char* e : kRuntimeExports) JS_AddModuleExport(ctx_, m, e);
    return m;
  }
  return CompileFile(name);
}

JSModuleDef* View::Impl::CompileFile(const std::string& path) {
  ModuleRecord record;
  if (!ReadFile(path, &record.source)) {
    if (!pending_error_) pending_error_ = MakeError("view.io", "cannot read view file", path);
    JS_ThrowReferenceError(ctx_, "cannot read %s", path.c_str());
    return nullptr;
  }
  std::string code;
  if (NeedsTransform(path)) {
    Result<TransformedModule> t = TransformTsx(record.source, path, cache_dir_);
    if (!t.ok()) {
      if (!pending_error_) pending_error_ = t.error();
      JS_ThrowSyntaxError(ctx_, "%s", t.error().message.c_str());
      return nullptr;
    }
    (t->from_cache ? transforms_from_cache_ : transforms_run_)++;
    code = std::move(t->code);
    record.map = SourceMap::Decode(t->mappings);
    record.mapped = true;
  } else {
    code = record.source;
  }
  modules_[path] = std::move(record);
  JSValue fn = JS_Eval(ctx_, code.c_str(), code.size(), path.c_str(),
                       JS_EVAL_TYPE_MODULE | JS_EVAL_FLAG_COMPILE_ONLY);
  if (JS_IsException(fn)) {
    if (!pending_error_) {
      JsValue exc(ctx_, JS_GetException(ctx_));
      Error e = ErrorFromValue(exc.get(), "view.syntax");
      e.code = "view.syntax";
      pending_error_ = e;
      JS_Throw(ctx_, exc.Release());
    }
    return nullptr;
  }
  auto* m = static_cast<JSModuleDef*>(JS_VALUE_GET_PTR(fn));
  JS_FreeValue(ctx_, fn);
  return m;
}

std::optional<Error> View::Impl::MissingExportError(const std::string& message) const {
  // QuickJS's link error: "Could not find export 'NAME' in module 'PATH'".
  constexpr std::string_view kPrefix = "Could not find export '";
  if (message.rfind(kPrefix, 0) != 0) return std::nullopt;
  size_t end = message.find('\'', kPrefix.size());
  if (end == std::string::npos) return std::nullopt;
  std::string name = message.substr(kPrefix.size(), end - kPrefix.size());
  size_t mod = message.find(" in module '", end);
  std::string target = mod == std::string::npos ? "" : message.substr(mod + 12);
  if (!target.empty() && target.back() == '\'') target.pop_back();
  Error e = MakeError("view.missing_export", "\"" + target + "\" does not export \"" + name + "\"");
  // Find the import statement that names it: `import { ..., NAME, ... } from "..."`.
  auto word_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
  };
  for (const auto& [file, record] : modules_) {
    if (file == target) continue;
    const std::string& src = record.source;
    for (size_t at = src.find("import"); at != std::string::npos; at = src.find("import", at + 6)) {
      if (at > 0 && src[at - 1] != '\n') continue;
      size_t stmt_end = src.find(" from ", at);
      if (stmt_end == std::string::npos) break;
      for (size_t n = src.find(name, at); n != std::string::npos && n < stmt_end;
           n = src.find(name, n + 1)) {
        bool whole = (n == 0 || !word_char(src[n - 1])) &&
                     (n + name.size() >= src.size() || !word_char(src[n + name.size()]));
        if (whole) {
          SourcePosition p = PositionOf(src, n);
          e.detail = file + ":" + std::to_string(p.line) + ":" + std::to_string(p.column);
          return e;
        }
      }
    }
  }
  return e;
}

std::string View::Impl::MapPosition(const std::string& file, SourcePosition generated) const {
  auto it = modules_.find(file);
  SourcePosition p = generated;
  if (it != modules_.end() && it->second.mapped) p = it->second.map.Original(generated);
  return file + ":" + std::to_string(p.line) + ":" + std::to_string(p.column);
}

std::string View::Impl::PositionFromStack(const std::string& stack) const {
  size_t start = 0;
  while (start < stack.size()) {
    size_t end = stack.find('\n', start);
    if (end == std::string::npos) end = stack.size();
    std::string line = stack.substr(start, end - start);
    start = end + 1;
    // "    at name (file:line:col)" or "    at file:line:col"
    if (!line.empty() && line.back() == ')') line.pop_back();
    size_t c2 = line.rfind(':');
    if (c2 == std::string::npos) continue;
    size_t c1 = line.rfind(':', c2 - 1);
    if (c1 == std::string::npos) continue;
    size_t open = line.rfind(" (", c1);
    size_t file_start = open != std::string::npos ? open + 2 : line.find("at ") + 3;
    if (file_start > c1) continue;
    std::string file = line.substr(file_start, c1 - file_start);
    if (modules_.find(file) == modules_.end()) continue;
    int l = std::atoi(line.c_str() + c1 + 1);
    int c = std::atoi(line.c_str() + c2 + 1);
    return MapPosition(file, {l, c});
  }
  return {};
}

}  // namespace affordance::view

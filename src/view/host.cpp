// The native side of the runtime library: bindings it calls (signature table, asChatTools hook,
// encoder queries) and the conversion of its host nodes into view::Node.
#include "text/tokenizer.h"
#include "view/signature.h"
#include "view/view_impl.h"

#include <cmath>
#include <cstring>

namespace affordance::view {
namespace {

View::Impl* ImplOf(JSContext* ctx) { return static_cast<View::Impl*>(JS_GetContextOpaque(ctx)); }

JSValue ThrowCoded(JSContext* ctx, const Error& error) {
  JSValue e = JS_NewError(ctx);
  std::string message =
      error.detail.empty() ? error.message : error.message + " (" + error.detail + ")";
  JS_SetPropertyStr(ctx, e, "message", JS_NewStringLen(ctx, message.data(), message.size()));
  JS_SetPropertyStr(ctx, e, "code", JS_NewStringLen(ctx, error.code.data(), error.code.size()));
  return JS_Throw(ctx, e);
}

std::string ArgString(JSContext* ctx, int argc, JSValueConst* argv) {
  if (argc < 1) return {};
  size_t len = 0;
  const char* s = JS_ToCStringLen(ctx, &len, argv[0]);
  if (!s) return {};
  std::string out(s, len);
  JS_FreeCString(ctx, s);
  return out;
}

JSValue HostSignature(JSContext* ctx, JSValueConst, int argc, JSValueConst* argv) {
  View::Impl* impl = ImplOf(ctx);
  impl->signatures_.push_back(ParseHandlerSignature(ArgString(ctx, argc, argv)));
  return JS_NewInt64(ctx, static_cast<int64_t>(impl->signatures_.size() - 1));
}

Result<nlohmann::ordered_json> ToJson(JSContext* ctx, JSValueConst v, int depth,
                                      bool element_props = false);

JSValue HostChatTools(JSContext* ctx, JSValueConst, int argc, JSValueConst* argv) {
  View::Impl* impl = ImplOf(ctx);
  if (!impl->chat_tools_hook_) {
    return ThrowCoded(ctx, MakeError("view.no_chat_tools_hook",
                                     "asChatTools() needs layout: no ChatToolsHook is installed on "
                                     "this View (View::SetChatToolsHook)"));
  }
  if (argc < 3) return JS_ThrowTypeError(ctx, "chatTools(nodes, options, site)");
  Result<nlohmann::ordered_json> options = ToJson(ctx, argv[1], 0);
  if (!options.ok()) return ThrowCoded(ctx, options.error());
  const std::string site_key = ArgString(ctx, 1, argv + 2);
  View::Impl::ChatToolsSite& site = impl->chat_tools_sites_[site_key];
  site.used = impl->generation_;

  // The same host nodes as last time at this call site: the same block and tools.
  JsValue len_value(ctx, JS_GetProperty(ctx, argv[0], impl->atom_length_));
  int64_t len = 0;
  JS_ToInt64(ctx, &len, len_value.get());
  std::vector<JsValue> items;
  items.reserve(static_cast<size_t>(len));
  for (int64_t i = 0; i < len; ++i)
    items.emplace_back(ctx, JS_GetPropertyUint32(ctx, argv[0], static_cast<uint32_t>(i)));
  // Inner asChatTools trees keep their ids while their layouts change: those must be current.
  bool same = site.last.block != nullptr && *options == site.options &&
              items.size() == site.items.size() && impl->DepsCurrent(site.deps, site.made);
  for (size_t i = 0; same && i < items.size(); ++i)
    same = JS_StrictEq(ctx, items[i].get(), site.items[i]);
  if (same) {
    for (int64_t id : site.deps) impl->UseDep(id);
  } else {
    const size_t log_start = impl->dep_log_.size();
    Result<std::vector<Node>> children = impl->ToNodes(argv[0]);
    if (!children.ok()) return ThrowCoded(ctx, children.error());
    std::vector<int64_t> inner(impl->dep_log_.begin() + static_cast<ptrdiff_t>(log_start),
                               impl->dep_log_.end());
    const uint64_t made = impl->layout_clock_;
    Result<ChatTools> tools =
        impl->chat_tools_hook_(*children, *options, site.last.block ? &site.last : nullptr);
    if (!tools.ok()) return ThrowCoded(ctx, tools.error());
    if (tools->same_tools && site.last.block == nullptr) {
      return ThrowCoded(ctx, MakeError("view.chat_tools_hook",
                                       "the ChatToolsHook answered same_tools without a previous "
                                       "result"));
    }
    if (!tools->same_tools) {
      // Tools equal to the last ones come back as the same frozen objects, so a wrapper can
      // memoize what it writes from them.
      JSValue js_tools = impl->PropsToJs(tools->tools, site.last.block ? &site.last.tools : nullptr,
                                         site.tools_js.get());
      if (JS_IsException(js_tools)) return JS_EXCEPTION;
      site.tools_js = JsValue(ctx, js_tools);
      site.last.tools = std::move(tools->tools);
    }
    for (JSValue v : site.items) JS_FreeValue(ctx, v);
    site.items.clear();
    site.last.block = std::move(tools->block);
    site.changed = ++impl->layout_clock_;
    site.deps = std::move(inner);
    site.made = made;
    site.options = std::move(*options);
    for (JsValue& item : items) site.items.push_back(item.Release());
  }
  if (site.id == 0) {
    site.id = impl->next_block_++;
    impl->blocks_[site.id] = &site;
  }
  JSValue out = JS_NewObject(ctx);
  JS_SetPropertyStr(ctx, out, "block", JS_NewInt64(ctx, site.id));
  JS_SetPropertyStr(ctx, out, "tools", JS_DupValue(ctx, site.tools_js.get()));
  return out;
}

// textRows(path, array): the id of the kept text rows of the element at `path`, or null when an
// item of `array` is not a string.
JSValue HostTextRows(JSContext* ctx, JSValueConst, int argc, JSValueConst* argv) {
  if (argc < 2) return JS_ThrowTypeError(ctx, "textRows(path, array)");
  const std::string path = ArgString(ctx, 1, argv);
  const int64_t id = ImplOf(ctx)->TextRowsOf(path, argv[1]);
  if (id < 0) return JS_EXCEPTION;
  return id == 0 ? JS_NULL : JS_NewInt64(ctx, id);
}

JSValue HostModelName(JSContext* ctx, JSValueConst, int, JSValueConst*) {
  const std::string& m = ImplOf(ctx)->encoder_.model;
  return JS_NewStringLen(ctx, m.data(), m.size());
}

JSValue HostHasToken(JSContext* ctx, JSValueConst, int argc, JSValueConst* argv) {
  const auto& tok = ImplOf(ctx)->encoder_.tokenizer;
  if (!tok) return JS_FALSE;
  return JS_NewBool(ctx, tok->TokenIdOf(ArgString(ctx, argc, argv)).has_value());
}

JSValue HostTokenId(JSContext* ctx, JSValueConst, int argc, JSValueConst* argv) {
  View::Impl* impl = ImplOf(ctx);
  std::string spelling = ArgString(ctx, argc, argv);
  const auto& tok = impl->encoder_.tokenizer;
  std::optional<text::TokenId> id;
  if (tok) id = tok->TokenIdOf(spelling);
  if (!id) {
    return ThrowCoded(
        ctx, MakeError("view.unknown_token", "the encoder of model \"" + impl->encoder_.model +
                                                 "\" has no token " + spelling));
  }
  return JS_NewInt32(ctx, *id);
}

// JSON of a JS value. Functions and undefined are skipped in objects (null in arrays). With
// `element_props`, the top-level object is an element's props: `children` is skipped too.
Result<nlohmann::ordered_json> ToJson(JSContext* ctx, JSValueConst v, int depth,
                                      bool element_props) {
  if (depth > 64) {
    return MakeError("view.invalid_prop", "a prop value nests deeper than 64 levels (a cycle?)");
  }
  int tag = JS_VALUE_GET_NORM_TAG(v);
  switch (tag) {
    case JS_TAG_INT:
      return nlohmann::ordered_json(JS_VALUE_GET_INT(v));
    case JS_TAG_FLOAT64: {
      double d = JS_VALUE_GET_FLOAT64(v);
      if (!std::isfinite(d)) return nlohmann::ordered_json(nullptr);
      if (d == std::floor(d) && std::fabs(d) < 9007199254740992.0) {
        return nlohmann::ordered_json(static_cast<int64_t>(d));
      }
      return nlohmann::ordered_json(d);
    }
    case JS_TAG_BOOL:
      return nlohmann::ordered_json(static_cast<bool>(JS_VALUE_GET_BOOL(v)));
    case JS_TAG_NULL:
    case JS_TAG_UNDEFINED:
      return nlohmann::ordered_json(nullptr);
    case JS_TAG_STRING:
    case JS_TAG_BIG_INT:
    case JS_TAG_SHORT_BIG_INT: {
      size_t len = 0;
      const char* s = JS_ToCStringLen(ctx, &len, v);
      if (!s) return MakeError("view.memory", "cannot read a string prop");
      nlohmann::ordered_json out = std::string(s, len);
      JS_FreeCString(ctx, s);
      return out;
    }
    case JS_TAG_OBJECT:
      break;
    default:
      return nlohmann::ordered_json(nullptr);
  }
  if (JS_IsFunction(ctx, v)) return nlohmann::ordered_json(nullptr);
  if (JS_IsArray(ctx, v)) {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    int64_t len = 0;
    JsValue l(ctx, JS_GetPropertyStr(ctx, v, "length"));
    JS_ToInt64(ctx, &len, l.get());
    for (int64_t i = 0; i < len; ++i) {
      JsValue item(ctx, JS_GetPropertyUint32(ctx, v, static_cast<uint32_t>(i)));
      Result<nlohmann::ordered_json> j = ToJson(ctx, item.get(), depth + 1);
      if (!j.ok()) return j.error();
      arr.push_back(std::move(*j));
    }
    return arr;
  }
  nlohmann::ordered_json obj = nlohmann::ordered_json::object();
  JSPropertyEnum* tab = nullptr;
  uint32_t len = 0;
  if (JS_GetOwnPropertyNames(ctx, &tab, &len, v, JS_GPN_STRING_MASK | JS_GPN_ENUM_ONLY) < 0) {
    JS_FreeValue(ctx, JS_GetException(ctx));
    return MakeError("view.invalid_prop", "cannot read the properties of a prop value");
  }
  Result<nlohmann::ordered_json> failure = nlohmann::ordered_json();
  for (uint32_t i = 0; i < len; ++i) {
    if (failure.ok()) {
      const char* key = JS_AtomToCString(ctx, tab[i].atom);
      bool skip = !key || (element_props && std::strcmp(key, "children") == 0);
      JsValue item(ctx, skip ? JS_UNDEFINED : JS_GetProperty(ctx, v, tab[i].atom));
      if (!skip && !JS_IsFunction(ctx, item.get()) && !item.IsUndefined()) {
        Result<nlohmann::ordered_json> j = ToJson(ctx, item.get(), depth + 1);
        if (!j.ok()) {
          failure = j.error();
        } else {
          obj[key] = std::move(*j);
        }
      }
      JS_FreeCString(ctx, key);
    }
    JS_FreeAtom(ctx, tab[i].atom);
  }
  js_free(ctx, tab);
  if (!failure.ok()) return failure.error();
  return obj;
}

}  // namespace

void InstallHostBindings(View::Impl* impl) {
  JSContext* ctx = impl->ctx();
  JSValue host = JS_NewObject(ctx);
  JS_SetPropertyStr(ctx, host, "signature", JS_NewCFunction(ctx, HostSignature, "signature", 1));
  JS_SetPropertyStr(ctx, host, "chatTools", JS_NewCFunction(ctx, HostChatTools, "chatTools", 3));
  JS_SetPropertyStr(ctx, host, "textRows", JS_NewCFunction(ctx, HostTextRows, "textRows", 2));
  JS_SetPropertyStr(ctx, host, "modelName", JS_NewCFunction(ctx, HostModelName, "modelName", 0));
  JS_SetPropertyStr(ctx, host, "hasToken", JS_NewCFunction(ctx, HostHasToken, "hasToken", 1));
  JS_SetPropertyStr(ctx, host, "tokenId", JS_NewCFunction(ctx, HostTokenId, "tokenId", 1));
  JSValue global = JS_GetGlobalObject(ctx);
  JS_SetPropertyStr(ctx, global, "__affordance_host", host);
  JS_FreeValue(ctx, global);
}

JSValue View::Impl::ToJs(const nlohmann::ordered_json& value) {
  return BuildJs(value, nullptr, JS_UNDEFINED, /*freeze=*/false, 0);
}

JSValue View::Impl::PropsToJs(const nlohmann::ordered_json& next,
                              const nlohmann::ordered_json* prev, JSValueConst prev_js) {
  return BuildJs(next, prev, prev_js, /*freeze=*/true, 0);
}

JSValue View::Impl::BuildJs(const nlohmann::ordered_json& next, const nlohmann::ordered_json* prev,
                            JSValueConst prev_js, bool freeze, int depth) {
  using Json = nlohmann::ordered_json;
  constexpr int kMaxDepth = 512;  // the builder recurses on the C++ stack
  if (depth > kMaxDepth) {
    ThrowCoded(ctx_,
               MakeError("view.too_deep", "a JSON value given to the view nests deeper than " +
                                              std::to_string(kMaxDepth) + " levels"));
    return JS_EXCEPTION;
  }
  if (prev != nullptr && *prev == next) return JS_DupValue(ctx_, prev_js);
  switch (next.type()) {
    case Json::value_t::null:
    case Json::value_t::discarded:
    case Json::value_t::binary:
      return JS_NULL;
    case Json::value_t::boolean:
      return JS_NewBool(ctx_, next.get<bool>());
    case Json::value_t::number_integer:
      return JS_NewInt64(ctx_, next.get<int64_t>());
    case Json::value_t::number_unsigned:
      return JS_NewFloat64(ctx_, static_cast<double>(next.get<uint64_t>()));
    case Json::value_t::number_float:
      return JS_NewFloat64(ctx_, next.get<double>());
    case Json::value_t::string: {
      const auto& s = next.get_ref<const std::string&>();
      return JS_NewStringLen(ctx_, s.data(), s.size());
    }
    case Json::value_t::array:
    case Json::value_t::object:
      break;
  }
  const bool array = next.is_array();
  const bool share = prev != nullptr && prev->type() == next.type() && JS_IsObject(prev_js);
  JsValue out(ctx_, array ? JS_NewArray(ctx_) : JS_NewObject(ctx_));
  if (out.IsException()) return JS_EXCEPTION;
  uint32_t i = 0;
  for (auto it = next.begin(); it != next.end(); ++it, ++i) {
    const Json* prev_item = nullptr;
    JsValue prev_item_js;
    JSAtom key =
        array ? JS_NewAtomUInt32(ctx_, i) : JS_NewAtomLen(ctx_, it.key().data(), it.key().size());
    if (key == JS_ATOM_NULL) return JS_EXCEPTION;
    if (share) {
      if (array && i < prev->size()) {
        prev_item = &(*prev)[i];
      } else if (!array) {
        auto p = prev->find(it.key());
        if (p != prev->end()) prev_item = &*p;
      }
      if (prev_item != nullptr) prev_item_js = JsValue(ctx_, JS_GetProperty(ctx_, prev_js, key));
    }
    JSValue item = BuildJs(*it, prev_item, prev_item_js.get(), freeze, depth + 1);
    if (JS_IsException(item) ||
        JS_DefinePropertyValue(ctx_, out.get(), key, item, JS_PROP_C_W_E | JS_PROP_THROW) < 0) {
      JS_FreeAtom(ctx_, key);
      return JS_EXCEPTION;
    }
    JS_FreeAtom(ctx_, key);
  }
  if (freeze) {
    JSValue target = out.get();
    JsValue frozen(ctx_, JS_Call(ctx_, freeze_fn_.get(), JS_UNDEFINED, 1, &target));
    if (frozen.IsException()) return JS_EXCEPTION;
  }
  return out.Release();
}

void View::Impl::UseDep(int64_t id) {
  KeepDep(id);
  dep_log_.push_back(id);
}

// A block rendered without its call being made again (its component replayed) still holds the
// rows and inner blocks of its items: they are kept with it, or the next call at its site finds
// them swept (an act that changed no state, then any other render).
void View::Impl::KeepDep(int64_t id) {
  if (id < 0) {
    auto it = text_rows_by_id_.find(-id);
    if (it != text_rows_by_id_.end()) it->second->used = generation_;
    return;
  }
  auto it = blocks_.find(id);
  if (it == blocks_.end() || it->second->used == generation_) return;
  it->second->used = generation_;
  for (int64_t dep : it->second->deps) KeepDep(dep);
}

bool View::Impl::DepsCurrent(const std::vector<int64_t>& ids, uint64_t made) const {
  for (int64_t id : ids) {
    if (id < 0) {
      if (!text_rows_by_id_.contains(-id)) return false;
      continue;
    }
    auto it = blocks_.find(id);
    if (it == blocks_.end() || it->second->changed > made) return false;
  }
  return true;
}

void View::Impl::FreeTextRows(TextRows& rows) {
  for (JSValue v : rows.items) JS_FreeValue(ctx_, v);
  rows.items.clear();
}

int64_t View::Impl::TextRowsOf(const std::string& path, JSValueConst array) {
  // A plain array (what a component builds) is read in place, and no code runs while it is;
  // anything else (a frozen array, a proxy) is read once through the property functions.
  JSValue* items = nullptr;
  uint32_t fast_len = 0;
  const bool fast = JS_GetFastArray(ctx_, array, &items, &fast_len);
  std::vector<JsValue> read;
  int64_t len = fast_len;
  if (!fast) {
    JsValue l(ctx_, JS_GetProperty(ctx_, array, atom_length_));
    if (JS_ToInt64(ctx_, &len, l.get()) < 0) return -1;
    read.reserve(static_cast<size_t>(len));
    for (int64_t i = 0; i < len; ++i) {
      read.emplace_back(ctx_, JS_GetPropertyUint32(ctx_, array, static_cast<uint32_t>(i)));
      if (read.back().IsException()) return -1;
    }
  }
  auto item = [&](int64_t i) -> JSValueConst {
    return fast ? items[i] : read[static_cast<size_t>(i)].get();
  };
  auto found = text_rows_.find(path);
  bool same = found != text_rows_.end() && found->second.items.size() == static_cast<size_t>(len);
  for (int64_t i = 0; i < len; ++i) {
    JSValueConst v = item(i);
    if (!JS_IsString(v)) return 0;
    if (same) {
      JSValueConst kept = found->second.items[static_cast<size_t>(i)];
      const int flat = JS_FlatStringsEqual(v, kept);
      same = flat < 0 ? static_cast<bool>(JS_StrictEq(ctx_, v, kept)) : flat == 1;
    }
  }
  if (same) {
    found->second.used = generation_;
    return found->second.id;
  }
  TextRows& rows = found != text_rows_.end() ? found->second : text_rows_[path];
  FreeTextRows(rows);
  text_rows_by_id_.erase(rows.id);
  std::vector<Node> nodes(static_cast<size_t>(len));
  rows.items.reserve(static_cast<size_t>(len));
  for (int64_t i = 0; i < len; ++i) {
    JSValue v = JS_DupValue(ctx_, item(i));
    rows.items.push_back(v);
    size_t n = 0;
    const char* chars = JS_ToCStringLen(ctx_, &n, v);
    if (chars == nullptr) {
      FreeTextRows(rows);
      text_rows_.erase(path);
      return -1;
    }
    nodes[static_cast<size_t>(i)].text.assign(chars, n);
    JS_FreeCString(ctx_, chars);
  }
  rows.nodes = NodeList(std::move(nodes));
  rows.id = next_rows_id_++;
  rows.used = generation_;
  text_rows_by_id_[rows.id] = &rows;
  return rows.id;
}

Result<std::vector<Node>> View::Impl::ToNodes(JSValueConst array) {
  std::vector<Node> out;
  JsValue l(ctx_, JS_GetProperty(ctx_, array, atom_length_));
  int64_t len = 0;
  JS_ToInt64(ctx_, &len, l.get());
  out.reserve(static_cast<size_t>(len));
  for (int64_t i = 0; i < len; ++i) {
    JsValue item(ctx_, JS_GetPropertyUint32(ctx_, array, static_cast<uint32_t>(i)));
    Result<Node> n = ToNode(item.get());
    if (!n.ok()) return n.error();
    out.push_back(std::move(*n));
  }
  return out;
}

Result<Node> View::Impl::ToNode(JSValueConst v) {
  Node node;
  if (JS_IsString(v)) {
    node.kind = Node::Kind::kText;
    size_t len = 0;
    const char* s = JS_ToCStringLen(ctx_, &len, v);
    if (!s) return MakeError("view.memory", "cannot read a text run");
    node.text.assign(s, len);
    JS_FreeCString(ctx_, s);
    return node;
  }
  if (JS_IsNumber(v)) {  // an asChatTools tree
    int64_t id = 0;
    JS_ToInt64(ctx_, &id, v);
    auto it = blocks_.find(id);
    if (it == blocks_.end()) {
      return MakeError("view.render",
                       "an asChatTools() tree was rendered after the component that made it "
                       "was unmounted");
    }
    UseDep(id);
    node.kind = Node::Kind::kBlock;
    node.block = it->second->last.block;
    return node;
  }
  // [type, path, props, handlers | null, children]; converted once while the runtime replays it.
  if (!JS_IsObject(v)) {
    return MakeError("view.render", "a host node is neither text, a tree nor an element");
  }
  void* key = JS_VALUE_GET_PTR(v);
  auto hit = converted_.find(key);
  if (hit != converted_.end() && DepsCurrent(hit->second.deps, hit->second.made)) {
    hit->second.used = generation_;
    for (int64_t id : hit->second.deps) UseDep(id);
    return hit->second.node;
  }
  const size_t log_start = dep_log_.size();
  Result<Node> converted = ConvertElement(v);
  if (!converted.ok()) return converted;
  std::vector<int64_t> deps(dep_log_.begin() + static_cast<ptrdiff_t>(log_start), dep_log_.end());
  hit = converted_.find(key);  // ConvertElement may have inserted
  if (hit != converted_.end()) {
    hit->second.node = *converted;
    hit->second.deps = std::move(deps);
    hit->second.made = layout_clock_;
    hit->second.used = generation_;
  } else {
    converted_.emplace(key, ConvertedNode{JS_DupValue(ctx_, v), *converted, std::move(deps),
                                          layout_clock_, generation_});
  }
  return converted;
}

Result<Node> View::Impl::ConvertElement(JSValueConst v) {
  Node node;
  node.kind = Node::Kind::kElement;
  node.type = JsValue(ctx_, JS_GetPropertyUint32(ctx_, v, 0)).ToString();
  node.path = JsValue(ctx_, JS_GetPropertyUint32(ctx_, v, 1)).ToString();
  JsValue props(ctx_, JS_GetPropertyUint32(ctx_, v, 2));
  Result<nlohmann::ordered_json> json = ToJson(ctx_, props.get(), 0, /*element_props=*/true);
  if (!json.ok()) {
    Error e = json.error();
    e.detail = node.path;
    return e;
  }
  node.props = std::move(*json);
  JsValue handlers(ctx_, JS_GetPropertyUint32(ctx_, v, 3));
  if (!JS_IsNull(handlers.get())) {
    JsValue hl(ctx_, JS_GetProperty(ctx_, handlers.get(), atom_length_));
    int64_t hn = 0;
    JS_ToInt64(ctx_, &hn, hl.get());
    for (int64_t i = 0; i + 2 < hn; i += 3) {
      Handler h;
      h.event = handlers.At(static_cast<uint32_t>(i)).ToString();
      int64_t id = 0, sig = 0;
      JsValue idv = handlers.At(static_cast<uint32_t>(i + 1));
      JsValue sigv = handlers.At(static_cast<uint32_t>(i + 2));
      JS_ToInt64(ctx_, &id, idv.get());
      JS_ToInt64(ctx_, &sig, sigv.get());
      h.id = static_cast<HandlerId>(id);
      if (sig >= 0 && static_cast<size_t>(sig) < signatures_.size()) h.signature = signatures_[sig];
      node.handlers.push_back(std::move(h));
    }
  }
  JsValue children(ctx_, JS_GetPropertyUint32(ctx_, v, 4));
  if (JS_IsNumber(children.get())) {  // text rows (TextRowsOf)
    int64_t id = 0;
    JS_ToInt64(ctx_, &id, children.get());
    auto rows = text_rows_by_id_.find(id);
    if (rows == text_rows_by_id_.end()) {
      return MakeError("view.render", "the rows of an element were rendered after it unmounted",
                       node.path);
    }
    UseDep(-id);
    node.children = rows->second->nodes;
    return node;
  }
  Result<NodeList> kids = ChildrenAt(node.path, children.get());
  if (!kids.ok()) return kids.error();
  node.children = std::move(*kids);
  return node;
}

bool View::Impl::SameItems(JSValueConst a, JSValueConst b) {
  if (JS_VALUE_GET_TAG(a) != JS_TAG_OBJECT || JS_VALUE_GET_TAG(b) != JS_TAG_OBJECT) return false;
  if (JS_VALUE_GET_PTR(a) == JS_VALUE_GET_PTR(b)) return true;
  int64_t na = -1, nb = -2;
  JsValue la(ctx_, JS_GetProperty(ctx_, a, atom_length_));
  JsValue lb(ctx_, JS_GetProperty(ctx_, b, atom_length_));
  if (JS_ToInt64(ctx_, &na, la.get()) < 0 || JS_ToInt64(ctx_, &nb, lb.get()) < 0 || na != nb) {
    return false;
  }
  for (int64_t i = 0; i < na; ++i) {
    JsValue x(ctx_, JS_GetPropertyUint32(ctx_, a, static_cast<uint32_t>(i)));
    JsValue y(ctx_, JS_GetPropertyUint32(ctx_, b, static_cast<uint32_t>(i)));
    if (!JS_StrictEq(ctx_, x.get(), y.get())) return false;
  }
  return true;
}

Result<NodeList> View::Impl::ChildrenAt(const std::string& path, JSValueConst array) {
  if (auto it = children_by_path_.find(path); it != children_by_path_.end() &&
                                              DepsCurrent(it->second.deps, it->second.made) &&
                                              SameItems(it->second.array, array)) {
    ConvertedChildren& kept = it->second;
    kept.used = generation_;
    ++children_reused_;
    for (int64_t id : kept.deps) UseDep(id);
    return kept.children;
  }
  const size_t log_start = dep_log_.size();
  Result<std::vector<Node>> kids = ToNodes(array);
  if (!kids.ok()) return kids.error();
  ConvertedChildren& entry = children_by_path_[path];  // after ToNodes: it may insert
  JS_FreeValue(ctx_, entry.array);
  entry.array = JS_DupValue(ctx_, array);
  entry.children = NodeList(std::move(*kids));
  entry.deps.assign(dep_log_.begin() + static_cast<ptrdiff_t>(log_start), dep_log_.end());
  entry.made = layout_clock_;
  entry.used = generation_;
  return entry.children;
}

}  // namespace affordance::view

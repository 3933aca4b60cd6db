// RAII ownership of QuickJS values held from C++ (internal to src/view).
#pragma once

#include <quickjs.h>

#include <cstdint>
#include <string>
#include <utility>

namespace affordance::view {

// Owns one reference to a JSValue and frees it on destruction. Move-only.
class JsValue {
 public:
  JsValue() = default;
  JsValue(JSContext* ctx, JSValue v) : ctx_(ctx), v_(v) {}
  JsValue(JsValue&& o) noexcept : ctx_(o.ctx_), v_(o.v_) { o.v_ = JS_UNDEFINED; }
  JsValue& operator=(JsValue&& o) noexcept {
    if (this != &o) {
      Reset();
      ctx_ = o.ctx_;
      v_ = o.v_;
      o.v_ = JS_UNDEFINED;
    }
    return *this;
  }
  JsValue(const JsValue&) = delete;
  JsValue& operator=(const JsValue&) = delete;
  ~JsValue() { Reset(); }

  void Reset() {
    if (ctx_) JS_FreeValue(ctx_, v_);
    v_ = JS_UNDEFINED;
  }
  // Gives up ownership.
  JSValue Release() {
    JSValue v = v_;
    v_ = JS_UNDEFINED;
    return v;
  }
  JSValue get() const { return v_; }
  JSContext* ctx() const { return ctx_; }

  bool IsException() const { return JS_IsException(v_); }
  bool IsObject() const { return JS_IsObject(v_); }
  bool IsUndefined() const { return JS_IsUndefined(v_); }

  JsValue Get(const char* name) const { return JsValue(ctx_, JS_GetPropertyStr(ctx_, v_, name)); }
  JsValue Get(JSAtom atom) const { return JsValue(ctx_, JS_GetProperty(ctx_, v_, atom)); }
  JsValue At(uint32_t i) const { return JsValue(ctx_, JS_GetPropertyUint32(ctx_, v_, i)); }

  // String(value); "" when conversion throws (the exception is cleared).
  std::string ToString() const {
    size_t len = 0;
    const char* s = JS_ToCStringLen(ctx_, &len, v_);
    if (!s) {
      JS_FreeValue(ctx_, JS_GetException(ctx_));
      return {};
    }
    std::string out(s, len);
    JS_FreeCString(ctx_, s);
    return out;
  }

 private:
  JSContext* ctx_ = nullptr;
  JSValue v_ = JS_UNDEFINED;
};

}  // namespace affordance::view

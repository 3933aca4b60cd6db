// QuickJS: evaluate an ES module with a relative import and call an exported function from C++.
#include <gtest/gtest.h>
#include <quickjs.h>

#include <fstream>
#include <iterator>
#include <string>

namespace {

const std::string kModules = std::string(AFFORDANCE_SOURCE_DIR) + "/tests/smoke/data/modules/";

JSModuleDef* LoadModule(JSContext* ctx, const char* name, void*) {
  std::ifstream in(name, std::ios::binary);
  if (!in) {
    JS_ThrowReferenceError(ctx, "could not load module '%s'", name);
    return nullptr;
  }
  std::string src((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  JSValue fn =
      JS_Eval(ctx, src.c_str(), src.size(), name, JS_EVAL_TYPE_MODULE | JS_EVAL_FLAG_COMPILE_ONLY);
  if (JS_IsException(fn)) return nullptr;
  auto* m = static_cast<JSModuleDef*>(JS_VALUE_GET_PTR(fn));
  JS_FreeValue(ctx, fn);
  return m;
}

struct Engine {
  JSRuntime* rt = JS_NewRuntime();
  JSContext* ctx = JS_NewContext(rt);
  Engine() { JS_SetModuleLoaderFunc(rt, nullptr, LoadModule, nullptr); }
  ~Engine() {
    JS_FreeContext(ctx);
    JS_FreeRuntime(rt);
  }
};

TEST(QuickJsSmoke, EvaluatesModuleWithRelativeImportAndCallsExport) {
  Engine e;
  std::string path = kModules + "main.js";
  std::ifstream in(path);
  std::string src((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  JSValue fn = JS_Eval(e.ctx, src.c_str(), src.size(), path.c_str(),
                       JS_EVAL_TYPE_MODULE | JS_EVAL_FLAG_COMPILE_ONLY);
  ASSERT_FALSE(JS_IsException(fn));
  auto* module = static_cast<JSModuleDef*>(JS_VALUE_GET_PTR(fn));
  JSValue promise = JS_EvalFunction(e.ctx, fn);  // takes ownership of fn
  ASSERT_FALSE(JS_IsException(promise));
  JSContext* job_ctx = nullptr;
  while (JS_ExecutePendingJob(e.rt, &job_ctx) > 0) {
  }
  EXPECT_EQ(JS_PromiseState(e.ctx, promise), JS_PROMISE_FULFILLED);
  JS_FreeValue(e.ctx, promise);

  JSValue ns = JS_GetModuleNamespace(e.ctx, module);
  JSValue compute = JS_GetPropertyStr(e.ctx, ns, "compute");
  ASSERT_TRUE(JS_IsFunction(e.ctx, compute));
  JSValue args[2] = {JS_NewInt32(e.ctx, 2), JS_NewInt32(e.ctx, 3)};
  JSValue out = JS_Call(e.ctx, compute, JS_UNDEFINED, 2, args);
  int32_t value = 0;
  ASSERT_EQ(JS_ToInt32(e.ctx, &value, out), 0);
  EXPECT_EQ(value, 50);

  JSValue greeting = JS_GetPropertyStr(e.ctx, ns, "greeting");
  const char* s = JS_ToCString(e.ctx, greeting);
  EXPECT_STREQ(s, "hello from a module");
  JS_FreeCString(e.ctx, s);
  for (JSValue v : {out, greeting, compute, ns}) JS_FreeValue(e.ctx, v);
}

TEST(QuickJsSmoke, MissingImportIsAnErrorNotACrash) {
  Engine e;
  const char* src = "import { x } from './does-not-exist.js'; export const y = x;";
  std::string name = kModules + "broken.js";
  JSValue fn = JS_Eval(e.ctx, src, strlen(src), name.c_str(), JS_EVAL_TYPE_MODULE);
  // Depending on the engine path the failure is either an exception or a rejected promise.
  bool failed = JS_IsException(fn);
  if (!failed) {
    JSContext* job_ctx = nullptr;
    while (JS_ExecutePendingJob(e.rt, &job_ctx) > 0) {
    }
    failed = JS_PromiseState(e.ctx, fn) == JS_PROMISE_REJECTED;
  }
  EXPECT_TRUE(failed);
  JS_FreeValue(e.ctx, fn);
  JS_FreeValue(e.ctx, JS_GetException(e.ctx));
}

}  // namespace

// The embedded TSX transformer: sucrase bytecode linked into the binary transforms TSX with types
// and JSX (classic runtime h/Fragment) inside QuickJS, and the output runs.
#include <gtest/gtest.h>
#include <quickjs.h>

#include <fstream>
#include <iterator>
#include <string>

extern "C" {
extern const unsigned long affordance_sucrase_bytecode_size;
extern const unsigned char affordance_sucrase_bytecode[];
}

namespace {

std::string ToString(JSContext* ctx, JSValueConst v) {
  const char* s = JS_ToCString(ctx, v);
  std::string out = s ? s : "";
  JS_FreeCString(ctx, s);
  return out;
}

std::string TakeException(JSContext* ctx) {
  JSValue e = JS_GetException(ctx);
  std::string s = ToString(ctx, e);
  JS_FreeValue(ctx, e);
  return s;
}

TEST(SucraseSmoke, TransformsTsxInsideQuickJsAndRunsIt) {
  JSRuntime* rt = JS_NewRuntime();
  JSContext* ctx = JS_NewContext(rt);

  JSValue fn = JS_ReadObject(ctx, affordance_sucrase_bytecode, affordance_sucrase_bytecode_size,
                             JS_READ_OBJ_BYTECODE);
  ASSERT_FALSE(JS_IsException(fn)) << TakeException(ctx);
  JSValue r = JS_EvalFunction(ctx, fn);
  ASSERT_FALSE(JS_IsException(r)) << TakeException(ctx);
  JS_FreeValue(ctx, r);

  std::ifstream in(std::string(AFFORDANCE_SOURCE_DIR) + "/tests/smoke/data/app.tsx");
  std::string tsx((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  JSValue global = JS_GetGlobalObject(ctx);
  JS_SetPropertyStr(ctx, global, "source", JS_NewStringLen(ctx, tsx.data(), tsx.size()));
  const char* call =
      "Sucrase.transform(source, {transforms: ['typescript', 'jsx'], jsxRuntime: 'classic',"
      " jsxPragma: 'h', jsxFragmentPragma: 'Fragment', disableESTransforms: true,"
      " production: true,"
      " filePath: 'app.tsx'}).code";
  JSValue code = JS_Eval(ctx, call, strlen(call), "<transform>", JS_EVAL_TYPE_GLOBAL);
  ASSERT_FALSE(JS_IsException(code)) << TakeException(ctx);
  std::string js = ToString(ctx, code);
  JS_FreeValue(ctx, code);
  EXPECT_EQ(js.find("interface"), std::string::npos) << js;   // types are stripped
  EXPECT_NE(js.find("h(Greeting"), std::string::npos) << js;  // JSX uses the h pragma
  EXPECT_NE(js.find("h(Fragment"), std::string::npos) << js;

  JSValue run = JS_Eval(ctx, js.c_str(), js.size(), "app.js", JS_EVAL_TYPE_GLOBAL);
  ASSERT_FALSE(JS_IsException(run)) << TakeException(ctx);
  JS_FreeValue(ctx, run);
  JSValue result = JS_GetPropertyStr(ctx, global, "result");
  EXPECT_EQ(
      ToString(ctx, result),
      R"({"type":"fragment","props":{},"children":[{"type":"text","props":{},)"
      R"("children":["Hello, ","QuickJS","!"]},{"type":"text","props":{},"children":[42]}]})");
  JS_FreeValue(ctx, result);
  JS_FreeValue(ctx, global);
  JS_FreeContext(ctx);
  JS_FreeRuntime(rt);
}

TEST(SucraseSmoke, SyntaxErrorIsReportedWithPosition) {
  JSRuntime* rt = JS_NewRuntime();
  JSContext* ctx = JS_NewContext(rt);
  JSValue fn = JS_ReadObject(ctx, affordance_sucrase_bytecode, affordance_sucrase_bytecode_size,
                             JS_READ_OBJ_BYTECODE);
  JS_FreeValue(ctx, JS_EvalFunction(ctx, fn));
  const char* call =
      "Sucrase.transform('const x = <a>;\\nlet', {transforms: ['typescript', 'jsx']}).code";
  JSValue code = JS_Eval(ctx, call, strlen(call), "<transform>", JS_EVAL_TYPE_GLOBAL);
  ASSERT_TRUE(JS_IsException(code));
  std::string message = TakeException(ctx);
  EXPECT_NE(message.find("(1:"), std::string::npos) << message;  // sucrase reports line:column
  JS_FreeContext(ctx);
  JS_FreeRuntime(rt);
}

}  // namespace

# QuickJS 2025-04-26 (Bellard), built as a static library from the sources scripts/setup fetched
# (Debian trixie source package, sha256-verified) and patched (scripts/quickjs-hot-paths.patch;
# docs/RUNTIME.md "The engine"). No quickjs-libc: views get no std/os modules.
# -O3: the interpreter is the view hot path (act + re-render, docs/BENCHMARKS.md "adapters"),
# about 4% faster there than -O2.
set(QUICKJS_DIR "${AFFORDANCE_THIRD_PARTY}/quickjs")
if(NOT EXISTS "${QUICKJS_DIR}/quickjs.c")
  message(FATAL_ERROR "QuickJS sources missing at ${QUICKJS_DIR}: run ./scripts/setup first")
endif()
add_library(quickjs STATIC
  "${QUICKJS_DIR}/quickjs.c" "${QUICKJS_DIR}/libregexp.c" "${QUICKJS_DIR}/libunicode.c"
  "${QUICKJS_DIR}/cutils.c" "${QUICKJS_DIR}/dtoa.c")
target_compile_definitions(quickjs PRIVATE _GNU_SOURCE CONFIG_VERSION="2025-04-26")
target_compile_options(quickjs PRIVATE -O3 -fno-semantic-interposition -fwrapv -w)
target_include_directories(quickjs SYSTEM PUBLIC $<BUILD_INTERFACE:${QUICKJS_DIR}>)
target_link_libraries(quickjs PUBLIC m Threads::Threads ${CMAKE_DL_LIBS})

# Build-time host tool: compiles a JavaScript file to QuickJS bytecode and writes it as a C array.
add_executable(affordance_js_bytecode "${CMAKE_SOURCE_DIR}/cmake/js_bytecode.cpp")
target_link_libraries(affordance_js_bytecode PRIVATE quickjs)

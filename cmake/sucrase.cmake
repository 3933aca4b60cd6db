# The TSX transformer: sucrase from the pinned tools/ packages, bundled into one classic script
# with the pinned esbuild, compiled to QuickJS bytecode, linked as the `affordance_sucrase` object
# library. The bundle defines the global `Sucrase` (Sucrase.transform(code, options)).
find_program(NODE_EXECUTABLE node REQUIRED)
set(SUCRASE_ENTRY "${CMAKE_SOURCE_DIR}/tools/node_modules/sucrase/dist/esm/index.js")
set(ESBUILD_JS "${CMAKE_SOURCE_DIR}/tools/node_modules/esbuild/bin/esbuild")
if(NOT EXISTS "${SUCRASE_ENTRY}" OR NOT EXISTS "${ESBUILD_JS}")
  message(FATAL_ERROR "tools/node_modules is missing sucrase or esbuild: run ./scripts/setup first")
endif()
set(SUCRASE_BUNDLE "${AFFORDANCE_GENERATED}/sucrase.bundle.js")
set(SUCRASE_BYTECODE_C "${AFFORDANCE_GENERATED}/sucrase_bytecode.c")
add_custom_command(
  OUTPUT "${SUCRASE_BUNDLE}"
  COMMAND "${NODE_EXECUTABLE}" "${ESBUILD_JS}" "${SUCRASE_ENTRY}" --bundle --format=iife
          --global-name=Sucrase --platform=neutral --main-fields=module,main --target=es2020
          --minify --log-level=warning "--outfile=${SUCRASE_BUNDLE}"
  DEPENDS "${CMAKE_SOURCE_DIR}/tools/package-lock.json" "${SUCRASE_ENTRY}"
  COMMENT "Bundling sucrase with esbuild"
  VERBATIM)
add_custom_command(
  OUTPUT "${SUCRASE_BYTECODE_C}"
  COMMAND affordance_js_bytecode "${SUCRASE_BUNDLE}" "${SUCRASE_BYTECODE_C}"
          affordance_sucrase_bytecode
  DEPENDS affordance_js_bytecode "${SUCRASE_BUNDLE}"
  COMMENT "Compiling the sucrase bundle to QuickJS bytecode"
  VERBATIM)
add_library(affordance_sucrase OBJECT "${SUCRASE_BYTECODE_C}")
# Read the bundle's sucrase version so the transform cache key can name it.
file(READ "${CMAKE_SOURCE_DIR}/tools/node_modules/sucrase/package.json" _sucrase_pkg)
string(JSON AFFORDANCE_SUCRASE_VERSION GET "${_sucrase_pkg}" version)

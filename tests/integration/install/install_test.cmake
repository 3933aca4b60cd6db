# The installed package as a user meets it (issue #17): `cmake --install` into a fresh temporary
# prefix outside the repository, then
#   1. the expected files are there (binary, headers, libraries, CMake package, .pc, views, models);
#   2. examples/embed, copied to its own folder, builds against the package with find_package and
#      renders its app (which imports "@adapters/...") and the installed notebook demo;
#   3. the same program builds from the pkg-config file alone;
#   4. the installed `affordance` binary, run from that folder with no AFFORDANCE_* variables,
#      renders both to the same tokens, and the notebook to the tokens the build tree's binary
#      renders from the source tree.
# Arguments: -DBUILD_DIR -DSOURCE_DIR -DCXX (the compiler), -DGENERATOR.
string(RANDOM LENGTH 8 _id)
set(tmp "$ENV{TMPDIR}")
if(NOT tmp)
  set(tmp "/tmp")
endif()
set(work "${tmp}/affordance-install-${_id}")
set(prefix "${work}/prefix")
set(app "${work}/todo")
file(REMOVE_RECURSE "${work}")
file(MAKE_DIRECTORY "${work}")

function(run)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY "${work}" RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

# Tokens of a render printed as JSON by either program.
function(tokens_of json var)
  string(JSON t GET "${json}" tokens)
  set(${var} "${t}" PARENT_SCOPE)
endfunction()

run("${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${prefix}")
foreach(f bin/affordance include/affordance/render/renderer.h include/affordance/render/timers.h
          include/affordance/view/view.h include/affordance/base/result.h
          lib/libaffordance_render.a lib/libaffordance_view.a lib/libaffordance_quickjs.a
          lib/cmake/affordance/affordanceConfig.cmake lib/cmake/affordance/affordanceTargets.cmake
          lib/pkgconfig/affordance.pc share/affordance/views/lib/json.ts
          share/affordance/views/lib/turn_strategy.tsx share/affordance/views/adapters/qwen3.tsx
          share/affordance/views/adapters/llama31.tsx share/affordance/views/demo/notebook_chat.tsx
          share/affordance/models/Qwen__Qwen3-4B-Instruct-2507/tokenizer.json
          share/affordance/models/meta-llama__Llama-3.1-8B-Instruct/tokenizer_config.json)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "cmake --install did not install ${f}")
  endif()
endforeach()
if(EXISTS "${prefix}/include/affordance/view/view_impl.h")
  message(FATAL_ERROR "an internal header was installed")
endif()
if(EXISTS "${BUILD_DIR}/web/index.html")
  foreach(f share/affordance/web/index.html share/affordance/web/assets/app.js)
    if(NOT EXISTS "${prefix}/${f}")
      message(FATAL_ERROR "cmake --install did not install the web UI (${f})")
    endif()
  endforeach()
endif()

# 1b. a stripped install: small, with the debug info split off and linked
set(stripped "${work}/stripped")
run("${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${stripped}" --strip)
file(GLOB_RECURSE _files "${stripped}/*")
set(_bytes 0)
foreach(f IN LISTS _files)
  if(NOT f MATCHES "/lib/debug/" AND NOT IS_SYMLINK "${f}")
    file(SIZE "${f}" _size)
    math(EXPR _bytes "${_bytes} + ${_size}")
  endif()
endforeach()
math(EXPR _mb "${_bytes} / 1048576")
message(STATUS "stripped install: ${_mb} MB without lib/debug")
if(_mb GREATER_EQUAL 60)
  message(FATAL_ERROR "the stripped install is ${_mb} MB (the target is under 60 MB)")
endif()
if(NOT EXISTS "${stripped}/lib/debug/affordance.debug")
  message(FATAL_ERROR "the stripped install kept no debug info (lib/debug/affordance.debug)")
endif()
run(readelf --string-dump=.gnu_debuglink "${stripped}/bin/affordance")
if(NOT out MATCHES "affordance.debug")
  message(FATAL_ERROR "the stripped binary does not link its debug info:\n${out}")
endif()
run("${stripped}/bin/affordance" --version)

# 2. find_package
file(COPY "${SOURCE_DIR}/examples/embed/" DESTINATION "${app}")
run("${CMAKE_COMMAND}" -S "${app}" -B "${work}/build" -G "${GENERATOR}"
    "-DCMAKE_CXX_COMPILER=${CXX}" "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_BUILD_TYPE=Release)
run("${CMAKE_COMMAND}" --build "${work}/build")
set(qwen Qwen__Qwen3-4B-Instruct-2507)
set(notebook "${prefix}/share/affordance/views/demo/notebook_chat.tsx")
set(notebook_state "${prefix}/share/affordance/views/demo/notebook_state.json")
run("${work}/build/render_app" "${app}/notes_app.tsx" TodoChat ${qwen} "${app}/state.json")
tokens_of("${out}" embedded_app)
string(JSON tool GET "${out}" tools 0 function name)
if(NOT tool STREQUAL "click__buy_milk_ef299c4e")
  message(FATAL_ERROR "unexpected first tool of the example app: ${tool}\n${out}")
endif()
run("${work}/build/render_app" "${notebook}" NotebookChat ${qwen} "${notebook_state}")
tokens_of("${out}" embedded_notebook)

# 3. pkg-config
find_program(PKG_CONFIG pkg-config REQUIRED)
set(ENV{PKG_CONFIG_PATH} "${prefix}/lib/pkgconfig")
run("${PKG_CONFIG}" --cflags --libs affordance)
string(STRIP "${out}" pc_flags)
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
run("${PKG_CONFIG}" --variable=viewsdir affordance)
string(STRIP "${out}" viewsdir)
run("${PKG_CONFIG}" --variable=modelsdir affordance)
string(STRIP "${out}" modelsdir)
run("${CXX}" -std=c++20 -O1 "${app}/render_app.cpp" -o "${work}/render_app_pc"
    "-DAFFORDANCE_VIEWS_LIB_DIR=\"${viewsdir}/lib\"" "-DAFFORDANCE_MODELS_DIR=\"${modelsdir}\""
    ${pc_flags})
run("${work}/render_app_pc" "${app}/notes_app.tsx" TodoChat ${qwen} "${app}/state.json")
tokens_of("${out}" pc_app)
if(NOT pc_app STREQUAL embedded_app)
  message(FATAL_ERROR "the pkg-config build rendered other tokens")
endif()

# 4. the installed binary, from the app's folder, with no AFFORDANCE_* variables
set(clean "${CMAKE_COMMAND}" -E env --unset=AFFORDANCE_VIEWS_LIB --unset=AFFORDANCE_MODELS)
run(${clean} "${prefix}/bin/affordance" render --model ${qwen} --view "${app}/notes_app.tsx"
    --entry TodoChat --state "${app}/state.json" --json)
tokens_of("${out}" cli_app)
run(${clean} "${prefix}/bin/affordance" render --model ${qwen} --view "${notebook}"
    --entry NotebookChat --state "${notebook_state}" --json)
tokens_of("${out}" cli_notebook)
run(${clean} "${BUILD_DIR}/affordance" render --model ${qwen}
    --view "${SOURCE_DIR}/views/demo/notebook_chat.tsx" --entry NotebookChat
    --state "${SOURCE_DIR}/views/demo/notebook_state.json" --json)
tokens_of("${out}" source_notebook)
if(NOT cli_app STREQUAL embedded_app OR NOT cli_notebook STREQUAL embedded_notebook
   OR NOT cli_notebook STREQUAL source_notebook)
  message(FATAL_ERROR "the installed binary, the embedding program and the build tree disagree")
endif()
file(REMOVE_RECURSE "${work}")
message(STATUS "installed package OK (${prefix})")

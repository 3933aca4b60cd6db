# The embedded llama.cpp provider (src/model/llama_provider.cpp) and the real-peer tests.
#
# AFFORDANCE_LLAMA (default OFF) links the llama.cpp build that scripts/build-llama makes in the
# cache ($AFFORDANCE_CACHE/llama-<commit>, layout documented there); scripts/setup turns it ON with
# -DAFFORDANCE_LLAMA_DIR=<that folder> whenever that build exists, so CI always has it.
# Defines (when ON): imported target affordance_llama_cpp (headers + static libraries) and the
# variable AFFORDANCE_LLAMA_SERVER (path of the llama-server binary built from the same source).
include_guard(GLOBAL)
option(AFFORDANCE_LLAMA "Build the embedded llama.cpp provider (needs scripts/build-llama)" OFF)
set(AFFORDANCE_LLAMA_DIR "" CACHE PATH "llama.cpp build folder made by scripts/build-llama")

if(AFFORDANCE_LLAMA AND NOT TARGET affordance_llama_cpp)
  if(NOT EXISTS "${AFFORDANCE_LLAMA_DIR}/.complete")
    message(FATAL_ERROR "AFFORDANCE_LLAMA is ON but AFFORDANCE_LLAMA_DIR (${AFFORDANCE_LLAMA_DIR}) "
                        "holds no finished llama.cpp build; run scripts/build-llama")
  endif()
  set(_lib "${AFFORDANCE_LLAMA_DIR}/lib")
  add_library(affordance_llama_cpp INTERFACE IMPORTED GLOBAL)
  target_include_directories(affordance_llama_cpp SYSTEM INTERFACE "${AFFORDANCE_LLAMA_DIR}/include")
  target_link_libraries(affordance_llama_cpp INTERFACE
    -Wl,--start-group "${_lib}/libllama.a" "${_lib}/libggml.a" "${_lib}/libggml-cpu.a"
    "${_lib}/libggml-base.a" -Wl,--end-group Threads::Threads ${CMAKE_DL_LIBS} m)
  file(READ "${AFFORDANCE_LLAMA_DIR}/openmp" _openmp)
  if(_openmp MATCHES "ON")
    find_package(OpenMP REQUIRED COMPONENTS CXX)
    target_link_libraries(affordance_llama_cpp INTERFACE OpenMP::OpenMP_CXX)
  endif()
  set(AFFORDANCE_LLAMA_SERVER "${AFFORDANCE_LLAMA_DIR}/bin/llama-server" CACHE INTERNAL "")
endif()

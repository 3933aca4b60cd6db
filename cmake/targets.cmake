# Helpers that give every target of ours the same warnings and layout.

set(AFFORDANCE_WARNINGS -Wall -Wextra -Wno-missing-field-initializers)

# affordance_library(<part> SOURCES ... [DEPS ...])
# One static library per part of src/, named affordance_<part>, alias affordance::<part>.
# Its public headers are included as "<part>/<header>.h" from src/.
function(affordance_library part)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(affordance_${part} STATIC ${ARG_SOURCES})
  add_library(affordance::${part} ALIAS affordance_${part})
  # Installed headers live under include/affordance (cmake/install.cmake).
  target_include_directories(affordance_${part} PUBLIC $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/src>
                                                       $<INSTALL_INTERFACE:include/affordance>)
  target_compile_options(affordance_${part} PRIVATE ${AFFORDANCE_WARNINGS})
  target_link_libraries(affordance_${part} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
endfunction()

# affordance_test(<name> SOURCES ... [LIBS ...])
# A GoogleTest executable registered with CTest. Tests run from the source root and know it as
# AFFORDANCE_SOURCE_DIR (compile definition) so they can find models/, views/ and tests/ data.
function(affordance_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_compile_options(${name} PRIVATE ${AFFORDANCE_WARNINGS})
  target_compile_definitions(${name} PRIVATE AFFORDANCE_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
                                             AFFORDANCE_BINARY_DIR="${CMAKE_BINARY_DIR}")
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main GTest::gmock)
  gtest_discover_tests(${name} WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}" DISCOVERY_MODE PRE_TEST
                       DISCOVERY_TIMEOUT 60 PROPERTIES LABELS "${ARG_LABELS}")
  # gtest_discover_tests (CMake 3.25) splits the value of LABELS into words, so only the first
  # label reached the tests (`LABELS unit surface` reads `surface` as a property name) and
  # `ctest -L surface` found nothing. This include runs after the discovered tests are defined
  # (their names are in ${name}_TESTS) and gives each the whole list.
  set(labels_file "${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake")
  file(WRITE "${labels_file}"
       "foreach(t IN LISTS ${name}_TESTS)\n"
       "  set_tests_properties(\"\${t}\" PROPERTIES LABELS \"${ARG_LABELS}\")\n"
       "endforeach()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${labels_file}")
endfunction()

# affordance_fuzzer(<name> SOURCES ... [LIBS ...] [CORPUS dir] [SECONDS n] [RUNS n])
# A libFuzzer target (only with -DAFFORDANCE_FUZZ=ON, i.e. the `fuzz` preset). CTest runs it with
# seed 1 for RUNS inputs (default 20000), at most SECONDS (default 180, a hang guard), over its seed CORPUS and a
# working corpus in the build folder: a deterministic fuzz budget on every CI run.
function(affordance_fuzzer name)
  cmake_parse_arguments(ARG "" "CORPUS;SECONDS;RUNS" "SOURCES;LIBS" ${ARGN})
  if(NOT AFFORDANCE_FUZZ)
    return()
  endif()
  if(NOT ARG_SECONDS)
    set(ARG_SECONDS 180)
  endif()
  if(NOT ARG_RUNS)
    set(ARG_RUNS 20000)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_compile_definitions(${name} PRIVATE AFFORDANCE_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
  target_link_libraries(${name} PRIVATE ${ARG_LIBS})
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  add_dependencies(fuzzers ${name})
  set(work "${CMAKE_BINARY_DIR}/fuzz-corpus/${name}")
  add_test(NAME ${name}
           COMMAND "${CMAKE_COMMAND}" -DFUZZER=$<TARGET_FILE:${name}> -DSEED=${ARG_CORPUS}
                   -DWORK=${work} -DSECONDS=${ARG_SECONDS} -DRUNS=${ARG_RUNS}
                   -P "${CMAKE_SOURCE_DIR}/cmake/run_fuzzer.cmake"
           WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}")
  set_tests_properties(${name} PROPERTIES LABELS fuzz TIMEOUT 600)
endfunction()
if(AFFORDANCE_FUZZ)
  add_custom_target(fuzzers)
endif()

# affordance_bench(<name> SOURCES ... [LIBS ...])
function(affordance_bench name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_compile_options(${name} PRIVATE ${AFFORDANCE_WARNINGS})
  target_compile_definitions(${name} PRIVATE AFFORDANCE_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} benchmark::benchmark)
endfunction()

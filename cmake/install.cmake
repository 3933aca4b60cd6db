# Installing affordance (`cmake --install build --prefix <prefix>`), and the build tree's mirror of
# the installed data layout. What goes where (docs/INSTALL.md):
#   bin/affordance                                  the CLI
#   lib/libaffordance_{base,text,view,render,formats,quickjs}.a    the app runtime libraries
#   include/affordance/<part>/*.h                   their public headers ("render/renderer.h")
#   lib/cmake/affordance/                           CMake package: find_package(affordance)
#   lib/pkgconfig/affordance.pc                     pkg-config
#   share/affordance/views/                         views/: lib, the chat-format wrappers, the demo
#   share/affordance/models/<model>/tokenizer*.json the prepared tokenizer data
#   share/affordance/web/                           the web UI bundle (when it was built)
#   lib/debug/affordance.debug                      `--strip` only: the binary's debug info
# A program finds share/affordance relative to itself (base/data_dir.h): <bin>/../share/affordance
# installed, <build>/share/affordance in the build tree, where share/affordance/views links to the
# source views/ folder so a freshly built binary finds views/lib from any folder too.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

file(MAKE_DIRECTORY "${CMAKE_BINARY_DIR}/share/affordance")
file(CREATE_LINK "${CMAKE_SOURCE_DIR}/views" "${CMAKE_BINARY_DIR}/share/affordance/views" SYMBOLIC)

set(AFFORDANCE_INSTALL_PARTS base text view render formats)
set(_install_targets)
foreach(part IN LISTS AFFORDANCE_INSTALL_PARTS)
  if(TARGET affordance_${part})
    set_target_properties(affordance_${part} PROPERTIES EXPORT_NAME ${part})
    list(APPEND _install_targets affordance_${part})
    install(DIRECTORY "${CMAKE_SOURCE_DIR}/src/${part}/"
            DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/affordance/${part}"
            FILES_MATCHING PATTERN "*.h"
            PATTERN "view_impl.h" EXCLUDE    # QuickJS internals of src/view
            PATTERN "js_value.h" EXCLUDE)
  endif()
endforeach()
# QuickJS is linked into affordance_view privately; a static library needs it at link time.
set_target_properties(quickjs PROPERTIES OUTPUT_NAME affordance_quickjs EXPORT_NAME quickjs)
install(TARGETS ${_install_targets} quickjs EXPORT affordanceTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}")
# `--strip` leaves static libraries alone; their debug sections are most of their size.
if(CMAKE_STRIP)
  install(CODE "
    if(CMAKE_INSTALL_DO_STRIP)
      file(GLOB _archives \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/libaffordance_*.a\")
      foreach(_a IN LISTS _archives)
        execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-debug \"\${_a}\" COMMAND_ERROR_IS_FATAL ANY)
      endforeach()
    endif()")
endif()
if(TARGET affordance)
  # `cmake --install build --strip`: the binary is stripped and its debug info is kept beside it
  # in lib/debug/affordance.debug (objcopy --only-keep-debug, linked by .gnu_debuglink), so a
  # debugger still finds it and the install stays small.
  find_program(AFFORDANCE_OBJCOPY NAMES objcopy "${CMAKE_OBJCOPY}")
  install(CODE "
    if(CMAKE_INSTALL_DO_STRIP)
      set(_debug \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/debug\")
      file(MAKE_DIRECTORY \"\${_debug}\")
      execute_process(COMMAND \"${AFFORDANCE_OBJCOPY}\" --only-keep-debug --compress-debug-sections
                              \"$<TARGET_FILE:affordance>\" \"\${_debug}/affordance.debug\"
                      COMMAND_ERROR_IS_FATAL ANY)
    endif()")
  install(TARGETS affordance RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
  install(CODE "
    if(CMAKE_INSTALL_DO_STRIP)
      execute_process(COMMAND \"${AFFORDANCE_OBJCOPY}\"
                              \"--add-gnu-debuglink=\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/debug/affordance.debug\"
                              \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/affordance\"
                      COMMAND_ERROR_IS_FATAL ANY)
    endif()")
endif()

set(AFFORDANCE_INSTALL_DATA "${CMAKE_INSTALL_DATADIR}/affordance")
# The whole views/ folder (lib, adapters, demo, and whatever else ships there), as in the source.
install(DIRECTORY "${CMAKE_SOURCE_DIR}/views/" DESTINATION "${AFFORDANCE_INSTALL_DATA}/views")
# The web UI bundle `affordance serve` finds at <bin>/../share/affordance/web (cmd_serve.cpp); a
# build without the web tools has none, and the installed serve says it runs API-only.
install(DIRECTORY "${CMAKE_BINARY_DIR}/web/" DESTINATION "${AFFORDANCE_INSTALL_DATA}/web" OPTIONAL)
install(DIRECTORY "${AFFORDANCE_MODELS}/" DESTINATION "${AFFORDANCE_INSTALL_DATA}/models"
        FILES_MATCHING PATTERN "tokenizer.json" PATTERN "tokenizer_config.json")

set(_cmake_dir "${CMAKE_INSTALL_LIBDIR}/cmake/affordance")
install(EXPORT affordanceTargets NAMESPACE affordance:: DESTINATION "${_cmake_dir}")
set(AFFORDANCE_INSTALL_VIEWS "${AFFORDANCE_INSTALL_DATA}/views")
set(AFFORDANCE_INSTALL_MODELS "${AFFORDANCE_INSTALL_DATA}/models")
configure_package_config_file("${CMAKE_SOURCE_DIR}/cmake/affordanceConfig.cmake.in"
  "${CMAKE_BINARY_DIR}/affordanceConfig.cmake" INSTALL_DESTINATION "${_cmake_dir}"
  PATH_VARS AFFORDANCE_INSTALL_VIEWS AFFORDANCE_INSTALL_MODELS)
write_basic_package_version_file("${CMAKE_BINARY_DIR}/affordanceConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_BINARY_DIR}/affordanceConfig.cmake"
              "${CMAKE_BINARY_DIR}/affordanceConfigVersion.cmake" DESTINATION "${_cmake_dir}")

# The .pc file finds its prefix from where it lies (relocatable, like the CMake package).
file(RELATIVE_PATH AFFORDANCE_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
configure_file("${CMAKE_SOURCE_DIR}/cmake/affordance.pc.in" "${CMAKE_BINARY_DIR}/affordance.pc" @ONLY)
install(FILES "${CMAKE_BINARY_DIR}/affordance.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")

# A running binary must say which source it is: the version and the git commit it was built from
# (suffixed "-dirty" when the tree had uncommitted changes). Regenerated on every build, rewritten
# only when it changes, so it never forces a relink by itself.
set(AFFORDANCE_VERSION_CPP "${AFFORDANCE_GENERATED}/version.cpp")
add_custom_target(affordance_version_info
  COMMAND "${CMAKE_COMMAND}" -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DOUT=${AFFORDANCE_VERSION_CPP}
          -DVERSION=${PROJECT_VERSION} -P "${CMAKE_SOURCE_DIR}/cmake/write_version.cmake"
  BYPRODUCTS "${AFFORDANCE_VERSION_CPP}"
  COMMENT "Recording the git commit"
  VERBATIM)

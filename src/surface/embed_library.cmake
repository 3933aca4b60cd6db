# Writes default_library.cpp: the default library JSON as a C++ string constant.
file(READ "${INPUT}" content)
file(WRITE "${OUTPUT}" "// Generated from src/surface/default_library.json; do not edit.\nnamespace affordance::surface {\nextern const char* const kDefaultLibraryJson;\nconst char* const kDefaultLibraryJson = R\"OPENUI_LIBRARY(${content})OPENUI_LIBRARY\";\n}  // namespace affordance::surface\n")

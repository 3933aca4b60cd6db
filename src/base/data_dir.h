// Where the data files that ship with affordance (views/lib, the chat-format adapters, prepared
// tokenizer data) are found relative to the running program, so an installed or freshly built
// binary works from any folder without environment variables.
//
// Layout: an installed tree is <prefix>/bin/<program> + <prefix>/share/affordance/<name>; a build
// tree is <build>/<program> + <build>/share/affordance/<name> (CMake links those to the source
// folders at configure time). Programs elsewhere (tests, programs embedding the libraries) find
// nothing here and name their folders explicitly (e.g. view::ViewOptions::lib_root).
#pragma once

#include <filesystem>
#include <optional>
#include <string_view>

namespace affordance {

// The folder holding the running program (from /proc/self/exe), or nullopt when it cannot be
// read. Thread-safe; computed once.
std::optional<std::filesystem::path> ProgramDir();

// `share/affordance/<name>` next to the running program: "<program dir>/../share/affordance/<name>"
// (installed) else "<program dir>/share/affordance/<name>" (build tree), whichever is an existing
// folder first; nullopt when neither is. `name` is relative, e.g. "views/lib" or "models".
std::optional<std::filesystem::path> ShippedDataDir(std::string_view name);

}  // namespace affordance

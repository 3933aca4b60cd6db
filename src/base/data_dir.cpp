#include "base/data_dir.h"

#include <system_error>

namespace affordance {

namespace fs = std::filesystem;

std::optional<fs::path> ProgramDir() {
  static const std::optional<fs::path> dir = []() -> std::optional<fs::path> {
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec || exe.empty()) return std::nullopt;
    return exe.parent_path();
  }();
  return dir;
}

std::optional<fs::path> ShippedDataDir(std::string_view name) {
  const auto program = ProgramDir();
  if (!program) return std::nullopt;
  for (const fs::path& root : {program->parent_path(), *program}) {
    fs::path candidate = (root / "share" / "affordance" / fs::path(name)).lexically_normal();
    std::error_code ec;
    if (fs::is_directory(candidate, ec)) return candidate;
  }
  return std::nullopt;
}

}  // namespace affordance

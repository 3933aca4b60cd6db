#include "cli/output.h"

#include "text/display_width.h"

#include "base/json_limits.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace affordance::cli {

Status CheckInputDepth(std::string_view text, std::string_view what) {
  return CheckJsonDepth(text, "cli.too_deep", what);
}

int ReportError(const Error& error, bool json, int exit_code) {
  if (json) {
    nlohmann::json e = {{"code", error.code}, {"message", error.message}};
    if (!error.detail.empty()) e["detail"] = error.detail;
    e["category"] = ErrorKindName(error.kind);
    std::cout << text::EscapeHiddenInJson(nlohmann::json{{"error", e}}.dump(
                     -1, ' ', false, nlohmann::json::error_handler_t::replace))
              << std::endl;
  } else {
    std::cerr << "affordance: " << text::Printable(error.ToString()) << " ["
              << text::Printable(error.code) << "]" << std::endl;
  }
  return exit_code < 0 ? ExitCodeOf(error.kind) : exit_code;
}

std::string ReadStdin() {
  std::ostringstream ss;
  ss << std::cin.rdbuf();
  return ss.str();
}

Result<std::string> ReadFileOrStdin(const std::string& path) {
  if (path == "-") return ReadStdin();
  std::ifstream in(path, std::ios::binary);
  if (!in) return MakeError("io.read_failed", "cannot read file", path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace affordance::cli

// LoadModel: registered model names and folders -> cached tokenizers.
#include "text/huge_pages.h"
#include "text/tokenizer.h"

#include "base/data_dir.h"
#include "base/nearest.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#ifndef AFFORDANCE_MODELS_DIR
#error "AFFORDANCE_MODELS_DIR must name the default models folder (CMake's AFFORDANCE_MODELS)"
#endif

namespace affordance::text {
namespace {

namespace fs = std::filesystem;

constexpr const char* kRegisteredModels[] = {"Qwen__Qwen3-4B-Instruct-2507",
                                             "meta-llama__Llama-3.1-8B-Instruct"};

// tokenizer.json is ~10 MB and only read while loading, so it goes into huge pages too.
Result<BigVector<char>> ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return MakeError("tokenizer.read_failed", "cannot read a tokenizer file", path.string());
  BigVector<char> data(static_cast<size_t>(in.tellg()));
  in.seekg(0);
  if (!in.read(data.data(), static_cast<std::streamsize>(data.size())))
    return MakeError("tokenizer.read_failed", "cannot read a tokenizer file", path.string());
  return data;
}

// $AFFORDANCE_MODELS, else the prepared data installed with the running program
// (<prefix>/share/affordance/models), else the folder this library was configured with.
fs::path ModelsRoot() {
  const char* env = std::getenv("AFFORDANCE_MODELS");
  if (env && *env) return fs::path(env);
  if (auto shipped = ShippedDataDir("models")) return *shipped;
  return fs::path(AFFORDANCE_MODELS_DIR);
}

}  // namespace

Result<std::unique_ptr<Tokenizer>> Tokenizer::LoadDirectory(const std::string& dir) {
  fs::path folder(dir);
  std::error_code ec;
  if (!fs::is_regular_file(folder / "tokenizer.json", ec)) {
    return MakeError("tokenizer.model_not_found", "no tokenizer.json in the model folder", dir);
  }
  auto json = ReadFile(folder / "tokenizer.json");
  if (!json.ok()) return json.error();
  BigVector<char> config;
  if (fs::is_regular_file(folder / "tokenizer_config.json", ec)) {
    auto c = ReadFile(folder / "tokenizer_config.json");
    if (!c.ok()) return c.error();
    config = std::move(c.value());
  }
  auto tokenizer = FromJson({json->data(), json->size()}, {config.data(), config.size()});
  if (!tokenizer.ok()) {
    Error e = tokenizer.error();
    e.detail = e.detail.empty() ? (folder / "tokenizer.json").string()
                                : (folder / "tokenizer.json").string() + ": " + e.detail;
    return e;
  }
  return tokenizer;
}

Result<std::shared_ptr<const Tokenizer>> LoadModel(const std::string& name_or_path) {
  fs::path folder;
  bool registered = false;
  for (const char* name : kRegisteredModels) registered = registered || name_or_path == name;
  if (registered) {
    folder = ModelsRoot() / name_or_path;
  } else {
    std::error_code ec;
    if (!fs::is_directory(name_or_path, ec)) {
      std::string names;
      for (const char* name : kRegisteredModels)
        names += std::string(names.empty() ? "" : ", ") + name;
      // Bad input at every command (exit 2, "invalid"), with the nearest registered name.
      std::vector<std::string> known(std::begin(kRegisteredModels), std::end(kRegisteredModels));
      return MakeError(ErrorKind::kInvalid, "tokenizer.model_not_found",
                       "--model \"" + name_or_path +
                           "\" is not a registered model name or a folder with tokenizer.json" +
                           DidYouMean(name_or_path, known),
                       fmt::format("{} (registered: {})", name_or_path, names));
    }
    folder = name_or_path;
  }
  std::error_code ec;
  fs::path key = fs::weakly_canonical(folder, ec);
  if (ec) key = folder;

  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const Tokenizer>> cache;
  std::lock_guard<std::mutex> lock(mu);  // also makes concurrent first loads load once
  if (auto it = cache.find(key.string()); it != cache.end()) return it->second;
  auto loaded = Tokenizer::LoadDirectory(folder.string());
  if (!loaded.ok()) {
    Error e = loaded.error();
    // A folder the person named that holds no tokenizer is bad input like an unknown name; a
    // registered model whose files are missing is an installation fault (scripts/setup fetches).
    if (!registered && e.code == "tokenizer.model_not_found") e.kind = ErrorKind::kInvalid;
    return e;
  }
  std::shared_ptr<const Tokenizer> shared(std::move(loaded.value()));
  cache.emplace(key.string(), shared);
  return shared;
}

}  // namespace affordance::text

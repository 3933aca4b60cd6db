// Shared fixtures for the tokenizer tests: the two registered models, loaded once per process.
#pragma once

#include "text/tokenizer.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace affordance::text::testing {

inline constexpr const char* kQwen = "Qwen__Qwen3-4B-Instruct-2507";
inline constexpr const char* kLlama = "meta-llama__Llama-3.1-8B-Instruct";

// Loads a registered model or fails the current test.
inline std::shared_ptr<const Tokenizer> Model(const char* name) {
  auto t = LoadModel(name);
  if (!t.ok()) {
    ADD_FAILURE() << "cannot load " << name << ": " << t.error().ToString();
    return nullptr;
  }
  return t.value();
}

}  // namespace affordance::text::testing

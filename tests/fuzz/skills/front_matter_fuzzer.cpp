// Arbitrary bytes as the start of a SKILL.md: either front matter that keeps the subset's promises
// (unique keys of key characters, values of the kind they say, a body offset inside the text) or
// a skills.bad_front_matter error whose message names a line; never a crash or an exception.
#include "skills/front_matter.h"

#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using affordance::skills::FrontMatterValue;
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto fm = affordance::skills::ParseFrontMatter(text);
  if (!fm.ok()) {
    if (fm.error().code != "skills.bad_front_matter" || fm.error().message.rfind("line ", 0) != 0) {
      std::abort();
    }
    return 0;
  }
  if (fm->body_offset < 4 || fm->body_offset > text.size()) std::abort();
  std::set<std::string> keys;
  for (const auto& [key, value] : fm->fields) {
    if (key.empty() || key.size() > 64 || !keys.insert(key).second) std::abort();
    for (char c : key) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '-';
      if (!ok) std::abort();
    }
    switch (value.kind) {
      case FrontMatterValue::Kind::kNull:
        if (!value.scalar.empty() || !value.items.empty() || !value.entries.empty()) std::abort();
        break;
      case FrontMatterValue::Kind::kScalar:
        if (!value.items.empty() || !value.entries.empty()) std::abort();
        break;
      case FrontMatterValue::Kind::kSequence:
        if (!value.scalar.empty() || !value.entries.empty()) std::abort();
        break;
      case FrontMatterValue::Kind::kMapping:
        if (!value.scalar.empty() || !value.items.empty() || value.entries.empty()) std::abort();
        break;
    }
    if (fm->Find(key) != &value) std::abort();
  }
  // The closing marker is the line just before the body.
  const std::string before = text.substr(0, fm->body_offset);
  if (before.find("---") == std::string::npos) std::abort();
  return 0;
}

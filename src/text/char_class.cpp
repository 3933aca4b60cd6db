#include "text/char_class.h"

#include <utf8proc.h>

#include <array>

namespace affordance::text {
namespace {

bool IsWhiteSpace(char32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
         cp == 0x205F || cp == 0x3000;
}

CharClass Compute(char32_t cp) {
  if (IsWhiteSpace(cp)) return CharClass::kSpace;
  switch (utf8proc_category(static_cast<utf8proc_int32_t>(cp))) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
      return CharClass::kLetter;
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
      return CharClass::kNumber;
    default:
      return CharClass::kOther;
  }
}

// Basic Multilingual Plane in a flat table (64 KiB); the rest asks utf8proc.
struct BmpTable {
  std::array<CharClass, 0x10000> cls;
  BmpTable() {
    for (char32_t cp = 0; cp < 0x10000; ++cp) cls[cp] = Compute(cp);
  }
};

}  // namespace

CharClass ClassOf(char32_t cp) {
  static const BmpTable table;
  if (cp < 0x10000) return table.cls[cp];
  return Compute(cp);
}

}  // namespace affordance::text

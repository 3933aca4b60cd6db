#include "text/normalizer.h"

#include <utf8proc.h>

#include <cstdlib>
#include <memory>

namespace affordance::text {
namespace {

void AppendNfcRun(std::string_view run, std::string& out) {
  utf8proc_uint8_t* result = nullptr;
  utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(run.data()),
                                    static_cast<utf8proc_ssize_t>(run.size()), &result,
                                    static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owned(result, &std::free);
  if (n < 0) {
    out.append(run);  // cannot happen for valid UTF-8; keep the text rather than lose it
    return;
  }
  out.append(reinterpret_cast<const char*>(result), static_cast<size_t>(n));
}

}  // namespace

void AppendNfc(std::string_view text, std::string& out) {
  // An ASCII character never decomposes and never composes with what precedes it, so the text is
  // normalized in independent runs: ASCII is copied, and each non-ASCII stretch (together with the
  // ASCII character before it, which a combining mark may compose with) goes through utf8proc.
  size_t i = 0, n = text.size();
  while (i < n) {
    size_t j = i;
    while (j < n && static_cast<unsigned char>(text[j]) < 0x80) ++j;
    if (j == n) {
      out.append(text.substr(i));
      return;
    }
    size_t start = j > i ? j - 1 : j;
    out.append(text.substr(i, start - i));
    size_t k = j;
    while (k < n && static_cast<unsigned char>(text[k]) >= 0x80) ++k;
    AppendNfcRun(text.substr(start, k - start), out);
    i = k;
  }
}

void Normalizer::Apply(std::string_view text, std::string& out) const {
  out.clear();
  if (!nfc_) {
    out.assign(text);
    return;
  }
  AppendNfc(text, out);
}

}  // namespace affordance::text

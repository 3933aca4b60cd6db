#include "text/normalizer.h"

#include <utf8proc.h>

#include "text/utf8.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace affordance::text {
namespace {

void AppendNfcRun(std::string_view run, std::string& out) {
  utf8proc_uint8_t* result = nullptr;
  utf8proc_ssize_t n =
      utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(run.data()),
                   static_cast<utf8proc_ssize_t>(run.size()), &result,
                   static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owned(result, &std::free);
  if (n < 0) {
    out.append(run);  // cannot happen for valid UTF-8; keep the text rather than lose it
    return;
  }
  out.append(reinterpret_cast<const char*>(result), static_cast<size_t>(n));
}

// NFC by segments. A character c is "inert" when it has canonical combining class 0, NFC leaves
// it unchanged, and it never composes with a character before it (it is not the second part of
// any canonical decomposition, nor is the first character of its own decomposition). Then for all
// x, y: NFC(x c y) = NFC(x) NFC(c y): non-starters cannot be reordered across c, nothing before c
// can compose with c or with anything after it (c blocks), and c is stable itself. Text is cut
// into segments that start at an inert character. A segment passes the NFC quick check of UAX #15
// when every character is NFC_QC=Yes (not a possible second, unchanged by NFC) and the combining
// classes of consecutive non-starters never decrease; such a segment is already NFC and is copied.
// Only the other segments go through utf8proc. Most text of most scripts (CJK, Hangul syllables,
// Cyrillic, Arabic, Devanagari with its viramas, Thai with its tone marks, precomposed Latin,
// emoji) passes, so NFC costs a table lookup per character instead of a decompose-and-recompose.
class NfcTables {
 public:
  static constexpr uint16_t kInert = 0x100;  // flags above the combining class (low 8 bits)
  static constexpr uint16_t kQuickYes = 0x200;

  NfcTables() : second_(kScanLimit, false), bmp_(0x10000, 0) {
    // Every canonical decomposition: the characters after the first can compose with what
    // precedes them.
    std::vector<char32_t> firsts(kScanLimit, 0);
    for (char32_t cp = 0; cp < kScanLimit; ++cp) {
      if (!HasCanonicalDecomposition(cp)) continue;
      utf8proc_int32_t buf[16];
      int last_boundclass = 0;
      utf8proc_ssize_t n = utf8proc_decompose_char(static_cast<utf8proc_int32_t>(cp), buf, 16,
                                                   UTF8PROC_DECOMPOSE, &last_boundclass);
      if (n <= 0 || n > 16) continue;
      firsts[cp] = static_cast<char32_t>(buf[0]);
      for (utf8proc_ssize_t k = 1; k < n; ++k)
        if (static_cast<char32_t>(buf[k]) < kScanLimit) second_[static_cast<size_t>(buf[k])] = true;
    }
    // Hangul: a leading+vowel jamo pair or an LV syllable composes with the following jamo.
    for (char32_t cp = 0x1161; cp <= 0x1175; ++cp) second_[cp] = true;
    for (char32_t cp = 0x11A8; cp <= 0x11C2; ++cp) second_[cp] = true;
    for (char32_t cp = 0; cp < 0x10000; ++cp) {
      if (cp >= 0xD800 && cp <= 0xDFFF) continue;
      bmp_[cp] = Compute(cp, firsts[cp]);
    }
  }

  // Combining class | kInert | kQuickYes.
  uint16_t Info(char32_t cp) const {
    if (cp < 0x10000) return bmp_[cp];
    // Outside the BMP, characters with a canonical decomposition (a few hundred) simply take the
    // slow path.
    const int ccc = Combining(cp);
    if (HasCanonicalDecomposition(cp) || (cp < kScanLimit && second_[cp]))
      return static_cast<uint16_t>(ccc);
    return static_cast<uint16_t>(ccc | kQuickYes | (ccc == 0 ? kInert : 0));
  }

 private:
  static constexpr char32_t kScanLimit = 0x30000;  // no canonical decompositions beyond

  static int Combining(char32_t cp) {
    return utf8proc_get_property(static_cast<utf8proc_int32_t>(cp))->combining_class;
  }
  static bool IsHangulSyllable(char32_t cp) { return cp >= 0xAC00 && cp <= 0xD7A3; }
  static bool HasCanonicalDecomposition(char32_t cp) {
    if (IsHangulSyllable(cp)) return true;
    const utf8proc_property_t* p = utf8proc_get_property(static_cast<utf8proc_int32_t>(cp));
    return p->decomp_seqindex != UINT16_MAX && p->decomp_type == 0;
  }
  // NFC of the character alone is the character (it is not a singleton or excluded composite).
  static bool StableAlone(char32_t cp) {
    if (IsHangulSyllable(cp)) return true;
    std::string one;
    utf8::Append(one, cp);
    utf8proc_uint8_t* result = nullptr;
    utf8proc_ssize_t n =
        utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(one.data()),
                     static_cast<utf8proc_ssize_t>(one.size()), &result,
                     static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
    std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owned(result, &std::free);
    return n == static_cast<utf8proc_ssize_t>(one.size()) &&
           std::memcmp(result, one.data(), one.size()) == 0;
  }

  uint16_t Compute(char32_t cp, char32_t first) const {
    const int ccc = Combining(cp);
    if (second_[cp]) return static_cast<uint16_t>(ccc);  // NFC_QC=Maybe
    const bool decomposes = HasCanonicalDecomposition(cp);
    if (decomposes && !StableAlone(cp)) return static_cast<uint16_t>(ccc);  // NFC_QC=No
    uint16_t info = static_cast<uint16_t>(ccc | kQuickYes);
    const bool first_ok = !decomposes || (first != 0 && first < kScanLimit && !second_[first] &&
                                          Combining(first) == 0);
    if (ccc == 0 && first_ok) info |= kInert;
    return info;
  }

  std::vector<bool> second_;
  std::vector<uint16_t> bmp_;
};

const NfcTables& Tables() {
  static const NfcTables tables;
  return tables;
}

}  // namespace

bool IsNfcInert(char32_t cp) { return (Tables().Info(cp) & NfcTables::kInert) != 0; }

void AppendNfc(std::string_view text, std::string& out) {
  const NfcTables& tables = Tables();
  const size_t n = text.size();
  size_t copied = 0;     // text[0, copied) is in `out`
  size_t segment = 0;    // where the current segment starts (an inert character, or 0)
  bool failed = false;   // the segment failed the quick check
  uint8_t last_ccc = 0;  // combining class of the previous character
  auto flush = [&](size_t end) {
    out.append(text.substr(copied, segment - copied));
    AppendNfcRun(text.substr(segment, end - segment), out);
    copied = end;
    failed = false;
  };
  size_t i = 0;
  while (i < n) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {  // ASCII is inert
      if (failed) flush(i);
      size_t j = i + 1;
      while (j < n && static_cast<unsigned char>(text[j]) < 0x80) ++j;
      segment = j - 1;
      last_ccc = 0;
      i = j;
      continue;
    }
    const size_t start = i;
    const uint16_t info = tables.Info(utf8::Next(text, i));
    const auto ccc = static_cast<uint8_t>(info & 0xFF);
    if (info & NfcTables::kInert) {
      if (failed) flush(start);
      segment = start;
    } else if (!(info & NfcTables::kQuickYes) || (ccc != 0 && last_ccc > ccc)) {
      failed = true;
    }
    last_ccc = ccc;
  }
  if (failed) flush(n);
  out.append(text.substr(copied));
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

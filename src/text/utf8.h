// UTF-8 primitives shared by the tokenizer stages: strict validation (with the offset of the first
// bad byte), code point iteration over already-validated text, and the lossy conversion the
// reference decoder applies (Rust's String::from_utf8_lossy: every maximal invalid subpart becomes
// one U+FFFD).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace affordance::text::utf8 {

inline constexpr size_t kValid = static_cast<size_t>(-1);

// Returns kValid when `s` is well-formed UTF-8 (no overlongs, surrogates or code points above
// U+10FFFF), else the byte offset where the first ill-formed sequence starts.
size_t FirstInvalid(std::string_view s);

// Decodes the code point at s[i] of VALID UTF-8 and advances i past it.
inline char32_t Next(std::string_view s, size_t& i) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data()) + i;
  unsigned char c = p[0];
  if (c < 0x80) {
    i += 1;
    return c;
  }
  if (c < 0xE0) {
    i += 2;
    return ((c & 0x1F) << 6) | (p[1] & 0x3F);
  }
  if (c < 0xF0) {
    i += 3;
    return ((c & 0x0F) << 12) | ((p[1] & 0x3F) << 6) | (p[2] & 0x3F);
  }
  i += 4;
  return ((c & 0x07) << 18) | ((p[1] & 0x3F) << 12) | ((p[2] & 0x3F) << 6) | (p[3] & 0x3F);
}

// Length of the sequence that starts with lead byte `c` of valid UTF-8.
inline size_t SequenceLength(unsigned char c) {
  return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

// Appends the UTF-8 encoding of `cp` (which must be a Unicode scalar value).
void Append(std::string& out, char32_t cp);

// Appends `bytes` to `out`, replacing each maximal ill-formed subpart with U+FFFD exactly as Rust's
// String::from_utf8_lossy does.
void AppendLossy(std::string& out, std::string_view bytes);

// Length of the longest prefix of `bytes` that does not end inside a character that might still
// be completed by more bytes: everything before a trailing, truncated but so-far-valid sequence.
size_t CompletePrefix(std::string_view bytes);

}  // namespace affordance::text::utf8

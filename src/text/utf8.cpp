#include "text/utf8.h"

#include <cstring>

namespace affordance::text::utf8 {
namespace {

// Length of the well-formed sequence at p[0..n), or 0 when it is ill-formed; *needed is set to
// the full length when the sequence is a valid but truncated prefix (n too short), else 0.
// `bad_len` receives the length of the maximal ill-formed subpart when it returns 0.
size_t Sequence(const unsigned char* p, size_t n, size_t* bad_len, bool* truncated) {
  *truncated = false;
  unsigned char c = p[0];
  if (c < 0x80) return 1;
  size_t len;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    *bad_len = 1;
    return 0;
  }
  for (size_t k = 1; k < len; ++k) {
    if (k >= n) {
      *truncated = true;
      *bad_len = k;
      return 0;
    }
    unsigned char b = p[k];
    unsigned char l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xBF;
    if (b < l || b > h) {
      *bad_len = k;
      return 0;
    }
  }
  return len;
}

}  // namespace

size_t FirstInvalid(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size(), i = 0;
  while (i < n) {
    // ASCII fast path, eight bytes at a time.
    while (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      if (w & 0x8080808080808080ULL) break;
      i += 8;
    }
    if (i >= n) break;
    const unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    // The common multi-byte forms inline: two bytes (Latin, Greek, Cyrillic, Hebrew, Arabic) and
    // three bytes with a lead byte that puts no extra bound on the second byte (most of the BMP:
    // Indic scripts, Thai, CJK, Hangul). Everything else takes the exact check below.
    if (c >= 0xC2 && c <= 0xDF && i + 1 < n && (p[i + 1] & 0xC0) == 0x80) {
      i += 2;
      continue;
    }
    if (((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) && i + 2 < n &&
        (p[i + 1] & 0xC0) == 0x80 && (p[i + 2] & 0xC0) == 0x80) {
      i += 3;
      continue;
    }
    size_t bad = 0;
    bool truncated = false;
    size_t len = Sequence(p + i, n - i, &bad, &truncated);
    if (len == 0) return i;
    i += len;
  }
  return kValid;
}

void Append(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

void AppendLossy(std::string& out, std::string_view bytes) {
  size_t first_bad = FirstInvalid(bytes);
  if (first_bad == kValid) {
    out.append(bytes);
    return;
  }
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t n = bytes.size();
  out.append(bytes.substr(0, first_bad));
  size_t i = first_bad;
  while (i < n) {
    size_t bad = 0;
    bool truncated = false;
    size_t len = Sequence(p + i, n - i, &bad, &truncated);
    if (len == 0) {
      out.append("\xEF\xBF\xBD");
      i += bad;
    } else {
      out.append(bytes.substr(i, len));
      i += len;
    }
  }
}

size_t CompletePrefix(std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t n = bytes.size();
  // A truncated sequence is at most 3 bytes long and starts at a lead byte.
  size_t start = n > 3 ? n - 3 : 0;
  for (size_t i = n; i-- > start;) {
    if ((p[i] & 0xC0) == 0x80) continue;  // continuation byte: keep looking for its lead
    size_t bad = 0;
    bool truncated = false;
    Sequence(p + i, n - i, &bad, &truncated);
    return truncated ? i : n;
  }
  return n;
}

}  // namespace affordance::text::utf8

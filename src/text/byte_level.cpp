#include "text/byte_level.h"

#include "text/utf8.h"

namespace affordance::text::byte_level {
namespace {

struct Alphabet {
  std::array<char32_t, 256> char_of{};
  std::array<int16_t, 324> byte_of{};  // every alphabet code point is below 0x144

  Alphabet() {
    byte_of.fill(-1);
    // Printable Latin-1 bytes spell themselves; the rest are shifted to 256 + n in byte order.
    auto printable = [](int b) {
      return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    };
    int n = 0;
    for (int b = 0; b < 256; ++b) {
      char32_t cp = printable(b) ? static_cast<char32_t>(b) : static_cast<char32_t>(256 + n++);
      char_of[b] = cp;
      byte_of[cp] = static_cast<int16_t>(b);
    }
  }
};

const Alphabet& GetAlphabet() {
  static const Alphabet alphabet;
  return alphabet;
}

}  // namespace

char32_t CharOf(uint8_t b) { return GetAlphabet().char_of[b]; }

std::optional<uint8_t> ByteOf(char32_t cp) {
  const Alphabet& a = GetAlphabet();
  if (cp >= a.byte_of.size() || a.byte_of[cp] < 0) return std::nullopt;
  return static_cast<uint8_t>(a.byte_of[cp]);
}

void Spell(std::string_view bytes, std::string& out) {
  const Alphabet& a = GetAlphabet();
  for (unsigned char b : bytes) utf8::Append(out, a.char_of[b]);
}

std::string Unspell(std::string_view token) {
  std::string bytes;
  UnspellInto(token, bytes);
  return bytes;
}

bool UnspellInto(std::string_view token, std::string& out) {
  const Alphabet& a = GetAlphabet();
  size_t start = out.size();
  size_t i = 0;
  while (i < token.size()) {
    char32_t cp = utf8::Next(token, i);
    if (cp >= a.byte_of.size() || a.byte_of[cp] < 0) {
      out.resize(start);
      out.append(token);
      return false;
    }
    out.push_back(static_cast<char>(a.byte_of[cp]));
  }
  return true;
}

}  // namespace affordance::text::byte_level

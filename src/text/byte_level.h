// The GPT-2 byte-level alphabet: every byte 0..255 is spelled as one printable Unicode character
// ('A' stays 'A', ' ' becomes 'Ġ' U+0120, '\n' becomes 'Ċ' U+010A), so a vocabulary of strings
// can name every byte sequence.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace affordance::text::byte_level {

// The code point that spells byte `b`.
char32_t CharOf(uint8_t b);

// The byte a code point spells, or nullopt when it is not part of the alphabet.
std::optional<uint8_t> ByteOf(char32_t cp);

// Appends the alphabet spelling of `bytes` (UTF-8) to `out`.
void Spell(std::string_view bytes, std::string& out);

// The bytes a vocabulary string stands for, as the ByteLevel decoder computes them: every
// character mapped back to its byte, or, when any character is outside the alphabet, the string's
// own UTF-8 bytes unchanged.
std::string Unspell(std::string_view token);
// Appends Unspell(token) to `out`; returns false when it fell back to the raw UTF-8 bytes.
bool UnspellInto(std::string_view token, std::string& out);

}  // namespace affordance::text::byte_level

// Fuzzes the person's session tokens and sign-in codes (server/person_session.h, docs/SECURITY.md):
// one value has exactly one accepted spelling. The first byte picks the kind (session or code) and
// whether the input is raw bytes or an edit script applied to a freshly minted value; an edit
// script inserts, replaces or deletes bytes (with a bias towards digits, '0', signs, whitespace,
// dots and upper-case hex, the respellings of a number or a hex string). Properties: nothing
// crashes; a value is accepted only when it is byte for byte the one that was minted; Parse
// accepts only what re-serializes to the same text; a spent code is never redeemed again, however
// it is spelled.
#include "server/person_session.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

using affordance::server::PersonSessions;

constexpr int64_t kNow = 1'700'000'000'000;

std::string Serialize(char kind, const PersonSessions::Parsed& p) {
  return std::string(kind == 's' ? "ps1." : "pl1.") + std::to_string(p.expiry_ms) + "." +
         std::string(p.nonce) + "." + std::string(p.mac);
}

// Applies the edit script in `script` to `value`: each op is two bytes (what, where).
std::string Edit(std::string value, std::string_view script) {
  static constexpr std::string_view kBias = "0123456789abcdefABCDEF+- \t\n.x";
  for (size_t i = 0; i + 1 < script.size() && value.size() < 300; i += 2) {
    const auto op = static_cast<uint8_t>(script[i]);
    const size_t at = value.empty() ? 0 : static_cast<uint8_t>(script[i + 1]) % (value.size() + 1);
    const char c = (op & 0x80) ? static_cast<char>(op & 0x7f) : kBias[(op >> 2) % kBias.size()];
    switch (op & 3) {
      case 0:
        value.insert(at, 1, c);
        break;
      case 1:
        if (at < value.size()) value[at] = c;
        break;
      case 2:
        if (at < value.size()) value.erase(at, 1);
        break;
      default:
        value.insert(at, "0");  // the repro: a leading zero
        break;
    }
  }
  return value;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t flags = data[0];
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const char kind = (flags & 1) ? 'l' : 's';
  PersonSessions sessions(std::string(64, 'f'), [] { return kNow; });
  const std::string original = kind == 's' ? sessions.Mint() : sessions.LoginCode();
  const std::string value = (flags & 2) ? std::string(rest) : Edit(original, rest);

  const auto parsed = PersonSessions::Parse(kind, value);
  if (parsed && Serialize(kind, *parsed) != value) std::abort();  // one spelling per value
  if (kind == 's') {
    const bool ok = sessions.Verify(value);
    if (ok != (value == original)) std::abort();
    if ((sessions.ExpiresAt(value) != 0) != ok) std::abort();
    if (sessions.Redeem(value)) std::abort();  // a session is never a code
  } else {
    if (sessions.Verify(value)) std::abort();  // a code is never a session
    const bool first = (flags & 4) ? sessions.Redeem(original) : false;
    const bool got = sessions.Redeem(value);
    if (got != (!first && value == original)) std::abort();
    if (sessions.Redeem(original) != !(first || got)) std::abort();  // it is spent now in any case
    if (sessions.Redeem(original) || sessions.Redeem(value)) std::abort();  // however spelled
  }
  return 0;
}

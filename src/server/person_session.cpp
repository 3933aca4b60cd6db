#include "server/person_session.h"

#include "server/operator_root.h"
#include "store/store.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <charconv>

namespace affordance::server {
namespace {

std::string Hex(const unsigned char* data, size_t n) {
  static const char* kHex = "0123456789abcdef";
  std::string out;
  out.reserve(n * 2);
  for (size_t i = 0; i < n; ++i) {
    out.push_back(kHex[data[i] >> 4]);
    out.push_back(kHex[data[i] & 0xf]);
  }
  return out;
}

std::string Hmac(std::string_view key, std::string_view message) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac, &len);
  return std::string(reinterpret_cast<const char*>(mac), len);
}

// A decimal with no sign, space or leading zero, short enough for an int64.
bool CanonicalDecimal(std::string_view s) {
  if (s.empty() || s.size() > 19 || s.front() == '0') return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool LowerHex(std::string_view s, size_t n) {
  return s.size() == n && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

}  // namespace

PersonSessions::PersonSessions(std::string_view trust_root, std::function<int64_t()> now_ms)
    : key_(Hmac(trust_root, "affordance person session v1")), now_ms_(std::move(now_ms)) {}

int64_t PersonSessions::Now() const { return now_ms_ ? now_ms_() : store::NowMs(); }

std::string PersonSessions::Sign(char kind, int64_t expiry_ms, std::string_view nonce) const {
  const std::string mac =
      Hmac(key_, std::string(1, kind) + "|" + std::to_string(expiry_ms) + "|" + std::string(nonce));
  return Hex(reinterpret_cast<const unsigned char*>(mac.data()), mac.size());
}

std::string PersonSessions::Make(char kind, int64_t ttl_ms) const {
  const int64_t expiry = Now() + ttl_ms;
  const std::string nonce = RandomHex(kNonceChars / 2);
  return std::string(kind == 's' ? "ps1." : "pl1.") + std::to_string(expiry) + "." + nonce + "." +
         Sign(kind, expiry, nonce);
}

std::optional<PersonSessions::Parsed> PersonSessions::Parse(char kind, std::string_view value) {
  const std::string_view prefix = kind == 's' ? "ps1." : "pl1.";
  if (value.size() > 256 || value.substr(0, prefix.size()) != prefix) return std::nullopt;
  value.remove_prefix(prefix.size());
  const size_t dot1 = value.find('.');
  if (dot1 == std::string_view::npos) return std::nullopt;
  const size_t dot2 = value.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos) return std::nullopt;
  const std::string_view expiry_text = value.substr(0, dot1);
  Parsed p;
  p.nonce = value.substr(dot1 + 1, dot2 - dot1 - 1);
  p.mac = value.substr(dot2 + 1);
  // Exactly the spelling Make writes: one value has one spelling, so nothing keyed by a value's
  // text (the redeemed codes) can be passed by respelling it.
  if (!CanonicalDecimal(expiry_text) || !LowerHex(p.nonce, kNonceChars) ||
      !LowerHex(p.mac, kMacChars)) {
    return std::nullopt;
  }
  auto [end, ec] =
      std::from_chars(expiry_text.data(), expiry_text.data() + expiry_text.size(), p.expiry_ms);
  if (ec != std::errc() || end != expiry_text.data() + expiry_text.size()) return std::nullopt;
  return p;
}

int64_t PersonSessions::Check(char kind, std::string_view value, std::string* nonce) const {
  const auto p = Parse(kind, value);
  if (!p) return 0;
  if (!SecretMatches(p->mac, Sign(kind, p->expiry_ms, p->nonce))) return 0;  // constant time
  if (p->expiry_ms <= Now()) return 0;
  if (nonce != nullptr) *nonce = std::string(p->nonce);
  return p->expiry_ms;
}

std::string PersonSessions::Mint(int64_t ttl_ms) const { return Make('s', ttl_ms); }

bool PersonSessions::Verify(std::string_view token) const { return Check('s', token) != 0; }

int64_t PersonSessions::ExpiresAt(std::string_view token) const { return Check('s', token); }

std::string PersonSessions::LoginCode(int64_t ttl_ms) const { return Make('l', ttl_ms); }

bool PersonSessions::Redeem(std::string_view code) {
  std::string nonce;
  const int64_t expiry = Check('l', code, &nonce);
  if (expiry == 0) return false;
  std::lock_guard lock(mu_);
  const int64_t now = Now();
  std::erase_if(redeemed_, [&](const auto& e) { return e.second <= now; });
  // Keyed by the nonce the MAC covers, never by the text: a code is spent however it is spelled.
  return redeemed_.emplace(std::move(nonce), expiry).second;
}

}  // namespace affordance::server

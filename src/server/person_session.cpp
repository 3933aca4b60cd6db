#include "server/person_session.h"

#include "server/operator_root.h"
#include "store/store.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

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
  const std::string nonce = RandomHex(16);
  return std::string(kind == 's' ? "ps1." : "pl1.") + std::to_string(expiry) + "." + nonce + "." +
         Sign(kind, expiry, nonce);
}

int64_t PersonSessions::Check(char kind, std::string_view value) const {
  const std::string_view prefix = kind == 's' ? "ps1." : "pl1.";
  if (value.size() > 256 || value.substr(0, prefix.size()) != prefix) return 0;
  value.remove_prefix(prefix.size());
  const size_t dot1 = value.find('.');
  if (dot1 == std::string_view::npos) return 0;
  const size_t dot2 = value.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos) return 0;
  const std::string_view expiry_text = value.substr(0, dot1);
  const std::string_view nonce = value.substr(dot1 + 1, dot2 - dot1 - 1);
  const std::string_view mac = value.substr(dot2 + 1);
  int64_t expiry = 0;
  auto [end, ec] =
      std::from_chars(expiry_text.data(), expiry_text.data() + expiry_text.size(), expiry);
  if (ec != std::errc() || end != expiry_text.data() + expiry_text.size() || nonce.empty()) {
    return 0;
  }
  if (!SecretMatches(mac, Sign(kind, expiry, nonce))) return 0;  // constant time
  return expiry > Now() ? expiry : 0;
}

std::string PersonSessions::Mint(int64_t ttl_ms) const { return Make('s', ttl_ms); }

bool PersonSessions::Verify(std::string_view token) const { return Check('s', token) != 0; }

int64_t PersonSessions::ExpiresAt(std::string_view token) const { return Check('s', token); }

std::string PersonSessions::LoginCode(int64_t ttl_ms) const { return Make('l', ttl_ms); }

bool PersonSessions::Redeem(std::string_view code) {
  const int64_t expiry = Check('l', code);
  if (expiry == 0) return false;
  std::lock_guard lock(mu_);
  const int64_t now = Now();
  std::erase_if(redeemed_, [&](const auto& e) { return e.second <= now; });
  return redeemed_.emplace(std::string(code), expiry).second;
}

}  // namespace affordance::server

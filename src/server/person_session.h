// The person's web session: the credential that lets the web UI decide (approve, deny) and that
// nothing else can obtain (docs/SECURITY.md).
//
// A session token is minted by POST /api/session for a browser that proves it is the person:
//   - its loopback connection belongs to the OS user who runs the server (the kernel's socket
//     table says whose socket the peer is: server/internal/peer_user.h), or
//   - it presents a sign-in code from `affordance login-link`, which only someone who can read the
//     trust root (operator.secret, 0600 in the data folder) can make.
// The web UI keeps the token in its origin's local storage and sends it as `x-affordance-session`.
// It is never a cookie: cookies are shared by every port of a host, so any other local web server
// would receive it, and a browser attaches a cookie to requests a foreign page makes. A header the
// page sets itself is sent only by our own script, and a cross-origin page cannot set it without a
// CORS preflight this server refuses.
//
// Tokens and codes are stateless HMAC-SHA256 values keyed from the trust root, so they survive a
// restart and all end together when the trust root is replaced. A code is redeemed once (the
// server remembers the nonces of redeemed codes until they expire; a value has exactly one accepted
// spelling) and lives a few minutes; a session lives
// kSessionTtlMs.
//
// Thread safety: all methods may be called from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace affordance::server {

inline constexpr std::string_view kPersonSessionHeader = "x-affordance-session";
inline constexpr int64_t kSessionTtlMs = 7LL * 24 * 60 * 60 * 1000;
inline constexpr int64_t kLoginCodeTtlMs = 10LL * 60 * 1000;

class PersonSessions {
 public:
  // `trust_root`: the operator secret (operator_root.h). `now_ms`: the clock (tests); unset = the
  // system clock.
  explicit PersonSessions(std::string_view trust_root, std::function<int64_t()> now_ms = nullptr);

  // A new session token ("ps1.<expiry ms>.<nonce>.<mac>") valid for `ttl_ms`.
  std::string Mint(int64_t ttl_ms = kSessionTtlMs) const;
  // True for a token this trust root minted that has not expired.
  bool Verify(std::string_view token) const;
  // The expiry of a valid token (ms since the epoch), 0 when it is not valid.
  int64_t ExpiresAt(std::string_view token) const;

  // A sign-in code ("pl1.<expiry ms>.<nonce>.<mac>") valid for `ttl_ms`, for a browser that
  // cannot prove locality (another machine, another OS user's browser).
  std::string LoginCode(int64_t ttl_ms = kLoginCodeTtlMs) const;
  // Redeems a code once: true when it is valid, unexpired and its nonce was not redeemed before.
  bool Redeem(std::string_view code);

  // The fields of a value of `kind` ('s' session, 'l' sign-in code) spelled exactly as Mint and
  // LoginCode write them: the prefix, a decimal expiry with no sign, space or leading zero, a
  // nonce of kNonceChars and a MAC of kMacChars lower-case hex digits. Any other spelling is
  // nullopt, so one value has one spelling. The MAC is not checked here. Views into `value`.
  struct Parsed {
    int64_t expiry_ms = 0;
    std::string_view nonce;
    std::string_view mac;
  };
  static std::optional<Parsed> Parse(char kind, std::string_view value);
  static constexpr size_t kNonceChars = 32;
  static constexpr size_t kMacChars = 64;

 private:
  int64_t Now() const;
  std::string Sign(char kind, int64_t expiry_ms, std::string_view nonce) const;
  std::string Make(char kind, int64_t ttl_ms) const;
  // The expiry of a valid value of `kind`, 0 otherwise; its nonce into `nonce` when valid.
  int64_t Check(char kind, std::string_view value, std::string* nonce = nullptr) const;

  std::string key_;  // HMAC-SHA256(trust root, purpose): the root itself never signs anything
  std::function<int64_t()> now_ms_;
  std::mutex mu_;
  std::map<std::string, int64_t> redeemed_;  // nonce -> expiry, pruned as they expire
};

}  // namespace affordance::server

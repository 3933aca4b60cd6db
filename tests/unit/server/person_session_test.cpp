#include "server/person_session.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

namespace affordance::server {
namespace {

const std::string kRoot(64, 'a');

TEST(PersonSessions, AMintedTokenVerifiesUntilItExpires) {
  int64_t now = 1'000'000;
  PersonSessions s(kRoot, [&] { return now; });
  const std::string token = s.Mint(1000);
  EXPECT_EQ(token.rfind("ps1.", 0), 0u) << token;
  EXPECT_TRUE(s.Verify(token));
  EXPECT_EQ(s.ExpiresAt(token), 1'001'000);
  now += 999;
  EXPECT_TRUE(s.Verify(token));
  now += 1;
  EXPECT_FALSE(s.Verify(token));
  EXPECT_EQ(s.ExpiresAt(token), 0);
}

TEST(PersonSessions, TokensSurviveARestartAndEndWithTheTrustRoot) {
  const std::string token = PersonSessions(kRoot).Mint();
  EXPECT_TRUE(PersonSessions(kRoot).Verify(token)) << "a new process with the same root";
  EXPECT_FALSE(PersonSessions(std::string(64, 'b')).Verify(token)) << "a replaced root";
}

TEST(PersonSessions, ForgedOrAlteredValuesAreRefused) {
  PersonSessions s(kRoot);
  const std::string token = s.Mint();
  std::string later = token;
  // A longer life with the old signature.
  const size_t dot = later.find('.', 4);
  later.replace(4, dot - 4, "99999999999999");
  EXPECT_FALSE(s.Verify(later));
  std::string flipped = token;
  flipped.back() = flipped.back() == '0' ? '1' : '0';
  EXPECT_FALSE(s.Verify(flipped));
  for (std::string bad :
       {std::string(""), std::string("ps1."), std::string("ps1.1.2"), std::string("ps1.x.y.z"),
        std::string("ps1.-5.aa.bb"), std::string(100000, 'p'), std::string("Bearer x")}) {
    EXPECT_FALSE(s.Verify(bad)) << bad.substr(0, 40);
  }
  // A sign-in code is not a session, and a session is not a code.
  const std::string code = s.LoginCode();
  EXPECT_FALSE(s.Verify(code));
  EXPECT_FALSE(s.Redeem(token));
}

TEST(PersonSessions, ASignInCodeIsRedeemedOnceBeforeItExpires) {
  int64_t now = 5'000;
  PersonSessions s(kRoot, [&] { return now; });
  const std::string code = s.LoginCode(600'000);
  EXPECT_EQ(code.rfind("pl1.", 0), 0u);
  EXPECT_TRUE(s.Redeem(code));
  EXPECT_FALSE(s.Redeem(code)) << "used once";
  const std::string late = s.LoginCode(1000);
  now += 1000;
  EXPECT_FALSE(s.Redeem(late)) << "expired";
  // A code made by `affordance login-link` (another process, same root) works here.
  EXPECT_TRUE(s.Redeem(PersonSessions(kRoot, [&] { return now; }).LoginCode()));
}

// Every respelling of a value's fields that means the same numbers or bytes: a leading zero, a
// sign, whitespace, upper-case hex, a longer or shorter field, a separator doubled or dropped.
std::vector<std::string> Respellings(const std::string& value) {
  const size_t dot1 = value.find('.', 4);
  const size_t dot2 = value.find('.', dot1 + 1);
  const std::string prefix = value.substr(0, 4);
  const std::string expiry = value.substr(4, dot1 - 4);
  const std::string nonce = value.substr(dot1 + 1, dot2 - dot1 - 1);
  const std::string mac = value.substr(dot2 + 1);
  auto join = [&](const std::string& p, const std::string& e, const std::string& n,
                  const std::string& m) { return p + e + "." + n + "." + m; };
  auto upper = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
  };
  std::vector<std::string> out;
  for (const std::string& e :
       {"0" + expiry, "00" + expiry, "+" + expiry, " " + expiry, expiry + " ", "\t" + expiry,
        "-0" + expiry, expiry + "\n", "0x" + expiry, expiry + ".0", "0" + expiry.substr(1)}) {
    out.push_back(join(prefix, e, nonce, mac));
  }
  for (const std::string& n : {upper(nonce), "0" + nonce, nonce + "0", nonce.substr(1), " " + nonce,
                               nonce + " ", "+" + nonce, nonce + nonce}) {
    out.push_back(join(prefix, expiry, n, mac));
  }
  for (const std::string& m : {upper(mac), "0" + mac, mac + "0", mac.substr(1), " " + mac,
                               mac + " ", mac + "\n", mac + "." + mac}) {
    out.push_back(join(prefix, expiry, nonce, m));
  }
  out.push_back(upper(prefix) + expiry + "." + nonce + "." + mac);
  out.push_back(" " + value);
  out.push_back(value + " ");
  out.push_back(prefix + expiry + ".." + nonce + "." + mac);
  out.push_back(prefix + "." + expiry + "." + nonce + "." + mac);
  return out;
}

TEST(PersonSessions, ASignInCodeIsSpentHoweverItIsRespelled) {
  int64_t now = 1'700'000'000'000;
  PersonSessions s(kRoot, [&] { return now; });
  const std::string code = s.LoginCode();
  // Unspent: no respelling is a code, so none can be the first redemption either.
  for (const std::string& bad : Respellings(code)) EXPECT_FALSE(s.Redeem(bad)) << bad;
  EXPECT_TRUE(s.Redeem(code));
  for (const std::string& bad : Respellings(code)) EXPECT_FALSE(s.Redeem(bad)) << bad;
  EXPECT_FALSE(s.Redeem(code));
  // The repro of the issue: one '0' after "pl1." on a spent code.
  EXPECT_FALSE(s.Redeem("pl1.0" + code.substr(4)));
}

TEST(PersonSessions, ASessionHasOneSpelling) {
  PersonSessions s(kRoot);
  const std::string token = s.Mint();
  ASSERT_TRUE(s.Verify(token));
  for (const std::string& bad : Respellings(token)) {
    EXPECT_FALSE(s.Verify(bad)) << bad;
    EXPECT_EQ(s.ExpiresAt(bad), 0) << bad;
  }
}

TEST(PersonSessions, ParseAcceptsOnlyTheSpellingMintWrites) {
  PersonSessions s(kRoot);
  const std::string token = s.Mint();
  const auto p = PersonSessions::Parse('s', token);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ("ps1." + std::to_string(p->expiry_ms) + "." + std::string(p->nonce) + "." +
                std::string(p->mac),
            token);
  EXPECT_EQ(p->nonce.size(), PersonSessions::kNonceChars);
  EXPECT_EQ(p->mac.size(), PersonSessions::kMacChars);
  EXPECT_FALSE(PersonSessions::Parse('l', token).has_value()) << "a session is not a code";
  for (const std::string& bad : Respellings(token)) {
    EXPECT_FALSE(PersonSessions::Parse('s', bad).has_value()) << bad;
  }
  // An expiry past int64 is refused, not wrapped.
  const std::string huge =
      "ps1.99999999999999999999." + std::string(p->nonce) + "." + std::string(p->mac);
  EXPECT_FALSE(PersonSessions::Parse('s', huge).has_value());
}

}  // namespace
}  // namespace affordance::server

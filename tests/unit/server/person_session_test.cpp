#include "server/person_session.h"

#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace affordance::server

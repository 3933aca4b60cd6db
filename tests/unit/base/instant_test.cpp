// base/instant.h: ISO 8601 instants read strictly. Every field out of range is refused with a
// reason, never normalised into the next field.
#include "base/instant.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace affordance {
namespace {

using ::testing::HasSubstr;

TEST(Instant, ValidInstantsReadAsTheSecondsTheyName) {
  EXPECT_EQ(ParseInstant("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(ParseInstant("2026-12-03T15:00:00Z"), 1796310000);
  EXPECT_EQ(ParseInstant("2026-12-03T16:00:00+01:00"), 1796310000);
  EXPECT_EQ(ParseInstant("2026-12-03T10:00:00-05:00"), 1796310000);
  EXPECT_EQ(ParseInstant("2026-12-03T15:00:00.250Z"), 1796310000);
  EXPECT_EQ(ParseInstant("2028-02-29T00:00:00Z"), 1835395200);  // a leap year
  EXPECT_EQ(ParseInstant("2000-02-29T12:00:00Z"), 951825600);   // divisible by 400
  EXPECT_EQ(ParseInstant("2026-12-31T23:59:59Z"), 1798761599);
  EXPECT_EQ(ParseDay("2026-12-24"), 1798070400);
  EXPECT_EQ(FormatInstant(1796310000), "2026-12-03T15:00:00Z");
  EXPECT_EQ(FormatInstant(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatInstant(-1), "1969-12-31T23:59:59Z");
  for (const char* t : {"2026-12-03T15:00:00Z", "2028-02-29T23:59:59Z", "1999-01-01T00:00:00Z"}) {
    EXPECT_EQ(FormatInstant(*ParseInstant(t)), t);
  }
}

TEST(Instant, EveryFieldOutOfRangeIsRefusedWithItsReason) {
  struct Case {
    const char* text;
    const char* why;
  };
  const Case cases[] = {
      {"2026-12-03T99:00:00Z", "hour 99 is out of range"},
      {"2026-12-03T25:00:00Z", "hour 25 is out of range"},
      {"2026-12-03T24:00:00Z", "hour 24 is out of range"},
      {"2026-12-03T15:60:00Z", "minute 60 is out of range"},
      {"2026-12-03T15:00:61Z", "second 61 is out of range"},
      {"2026-12-31T23:59:60Z", "leap second"},
      {"2026-12-32T15:00:00Z", "day 32 is out of range"},
      {"2026-12-00T15:00:00Z", "day 0 is out of range"},
      {"2026-13-03T15:00:00Z", "month 13 is out of range"},
      {"2026-00-03T15:00:00Z", "month 0 is out of range"},
      {"2026-02-30T15:00:00Z", "30 February 2026 does not exist"},
      {"2026-02-29T15:00:00Z", "29 February 2026 does not exist"},
      {"2100-02-29T15:00:00Z", "29 February 2100 does not exist"},
      {"2026-04-31T15:00:00Z", "31 April 2026 does not exist"},
      {"0000-01-01T00:00:00Z", "year 0000"},
      {"2026--1-03T15:00:00Z", "YYYY-MM-DD"},
      {"2026-12--1T15:00:00Z", "YYYY-MM-DD"},
      {"2026-12-03T-1:00:00Z", "HH:MM:SS"},
      {"2026-12-03T15:-1:00Z", "HH:MM:SS"},
      {"-026-12-03T15:00:00Z", "YYYY-MM-DD"},
      {"+2026-12-03T15:00:00Z", "YYYY-MM-DD"},
      {"2026-12-03T15:00:00+24:00", "offset +24:00 is out of range"},
      {"2026-12-03T15:00:00+01:60", "offset +01:60 is out of range"},
      {"2026-12-03T15:00:00", "no Z or offset"},
      {"2026-12-03T15:00:00z", "not Z or an offset"},
      {"2026-12-03t15:00:00Z", "HH:MM:SS"},
      {"2026-12-03 15:00:00Z", "HH:MM:SS"},
      {"2026-12-03T15:00Z", "HH:MM:SS"},
      {"2026-12-03T15:00:00.Z", "followed by digits"},
      {"2026-12-03T15:00:00Z ", "not Z or an offset"},
      {"2026-12-03T15:00:00ZZ", "not Z or an offset"},
      {"", "YYYY-MM-DD"},
      {"next Tuesday", "YYYY-MM-DD"},
  };
  for (const auto& c : cases) {
    std::string why;
    EXPECT_FALSE(ParseInstant(c.text, &why).has_value()) << c.text;
    EXPECT_THAT(why, HasSubstr(c.why)) << c.text;
  }
  EXPECT_FALSE(ParseDay("2026-02-30").has_value());
  EXPECT_FALSE(ParseDay("2026-12-03T15:00:00Z").has_value());
  EXPECT_FALSE(ParseDay("2026-1-03").has_value());
}

}  // namespace
}  // namespace affordance

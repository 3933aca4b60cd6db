// harness::ThreadTitle: the one rule every door uses to title a thread after its first message.
#include "harness/harness.h"

#include <gtest/gtest.h>

#include <string>

namespace affordance::harness {
namespace {

TEST(ThreadTitle, IsTheFirstNonBlankLineTrimmed) {
  EXPECT_EQ(ThreadTitle("What is on my calendar?"), "What is on my calendar?");
  EXPECT_EQ(ThreadTitle("\n  \r\n\t  Plan the offsite  \r\nwith details\n"), "Plan the offsite");
  EXPECT_EQ(ThreadTitle("   "), "");
  EXPECT_EQ(ThreadTitle(""), "");
}

TEST(ThreadTitle, LongLinesAreCutToSixtyBytesOnACodePointBoundaryWithAnEllipsis) {
  const std::string exact(60, 'a');
  EXPECT_EQ(ThreadTitle(exact), exact);
  const std::string title = ThreadTitle(std::string(61, 'a'));
  EXPECT_EQ(title, std::string(57, 'a') + "\u2026");
  EXPECT_EQ(title.size(), 60u);
  // 56 ASCII bytes, then a 4-byte emoji straddling the cut: the emoji is dropped whole.
  const std::string straddle = std::string(56, 'b') + "\U0001F600" + std::string(10, 'c');
  EXPECT_EQ(ThreadTitle(straddle), std::string(56, 'b') + "\u2026");
  // Two-byte letters all the way: the cut never lands inside one.
  std::string accents;
  for (int i = 0; i < 40; ++i) accents += "\u00e9";
  const std::string cut = ThreadTitle(accents);
  EXPECT_LE(cut.size(), 60u);
  EXPECT_EQ(cut.substr(cut.size() - 3), "\u2026");
  EXPECT_EQ((cut.size() - 3) % 2, 0u);
}

}  // namespace
}  // namespace affordance::harness

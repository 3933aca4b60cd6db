// internal::SseReader: events out of bytes however the stream is split, bounded in size.
#include "model/internal/sse.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace affordance::model::internal {
namespace {

std::vector<std::string> Read(const std::vector<std::string>& pieces, SseReader& reader) {
  std::vector<std::string> events;
  for (const auto& p : pieces) {
    reader.Feed(p, [&](std::string_view data) {
      events.emplace_back(data);
      return true;
    });
  }
  return events;
}

const std::string kStream =
    ": comment\r\ndata: {\"a\": 1}\r\n\r\ndata: two\ndata: lines\n\nevent: x\rdata: cr\r\r\n";

TEST(SseReader, EveryWayOfSplittingTheStreamGivesTheSameEvents) {
  const std::vector<std::string> want = {"{\"a\": 1}", "two\nlines", "cr"};
  SseReader whole;
  EXPECT_EQ(Read({kStream}, whole), want);
  for (size_t cut = 0; cut <= kStream.size(); ++cut) {
    SseReader split;
    EXPECT_EQ(Read({kStream.substr(0, cut), kStream.substr(cut)}, split), want) << cut;
  }
  std::vector<std::string> bytes;
  for (char c : kStream) bytes.emplace_back(1, c);
  SseReader bytewise;
  EXPECT_EQ(Read(bytes, bytewise), want);
  EXPECT_FALSE(bytewise.pending());
}

// An event past kMaxEventBytes stops the reader, whether it arrives as one endless line or as
// many data lines; nothing after it is read.
TEST(SseReader, AnEventLargerThanTheLimitStopsTheReader) {
  const std::string big(SseReader::kMaxEventBytes + 1, 'x');
  for (const std::vector<std::string>& pieces :
       {std::vector<std::string>{"data: ok\n\ndata: ", big.substr(0, 1000), big.substr(1000)},
        std::vector<std::string>{"data: ok\n\n", "data: " + big.substr(0, big.size() / 2) + "\n",
                                 "data: " + big.substr(big.size() / 2) + "\n",
                                 "\ndata: late\n\n"}}) {
    SseReader reader;
    std::vector<std::string> events;
    bool more = true;
    for (const auto& p : pieces) {
      more = reader.Feed(p, [&](std::string_view data) {
        events.emplace_back(data);
        return true;
      });
    }
    EXPECT_FALSE(more);
    EXPECT_TRUE(reader.too_large());
    EXPECT_EQ(events, std::vector<std::string>{"ok"});
  }
}

TEST(SseReader, AnEventAtTheLimitIsRead) {
  const std::string at(SseReader::kMaxEventBytes, 'y');
  SseReader reader;
  auto events = Read({"data: " + at.substr(0, 100), at.substr(100) + "\n\n"}, reader);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].size(), at.size());
  EXPECT_FALSE(reader.too_large());
}

}  // namespace
}  // namespace affordance::model::internal

// The replay examples a newcomer runs from the README (examples/replay/), against a copy of the
// example connectors: each is true on the day the test runs, because its reads name a period the
// connector resolves when the read runs ({"range": "next_week"}) and the example calendar's
// standup recurs every week; the write (tomorrow, {{date+1}} in its script) is staged, approved by
// the person, run once and verified.
#include "connect/process.h"
#include "model/replay_provider.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace affordance::cli {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Source(const std::string& rel) {
  return std::string(AFFORDANCE_SOURCE_DIR) + "/" + rel;
}

class Examples : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "affordance-examples-XXXXXX");
    dir_ = mkdtemp(pattern.data());
    std::filesystem::copy(Source("examples/connectors"), dir_ + "/connectors");
    ASSERT_EQ(Cli({"grants", "grant", "calendar", "--read"}).exit_code, 0);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  connect::ProcessOutput Cli(std::vector<std::string> args) {
    std::vector<std::string> argv = {"/usr/bin/env", "-u", "COLUMNS", AFFORDANCE_CLI};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--data", dir_ + "/data", "--connectors", dir_ + "/connectors"});
    auto r = connect::RunProcess(argv, 90000);
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : connect::ProcessOutput{};
  }
  std::vector<json> Chunks(const std::string& out) {
    std::vector<json> chunks;
    std::istringstream in(out);
    for (std::string l; std::getline(in, l);) chunks.push_back(json::parse(l));
    return chunks;
  }
  static const json* Of(const std::vector<json>& chunks, const std::string& type) {
    for (const auto& c : chunks) {
      if (c.value("type", "") == type) return &c;
    }
    return nullptr;
  }
  std::string dir_;
};

// The Monday of next week (UTC), as "YYYY-MM-DD", computed here the way a person reads a calendar.
std::string NextMonday() {
  std::time_t now = std::time(nullptr);
  std::tm t{};
  gmtime_r(&now, &t);
  const int days = ((8 - t.tm_wday) % 7 == 0) ? 7 : (8 - t.tm_wday) % 7;
  std::time_t monday = now + days * 86400;
  gmtime_r(&monday, &t);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &t);
  return buf;
}

TEST_F(Examples, CalendarWeekShowsNextWeeksEventsOnAnyDate) {
  auto r = Cli({"run", "--json", "--script", Source("examples/replay/calendar_week.json"),
                "What is on my calendar next week?"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto chunks = Chunks(r.out);
  const json* turn = Of(chunks, "data-turn");
  ASSERT_NE(turn, nullptr) << r.out;
  EXPECT_EQ((*turn)["data"]["status"], "surface_composed");
  // The read's rows are next week's: the standup on its Monday at 09:00 UTC.
  const json* output = Of(chunks, "tool-output-available");
  ASSERT_NE(output, nullptr) << r.out;
  const std::string rows = output->dump();
  EXPECT_THAT(rows, HasSubstr(NextMonday() + "T09:00:00Z")) << rows;
  EXPECT_THAT(rows, HasSubstr("Team standup"));
  EXPECT_EQ(Of(chunks, "tool-output-error"), nullptr) << r.out;
  // The surface's table is filled from the same relative period when shown.
  auto list = Cli({"artifacts", "list", "--json"});
  const std::string id = json::parse(list.out)["artifacts"].at(0)["id"];
  auto shown = Cli({"artifacts", "show", id});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_THAT(shown.out, HasSubstr("Next week"));
  EXPECT_THAT(shown.out, HasSubstr("Team standup"));
  EXPECT_THAT(shown.out, Not(HasSubstr("rows unavailable")));
}

TEST_F(Examples, CalendarCitedMarksEachClaimWithItsSource) {
  auto r = Cli({"run", "--script", Source("examples/replay/calendar_cited.json"),
                "What is on my calendar next week?"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("next week has it too [r1]\u25e6."));
  EXPECT_THAT(r.out, HasSubstr("\u25e6 [r1] source · RunConnectorCommand · calendar"));
  EXPECT_THAT(r.out, HasSubstr("claims 2 source, 1 inference"));
  EXPECT_THAT(r.out, Not(HasSubstr("]\u2717")));  // no claim marked invalid
}

TEST_F(Examples, CalendarWriteIsStagedApprovedRunOnceAndVerified) {
  ASSERT_EQ(Cli({"grants", "grant", "calendar", "--write"}).exit_code, 0);
  const std::string chat =
      "printf 'Add a budget sync tomorrow, 15:00 to 16:00 UTC\\n/approve\\n/quit\\n' | env -u "
      "COLUMNS '" +
      std::string(AFFORDANCE_CLI) + "' chat --script '" +
      Source("examples/replay/calendar_write.json") + "' --data '" + dir_ +
      "/data' --connectors '" + dir_ + "/connectors'";
  auto r = connect::RunProcess({"/bin/sh", "-c", chat}, 90000);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 0) << r->out << r->err;
  EXPECT_THAT(r->out, HasSubstr("Create event “Budget sync”"));
  EXPECT_THAT(r->out, HasSubstr("— awaiting_approval"));
  EXPECT_THAT(r->out, HasSubstr("Approved apr_"));
  EXPECT_THAT(r->out, HasSubstr("calendar.create_event · verified"));
  // The script plays tomorrow (UTC), whatever the date: its answer names that day.
  const int64_t tomorrow = std::chrono::duration_cast<std::chrono::seconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count() +
                           86400;
  EXPECT_THAT(r->out, HasSubstr("The budget sync is in your calendar: " +
                                model::ExpandReplayDays("{{day}}", tomorrow)));
  EXPECT_THAT(r->out, Not(HasSubstr("]\u2717")));  // no claim marked invalid
  std::ifstream in(dir_ + "/connectors/calendar.ics");
  std::stringstream ics;
  ics << in.rdbuf();
  size_t n = 0;
  for (size_t at = ics.str().find("SUMMARY:Budget sync"); at != std::string::npos;
       at = ics.str().find("SUMMARY:Budget sync", at + 1)) {
    ++n;
  }
  EXPECT_EQ(n, 1u);
}

}  // namespace
}  // namespace affordance::cli

// `affordance chat` in a real terminal: the binary runs inside tmux (a pseudo-terminal of a set
// size), a replay script stands in for the model (none can run here) and composes a table over the
// calendar connector, and the test reads the screen with `tmux capture-pane`. The calendar is a
// fixture of this folder (data/team_week.ics: 25 events with East Asian wide and combining
// characters), so the assertions name real rows.
#include "connect/process.h"
#include "text/display_width.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <nlohmann/json.hpp>

#include <array>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace affordance::cli {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Source(const std::string& rel) {
  return std::string(AFFORDANCE_SOURCE_DIR) + "/" + rel;
}

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// A data folder with the fixture calendar (its manifest is the example's, with a sync window
// wide enough that the fixture's dates never fall out of it) and a read grant, as a new user
// makes it once.
class Workspace {
 public:
  Workspace() {
    std::string pattern = (std::filesystem::temp_directory_path() / "affordance-tty-XXXXXX");
    dir_ = mkdtemp(pattern.data());
    std::filesystem::create_directories(dir_ + "/connectors");
    std::filesystem::copy_file(Source("tests/integration/cli/data/team_week.ics"),
                               dir_ + "/connectors/team_week.ics");
    std::ifstream in(Source("examples/connectors/calendar.json"));
    json manifest = json::parse(in);
    manifest["source"]["paths"] = {"team_week.ics"};
    manifest["sync"]["past_days"] = 36600;
    manifest["sync"]["future_days"] = 36600;
    std::ofstream(dir_ + "/connectors/calendar.json") << manifest.dump(1);
    auto granted = Cli({"grants", "grant", "calendar", "--read"});
    EXPECT_EQ(granted.exit_code, 0) << granted.out << granted.err;
  }
  ~Workspace() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  const std::string& dir() const { return dir_; }

  connect::ProcessOutput Cli(std::vector<std::string> args, bool connectors = true) {
    // Not a terminal, and no COLUMNS from whoever runs the tests: 80 columns.
    std::vector<std::string> argv = {"/usr/bin/env", "-u", "COLUMNS", "TZ=UTC", AFFORDANCE_CLI};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--data", dir_ + "/data"});
    if (connectors) argv.insert(argv.end(), {"--connectors", dir_ + "/connectors"});
    auto r = connect::RunProcess(argv, 60000);
    EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().ToString());
    return r.ok() ? *r : connect::ProcessOutput{};
  }

  // The chat command line, in `env` (TZ fixed: dates show in local time; COLUMNS unset: the width
  // comes from the terminal itself), the model played by tests/integration/cli/scripts/`script`.
  std::string ChatCommand(const std::string& env,
                          const std::string& script = "week_table.json") const {
    return "env -u COLUMNS TZ=UTC " + env + " " + Quote(AFFORDANCE_CLI) + " chat --data " +
           Quote(dir_ + "/data") + " --connectors " + Quote(dir_ + "/connectors") +
           " --provider replay --script " +
           Quote(Source("tests/integration/cli/scripts/" + script));
  }

 private:
  std::string dir_;
};

// One tmux server of its own (socket in the workspace, no user configuration) with one pane of
// `width` x `height` running `command`.
class Terminal {
 public:
  Terminal(const Workspace& w, size_t width, size_t height, const std::string& command)
      : socket_(w.dir() + "/tmux-" + std::to_string(count_++)) {
    Tmux("new-session -d -s chat -x " + std::to_string(width) + " -y " + std::to_string(height) +
         " " + Quote(command));
  }
  ~Terminal() { Tmux("kill-server"); }

  void Type(const std::string& keys) {
    Tmux("send-keys -t chat -l " + Quote(keys) + " \\; send-keys -t chat Enter");
  }

  // The screen, wrapped lines joined (-J) so that a line wider than the pane shows as one;
  // `escapes`: with the SGR sequences of its styling (-e).
  std::string Screen(bool escapes = false) {
    return Tmux(std::string("capture-pane -p -J ") + (escapes ? "-e " : "") + "-t chat");
  }

  // Waits until the screen shows `text`; false after `seconds`.
  bool WaitFor(const std::string& text, int seconds = 90) {
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (std::chrono::steady_clock::now() < until) {
      if (Screen().find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return false;
  }

 private:
  std::string Tmux(const std::string& args) {
    auto r = connect::RunProcess(
        {"/bin/sh", "-c", "env -u TMUX tmux -S " + Quote(socket_) + " -f /dev/null " + args},
        30000);
    return r.ok() ? r->out : "";
  }
  static inline int count_ = 0;
  std::string socket_;
};

bool HaveTmux() { return std::system("command -v tmux >/dev/null 2>&1") == 0; }

// The display column where `needle` starts in `line` (npos when absent).
size_t ColumnOf(const std::string& line, const std::string& needle) {
  size_t at = line.find(needle);
  return at == std::string::npos ? std::string::npos : text::DisplayWidth(line.substr(0, at));
}

const std::string* LineWith(const std::vector<std::string>& lines, const std::string& needle) {
  for (const auto& l : lines) {
    if (l.find(needle) != std::string::npos) return &l;
  }
  return nullptr;
}

// Runs the chat at `width` until the turn's status line, and returns the screen.
std::string ChatScreen(Workspace& w, size_t width, const std::string& env = "",
                       bool escapes = false, const std::string& script = "week_table.json") {
  Terminal t(w, width, 80, w.ChatCommand(env, script));
  EXPECT_TRUE(t.WaitFor("› ")) << t.Screen();
  t.Type("What is on this week?");
  EXPECT_TRUE(t.WaitFor("prompt tokens")) << t.Screen();
  std::string screen = t.Screen(escapes);
  t.Type("/quit");
  return screen;
}

// The table's rows are on screen, aligned under their headers, and no line is wider than the
// terminal.
void ExpectAlignedTable(const std::string& screen, size_t width) {
  auto lines = Lines(screen);
  for (const auto& l : lines)
    EXPECT_LE(text::DisplayWidth(l), width) << "[" << l << "]\n" << screen;
  EXPECT_THAT(screen, Not(HasSubstr("Query(")));
  EXPECT_THAT(screen, Not(HasSubstr("Col(")));
  const std::string* header = LineWith(lines, "Event");
  ASSERT_NE(header, nullptr) << screen;
  ASSERT_NE(LineWith(lines, "────"), nullptr) << screen;
  const size_t start = ColumnOf(*header, "Start");
  const size_t where = ColumnOf(*header, "Where");
  ASSERT_NE(start, std::string::npos) << *header;
  ASSERT_NE(where, std::string::npos) << *header;
  // Each row: {a cell of Event, its Start, its Where}, the first two wide or combining.
  const std::vector<std::array<const char*, 3>> rows = {
      {"東京チーム sync", "Mon, Nov 30, 10:30", "会議室 3"},
      {"Cafe\u0301 Mu\u0308ller", "Mon, Nov 30, 16:30", "Kantine"},
      {"서울 파트너 통화", "Tue, Dec 1, 15:00", "Room 7"},
      {"Design review", "Tue, Dec 1, 11:00", "Room 2"}};
  for (const auto& [event, when, place] : rows) {
    const std::string* l = LineWith(lines, event);
    ASSERT_NE(l, nullptr) << event << "\n" << screen;
    EXPECT_EQ(ColumnOf(*l, when), start) << *l << "\n" << screen;
    EXPECT_EQ(ColumnOf(*l, place), where) << *l << "\n" << screen;
  }
  EXPECT_THAT(screen, HasSubstr("… 5 more rows"));
  EXPECT_THAT(screen, HasSubstr("the table above"));
}

TEST(TerminalChat, ReplayScriptModelsTableShowsItsRealRowsAlignedAt120Columns) {
  if (!HaveTmux()) GTEST_SKIP() << "tmux is not installed (scripts/setup installs it)";
  Workspace w;
  std::string screen = ChatScreen(w, 120);
  ExpectAlignedTable(screen, 120);
  // Wide enough for every cell: nothing is cut.
  EXPECT_THAT(screen, HasSubstr("Quarterly planning with the whole product group and guests"));
  EXPECT_THAT(screen, HasSubstr("Mon, Nov 30, 09:00"));
  EXPECT_THAT(screen, HasSubstr("Week of 30 November"));
}

TEST(TerminalChat, ReplayScriptModelsTableFitsSixtyColumnsWithCellsCut) {
  if (!HaveTmux()) GTEST_SKIP() << "tmux is not installed (scripts/setup installs it)";
  Workspace w;
  std::string screen = ChatScreen(w, 60);
  ExpectAlignedTable(screen, 60);
  EXPECT_THAT(screen, Not(HasSubstr("Quarterly planning with the whole product group and guests")));
  EXPECT_THAT(screen, HasSubstr("Quarterly"));
  EXPECT_THAT(screen, HasSubstr("…"));
}

TEST(TerminalChat, ReplayScriptModelWithNoColorPrintsNoEscapeCodes) {
  if (!HaveTmux()) GTEST_SKIP() << "tmux is not installed (scripts/setup installs it)";
  Workspace w;
  // With colour the header is bold (tmux shows the styling it received as SGR sequences)...
  std::string styled = ChatScreen(w, 100, "", true);
  EXPECT_THAT(styled, HasSubstr("\033[")) << styled;
  // ...and with NO_COLOR=1 nothing at all is styled.
  std::string plain = ChatScreen(w, 100, "NO_COLOR=1", true);
  EXPECT_EQ(plain.find('\033'), std::string::npos) << plain;
  ExpectAlignedTable(plain, 100);
}

TEST(TerminalChat, ReplayScriptModelsStagedWriteKeepsTheApproveCommandWholeAt60Columns) {
  if (!HaveTmux()) GTEST_SKIP() << "tmux is not installed (scripts/setup installs it)";
  Workspace w;
  auto granted = w.Cli({"grants", "grant", "calendar", "--write"});
  ASSERT_EQ(granted.exit_code, 0) << granted.out << granted.err;
  std::string screen = ChatScreen(w, 60, "", false, "stage_event.json");
  for (const auto& l : Lines(screen)) EXPECT_LE(text::DisplayWidth(l), 60u) << l << "\n" << screen;
  auto listed = w.Cli({"approvals", "list", "--json"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  json approvals = json::parse(listed.out);
  const json& list = approvals.is_array() ? approvals : approvals.value("approvals", json::array());
  ASSERT_FALSE(list.empty()) << listed.out;
  const std::string id = list.at(0).value("id", list.at(0).value("approvalId", ""));
  ASSERT_FALSE(id.empty()) << listed.out;
  // Folded onto the next line if it must be, but never cut: read with the folds undone (runs of
  // spaces and newlines as one space), the command and the whole id are there.
  std::string unfolded;
  for (char c : screen) {
    const bool blank = c == ' ' || c == '\n';
    if (!blank || (!unfolded.empty() && unfolded.back() != ' ')) unfolded += blank ? ' ' : c;
  }
  EXPECT_THAT(unfolded, HasSubstr("approve: affordance approvals approve " + id + " ")) << screen;
  EXPECT_THAT(unfolded, HasSubstr("deny: affordance approvals deny " + id)) << screen;
}

TEST(TerminalChat, ReplayScriptModelsSurfaceIsTextInRunAndInArtifactsShow) {
  Workspace w;
  // `run` with its output in a pipe: the surface as text, unstyled, 80 columns.
  auto run =
      w.Cli({"run", "--provider", "replay", "--script",
             Source("tests/integration/cli/scripts/week_table.json"), "What is on this week?"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(run.out.find('\033'), std::string::npos) << run.out;
  EXPECT_THAT(run.out, HasSubstr("東京チーム sync"));
  EXPECT_THAT(run.out, Not(HasSubstr("Query(")));
  auto list = w.Cli({"artifacts", "list", "--json"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  const std::string id = json::parse(list.out)["artifacts"].at(0)["id"];

  // Not a terminal: no styling, 80 columns unless COLUMNS says otherwise.
  auto shown = w.Cli({"artifacts", "show", id});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_EQ(shown.out.find('\033'), std::string::npos);
  EXPECT_THAT(shown.out, HasSubstr("東京チーム sync"));
  EXPECT_THAT(shown.out, HasSubstr("… 5 more rows"));
  for (const auto& l : Lines(shown.out)) EXPECT_LE(text::DisplayWidth(l), 80u) << l;
  // --source prints the program instead.
  auto source = w.Cli({"artifacts", "show", id, "--source"});
  EXPECT_THAT(source.out, HasSubstr("tbl = Table([Col(\"Event\", events.rows.summary)"));

  // Without the connector the table keeps its header and says why it has no rows.
  auto offline = w.Cli({"artifacts", "show", id}, false);
  ASSERT_EQ(offline.exit_code, 0) << offline.err;
  EXPECT_THAT(offline.out, HasSubstr("Event  Start  Where\n"));
  EXPECT_THAT(offline.out, HasSubstr("⚠ rows unavailable: no connector is configured"));
  EXPECT_THAT(offline.out, Not(HasSubstr("東京チーム sync")));
}

}  // namespace
}  // namespace affordance::cli

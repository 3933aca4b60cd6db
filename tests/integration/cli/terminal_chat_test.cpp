// `affordance chat` in a real terminal: the binary runs inside tmux (a pseudo-terminal of a set
// size), a replay script stands in for the model (none can run here) and composes a table over the
// calendar connector, and the test reads the screen with `tmux capture-pane`. The calendar is a
// fixture of this folder (data/team_week.ics: 25 events with East Asian wide and combining
// characters), so the assertions name real rows.
#include "connect/process.h"
#include "text/display_width.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <array>
#include <chrono>
#include <cstdio>
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

  // Keys by tmux name ("C-c").
  void Keys(const std::string& keys) { Tmux("send-keys -t chat " + keys); }

  // The affordance process in the pane: the pane's process, or the first of its descendants that
  // runs the CLI binary (the shell tmux starts may fork it).
  pid_t ChatPid() {
    std::string out = Tmux("display-message -p -t chat '#{pane_pid}'");
    std::vector<pid_t> todo = {static_cast<pid_t>(std::atol(out.c_str()))};
    const auto cli = std::filesystem::canonical(AFFORDANCE_CLI);
    while (!todo.empty()) {
      pid_t pid = todo.back();
      todo.pop_back();
      std::error_code ec;
      auto exe = std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec);
      if (!ec && exe == cli) return pid;
      for (const auto& task :
           std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
        std::ifstream children(task.path() / "children");
        for (long child = 0; children >> child;) todo.push_back(static_cast<pid_t>(child));
      }
    }
    return 0;
  }

  void Type(const std::string& keys) {
    Tmux("send-keys -t chat -l " + Quote(keys) + " \\; send-keys -t chat Enter");
  }

  // The screen, wrapped lines joined (-J) so that a line wider than the pane shows as one;
  // `escapes`: with the SGR sequences of its styling (-e).
  std::string Screen(bool escapes = false) {
    return Tmux(std::string("capture-pane -p -J ") + (escapes ? "-e " : "") + "-t chat");
  }
  // The screen row by row as the terminal shows it (a line the terminal wrapped stays cut where
  // it wrapped), with the scrollback.
  std::string Rows() { return Tmux("capture-pane -p -S - -t chat"); }

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

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// The approvals of the workspace, newest first.
json Approvals(Workspace& w) {
  auto listed = w.Cli({"approvals", "list", "--json"});
  EXPECT_EQ(listed.exit_code, 0) << listed.out << listed.err;
  json doc = json::parse(listed.out, nullptr, false);
  if (doc.is_object()) doc = doc.value("approvals", json::array());
  return doc.is_array() ? doc : json::array();
}

// A staged write in the terminal chat: its effect card, then the person is asked, and the turn
// continues after the decision, as after the web card's buttons.
class StagedWriteChat : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!HaveTmux()) GTEST_SKIP() << "tmux is not installed (scripts/setup installs it)";
    auto granted = w.Cli({"grants", "grant", "calendar", "--write"});
    ASSERT_EQ(granted.exit_code, 0) << granted.out << granted.err;
    before = ReadFile(ics());
    t = std::make_unique<Terminal>(w, 100, 60, w.ChatCommand("", "stage_event.json"));
    ASSERT_TRUE(t->WaitFor("› ")) << t->Screen();
    t->Type("Add a budget sync on Saturday afternoon");
    ASSERT_TRUE(t->WaitFor("[y]es, [n]o, [l]ater")) << t->Screen();
  }
  std::string ics() const { return w.dir() + "/connectors/team_week.ics"; }

  Workspace w;
  std::string before;
  std::unique_ptr<Terminal> t;
};

TEST_F(StagedWriteChat, ReplayScriptModelsWriteApprovedAtThePromptRunsOnceAndIsVerified) {
  // Before the decision: the effect in the person's terms, and nothing ran.
  std::string asked = t->Screen();
  EXPECT_THAT(asked, HasSubstr("Create event “Budget sync”"));
  EXPECT_THAT(asked, HasSubstr("Sat 5 Dec 2026, 15:00"));
  EXPECT_THAT(asked, HasSubstr("— awaiting_approval"));
  EXPECT_THAT(asked, Not(HasSubstr("verified")));
  EXPECT_EQ(ReadFile(ics()), before);

  t->Type("y");
  ASSERT_TRUE(t->WaitFor("The budget sync is in your calendar")) << t->Screen();
  ASSERT_TRUE(t->WaitFor("— answered")) << t->Screen();
  std::string screen = t->Screen();
  EXPECT_THAT(screen, HasSubstr("Approved apr_"));
  EXPECT_THAT(screen, HasSubstr("calendar.create_event · verified"));
  EXPECT_EQ(Count(ReadFile(ics()), "SUMMARY:Budget sync"), 1u);
  json approvals = Approvals(w);
  ASSERT_EQ(approvals.size(), 1u);
  EXPECT_EQ(approvals[0].value("status", ""), "executed") << approvals.dump();
}

TEST_F(StagedWriteChat, ReplayScriptModelsWriteDeniedAtThePromptRunsNothingAndSaysSo) {
  t->Type("n");
  ASSERT_TRUE(t->WaitFor("Why (optional)")) << t->Screen();
  t->Type("not this week");
  ASSERT_TRUE(t->WaitFor("— answered")) << t->Screen();
  std::string screen = t->Screen();
  EXPECT_THAT(screen, HasSubstr("Denied apr_"));
  EXPECT_THAT(screen, HasSubstr("calendar.create_event · denied"));
  EXPECT_THAT(screen, HasSubstr("You denied the budget sync, so nothing ran"));
  EXPECT_THAT(screen, Not(HasSubstr("is in your calendar")));
  EXPECT_EQ(ReadFile(ics()), before);
  json approvals = Approvals(w);
  ASSERT_EQ(approvals.size(), 1u);
  EXPECT_EQ(approvals[0].value("status", ""), "denied");
  EXPECT_EQ(approvals[0].value("reason", ""), "not this week");
}

TEST_F(StagedWriteChat, ReplayScriptModelsWriteLeftForLaterIsDecidedWithSlashApprove) {
  t->Type("l");
  ASSERT_TRUE(t->WaitFor("Left pending")) << t->Screen();
  EXPECT_EQ(ReadFile(ics()), before);
  EXPECT_EQ(Approvals(w).at(0).value("status", ""), "pending");
  t->Type("/approve");
  ASSERT_TRUE(t->WaitFor("The budget sync is in your calendar")) << t->Screen();
  EXPECT_EQ(Count(ReadFile(ics()), "SUMMARY:Budget sync"), 1u);
}

// Input from a pipe is never asked anything: /deny decides, and the turn continues.
TEST(TerminalChat, ReplayScriptModelsPipedChatDecidesWithSlashDeny) {
  Workspace w;
  ASSERT_EQ(w.Cli({"grants", "grant", "calendar", "--write"}).exit_code, 0);
  const std::string before = ReadFile(w.dir() + "/connectors/team_week.ics");
  auto r = connect::RunProcess({"/bin/sh", "-c",
                                "printf 'Add a budget sync\\n/deny not now\\n/quit\\n' | " +
                                    w.ChatCommand("", "stage_event.json")},
                               60000);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 0) << r->out << r->err;
  EXPECT_THAT(r->out, Not(HasSubstr("[y]es")));
  EXPECT_THAT(r->out, HasSubstr("Denied apr_"));
  EXPECT_THAT(r->out, HasSubstr("You denied the budget sync, so nothing ran"));
  EXPECT_EQ(ReadFile(w.dir() + "/connectors/team_week.ics"), before);
  EXPECT_EQ(Approvals(w).at(0).value("reason", ""), "not now");
}

// Asks the chat in `t` a question its slow_call.json model answers with a long call, and waits
// until the model is writing that call.
void StartSlowCall(Terminal& t) {
  ASSERT_TRUE(t.WaitFor("› ")) << t.Screen();
  t.Type("What is on this week?");
  ASSERT_TRUE(t.WaitFor("calling RunConnectorCommand")) << t.Screen();
}

// Ctrl-C while the model is writing a call: the call and the turn say cancelled, not malformed,
// and the chat goes on.
TEST(TerminalChat, ReplayScriptModelCtrlCWhileTheModelWritesACallSaysCancelled) {
  if (!HaveTmux()) GTEST_SKIP() << "tmux is not installed (scripts/setup installs it)";
  Workspace w;
  Terminal t(w, 100, 40, w.ChatCommand("", "slow_call.json"));
  StartSlowCall(t);
  t.Keys("C-c");
  ASSERT_TRUE(t.WaitFor("— cancelled")) << t.Screen();
  std::string screen = t.Screen();
  EXPECT_THAT(screen,
              HasSubstr("○ RunConnectorCommand · cancelled while the model was writing it"));
  EXPECT_THAT(screen, Not(HasSubstr("ended inside")));
  EXPECT_THAT(screen, Not(HasSubstr("✗")));
  EXPECT_THAT(screen, Not(HasSubstr("error:")));
  EXPECT_THAT(screen, Not(HasSubstr("^C")));  // the key leaves no mark in the text
  // Still running, at its prompt.
  auto lines = Lines(screen);
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back().rfind("›", 0), 0u) << screen;
}

// The shell's habit at an idle prompt: Ctrl-C clears the line being typed and the chat goes on
// (no ^C on the screen); Ctrl-D leaves.
TEST(TerminalChat, ReplayScriptModelCtrlCAtAnIdlePromptClearsTheLineAndCtrlDLeaves) {
  if (!HaveTmux()) GTEST_SKIP() << "tmux is not installed (scripts/setup installs it)";
  Workspace w;
  Terminal t(w, 100, 40, w.ChatCommand(""));
  ASSERT_TRUE(t.WaitFor("› ")) << t.Screen();
  t.Keys("-l 'half a question'");
  ASSERT_TRUE(t.WaitFor("half a question")) << t.Screen();
  t.Keys("C-c");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_GT(t.ChatPid(), 0) << "Ctrl-C at the prompt killed the chat\n" << t.Screen();
  std::string screen = t.Screen();
  EXPECT_THAT(screen, Not(HasSubstr("^C")));
  EXPECT_THAT(screen, Not(HasSubstr("half a question")));
  // What was typed is gone: the next line is the whole message.
  t.Type("What is on this week?");
  ASSERT_TRUE(t.WaitFor("prompt tokens")) << t.Screen();
  t.Type("/threads");
  ASSERT_TRUE(t.WaitFor("1. What is on this week?  (")) << t.Screen();
  t.Keys("C-d");
  for (int i = 0; i < 50 && t.ChatPid() > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(t.ChatPid(), 0) << "Ctrl-D did not leave\n" << t.Screen();
}

// /resume shows a thread as it read when it streamed: the answer wrapped between words, the
// tool lines, the surface, the citation marks with their legend, the status line.
TEST(TerminalChat, ReplayScriptModelsResumedThreadReadsAsItStreamed) {
  if (!HaveTmux()) GTEST_SKIP() << "tmux is not installed (scripts/setup installs it)";
  Workspace w;
  auto cited = w.Cli({"run", "--script", Source("tests/integration/cli/scripts/cited.json"),
                      "What is on this week?"});
  ASSERT_EQ(cited.exit_code, 0) << cited.err;
  auto table = w.Cli({"run", "--script", Source("tests/integration/cli/scripts/week_table.json"),
                      "What is on this week, as a table?"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  Terminal t(w, 60, 200, w.ChatCommand(""));
  ASSERT_TRUE(t.WaitFor("› ")) << t.Screen();
  // /threads lists the newest first: 2 is the cited answer.
  t.Type("/threads");
  ASSERT_TRUE(t.WaitFor("2. What is on this week?  (")) << t.Screen();
  // The first title is too long for 60 columns with its count and date: they go on the next
  // line, whole (never "2026-12-0" / "4 18:40").
  EXPECT_THAT(t.Screen(), HasSubstr("1. What is on this week, as a table?\n   (2 messages, "));
  t.Type("/resume 2");
  ASSERT_TRUE(t.WaitFor("prose is inference")) << t.Screen();
  std::string screen = t.Screen();
  EXPECT_THAT(screen, HasSubstr("✓ RunConnectorCommand [r1]"));
  EXPECT_THAT(screen, HasSubstr("Your week has events [r1]\u25e6."));
  EXPECT_THAT(screen, HasSubstr("booked [r7]\u2717."));
  EXPECT_THAT(screen, HasSubstr("\u25e6 [r1] source · RunConnectorCommand · calendar"));
  EXPECT_THAT(screen, HasSubstr("\u2717 [r7] invalid · r7 names no tool result of this thread"));
  EXPECT_THAT(screen, HasSubstr("— answered · 2 steps"));
  EXPECT_THAT(screen, HasSubstr("claims 1 source, 1 unresolved, 1 inference"));

  t.Type("/resume 1");
  ASSERT_TRUE(t.WaitFor("— surface_composed")) << t.Screen();
  screen = t.Screen();
  EXPECT_THAT(screen, HasSubstr("✓ ComposeUI"));
  EXPECT_THAT(screen, HasSubstr("▣ surface"));
  EXPECT_THAT(screen, HasSubstr("東京チーム sync"));
  // The answer wraps between words, never inside one: every word of it is whole on some row.
  const std::string rows = t.Rows();
  for (const auto& l : Lines(rows)) EXPECT_LE(text::DisplayWidth(l), 60u) << l;
  std::istringstream words(
      "Your week is in the table above: a standup every weekday morning, planning on Monday "
      "afternoon and the hackathon on Saturday.");
  for (std::string word; words >> word;) {
    EXPECT_THAT(rows, HasSubstr(word)) << rows;
  }
  t.Type("/quit");
}

// A failed turn resumed says why it failed, as the stream did.
TEST(TerminalChat, AResumedFailedTurnSaysItsReason) {
  if (!HaveTmux()) GTEST_SKIP() << "tmux is not installed (scripts/setup installs it)";
  Workspace w;
  auto failed = w.Cli({"run", "--provider", "openai", "--base-url", "http://127.0.0.1:9", "hi"});
  ASSERT_EQ(failed.exit_code, 1) << failed.out << failed.err;
  Terminal t(w, 100, 60, w.ChatCommand(""));
  ASSERT_TRUE(t.WaitFor("› ")) << t.Screen();
  t.Type("/resume 1");
  ASSERT_TRUE(t.WaitFor("— provider_error")) << t.Screen();
  ASSERT_TRUE(t.WaitFor("error: model.connect: ")) << t.Screen();
  EXPECT_THAT(t.Screen(), Not(HasSubstr("(provider_error)")));
}

// An error that names its fix is folded at the terminal's width, never cut: the grant command
// a person must type stays whole.
TEST(TerminalChat, ReplayScriptModelsMissingGrantKeepsTheGrantCommandWholeAt60Columns) {
  if (!HaveTmux()) GTEST_SKIP() << "tmux is not installed (scripts/setup installs it)";
  Workspace w;
  // The parsed list is kept: a range-for over a member of a temporary reads freed memory.
  const json grants = json::parse(w.Cli({"grants", "list", "--json"}).out)["grants"];
  ASSERT_FALSE(grants.empty());
  for (const auto& g : grants) {
    ASSERT_EQ(w.Cli({"grants", "revoke", g["id"].get<std::string>()}).exit_code, 0);
  }
  std::string screen = ChatScreen(w, 60, "", false, "cited.json");
  for (const auto& l : Lines(screen)) EXPECT_LE(text::DisplayWidth(l), 60u) << l << "\n" << screen;
  std::string unfolded;
  for (char c : screen) {
    const bool blank = c == ' ' || c == '\n';
    if (!blank || (!unfolded.empty() && unfolded.back() != ' ')) unfolded += blank ? ' ' : c;
  }
  EXPECT_THAT(unfolded,
              HasSubstr("ask the user to grant it: affordance grants grant calendar --read"))
      << screen;
  // The same in `run` into a pipe (whole lines).
  auto run = w.Cli({"run", "--script", Source("tests/integration/cli/scripts/cited.json"), "hi"});
  EXPECT_THAT(run.out,
              HasSubstr("ask the user to grant it: affordance grants grant calendar --read"))
      << run.out;
}

// kill -9 in the middle of a turn: the next chat says a turn was recovered, and the resumed
// thread shows it interrupted with its reason.
TEST(TerminalChat, ReplayScriptModelKilledMidTurnIsInterruptedAfterARestart) {
  if (!HaveTmux()) GTEST_SKIP() << "tmux is not installed (scripts/setup installs it)";
  Workspace w;
  {
    Terminal t(w, 100, 40, w.ChatCommand("", "slow_call.json"));
    StartSlowCall(t);
    const pid_t pid = t.ChatPid();
    ASSERT_GT(pid, 0);
    ASSERT_EQ(kill(pid, SIGKILL), 0);
  }
  Terminal t(w, 100, 40, w.ChatCommand("", "slow_call.json"));
  ASSERT_TRUE(t.WaitFor("1 interrupted turn was recovered")) << t.Screen();
  t.Type("/resume 1");
  ASSERT_TRUE(t.WaitFor("(interrupted: the process running this turn stopped")) << t.Screen();
  EXPECT_THAT(t.Screen(), HasSubstr("› What is on this week?"));
}

// `run --json` under a signal: the chunks a client reads, and the exit status.
struct RunJsonOutput {
  std::vector<json> chunks;
  int exit_code = -1;
};

// Runs `run --json` with slow_call.json (plus `extra` options), sends `signal` once the model has
// started its call, and returns what it printed.
RunJsonOutput RunJsonUntilSignal(Workspace& w, const char* signal, const std::string& extra = "") {
  const std::string out = w.dir() + "/run.jsonl";
  const std::string cmd =
      "env -u COLUMNS " + Quote(AFFORDANCE_CLI) + " run --json --data " + Quote(w.dir() + "/data") +
      " --connectors " + Quote(w.dir() + "/connectors") + " --script " +
      Quote(Source("tests/integration/cli/scripts/slow_call.json")) + " " + extra +
      " 'What is on this week?' > " + Quote(out) + " & p=$!; i=0; until grep -q tool-input-start " +
      Quote(out) + " || [ $i -gt 600 ]; do sleep 0.05; i=$((i+1)); done; kill -" + signal +
      " $p; wait $p; echo $?";
  auto r = connect::RunProcess({"/bin/sh", "-c", cmd}, 90000);
  RunJsonOutput o;
  if (!r.ok()) return o;
  o.exit_code = std::atoi(r->out.c_str());
  for (const auto& l : Lines(ReadFile(out))) {
    json c = json::parse(l, nullptr, false);
    EXPECT_FALSE(c.is_discarded()) << l;
    o.chunks.push_back(c);
  }
  return o;
}

const json* Chunk(const std::vector<json>& chunks, const std::string& type) {
  for (const auto& c : chunks) {
    if (c.value("type", "") == type) return &c;
  }
  return nullptr;
}

TEST(RunJson, ReplayScriptModelCancelledBySigintEndsCancelledWithAbort) {
  Workspace w;
  auto o = RunJsonUntilSignal(w, "INT");
  EXPECT_EQ(o.exit_code, 130);
  ASSERT_FALSE(o.chunks.empty());
  const json* error = Chunk(o.chunks, "tool-input-error");
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->value("errorText", "").rfind("harness.cancelled", 0), 0u) << error->dump();
  const json* truth = Chunk(o.chunks, "data-truth");
  ASSERT_NE(truth, nullptr);
  EXPECT_EQ((*truth)["data"]["state"], "emitted");
  const json* turn = Chunk(o.chunks, "data-turn");
  ASSERT_NE(turn, nullptr);
  EXPECT_EQ((*turn)["data"]["status"], "cancelled");
  EXPECT_EQ(o.chunks.back(), (json{{"type", "abort"}, {"reason", "cancelled"}}));
}

TEST(RunJson, ReplayScriptModelKilledMidTurnIsSaidInterruptedByTheNextRun) {
  Workspace w;
  auto killed = RunJsonUntilSignal(w, "KILL");
  EXPECT_EQ(killed.exit_code, 137);
  ASSERT_FALSE(killed.chunks.empty());
  EXPECT_EQ(Chunk(killed.chunks, "data-turn"), nullptr) << "a killed process writes no report";
  const std::string thread = killed.chunks.front()["messageMetadata"]["threadId"];
  const std::string message = killed.chunks.front()["messageId"];

  auto next = w.Cli({"run", "--json", "--provider", "replay", "--script",
                     Source("tests/integration/cli/scripts/week_table.json"), "--thread", thread,
                     "What is on this week?"});
  auto lines = Lines(next.out);
  ASSERT_FALSE(lines.empty()) << next.err;
  json first = json::parse(lines.front());
  EXPECT_EQ(first["type"], "data-turn");
  EXPECT_EQ(first["id"], message);
  EXPECT_EQ(first["data"]["status"], "interrupted");
  EXPECT_EQ(first["data"]["error"]["code"], "harness.interrupted");
  EXPECT_EQ(json::parse(lines.at(1))["type"], "start");

  // Once that thread has a newer turn, nothing is said about the old one.
  auto later = w.Cli({"run", "--provider", "replay", "--script",
                      Source("tests/integration/cli/scripts/week_table.json"), "--thread", thread,
                      "And next week?"});
  EXPECT_THAT(later.out, Not(HasSubstr("interrupted")));
}

// Each end state at the command line, as a person reads it (`run` into a pipe: the terminal's
// view without a tty) and as a program reads it (`run --json`), from the same thread.
struct Door {
  connect::ProcessOutput human, json;
  std::vector<nlohmann::json> chunks;
  const nlohmann::json* Of(const std::string& type, const std::string& id = "") const {
    for (const auto& c : chunks) {
      if (c.value("type", "") == type &&
          (id.empty() || c.value("toolCallId", "") == id || c.value("id", "") == id)) {
        return &c;
      }
    }
    return nullptr;
  }
};

// Runs `message` with `script` twice, in two fresh threads (or both continuing `thread`), once
// for each door. `options` are added to both (e.g. another provider).
Door BothDoors(Workspace& w, const std::string& script, const std::string& message,
               std::vector<std::string> options = {}) {
  std::vector<std::string> args = {"run"};
  if (!script.empty()) {
    args.insert(args.end(), {"--provider", "replay", "--script",
                             Source("tests/integration/cli/scripts/" + script)});
  }
  args.insert(args.end(), options.begin(), options.end());
  Door d;
  std::vector<std::string> human = args;
  human.push_back(message);
  d.human = w.Cli(human);
  std::vector<std::string> json = args;
  json.insert(json.end(), {"--json", message});
  d.json = w.Cli(json);
  for (const auto& l : Lines(d.json.out)) d.chunks.push_back(nlohmann::json::parse(l));
  return d;
}

TEST(EndStateDoors, ReplayScriptModelsStagedWritePlusAnotherCallIsAwaitingApprovalAndNotRun) {
  Workspace w;
  ASSERT_EQ(w.Cli({"grants", "grant", "calendar", "--write"}).exit_code, 0);
  Door d = BothDoors(w, "stage_plus_other.json", "Add a budget sync");
  EXPECT_EQ(d.human.exit_code, 0) << d.human.out << d.human.err;
  EXPECT_THAT(d.human.out, HasSubstr("○ ListComponents"));
  EXPECT_THAT(d.human.out, HasSubstr("· not run (parsed)"));
  EXPECT_THAT(d.human.out, HasSubstr("— awaiting_approval"));
  EXPECT_THAT(d.human.out, Not(HasSubstr("cancelled")));
  EXPECT_EQ(d.json.exit_code, 0);
  const auto* other = d.Of("tool-output-error");
  ASSERT_NE(other, nullptr) << d.json.out;
  EXPECT_EQ((*other)["errorText"].get<std::string>().rfind("harness.not_run: ", 0), 0u);
  const auto* truth = d.Of("data-truth", (*other)["toolCallId"]);
  ASSERT_NE(truth, nullptr);
  EXPECT_EQ((*truth)["data"]["state"], "parsed");
  EXPECT_EQ((*d.Of("data-turn"))["data"]["status"], "awaiting_approval");
  EXPECT_EQ(d.chunks.back()["type"], "finish");
  EXPECT_EQ(d.Of("abort"), nullptr);
}

// Evidence on claims at the terminal and in `run --json`: each citation gets its class mark
// inline, a legend names what each reference resolved to, the status line counts the claims.
TEST(EvidenceDoors, ReplayScriptModelsCitationsAreMarkedWithALegendAndListedAsClaims) {
  Workspace w;
  Door d = BothDoors(w, "cited.json", "What is on this week?");
  EXPECT_EQ(d.human.exit_code, 0) << d.human.err;
  EXPECT_THAT(d.human.out, HasSubstr("Your week has events [r1]\u25e6."));
  EXPECT_THAT(d.human.out, HasSubstr("booked [r7]\u2717."));
  EXPECT_THAT(d.human.out, HasSubstr("\u25e6 [r1] source · RunConnectorCommand · calendar · live"));
  EXPECT_THAT(d.human.out, HasSubstr(" rows"));
  EXPECT_THAT(d.human.out,
              HasSubstr("\u2717 [r7] invalid · r7 names no tool result of this thread"));
  EXPECT_THAT(d.human.out, HasSubstr("unmarked prose is inference"));
  EXPECT_THAT(d.human.out, HasSubstr("claims 1 source, 1 unresolved, 1 inference"));

  EXPECT_EQ(d.json.exit_code, 0);
  const auto* turn = d.Of("data-turn");
  ASSERT_NE(turn, nullptr) << d.json.out;
  const auto& claims = (*turn)["data"]["claims"];
  ASSERT_EQ(claims.size(), 3u);
  EXPECT_EQ(claims[0]["class"], "source");
  EXPECT_EQ(claims[0]["text"], "Your week has events [r1].");
  EXPECT_EQ(claims[1]["class"], "unresolved");
  EXPECT_EQ(claims[1]["invalid"][0], "r7");
  EXPECT_EQ(claims[2]["class"], "inference");
  EXPECT_EQ((*turn)["data"]["truth"]["invalidCitations"], 1);
  const auto* cited = d.Of("data-citation");
  ASSERT_NE(cited, nullptr);
  EXPECT_EQ((*cited)["data"]["refs"][0]["class"], "source");
  bool on_end = false;
  for (const auto& c : d.chunks) {
    if (c.value("type", "") == "text-end" && c.contains("citations")) on_end = true;
  }
  EXPECT_TRUE(on_end);
}

TEST(EndStateDoors, ReplayScriptModelsMalformedCallIsEmittedAndSaidSo) {
  Workspace w;
  Door d = BothDoors(w, "malformed.json", "What is on?");
  EXPECT_EQ(d.human.exit_code, 0) << d.human.err;
  EXPECT_THAT(d.human.out, HasSubstr("✗ malformed call"));
  EXPECT_THAT(d.human.out, HasSubstr("Sorry, that call was malformed."));
  const auto* error = d.Of("tool-input-error");
  ASSERT_NE(error, nullptr) << d.json.out;
  const auto* truth = d.Of("data-truth", (*error)["toolCallId"]);
  ASSERT_NE(truth, nullptr);
  EXPECT_EQ((*truth)["data"]["state"], "emitted");
}

TEST(EndStateDoors, AProviderErrorEndsTheTurnWithItsReasonAndExitsOne) {
  Workspace w;
  // Nothing listens on port 9 of this machine: the engine is unreachable.
  Door d =
      BothDoors(w, "", "What is on?", {"--provider", "openai", "--base-url", "http://127.0.0.1:9"});
  EXPECT_EQ(d.human.exit_code, 1);
  EXPECT_THAT(d.human.out + d.human.err, HasSubstr("— provider_error"));
  EXPECT_THAT(d.human.out + d.human.err, HasSubstr("model.connect"));
  const auto* turn = d.Of("data-turn");
  ASSERT_NE(turn, nullptr) << d.json.out;
  EXPECT_EQ((*turn)["data"]["status"], "provider_error");
  EXPECT_EQ((*turn)["data"]["error"]["code"], "model.connect");
  EXPECT_EQ(d.json.exit_code, 1);
}

// A repeatable option takes one value per occurrence: the message after it stays the message.
TEST(EndStateDoors, ReplayScriptModelRepeatableOptionsNeverSwallowTheMessage) {
  Workspace w;
  std::filesystem::create_directories(w.dir() + "/skills");
  auto r = w.Cli({"run", "--script", Source("tests/integration/cli/scripts/malformed.json"),
                  "--skills", w.dir() + "/skills", "--skills", w.dir() + "/skills", "What is on?"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("Sorry, that call was malformed."));
}

// What a model or a source writes cannot style, move or erase the person's screen: escape
// sequences, carriage returns and C1 controls in prose, call arguments and an effect card's title
// print as spaces, in `run`, `chat` (tmux) and `approvals show`.
TEST(EndStateDoors, ReplayScriptModelsEscapeSequencesNeverReachTheScreen) {
  Workspace w;
  ASSERT_EQ(w.Cli({"grants", "grant", "calendar", "--write"}).exit_code, 0);
  auto run = w.Cli({"run", "--script", Source("tests/integration/cli/scripts/escapes.json"),
                    "Add a budget sync"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out.find('\033'), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find('\r'), std::string::npos);
  EXPECT_EQ(run.out.find("\u009b"), std::string::npos);
  EXPECT_THAT(run.out, HasSubstr("Budget  [8msync"));
  auto listed = json::parse(w.Cli({"approvals", "list", "--json"}).out);
  const json& list = listed.is_array() ? listed : listed["approvals"];
  ASSERT_FALSE(list.empty());
  auto shown =
      w.Cli({"approvals", "show", list.at(0).value("id", list.at(0).value("approvalId", ""))});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_EQ(shown.out.find('\033'), std::string::npos) << shown.out;
  EXPECT_THAT(shown.out, HasSubstr("Create event “Budget  [8msync [0m  [2K”"));
  if (!HaveTmux()) return;
  // On a terminal, with colour: only our own styling, never the model's conceal (SGR 8).
  Terminal t(w, 100, 60, w.ChatCommand("", "escapes.json"));
  ASSERT_TRUE(t.WaitFor("› ")) << t.Screen();
  t.Type("Add a budget sync");
  ASSERT_TRUE(t.WaitFor("[y]es, [n]o, [l]ater")) << t.Screen();
  const std::string styled = t.Screen(true);
  EXPECT_EQ(styled.find("\033[8m"), std::string::npos) << styled;
  EXPECT_THAT(t.Screen(), HasSubstr("Budget  [8msync"));
}

// Stages the budget sync in a new thread; returns {thread, approval id}.
std::pair<std::string, std::string> StageBudgetSync(Workspace& w) {
  auto staged =
      w.Cli({"run", "--json", "--provider", "replay", "--script",
             Source("tests/integration/cli/scripts/stage_event.json"), "Add a budget sync"});
  EXPECT_EQ(staged.exit_code, 0) << staged.err;
  std::string thread, approval;
  for (const auto& l : Lines(staged.out)) {
    auto c = nlohmann::json::parse(l);
    if (c["type"] == "start") thread = c["messageMetadata"]["threadId"];
    if (c["type"] == "tool-approval-request") approval = c["approvalId"];
  }
  EXPECT_FALSE(approval.empty()) << staged.out;
  return {thread, approval};
}

TEST(EndStateDoors, ReplayScriptModelsApprovedWriteRefusedAtExecutionReadsRefusedEverywhere) {
  Workspace w;
  ASSERT_EQ(w.Cli({"grants", "grant", "calendar", "--write"}).exit_code, 0);
  const std::string before = ReadFile(w.dir() + "/connectors/team_week.ics");
  auto [thread, approval] = StageBudgetSync(w);
  ASSERT_EQ(w.Cli({"approvals", "approve", approval}).exit_code, 0);
  // The write grant is revoked after the approval and before the effect runs.
  auto grants = json::parse(w.Cli({"grants", "list", "--json"}).out)["grants"];
  for (const auto& g : grants) {
    if (g["access"] == "write") {
      ASSERT_EQ(w.Cli({"grants", "revoke", g["id"]}).exit_code, 0);
    }
  }
  Door d = BothDoors(w, "after_decision.json", "Is it done?", {"--thread", thread});
  EXPECT_EQ(d.human.exit_code, 0) << d.human.err;
  // The human door ran first: it is the one that ran into the refusal.
  EXPECT_THAT(d.human.out, HasSubstr(approval + " calendar.create_event · refused"));
  EXPECT_THAT(d.human.out, HasSubstr("refused before it ran: authority."));
  EXPECT_THAT(d.human.out, HasSubstr("approved but refused before it ran, so nothing changed"));
  EXPECT_EQ(ReadFile(w.dir() + "/connectors/team_week.ics"), before);
  // Told once: the next turn does not report it again, and says nothing stronger.
  EXPECT_EQ(d.Of("data-approval"), nullptr) << d.json.out;
  EXPECT_THAT(d.json.out, Not(HasSubstr("is in your calendar")));
  auto shown = json::parse(w.Cli({"approvals", "show", approval, "--json"}).out);
  const json& a = shown.contains("approval") ? shown["approval"] : shown;
  EXPECT_EQ(a.value("state", a.value("status", "")), "refused") << shown.dump();
  auto activity = w.Cli({"activity", "--json"});
  EXPECT_THAT(activity.out, HasSubstr("\"refuse\"")) << activity.out;
}

TEST(EndStateDoors,
     ReplayScriptModelsWriteWhoseProcessDiedMidExecutionIsOutcomeUnknownWithReconcile) {
  Workspace w;
  ASSERT_EQ(w.Cli({"grants", "grant", "calendar", "--write"}).exit_code, 0);
  auto [thread, approval] = StageBudgetSync(w);
  ASSERT_EQ(w.Cli({"approvals", "approve", approval}).exit_code, 0);
  {
    // What a crash between dispatch and receipt leaves: the row executing, its key taken, its
    // executor a process of this host that is gone.
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((w.dir() + "/data/affordance.db").c_str(), &db), SQLITE_OK);
    const std::string sql = "UPDATE approvals SET status = 'executing', idempotency_key = 'k-" +
                            approval + "', executor = '99999999@" + host + "' WHERE id = '" +
                            approval + "'";
    char* err = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << err;
    sqlite3_free(err);
    sqlite3_close(db);
  }
  Door d = BothDoors(w, "after_decision.json", "Is it done?", {"--thread", thread});
  EXPECT_EQ(d.human.exit_code, 0) << d.human.err;
  EXPECT_THAT(d.human.out, HasSubstr(approval + " calendar.create_event · outcome_unknown"));
  EXPECT_THAT(d.human.out, HasSubstr("affordance reconcile " + approval));
  EXPECT_THAT(d.human.out, HasSubstr("whether it took effect is not known"));
  // Not settled: every later turn says it again until reconcile settles it.
  const auto* again = d.Of("data-approval");
  ASSERT_NE(again, nullptr) << d.json.out;
  EXPECT_EQ((*again)["data"]["state"], "outcome_unknown");
  auto activity = w.Cli({"activity", "--json"});
  EXPECT_THAT(activity.out, HasSubstr("\"recover\"")) << activity.out;
}

}  // namespace
}  // namespace affordance::cli

// RecoverInterrupted, and a real crash: a child process writing parts is killed with SIGKILL and
// the file it leaves behind is checked.
#include "support.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <sstream>

namespace affordance::store {
namespace {

using nlohmann::json;
using testing::RawSql;
using testing::StoreFixture;

class StoreRecovery : public StoreFixture {};

TEST_F(StoreRecovery, MarksRunningMessagesStepsAndOpenParts) {
  auto t = NewThread();
  auto done = NewMessage(t.id, "assistant", "complete", {{"terminal", "stop"}});
  PartRecord left_open = Part(0, "a complete message keeps its open part", /*open=*/true);
  STORE_ASSERT_OK(store_->PutPart(done.id, left_open));
  auto running = NewMessage(t.id, "assistant", "running", {{"provider", "replay"}});
  PartRecord streaming = Part(0, "Hal", /*open=*/true);
  PartRecord closed = Part(1, "done text", /*open=*/false);
  PartRecord call = Part(2, "", /*open=*/true);
  call.kind = "tool";
  call.key = "call_1";
  call.state = "parsed";
  call.data = {{"name", "ToolSearch"}, {"input", {{"query", "calendar"}}}};
  for (const auto& p : {streaming, closed, call}) STORE_ASSERT_OK(store_->PutPart(running.id, p));
  StepRecord finished;
  finished.index = 0;
  finished.status = "finished";
  finished.finished_ms = 42;
  StepRecord step;
  step.index = 1;
  step.status = "running";
  step.tokens = {151657};
  STORE_ASSERT_OK(store_->PutStep(running.id, finished));
  STORE_ASSERT_OK(store_->PutStep(running.id, step));
  auto other = NewThread("idle");
  auto idle = NewMessage(other.id, "user", "complete");

  auto recovered = store_->RecoverInterrupted();
  ASSERT_TRUE(recovered.ok()) << recovered.error().ToString();
  EXPECT_EQ(*recovered, 1);

  auto m = store_->LoadMessage(running.id);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->status, "interrupted");
  EXPECT_EQ(m->meta, json({{"provider", "replay"}}));
  ASSERT_EQ(m->parts.size(), 3u);
  EXPECT_FALSE(m->parts[0].open);
  EXPECT_EQ(m->parts[0].state, "interrupted");
  EXPECT_EQ(m->parts[0].data, json({{"text", "Hal"}, {"interrupted", true}}));
  EXPECT_FALSE(m->parts[1].open);  // closed parts are untouched
  EXPECT_EQ(m->parts[1].state, "parsed");
  EXPECT_EQ(m->parts[1].data, json({{"text", "done text"}}));
  EXPECT_EQ(m->parts[2].state, "interrupted");
  EXPECT_EQ(m->parts[2].key, "call_1");
  EXPECT_EQ(m->parts[2].data["interrupted"], true);
  EXPECT_EQ(m->parts[2].data["input"]["query"], "calendar");
  ASSERT_EQ(m->steps.size(), 2u);
  EXPECT_EQ(m->steps[0].status, "finished");
  EXPECT_EQ(m->steps[0].finished_ms, 42);
  EXPECT_EQ(m->steps[1].status, "interrupted");
  EXPECT_EQ(m->steps[1].tokens, std::vector<int32_t>{151657});

  auto c = store_->LoadMessage(done.id);  // complete messages are untouched, open parts and all
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->status, "complete");
  ASSERT_EQ(c->parts.size(), 1u);
  EXPECT_TRUE(c->parts[0].open);
  EXPECT_EQ(c->parts[0].state, "emitted");
  EXPECT_EQ(c->parts[0].data, left_open.data);
  EXPECT_EQ(store_->LoadMessage(idle.id)->updated_ms, idle.updated_ms);

  auto list = store_->ListThreads();  // recovery is a write to the thread
  ASSERT_TRUE(list.ok());
  EXPECT_EQ((*list)[0].id, t.id);

  auto again = store_->RecoverInterrupted();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 0);
}

TEST_F(StoreRecovery, RunningStepOfAFinishedMessageIsInterruptedToo) {
  auto t = NewThread();
  auto m = NewMessage(t.id, "assistant", "complete");
  STORE_ASSERT_OK(store_->PutStep(m.id, StepRecord{}));
  auto recovered = store_->RecoverInterrupted();
  ASSERT_TRUE(recovered.ok());
  EXPECT_EQ(*recovered, 0);  // it counts messages
  EXPECT_EQ(store_->LoadMessage(m.id)->steps[0].status, "interrupted");
  EXPECT_EQ(store_->LoadMessage(m.id)->status, "complete");
}

TEST_F(StoreRecovery, CorruptedOpenPartIsAnErrorAndChangesNothing) {
  auto t = NewThread();
  auto m = NewMessage(t.id);
  STORE_ASSERT_OK(store_->PutPart(m.id, Part(0, "x", /*open=*/true)));
  ASSERT_EQ(Raw("UPDATE parts SET data = '{'"), "");
  auto recovered = store_->RecoverInterrupted();
  ASSERT_FALSE(recovered.ok());
  EXPECT_EQ(recovered.error().code, "store.io");
  EXPECT_EQ(recovered.error().message,
            "the data of part 0 of message " + m.id + " is corrupted: not a JSON object");
  EXPECT_EQ(Raw("SELECT status FROM messages"), "running");  // rolled back as a whole
}

// ---- a real crash -------------------------------------------------------------------------------

struct Child {
  pid_t pid = -1;
  int out = -1;  // read end of the child's stdout
};

Child SpawnWriter(const std::string& db) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    execl(STORE_CRASH_WRITER, STORE_CRASH_WRITER, db.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  return {pid, fds[0]};
}

// Reads whole lines from `fd` into `lines` until `enough` says stop, EOF, or the deadline.
void ReadLines(int fd, std::vector<std::string>& lines, std::string& pending,
               const std::function<bool()>& enough, std::chrono::seconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  char buf[4096];
  while (!enough() && std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) return;
    pending.append(buf, static_cast<size_t>(n));
    size_t nl;
    while ((nl = pending.find('\n')) != std::string::npos) {
      lines.push_back(pending.substr(0, nl));
      pending.erase(0, nl + 1);
    }
  }
}

TEST_F(StoreRecovery, SigkillWhileWritingPartsLosesNothingCommitted) {
  store_.reset();  // the child is the only writer
  Child child = SpawnWriter(path_);
  ASSERT_GT(child.pid, 0);
  std::vector<std::string> lines;
  std::string pending;
  constexpr size_t kBeforeKill = 400;  // reported writes before the kill
  ReadLines(
      child.out, lines, pending, [&] { return lines.size() >= kBeforeKill; },
      std::chrono::seconds(60));
  // Parts also exist in the file (another connection sees them) before the kill.
  std::string rows = RawSql(path_, "SELECT count(*) FROM parts");
  ASSERT_EQ(kill(child.pid, SIGKILL), 0);
  int wstatus = 0;
  ASSERT_EQ(waitpid(child.pid, &wstatus, 0), child.pid);
  ASSERT_TRUE(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL)
      << "the writer exited on its own (status " << wstatus << ") after " << lines.size()
      << " lines";
  // Lines written before the kill are still in the pipe.
  ReadLines(
      child.out, lines, pending, [] { return false; }, std::chrono::seconds(5));
  close(child.out);
  ASSERT_GE(lines.size(), kBeforeKill);
  ASSERT_EQ(lines[0].rfind("m ", 0), 0u);
  std::string message_id = lines[0].substr(2);
  EXPECT_GE(std::stoll(rows), 1);

  EXPECT_EQ(RawSql(path_, "PRAGMA integrity_check"), "ok");
  auto opened = OpenSqlite(path_);
  ASSERT_TRUE(opened.ok()) << opened.error().ToString();
  store_ = std::move(*opened);
  EXPECT_EQ(RawSql(path_, "PRAGMA integrity_check"), "ok");
  auto recovered = store_->RecoverInterrupted();
  ASSERT_TRUE(recovered.ok()) << recovered.error().ToString();
  EXPECT_EQ(*recovered, 1);

  auto m = store_->LoadMessage(message_id);
  ASSERT_TRUE(m.ok()) << m.error().ToString();
  EXPECT_EQ(m->status, "interrupted");
  EXPECT_EQ(m->meta, json({{"provider", "crash"}}));
  ASSERT_EQ(m->steps.size(), 1u);
  EXPECT_EQ(m->steps[0].status, "interrupted");
  EXPECT_EQ(m->steps[0].tokens, (std::vector<int32_t>{151657, 128009, 1, 2, 3}));

  // What the child reported is the floor of what must be there: the last report per seq.
  std::map<int64_t, char> reported;  // seq -> 'o' (committed open) or 'c' (committed closed)
  for (size_t i = 1; i < lines.size(); ++i) {
    std::istringstream in(lines[i]);
    char what = 0;
    int64_t seq = -1;
    in >> what >> seq;
    ASSERT_TRUE(what == 'o' || what == 'c') << lines[i];
    reported[seq] = what;
  }
  ASSERT_FALSE(reported.empty());
  int64_t last = reported.rbegin()->first;
  ASSERT_GE(m->parts.size(), static_cast<size_t>(last + 1));
  ASSERT_LE(m->parts.size(), static_cast<size_t>(last + 2));  // at most one write in flight
  int interrupted = 0;
  for (size_t i = 0; i < m->parts.size(); ++i) {
    const PartRecord& p = m->parts[i];
    ASSERT_EQ(p.seq, static_cast<int64_t>(i));  // no holes
    EXPECT_EQ(p.data["i"], p.seq);
    EXPECT_EQ(p.data["text"], "Grüße, part " + std::to_string(p.seq));
    EXPECT_FALSE(p.open);  // recovery closed every open part
    auto it = reported.find(p.seq);
    if (it != reported.end() && it->second == 'c') {
      EXPECT_EQ(p.state, "parsed") << "seq " << p.seq;
      EXPECT_FALSE(p.data.contains("interrupted"));
    } else if (p.state == "interrupted") {
      EXPECT_EQ(p.data["interrupted"], true);
      ++interrupted;
    } else {
      // Closed by a write whose report the kill cut off.
      EXPECT_EQ(p.state, "parsed") << "seq " << p.seq;
      EXPECT_EQ(p.seq, last);
    }
  }
  // Every third part stays open by design, plus perhaps the one the kill interrupted.
  EXPECT_GE(interrupted, static_cast<int>(last / 3));
}

}  // namespace
}  // namespace affordance::store

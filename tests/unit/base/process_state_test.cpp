// Whether a turn's or an effect's process still runs (base/process_state.h), with real processes.
#include "base/process_state.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace affordance {
namespace {

TEST(ProcessState, ThisProcessRunsAndItsStartTimeIsKnown) {
  const long long start = ProcessStartTime(getpid());
  EXPECT_GT(start, 0);
  EXPECT_FALSE(ProcessGone(getpid(), start));
  EXPECT_FALSE(ProcessGone(getpid()));
  // The same pid with another start time is another process: the recorded one is gone.
  EXPECT_TRUE(ProcessGone(getpid(), start + 1));
  EXPECT_TRUE(ProcessGone(0));
  EXPECT_TRUE(ProcessGone(-5));
}

// kill -9 of a turn's process: until its parent reaps it, the pid is a zombie, which runs
// nothing; recovery must not wait for the reaping.
TEST(ProcessState, AKilledChildNotYetReapedIsGone) {
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pause();
    _exit(0);
  }
  const long long start = ProcessStartTime(child);
  EXPECT_FALSE(ProcessGone(child, start));
  ASSERT_EQ(kill(child, SIGKILL), 0);
  // Not reaped: the pid still exists (a zombie) once the kill has landed.
  for (int i = 0; i < 200 && !ProcessGone(child, start); ++i) usleep(10000);
  EXPECT_EQ(kill(child, 0), 0) << "still a zombie";
  EXPECT_TRUE(ProcessGone(child, start));
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(ProcessGone(child, start));
}

}  // namespace
}  // namespace affordance

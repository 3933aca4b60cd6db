// The child of the crash test (store_recovery_test.cpp): opens the store at argv[1], starts a
// running assistant message with a running step, then writes parts forever. After each write
// returns it reports on stdout, unbuffered, so every reported line is a committed write:
//   m <message id>      the message exists
//   o <seq>             part <seq> is committed, open, state "emitted"
//   c <seq>             part <seq> is committed, closed, state "parsed"
// Every third part stays open. The parent kills it with SIGKILL at a moment of its choosing.
#include "store/store.h"

#include <unistd.h>

#include <cstdio>
#include <string>

namespace {

using namespace affordance::store;

void Report(const std::string& line) {
  std::string text = line + "\n";
  if (write(STDOUT_FILENO, text.data(), text.size()) != static_cast<ssize_t>(text.size())) _exit(3);
}

int Fail(const affordance::Error& e) {
  std::fprintf(stderr, "store-crash-writer: %s: %s\n", e.code.c_str(), e.ToString().c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: store-crash-writer <db path>\n");
    return 1;
  }
  auto store = OpenSqlite(argv[1]);
  if (!store) return Fail(store.error());
  auto thread = (*store)->CreateThread("crash");
  if (!thread) return Fail(thread.error());
  auto msg = (*store)->AddMessage(thread->id, "assistant", "running", {{"provider", "crash"}});
  if (!msg) return Fail(msg.error());
  StepRecord step;
  step.tokens = {151657, 128009, 1, 2, 3};
  step.started_ms = NowMs();
  if (auto s = (*store)->PutStep(msg->id, step); !s) return Fail(s.error());
  Report("m " + msg->id);
  for (int64_t seq = 0;; ++seq) {
    PartRecord part;
    part.seq = seq;
    part.step = 0;
    part.kind = "text";
    part.key = "text-" + std::to_string(seq);
    part.state = "emitted";
    part.open = true;
    part.data = {{"i", seq}, {"text", "Grüße, part " + std::to_string(seq)}};
    if (auto s = (*store)->PutPart(msg->id, part); !s) return Fail(s.error());
    Report("o " + std::to_string(seq));
    if (seq % 3 == 0) continue;
    part.open = false;
    part.state = "parsed";
    if (auto s = (*store)->PutPart(msg->id, part); !s) return Fail(s.error());
    Report("c " + std::to_string(seq));
  }
}
